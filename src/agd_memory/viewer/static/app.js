// Entry point: loads the project list and one project's memory, wires the views, the picker,
// the theme, keyboard shortcuts and the live reload. Talks only to the server it came from.
import { clear, el, fmtBytes, fmtDate } from "./dom.js";
import { clearSelection, fit, focusNode, linkedOnlyChanged, relayout, restyle, select, showGraph } from "./graph.js";
import { collapseAll, expandAll, jumpTo, renderRead } from "./read.js";
import { loadHistory, setupHistory } from "./history.js";
import { loadReview } from "./review.js";
import { closePalette, openPalette, paletteOpen, setupPalette } from "./search.js";
import { actions, setData, state } from "./state.js";

const POLL_MS = 2000;
const $ = (id) => document.getElementById(id);

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  let data = null;
  try { data = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) throw new Error(data?.error || `${url}: HTTP ${response.status}`);
  return data;
}

function banner(kind, text, detail) {
  $("banners").append(el("div", { class: `banner ${kind}` },
    el("strong", { text }), detail ? el("span", { text: ` ${detail}` }) : null));
}

let toastTimer = null;
actions.toast = (text) => {
  const toast = $("toast");
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, 2500);
};

function setView(view) {
  state.view = view;
  $("read-view").hidden = view !== "read";
  $("graph-view").hidden = view !== "graph";
  $("review-view").hidden = view !== "review";
  $("history-view").hidden = view !== "history";
  for (const b of document.querySelectorAll(".seg [data-view]")) {
    b.setAttribute("aria-selected", b.dataset.view === view ? "true" : "false");
  }
  document.body.dataset.view = view;
  if (view === "graph") showGraph();
  if (view === "review") loadReview();
  if (view === "history") loadHistory();
}

actions.jump = (uid, { fromSearch = false } = {}) => {
  if (fromSearch && state.view === "graph" && typeof window.cytoscape === "function") {
    select(uid); // the palette over the graph selects the node and stays in the graph
    return;
  }
  setView("read");
  if (jumpTo(uid)) history.replaceState(null, "", `${location.search}#${encodeURIComponent(uid)}`);
};

actions.reload = () => { loadMemory({ quiet: true }); loadReview(); };

actions.showInGraph = (uid) => {
  setView("graph");
  focusNode(uid);
};

function fillPicker() {
  const picker = clear($("project"));
  const { projects, global } = state.projects;
  for (const p of projects) {
    const name = p.remote ? `${p.remote}  (${p.display})` : p.display;
    const about = p.exists ? `${fmtBytes(p.bytes)}  ·  ${fmtDate(p.mtime)}` : "no memory yet";
    picker.append(el("option", { value: p.key, text: `${name}  ·  ${about}`, title: p.path }));
  }
  if (global.exists) {
    picker.append(el("option", { value: global.key, text: `Global layer only  ·  ${fmtBytes(global.bytes)}`, title: global.path }));
  }
  if (!picker.options.length) picker.append(el("option", { value: state.key, text: "(no memory found)" }));
  picker.value = state.key;
  picker.disabled = picker.options.length < 2;
}

function renderLayerInfo() {
  const { layers } = state.data;
  const path = $("path");
  const project = layers.find((l) => l.name === "project");
  const shown = project || layers[0];
  path.textContent = shown ? shown.path : "";
  path.title = layers.map((l) => `${l.name}: ${l.path}${l.exists ? "" : " (no file yet)"}`).join("\n");
  clear($("banners"));
  for (const l of layers) {
    if (l.error) {
      banner("error", `The ${l.name} memory file does not parse, so its blocks are not shown.`,
        `${l.path}: ${l.error} — fix the file (agd validate shows every problem), the page reloads by itself.`);
    }
  }
}

function render() {
  renderLayerInfo();
  renderRead();
  if (state.view === "graph") showGraph();
}

async function loadMemory({ quiet = false } = {}) {
  let data;
  try {
    data = await getJSON(`/memory.json?project=${encodeURIComponent(state.key)}`);
  } catch (err) {
    if (state.key !== state.projects.initial) {
      banner("error", "That project is not available.", `${err.message} Showing the default one.`);
      state.key = state.projects.initial;
      $("project").value = state.key;
      return loadMemory({ quiet });
    }
    banner("error", "Could not load the memory.", err.message);
    return;
  }
  const scroll = window.scrollY;
  setData(data);
  render();
  if (quiet) window.scrollTo(0, scroll);
}

const PROJECTS_EVERY = 15; // polls: the project list is refreshed every 30 s
let polls = 0;

async function poll() {
  if (document.hidden || !state.data) return;
  if (++polls % PROJECTS_EVERY === 0) {
    try {
      const projects = await getJSON("/projects.json");
      if (JSON.stringify(projects.projects.map((p) => [p.key, p.exists])) !== JSON.stringify(state.projects.projects.map((p) => [p.key, p.exists]))) {
        state.projects = projects;
        fillPicker();
      }
    } catch { /* keep the list shown */ }
  }
  loadReview();
  try {
    const { version } = await getJSON(`/version.json?project=${encodeURIComponent(state.key)}`);
    if (version !== state.data.version) {
      await loadMemory({ quiet: true });
      actions.toast("Memory changed on disk — reloaded");
    }
    serverGone = false;
  } catch (err) {
    // Keep what is shown; say once that it will no longer update (the server stops by itself
    // after --idle-exit, or was stopped).
    if (!serverGone && err instanceof TypeError) {
      serverGone = true;
      banner("error", "The viewer's server is not running any more, so this page no longer updates.",
        "Start it again (agd-memory view, or the memory-view skill) and reload.");
    }
  }
}
let serverGone = false;

function setupTheme() {
  $("theme").addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme !== "dark";
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    try { localStorage.setItem("agd-viewer-theme", dark ? "dark" : "light"); } catch { /* storage off */ }
    restyle();
  });
}

function typingIn(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function setupKeys() {
  if (/Mac|iPhone|iPad/.test(navigator.platform)) $("search-kbd").textContent = "⌘K";
  document.addEventListener("keydown", (e) => {
    if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === "k") {
      e.preventDefault();
      if (paletteOpen()) closePalette();
      else openPalette();
    } else if (e.key === "/" && !typingIn(e.target) && !paletteOpen()) {
      e.preventDefault();
      openPalette();
    } else if (e.key === "Escape") {
      if (paletteOpen()) closePalette();
      else if (state.view === "graph") clearSelection();
    }
  });
}

function setupControls() {
  $("open-search").addEventListener("click", openPalette);
  for (const b of document.querySelectorAll(".seg [data-view]")) b.addEventListener("click", () => setView(b.dataset.view));
  $("expand-all").addEventListener("click", expandAll);
  $("collapse-all").addEventListener("click", collapseAll);
  $("group-by").addEventListener("change", (e) => { state.group = e.target.value; renderRead(); });
  $("graph-fit").addEventListener("click", fit);
  $("graph-relayout").addEventListener("click", relayout);
  $("graph-linked").addEventListener("change", linkedOnlyChanged);
  $("project").addEventListener("change", async (e) => {
    state.key = e.target.value;
    state.expanded.clear();
    state.hiddenLayers.clear();
    const url = new URL(location.href);
    url.searchParams.set("project", state.key);
    url.hash = "";
    history.replaceState(null, "", url);
    await loadMemory();
    loadReview();
    if (state.view === "history") loadHistory();
    window.scrollTo(0, 0);
  });
}

async function boot() {
  setupTheme();
  setupKeys();
  setupControls();
  setupPalette();
  setupHistory();
  // Both requests at once: without ?project= the server answers for the initial project.
  const asked = new URLSearchParams(location.search).get("project");
  const first = getJSON(asked ? `/memory.json?project=${encodeURIComponent(asked)}` : "/memory.json").catch(() => null);
  try {
    state.projects = await getJSON("/projects.json");
  } catch (err) {
    banner("error", "The viewer's server did not answer.", err.message);
    return;
  }
  state.key = asked || state.projects.initial;
  fillPicker();
  const data = await first;
  if (data && data.key === state.key) {
    setData(data);
    render();
  } else {
    await loadMemory();
  }
  setView("read");
  loadReview();
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash && state.byUid.has(hash)) jumpTo(hash);
  performance.mark("agd-first-render"); // the DOM of the read view is built
  requestAnimationFrame(() => setTimeout(() => performance.mark("agd-first-paint"))); // and painted
  document.body.dataset.ready = "true";
  setInterval(poll, POLL_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
}

boot();

// Read view: blocks grouped by kind or by section, one row each; a row expands to its body
// rendered as Markdown, its refs and backlinks.
import {
  clear, compareKinds, el, excerpt, fmtBytes, kindChip, kindTitle, layerBadge, plural, statusChip,
} from "./dom.js";
import { refLink, renderBody } from "./markdown.js";
import { actions, isSuperseded, resolveId, state } from "./state.js";
import { editControls } from "./entryedit.js";

const rows = new Map(); // uid -> {article, main}
let spy = null; // highlights the outline entry of the group at the top of the screen
const OUTLINE_IDS_PER_GROUP = 40;

export function visibleBlocks() {
  return state.data.blocks.filter((b) => !state.hiddenLayers.has(b.layer));
}

function groupsOf(blocks) {
  const groups = new Map();
  const add = (key, make, block) => {
    if (!groups.has(key)) groups.set(key, { key, ...make(), blocks: [] });
    groups.get(key).blocks.push(block);
  };
  if (state.group === "kind") {
    for (const b of blocks) add(`kind:${b.kind}`, () => ({ title: kindTitle(b.kind), kind: b.kind }), b);
    return [...groups.values()].sort((a, b) => compareKinds(a.kind, b.kind));
  }
  const sections = new Map(state.data.sections.map((s) => [s.uid, s]));
  for (const b of blocks) {
    const section = sections.get(b.section);
    add(b.section || `${b.layer}:notes`, () => ({
      title: section ? section.title : "Notes", layer: b.layer, sectionId: section ? section.id : null,
    }), b);
  }
  return [...groups.values()];
}

function dateChip(b) {
  const date = b.updated || b.created;
  if (!date) return el("span", { class: "chip date none", text: "—" });
  const title = [b.created && `created ${b.created}`, b.updated && `updated ${b.updated}`].filter(Boolean).join(" · ");
  return el("span", { class: "chip date", text: date, title });
}

function counts(b) {
  const refs = b.refs.length;
  const back = b.backlinks.length;
  return el("span", { class: "counts" },
    el("span", { class: refs ? "count" : "count zero", title: plural(refs, "ref"), text: `→ ${refs}` }),
    el("span", { class: back ? "count" : "count zero", title: plural(back, "backlink"), text: `← ${back}` }));
}

function row(b) {
  const superseded = isSuperseded(b);
  const main = el("div", {
    class: "row-main", role: "button", tabindex: "0", "aria-expanded": "false",
    onclick: () => toggle(b.uid),
    onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(b.uid); } },
  },
  el("span", { class: "cell kind-cell" }, kindChip(b.kind)),
  el("span", { class: "cell id-cell" }, el("code", { class: "bid", text: `#${b.id}` }), b.layer !== "project" ? layerBadge(b.layer) : null),
  el("span", { class: "cell text-cell" },
    el("span", { class: b.desc ? "desc" : "desc none", text: b.desc || "(no description)" }),
    el("span", { class: "excerpt", text: excerpt(b.body) })),
  el("span", { class: "cell meta-cell" }, dateChip(b), statusChip(superseded ? "superseded" : b.status)),
  el("span", { class: "cell links-cell" }, counts(b)));
  const article = el("article", {
    class: `row${superseded ? " superseded" : ""}`, id: `b-${b.uid}`, dataset: { uid: b.uid },
  }, main);
  rows.set(b.uid, { article, main });
  if (state.expanded.has(b.uid)) open(b.uid);
  return article;
}

function linkList(links, emptyText) {
  if (!links.length) return el("span", { class: "muted", text: emptyText });
  return el("span", { class: "link-list" }, links.map((link) => (link.uid
    ? refLink(`#${link.id}`, link.uid, actions.jump)
    : el("span", { class: "ref-link missing", text: `#${link.id}`, title: "no block with this id" }))));
}

function field(label, ...value) {
  return el("div", { class: "field" }, el("span", { class: "field-label", text: label }), el("span", { class: "field-value" }, ...value));
}

export function details(b, { graphButton = true } = {}) {
  const body = el("div", { class: "detail-body" });
  renderBody(body, b.body, { resolveId: (id) => resolveId(id, b.layer), onRef: actions.jump });
  const extra = Object.entries(b.attrs)
    .filter(([k]) => !["created", "updated", "status", "refs", "supersedes"].includes(k))
    .map(([k, v]) => el("span", { class: "attr" }, el("span", { class: "attr-k", text: k }), el("span", { class: "attr-v", text: String(v) })));
  const layer = state.data.layers.find((l) => l.name === b.layer);
  const side = el("div", { class: "detail-side" },
    field("Refs", linkList(b.refs, "none")),
    field("Backlinks", linkList(b.backlinks, "none")),
    b.supersedes.length ? field("Supersedes", linkList(b.supersedes, "")) : null,
    b.superseded_by.length ? field("Superseded by", linkList(b.superseded_by, "")) : null,
    field("Created", b.created || "—"),
    b.updated ? field("Updated", b.updated) : null,
    extra.length ? field("Attributes", ...extra) : null,
    field("Layer", `${b.layer} `, el("span", {
      class: "path-small", text: `${layer ? layer.path.split(/[\\/]/).pop() : ""}:${b.line}`, title: layer ? `${layer.path}, line ${b.line}` : "",
    })),
    graphButton ? el("button", { class: "btn small", type: "button", text: "Show in graph", onclick: () => actions.showInGraph(b.uid) }) : null,
    editControls(b));
  return el("div", { class: "detail" }, body, side);
}

function open(uid) {
  const r = rows.get(uid);
  if (!r || r.detail) return;
  r.detail = details(state.byUid.get(uid));
  r.article.append(r.detail);
  r.article.classList.add("open");
  r.main.setAttribute("aria-expanded", "true");
  state.expanded.add(uid);
}

function close(uid) {
  const r = rows.get(uid);
  state.expanded.delete(uid);
  if (!r || !r.detail) return;
  r.detail.remove();
  r.detail = null;
  r.article.classList.remove("open");
  r.main.setAttribute("aria-expanded", "false");
}

function toggle(uid) {
  if (rows.get(uid)?.detail) close(uid);
  else open(uid);
}

export function expandAll() {
  for (const uid of rows.keys()) open(uid);
}

export function collapseAll() {
  for (const uid of [...rows.keys()]) close(uid);
  state.expanded.clear();
}

// Open the row of `uid`, scroll it to the middle of the screen and flash it.
export function jumpTo(uid) {
  const block = state.byUid.get(uid);
  if (!block) return false;
  if (state.hiddenLayers.has(block.layer)) {
    state.hiddenLayers.delete(block.layer);
    renderRead();
  }
  open(uid);
  const r = rows.get(uid);
  r.article.scrollIntoView({ block: "center", behavior: "auto" });
  r.article.classList.remove("flash");
  void r.article.offsetWidth; // restart the animation
  r.article.classList.add("flash");
  r.main.focus({ preventScroll: true });
  return true;
}

function renderStats() {
  const { stats, layers } = state.data;
  const box = clear(document.getElementById("stats"));
  const kinds = Object.keys(stats.kinds).length;
  box.append(
    el("span", { class: "stat", text: plural(stats.blocks, "block") }),
    el("span", { class: "stat", text: plural(stats.edges, "edge"), title: stats.dangling ? `${stats.dangling} point at no block` : "" }),
    el("span", { class: "stat", text: plural(kinds, "kind") }),
    el("span", { class: "stat", text: fmtBytes(stats.bytes) }),
  );
  if (stats.dangling) box.append(el("span", { class: "stat warn", text: `${stats.dangling} dangling` }));
  const filter = clear(document.getElementById("layer-filter"));
  for (const layer of layers) {
    if (!layer.exists) continue;
    const on = !state.hiddenLayers.has(layer.name);
    filter.append(el("button", {
      type: "button", class: `toggle layer-${layer.name}`, "aria-pressed": on ? "true" : "false", title: layer.path,
      onclick: () => {
        if (on) state.hiddenLayers.add(layer.name); else state.hiddenLayers.delete(layer.name);
        renderRead();
      },
    }, el("span", { class: "dot" }), `${layer.name} · ${layer.blocks}`));
  }
}

function renderOutline(groups) {
  const outline = clear(document.getElementById("outline"));
  for (const g of groups) {
    const list = el("ul");
    for (const b of g.blocks.slice(0, OUTLINE_IDS_PER_GROUP)) {
      list.append(el("li", {}, el("a", {
        href: `#${encodeURIComponent(b.uid)}`, text: b.id, title: b.desc || b.id,
        class: isSuperseded(b) ? "superseded" : "",
        onclick: (e) => { e.preventDefault(); jumpTo(b.uid); },
      })));
    }
    if (g.blocks.length > OUTLINE_IDS_PER_GROUP) {
      list.append(el("li", { class: "muted more", text: `+ ${g.blocks.length - OUTLINE_IDS_PER_GROUP} more` }));
    }
    outline.append(el("div", { class: "outline-group" },
      el("a", {
        class: "outline-title", href: `#g-${g.key}`, text: g.title, dataset: { group: g.key },
        onclick: (e) => { e.preventDefault(); document.getElementById(`g-${g.key}`)?.scrollIntoView({ block: "start" }); },
      }, el("span", { class: "n", text: String(g.blocks.length) })),
      list));
  }
}

export function renderRead() {
  const data = state.data;
  document.getElementById("title").textContent = data.title;
  document.title = `${data.title} · agd memory`;
  renderStats();
  rows.clear();
  const container = clear(document.getElementById("groups"));
  const blocks = visibleBlocks();
  const groups = groupsOf(blocks);
  renderOutline(groups);
  if (!data.blocks.length) {
    const file = data.layers.find((l) => !l.exists);
    container.append(el("div", { class: "empty" },
      el("h2", { text: "No memory here yet" }),
      file ? el("p", {}, "It will be created at ", el("code", { class: "path-small", text: file.path }), " when something is saved, for example:")
        : el("p", { text: "Blocks appear as soon as something is saved, for example:" }),
      el("pre", { text: 'agd-memory save x-project first-note --desc "what this project is" --content "…"' }),
      el("p", { class: "muted", text: "Claude Code also saves durable facts at the end of a session." })));
    return;
  }
  if (!blocks.length) {
    container.append(el("div", { class: "empty" }, el("p", { text: "Every layer is hidden: turn one on above." })));
    return;
  }
  spy?.disconnect();
  const titles = new Map([...document.querySelectorAll(".outline-title")].map((a) => [a.dataset.group, a]));
  spy = new IntersectionObserver((entries) => {
    for (const entry of entries) titles.get(entry.target.dataset.group)?.classList.toggle("current", entry.isIntersecting);
  }, { rootMargin: "-56px 0px -70% 0px" });
  for (const g of groups) {
    const head = el("header", { class: "group-head" },
      g.kind ? kindChip(g.kind) : null,
      el("h2", { text: g.title }),
      g.sectionId ? el("code", { class: "muted", text: `#${g.sectionId}` }) : null,
      g.layer && state.group === "section" ? layerBadge(g.layer) : null,
      el("span", { class: "muted n", text: plural(g.blocks.length, "entry", "entries") }));
    const section = el("section", { class: "group", id: `g-${g.key}`, dataset: { group: g.key } }, head);
    spy.observe(section);
    const list = el("div", { class: "rows" });
    for (const b of g.blocks) list.append(row(b));
    section.append(list);
    container.append(section);
  }
}

// Search palette: Ctrl+K / ⌘K or `/`. Every word of the query must appear in the block's id,
// description, search keys or body (case-insensitive); id hits rank above description and key
// hits above body hits.
import { clear, el, excerpt, highlighted, kindChip, layerBadge } from "./dom.js";
import { actions, isSuperseded, state } from "./state.js";

const MAX_RESULTS = 50;
let index = [];
let indexedFor = null;
let results = [];
let active = 0;

const $ = (id) => document.getElementById(id);

function buildIndex() {
  if (indexedFor === state.data) return;
  index = state.data.blocks.map((b, order) => ({
    b, order, id: b.id.toLowerCase(), desc: b.desc.toLowerCase(), body: b.body.toLowerCase(),
    keys: String(b.attrs.keys || "").toLowerCase(),
  }));
  indexedFor = state.data;
}

export function search(query) {
  buildIndex();
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return [];
  const hits = [];
  for (const item of index) {
    let score = 0;
    for (const t of terms) {
      const s = (item.id.includes(t) ? 4 : 0) + (item.desc.includes(t) || item.keys.includes(t) ? 2 : 0)
        + (item.body.includes(t) ? 1 : 0);
      if (!s) { score = 0; break; }
      score += s;
    }
    if (!score) continue;
    if (item.id === terms.join(" ")) score += 10;
    if (isSuperseded(item.b)) score -= 0.5;
    hits.push({ item, score, terms });
  }
  hits.sort((a, b) => b.score - a.score || a.item.order - b.item.order);
  return hits;
}

function snippet(body, terms) {
  const lower = body.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0));
  if (!Number.isFinite(at)) return excerpt(body, 110);
  const start = Math.max(0, at - 40);
  return (start ? "…" : "") + excerpt(body.slice(start), 110);
}

function renderResults(query) {
  const list = clear($("palette-results"));
  const hits = search(query);
  results = hits.slice(0, MAX_RESULTS);
  active = 0;
  $("palette-count").textContent = query.trim()
    ? `${hits.length} match${hits.length === 1 ? "" : "es"}${hits.length > MAX_RESULTS ? `, first ${MAX_RESULTS} shown` : ""}`
    : `${state.data.blocks.length} blocks`;
  if (!query.trim()) {
    list.append(el("li", { class: "palette-hint", text: "Type a word of an id, a description or a body." }));
    return;
  }
  if (!results.length) {
    list.append(el("li", { class: "palette-hint", text: "No matches." }));
    return;
  }
  results.forEach((hit, i) => {
    const b = hit.item.b;
    list.append(el("li", {
      class: `palette-item${isSuperseded(b) ? " superseded" : ""}`, role: "option", id: `pal-${i}`,
      "aria-selected": i === 0 ? "true" : "false",
      onmousemove: () => setActive(i),
      onclick: () => choose(i),
    },
    el("div", { class: "palette-line" }, kindChip(b.kind), el("code", { class: "bid" }, highlighted(`#${b.id}`, hit.terms)), b.layer !== "project" ? layerBadge(b.layer) : null),
    el("div", { class: "palette-desc" }, highlighted(b.desc || "(no description)", hit.terms)),
    b.body ? el("div", { class: "palette-snippet" }, highlighted(snippet(b.body, hit.terms), hit.terms)) : null));
  });
}

function setActive(i) {
  if (!results.length) return;
  active = (i + results.length) % results.length;
  for (const [j, node] of [...$("palette-results").children].entries()) {
    node.setAttribute("aria-selected", j === active ? "true" : "false");
  }
  $(`pal-${active}`)?.scrollIntoView({ block: "nearest" });
}

function choose(i) {
  const hit = results[i];
  if (!hit) return;
  closePalette();
  actions.jump(hit.item.b.uid, { fromSearch: true });
}

export function openPalette() {
  if (!state.data) return;
  const input = $("palette-input");
  $("palette").hidden = false;
  input.focus();
  input.select();
  renderResults(input.value);
}

export function closePalette() {
  $("palette").hidden = true;
}

export function paletteOpen() {
  return !$("palette").hidden;
}

export function setupPalette() {
  const input = $("palette-input");
  input.addEventListener("input", () => renderResults(input.value));
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); setActive(active + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); setActive(active - 1); }
    else if (e.key === "Enter") { e.preventDefault(); choose(active); }
    else if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); closePalette(); }
  });
  $("palette").addEventListener("mousedown", (e) => { if (e.target === $("palette")) closePalette(); });
}

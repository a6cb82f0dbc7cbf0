// Small DOM helpers. Memory strings only ever reach the page through `text` (textContent)
// or through markdown-it with raw HTML disabled (markdown.js): never through innerHTML.

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "title") node.title = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") for (const [k, v] of Object.entries(value)) node.style.setProperty(k, v);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

const KNOWN_KINDS = {
  "x-user": "#9333ea",
  "x-feedback": "#ea580c",
  "x-project": "#16a34a",
  "x-reference": "#2563eb",
};
const PALETTE = ["#db2777", "#0891b2", "#ca8a04", "#7c3aed", "#059669", "#dc2626", "#0d9488", "#c026d3"];
const KIND_ORDER = ["x-user", "x-feedback", "x-project", "x-reference"];

export function kindColor(kind) {
  if (KNOWN_KINDS[kind]) return KNOWN_KINDS[kind];
  if (!kind.startsWith("x-")) return "#71717a";
  let h = 0;
  for (const ch of kind) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

export function kindLabel(kind) {
  return kind.startsWith("x-") ? kind.slice(2) : kind;
}

export function kindTitle(kind) {
  const label = kindLabel(kind).replace(/[-_]+/g, " ");
  return label.charAt(0).toUpperCase() + label.slice(1);
}

export function compareKinds(a, b) {
  const rank = (k) => (KIND_ORDER.includes(k) ? KIND_ORDER.indexOf(k) : k.startsWith("x-") ? 10 : 20);
  return rank(a) - rank(b) || a.localeCompare(b);
}

export function kindChip(kind) {
  return el("span", { class: "chip kind", text: kindLabel(kind), title: kind, style: { "--k": kindColor(kind) } });
}

export function layerBadge(layer) {
  return el("span", {
    class: `badge layer-${layer}`,
    text: layer,
    title: { global: "global layer (every project)", team: "team layer (committed with the repository)" }[layer] || "project layer",
  });
}

export function statusChip(status) {
  if (!status) return null;
  const known = ["open", "done", "superseded"].includes(status) ? status : "other";
  return el("span", { class: `chip status status-${known}`, text: status });
}

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function fmtDate(seconds) {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  const pad = (x) => String(x).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// One line of a body for a row or a search hit: whitespace collapsed, Markdown bold and code
// marks dropped (they would show as literal ** and `; `__` stays, as in `__init__`).
export function excerpt(text, max = 160) {
  const flat = (text || "").replace(/\*\*|`+/g, "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// Text with every occurrence of the (lower-case) terms wrapped in <mark>, built from text nodes.
export function highlighted(text, terms) {
  const frag = document.createDocumentFragment();
  const lower = text.toLowerCase();
  let pos = 0;
  while (pos < text.length) {
    let best = -1;
    let len = 0;
    for (const t of terms) {
      const at = t ? lower.indexOf(t, pos) : -1;
      if (at !== -1 && (best === -1 || at < best)) { best = at; len = t.length; }
    }
    if (best === -1) break;
    if (best > pos) frag.append(text.slice(pos, best));
    frag.append(el("mark", { text: text.slice(best, best + len) }));
    pos = best + len;
  }
  if (pos < text.length) frag.append(text.slice(pos));
  return frag;
}

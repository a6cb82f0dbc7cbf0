// Graph view: cytoscape, force-directed (cose). Nodes are blocks coloured by kind and sized by
// degree; edges are refs that resolve to a block. Clicking a node shows it in the side pane.
// Labels are ids shortened to LABEL_CHARS with an ellipsis (the whole id shows on hover), and
// nodes are placed at least one label box apart, so no two labels overlap.
import { clear, el, kindChip, kindColor, kindTitle, layerBadge, compareKinds, statusChip } from "./dom.js";
import { details } from "./read.js";
import { actions, degree, isSuperseded, state } from "./state.js";

let cy = null;
let builtFor = null; // the data object and layer filter the graph was built from
let selected = null;

const LABEL_CHARS = 22;
const shortLabel = (id) => (id.length > LABEL_CHARS ? `${id.slice(0, LABEL_CHARS - 1)}…` : id);

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function graphStyle() {
  const text = css("--text");
  const bg = css("--bg");
  const edge = css("--edge");
  const accent = css("--accent");
  return [
    { selector: "node", style: {
      "background-color": "data(color)", width: "data(size)", height: "data(size)",
      label: "data(label)", "font-size": 9, color: text, "text-valign": "bottom", "text-margin-y": 3,
      "text-outline-width": 2, "text-outline-color": bg, "min-zoomed-font-size": 7,
      "border-width": 1.5, "border-color": bg,
    } },
    { selector: 'node[layer = "global"]', style: { shape: "round-rectangle" } },
    { selector: "node.superseded", style: { opacity: 0.4 } },
    { selector: "edge", style: {
      width: 1, "line-color": edge, "target-arrow-color": edge, "target-arrow-shape": "triangle",
      "arrow-scale": 0.6, "curve-style": "straight", opacity: 0.9,
    } },
    { selector: ".faded", style: { opacity: 0.12 } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": accent } },
    { selector: "edge.hl", style: { width: 2, "line-color": accent, "target-arrow-color": accent, opacity: 1 } },
  ];
}

// cose costs (nodes² / 2) pair steps per iteration: the iterations of one layout share this budget.
const PAIR_BUDGET = 6e6;
const SMALL_GROUP = 10;

// Connected groups of two or more nodes, biggest first: a union-find over the edges, linear
// (cytoscape's own components() takes over a second on a 2,000-node graph).
function linkedGroups() {
  const parent = new Map();
  const find = (x) => {
    while (parent.get(x) !== x) { parent.set(x, parent.get(parent.get(x))); x = parent.get(x); }
    return x;
  };
  cy.edges().forEach((e) => {
    const a = e.data("source");
    const b = e.data("target");
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    parent.set(find(a), find(b));
  });
  const members = new Map();
  for (const id of parent.keys()) {
    const root = find(id);
    if (!members.has(root)) members.set(root, []);
    members.get(root).push(cy.getElementById(id));
  }
  return [...members.values()].map((nodes) => cy.collection(nodes)).sort((a, b) => b.length - a.length);
}

function coseOptions(numIter, n) {
  const side = Math.sqrt(n) * 80;
  return {
    name: "cose", animate: false, randomize: true, fit: false,
    boundingBox: { x1: 0, y1: 0, w: side, h: side },
    idealEdgeLength: () => 120, nodeRepulsion: () => 9000, nodeOverlap: 8,
    // Fewer iterations on big graphs, with a faster cooling so the annealing still ends cold.
    numIter, initialTemp: 1000, minTemp: 1, coolingFactor: Math.min(0.99, (1 / 1000) ** (1 / numIter)),
    nodeDimensionsIncludeLabels: true,
  };
}

// Rows of boxes, biggest first, no row wider than `width`: returns the offset of each box.
function shelfPack(boxes, width, gap) {
  const offsets = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const box of boxes) {
    if (x > 0 && x + box.w > width) { x = 0; y += rowHeight + gap; rowHeight = 0; }
    offsets.push({ x: x - box.x1, y: y - box.y1 });
    x += box.w + gap;
    rowHeight = Math.max(rowHeight, box.h);
  }
  return { offsets, height: y + rowHeight };
}

// Each connected group of blocks is laid out on its own by cose (force-directed), then the
// groups are packed in rows, biggest first; blocks with no edge at all go in a grid below,
// by kind. One cose over everything would cost n² per step for nodes that never interact.
// The smallest distance between two node centres at which their label boxes cannot overlap
// (boxes of at most w x h overlap only when |dx| < w and |dy| < h), in model coordinates.
// Measured on the longest labels and the biggest node only: a label box per node costs
// seconds on a 2,000-block memory.
function spacing() {
  const nodes = cy.nodes().toArray();
  const longest = nodes.sort((a, b) => b.data("label").length - a.data("label").length).slice(0, 24);
  let w = 0;
  let label = 0;
  for (const n of longest) {
    const b = n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
    w = Math.max(w, b.w);
    label = Math.max(label, b.h);
  }
  const size = nodes.reduce((m, n) => Math.max(m, n.data("size")), 0);
  w = Math.max(w, size) + 12;
  const h = size + label + 10;
  return { w, h, d: Math.hypot(w, h) };
}

function computePositions() {
  const groups = linkedGroups();
  const space = spacing();
  const pairs = groups.filter((g) => g.length > SMALL_GROUP).reduce((sum, g) => sum + (g.length * g.length) / 2, 0);
  const numIter = Math.max(40, Math.min(1000, Math.round(PAIR_BUDGET / Math.max(pairs, 1))));
  const boxes = [];
  for (const nodes of groups) {
    if (nodes.length <= SMALL_GROUP) {
      // A ring: cose's set-up costs more than its result is worth on a handful of nodes. Its
      // neighbours are a chord 2r·sin(π/n) apart, at least one label box diagonal.
      const r = space.d / (2 * Math.sin(Math.PI / nodes.length));
      nodes.positions((_n, i) => ({ x: r * Math.cos((2 * Math.PI * i) / nodes.length), y: r * Math.sin((2 * Math.PI * i) / nodes.length) }));
    }
    else nodes.union(nodes.connectedEdges()).layout(coseOptions(numIter, nodes.length)).run();
    boxes.push(nodes.boundingBox({ includeLabels: true, includeEdges: false }));
  }
  const area = boxes.reduce((sum, b) => sum + b.w * b.h, 0);
  const width = Math.max(boxes.length ? boxes[0].w : 0, Math.sqrt(area) * 1.6, 600);
  const packed = shelfPack(boxes, width, 70);
  const positions = {};
  groups.forEach((nodes, i) => {
    const off = packed.offsets[i];
    nodes.forEach((n) => { const p = n.position(); positions[n.id()] = { x: p.x + off.x, y: p.y + off.y }; });
  });
  const lonely = cy.nodes().filter((n) => n.degree(false) === 0)
    .sort((a, b) => compareKinds(a.data("kind"), b.data("kind")) || a.data("label").localeCompare(b.data("label")));
  // A grid whose cells are one label box wide and high.
  const cols = Math.max(Math.ceil(Math.sqrt((lonely.length * space.h) / space.w)), Math.floor(width / space.w) + 1);
  const y0 = groups.length ? packed.height + 90 : 0;
  lonely.forEach((n, i) => { positions[n.id()] = { x: (i % cols) * space.w, y: y0 + Math.floor(i / cols) * space.h }; });
  return { positions, lonely };
}

function layout(animate) {
  const before = animate ? cy.nodes().map((n) => ({ ...n.position() })) : null;
  const { positions, lonely } = computePositions();
  applyLinkedOnly(lonely);
  const visible = cy.nodes(":visible");
  if (!animate) {
    cy.nodes().positions((n) => positions[n.id()]);
    cy.fit(visible, 30);
    return;
  }
  cy.nodes().forEach((n, i) => n.position(before[i])); // animate from where the nodes were
  cy.nodes().layout({ name: "preset", positions: (n) => positions[n.id()], animate: true, animationDuration: 600, fit: true, padding: 30 }).run();
}

function applyLinkedOnly(lonely) {
  const only = document.getElementById("graph-linked").checked;
  lonely.style("display", only ? "none" : "element");
}

function elements() {
  const nodes = [];
  const edges = [];
  const shown = state.data.blocks.filter((b) => !state.hiddenLayers.has(b.layer));
  const ids = new Set(shown.map((b) => b.uid));
  for (const b of shown) {
    nodes.push({
      group: "nodes",
      data: { id: b.uid, label: shortLabel(b.id), kind: b.kind, layer: b.layer, color: kindColor(b.kind), size: 12 + Math.min(degree(b), 8) * 2.5 },
      classes: isSuperseded(b) ? "superseded" : "",
    });
    for (const [i, ref] of b.refs.entries()) {
      if (ref.uid && ref.uid !== b.uid && ids.has(ref.uid)) {
        edges.push({ group: "edges", data: { id: `${b.uid}>${i}`, source: b.uid, target: ref.uid } });
      }
    }
  }
  return [...nodes, ...edges];
}

function legend() {
  const box = clear(document.getElementById("graph-legend"));
  const kinds = Object.keys(state.data.stats.kinds).sort(compareKinds);
  for (const kind of kinds) {
    box.append(el("span", { class: "legend-item" }, el("span", { class: "swatch", style: { "--k": kindColor(kind) } }), kindTitle(kind)));
  }
  if (state.data.layers.some((l) => l.name === "global" && l.blocks)) {
    box.append(el("span", { class: "legend-item" }, el("span", { class: "swatch square" }), "global layer"));
  }
}

function paneEmpty() {
  const pane = clear(document.getElementById("graph-pane"));
  const s = state.data.stats;
  pane.append(el("div", { class: "pane-empty" },
    el("h3", { text: "Click a node" }),
    el("p", { text: `${s.blocks} blocks, ${s.edges - s.dangling} edges shown. Node size grows with refs + backlinks.` }),
    el("p", { class: "muted", text: "Scroll to zoom, drag to pan. Esc clears the selection." })));
}

function showPane(b) {
  const pane = clear(document.getElementById("graph-pane"));
  const status = isSuperseded(b) ? "superseded" : b.status;
  pane.append(
    el("div", { class: "pane-head" }, kindChip(b.kind), b.layer !== "project" ? layerBadge(b.layer) : null, statusChip(status)),
    el("h3", { class: "pane-id" }, el("code", { text: `#${b.id}` })),
    el("p", { class: b.desc ? "pane-desc" : "pane-desc muted", text: b.desc || "(no description)" }),
  );
  const d = details(b, { graphButton: false });
  // Links inside the pane move the selection within the graph rather than leaving it.
  for (const a of d.querySelectorAll("a.ref-link")) {
    a.addEventListener("click", (e) => { e.preventDefault(); e.stopImmediatePropagation(); select(decodeURIComponent(a.getAttribute("href").slice(1))); }, true);
  }
  pane.append(d, el("button", { class: "btn small", type: "button", text: "Open in read view", onclick: () => actions.jump(b.uid) }));
}

export function select(uid) {
  if (!cy) return;
  const node = cy.getElementById(uid);
  if (!node || node.empty()) return;
  selected = uid;
  cy.elements().removeClass("faded hl").unselect();
  const hood = node.closedNeighborhood();
  cy.elements().not(hood).addClass("faded");
  node.connectedEdges().addClass("hl");
  node.select();
  cy.animate({ center: { eles: node }, zoom: Math.max(cy.zoom(), 1.1) }, { duration: 250 });
  showPane(state.byUid.get(uid));
}

export function clearSelection() {
  if (!cy) return;
  selected = null;
  cy.elements().removeClass("faded hl").unselect();
  paneEmpty();
}

// The whole id of the node under the pointer, above the node (its label may be shortened).
function tip() {
  let box = document.getElementById("graph-tip");
  if (!box) {
    box = el("div", { id: "graph-tip", class: "graph-tip", role: "tooltip" });
    box.hidden = true;
    document.getElementById("cy").parentElement.append(box);
  }
  return box;
}

function showTip(node) {
  const box = tip();
  const b = state.byUid.get(node.id());
  box.textContent = `#${b ? b.id : node.id()}`;
  const p = node.renderedPosition();
  const canvas = document.getElementById("cy");
  box.style.left = `${canvas.offsetLeft + p.x}px`;
  box.style.top = `${canvas.offsetTop + p.y - node.renderedHeight() / 2 - 6}px`;
  box.hidden = false;
}

function hideTip() {
  const box = document.getElementById("graph-tip");
  if (box) box.hidden = true;
}

function build() {
  performance.mark("agd-graph-start");
  if (cy) cy.destroy();
  cy = window.cytoscape({
    container: document.getElementById("cy"),
    elements: elements(),
    style: graphStyle(),
    layout: { name: "preset" },
    minZoom: 0.05, maxZoom: 4,
  });
  performance.mark("agd-graph-created");
  layout(false);
  cy.on("tap", "node", (e) => select(e.target.id()));
  cy.on("mouseover", "node", (e) => showTip(e.target));
  cy.on("mouseout", "node", hideTip);
  cy.on("viewport", hideTip);
  cy.on("tap", (e) => { if (e.target === cy) clearSelection(); });
  builtFor = { data: state.data, hidden: [...state.hiddenLayers].join() };
  performance.mark("agd-graph-built");
  legend();
  if (selected && state.byUid.has(selected)) select(selected);
  else paneEmpty();
}

// Called whenever the graph view becomes visible or the data changes while it is visible.
export function showGraph() {
  const missing = document.getElementById("graph-missing");
  if (typeof window.cytoscape !== "function") {
    document.getElementById("cy").hidden = true;
    missing.hidden = false;
    clear(missing).append(
      el("h2", { text: "The graph needs cytoscape" }),
      ...(state.projects?.vendor_notice
        ? [el("p", { class: "vendor-notice", text: state.projects.vendor_notice })]
        : [el("p", { text: "The plugin's JavaScript libraries are not installed. Run this once, then reload the page:" }),
          el("pre", { text: `cd ${state.projects?.install_root || "<plugin folder>"} && npm ci` })]),
      el("p", { class: "muted", text: "The read view and search work without it." }));
    paneEmpty();
    return;
  }
  const hidden = [...state.hiddenLayers].join();
  if (!cy || !builtFor || builtFor.data !== state.data || builtFor.hidden !== hidden) build();
  else cy.resize();
}

export function fit() { if (cy) cy.animate({ fit: { padding: 30 } }, { duration: 300 }); }
export function relayout() { if (cy) layout(true); }
export function linkedOnlyChanged() {
  if (!cy) return;
  applyLinkedOnly(cy.nodes().filter((n) => n.degree(false) === 0));
  cy.animate({ fit: { eles: cy.nodes(":visible"), padding: 30 } }, { duration: 300 });
}
export function restyle() { if (cy) cy.style(graphStyle()); }
// A read-only handle for the browser tests (node positions to click on).
window.agdViewerGraph = () => cy;

// For the read view's "Show in graph" and the palette while the graph is open.
export function focusNode(uid) {
  showGraph();
  select(uid);
}

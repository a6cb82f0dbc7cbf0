// Graph view: cytoscape, force-directed (cose). Nodes are blocks coloured by kind and sized by
// degree; edges are refs that resolve to a block. Clicking a node shows it in the side pane.
import { clear, el, kindChip, kindColor, kindTitle, layerBadge, compareKinds, statusChip } from "./dom.js";
import { details } from "./read.js";
import { actions, degree, isSuperseded, state } from "./state.js";

let cy = null;
let builtFor = null; // the data object and layer filter the graph was built from
let selected = null;

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

function coseOptions(n, animate) {
  return {
    name: "cose", animate, animationDuration: 600, randomize: true, fit: false, padding: 30,
    idealEdgeLength: () => 90, nodeRepulsion: () => 6000, nodeOverlap: 8,
    // cose is quadratic per iteration: fewer iterations keep a 2,000-block graph usable.
    numIter: n > 1000 ? 200 : n > 300 ? 500 : 1000,
    componentSpacing: 60, nodeDimensionsIncludeLabels: false,
  };
}

// Linked blocks go through cose; blocks with no edge at all would only be scattered by it
// (and dwarf the linked ones), so they sit in a grid under the linked part, grouped by kind.
function layout(animate) {
  const linked = cy.nodes().filter((n) => n.degree(false) > 0);
  const lonely = cy.nodes().not(linked).sort((a, b) => compareKinds(a.data("kind"), b.data("kind")) || a.data("label").localeCompare(b.data("label")));
  const placeLonely = () => {
    if (lonely.nonempty()) {
      const gap = 48;
      const bb = linked.nonempty() ? linked.boundingBox() : { x1: 0, x2: 0, y2: 0, w: 0 };
      const cols = Math.max(Math.ceil(Math.sqrt(lonely.length * 2.5)), Math.floor(bb.w / gap) + 1);
      const x0 = (bb.x1 + bb.x2) / 2 - ((Math.min(cols, lonely.length) - 1) * gap) / 2;
      const y0 = bb.y2 + (linked.nonempty() ? 90 : 0);
      lonely.positions((_node, i) => ({ x: x0 + (i % cols) * gap, y: y0 + Math.floor(i / cols) * gap }));
    }
    applyLinkedOnly(lonely);
    const visible = cy.nodes(":visible");
    if (animate) cy.animate({ fit: { eles: visible, padding: 30 } }, { duration: 300 });
    else cy.fit(visible, 30);
  };
  if (linked.empty()) { placeLonely(); return; }
  const run = linked.union(linked.edgesWith(linked)).layout(coseOptions(linked.length, animate));
  run.one("layoutstop", placeLonely);
  run.run();
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
      data: { id: b.uid, label: b.id, kind: b.kind, layer: b.layer, color: kindColor(b.kind), size: 12 + Math.min(degree(b), 8) * 2.5 },
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
    el("div", { class: "pane-head" }, kindChip(b.kind), b.layer === "global" ? layerBadge(b.layer) : null, statusChip(status)),
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

function build() {
  if (cy) cy.destroy();
  cy = window.cytoscape({
    container: document.getElementById("cy"),
    elements: elements(),
    style: graphStyle(),
    layout: { name: "preset" },
    minZoom: 0.05, maxZoom: 4,
  });
  layout(false);
  cy.on("tap", "node", (e) => select(e.target.id()));
  cy.on("tap", (e) => { if (e.target === cy) clearSelection(); });
  builtFor = { data: state.data, hidden: [...state.hiddenLayers].join() };
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
      el("p", { text: "The plugin's JavaScript libraries are not installed. Run this once, then reload the page:" }),
      el("pre", { text: `cd ${state.projects?.install_root || "<plugin folder>"} && npm ci` }),
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

// The page's shared state and the few actions views call on each other (set by app.js).

export const state = {
  projects: null, // /projects.json
  key: null, // opaque project key
  data: null, // /memory.json
  byUid: new Map(), // uid -> block
  byId: new Map(), // id -> [block, ...] (an id may exist in both layers)
  view: "read",
  group: "kind",
  expanded: new Set(), // uids of open rows
  hiddenLayers: new Set(),
};

export const actions = {
  jump: (_uid) => {},
  showInGraph: (_uid) => {},
  toast: (_text) => {},
  reload: () => {}, // after a write: the memory and the review queue again
};

export function setData(data) {
  state.data = data;
  state.byUid = new Map();
  state.byId = new Map();
  for (const block of data.blocks) {
    state.byUid.set(block.uid, block);
    if (!state.byId.has(block.id)) state.byId.set(block.id, []);
    state.byId.get(block.id).push(block);
  }
  for (const uid of [...state.expanded]) if (!state.byUid.has(uid)) state.expanded.delete(uid);
}

// The uid an `#id` written in a block of `layer` points at: same layer first, like the server.
export function resolveId(id, layer) {
  const hits = state.byId.get(id);
  if (!hits) return null;
  return (hits.find((b) => b.layer === layer) || hits[0]).uid;
}

export function isSuperseded(block) {
  return block.status === "superseded" || block.superseded_by.length > 0;
}

export function degree(block) {
  return block.refs.filter((r) => r.uid && r.uid !== block.uid).length + block.backlinks.length;
}

// Editing one entry from its detail pane: desc, body, status and keys, or deleting it.
// Every change is a POST to /api/entry, written by the server through the store.
import { el } from "./dom.js";
import { actions, state } from "./state.js";
import { post } from "./write.js";

const STATUSES = ["", "open", "done", "superseded"];

async function send(b, data, error, fields) {
  try {
    const answer = await post("/api/entry", { project: state.key, layer: b.layer, id: b.id, version: b.version, ...data });
    actions.toast(answer.message);
    actions.reload();
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
    if (err.current) {  // someone saved since the page loaded it: show the current text
      b.version = err.current.version;
      if (fields) for (const name of Object.keys(fields)) fields[name].value = err.current[name];
    }
  }
}

function form(b, holder, error) {
  const desc = el("input", { class: "edit-desc", type: "text", "aria-label": "Description" });
  desc.value = b.desc;
  const status = el("select", { class: "edit-status", "aria-label": "Status" },
    STATUSES.map((s) => el("option", { value: s, text: s || "(none)" })));
  status.value = b.status || "";
  const keys = el("input", { class: "edit-keys", type: "text", "aria-label": "Search keys", placeholder: "search keys, comma list" });
  keys.value = b.attrs.keys ? String(b.attrs.keys) : "";
  const body = el("textarea", { class: "edit-body", rows: "8", spellcheck: "false", "aria-label": "Body" });
  body.value = b.body;
  const save = () => send(b, { action: "save", desc: desc.value, status: status.value, keys: keys.value, body: body.value }, error, { desc, status, keys, body });
  return el("div", { class: "entry-edit" },
    el("label", {}, "Description ", desc),
    el("label", {}, "Status ", status),
    el("label", {}, "Keys ", keys),
    body,
    el("div", { class: "review-actions" },
      el("button", { class: "btn primary", type: "button", text: "Save", "data-action": "save-entry", onclick: save }),
      el("button", { class: "btn", type: "button", text: "Cancel", onclick: () => holder.replaceChildren() })));
}

export function editControls(b) {
  if (!b.memory) return null;
  const holder = el("div", { class: "entry-edit-holder" });
  const error = el("div", { class: "review-error", role: "alert", hidden: true });
  const remove = el("button", { class: "btn small", type: "button", text: "Delete", "data-action": "delete-entry" });
  remove.addEventListener("click", () => {
    if (remove.dataset.armed) send(b, { action: "delete" }, error);
    else { remove.dataset.armed = "1"; remove.textContent = "Confirm delete"; }
  });
  return el("div", { class: "entry-tools" },
    el("div", { class: "review-actions" },
      el("button", { class: "btn small", type: "button", text: "Edit", "data-action": "edit-entry", onclick: () => holder.replaceChildren(form(b, holder, error)) }),
      remove),
    holder, error);
}

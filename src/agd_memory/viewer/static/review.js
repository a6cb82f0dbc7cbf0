// The review view: proposals waiting in review mode, each as a diff against the current
// entry, with Accept, Reject and Edit (the proposal as AGD text). Text only, never HTML.
import { clear, el } from "./dom.js";
import { actions, state } from "./state.js";
import { post } from "./write.js";

const $ = (id) => document.getElementById(id);
let items = [];

export async function loadReview() {
  try {
    const response = await fetch(`/review.json?project=${encodeURIComponent(state.key)}`, { cache: "no-store" });
    if (!response.ok) return;
    const data = await response.json();
    if (JSON.stringify(data.items) === JSON.stringify(items)) return;
    items = data.items;
  } catch { return; /* keep what is shown */ }
  const tab = document.querySelector('.seg [data-view="review"]');
  if (tab) tab.textContent = items.length ? `Review (${items.length})` : "Review";
  renderReview();
}

function diffView(text) {
  const pre = el("pre", { class: "diff" });
  for (const line of (text || "").split("\n")) {
    const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    pre.append(el("span", { class: `diff-line ${kind}`, text: line }), "\n");
  }
  return pre;
}

async function act(item, action, extra = {}) {
  const card = document.querySelector(`.review-item[data-qid="${item.id}"]`);
  try {
    const answer = await post("/api/review", { project: state.key, layer: item.layer, action, id: item.id, ...extra });
    actions.toast(answer.message);
    items = [];
    await loadReview();
    actions.reload();
  } catch (err) {
    const box = card?.querySelector(".review-error");
    if (box) { box.textContent = err.message; box.hidden = false; }
  }
}

function editor(item, card) {
  const area = el("textarea", { class: "review-text", rows: "10", spellcheck: "false", "aria-label": `AGD text of ${item.id}` });
  area.value = item.text;
  const form = el("div", { class: "review-edit" }, area,
    el("div", { class: "review-actions" },
      el("button", { class: "btn primary", type: "button", text: "Save edit", "data-action": "save-edit", onclick: () => act(item, "edit", { text: area.value }) }),
      el("button", { class: "btn", type: "button", text: "Cancel", onclick: () => { form.remove(); } })));
  card.querySelector(".review-edit")?.remove();
  card.insertBefore(form, card.querySelector(".review-error"));
  area.focus();
}

function card(item) {
  const came = item.session ? `${item.source}, session ${item.session}` : item.source;
  const node = el("article", { class: "review-item", dataset: { qid: item.id } },
    el("div", { class: "review-head" },
      el("span", { class: "bid", text: item.id }),
      el("span", { class: `badge layer-${item.layer}`, text: item.layer }),
      el("span", { class: "desc", text: item.summary }),
      el("span", { class: "chip date", text: `${came} · ${item.created}` })),
    diffView(item.diff),
    el("div", { class: "review-actions" },
      el("button", { class: "btn primary", type: "button", text: "Accept", "data-action": "accept", onclick: () => act(item, "accept") }),
      el("button", { class: "btn", type: "button", text: "Reject", "data-action": "reject", onclick: () => act(item, "reject") }),
      item.text !== null ? el("button", { class: "btn", type: "button", text: "Edit", "data-action": "edit", onclick: () => editor(item, node) }) : null),
    el("div", { class: "review-error", role: "alert", hidden: true }));
  return node;
}

export function renderReview() {
  const list = $("review-list");
  if (!list) return;
  clear(list);
  if (!items.length) {
    list.append(el("p", { class: "empty", text: "No proposals are waiting for review." }));
    return;
  }
  for (const item of items) list.append(card(item));
}

// The History tab: this project's past sessions (date, first prompt, exchanges), searched with
// the CLI's ranked search (/history.json?q=), an exchange read with its neighbours, and a
// session forgotten after a confirmation (POST /api/history, `agd-memory history forget`).
// Text only, never HTML.
import { clear, el, fmtBytes } from "./dom.js";
import { actions, state } from "./state.js";
import { post } from "./write.js";

const $ = (id) => document.getElementById(id);
const CONTEXT = 2;

async function getJSON(params) {
  const query = new URLSearchParams({ project: state.key, ...params });
  const response = await fetch(`/history.json?${query}`, { cache: "no-store" });
  let data = null;
  try { data = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) throw new Error(data?.error || `history: HTTP ${response.status}`);
  return data;
}

const when = (at) => (at ? at.slice(0, 16).replace("T", " ") : "no date");

function showError(err) {
  const list = clear($("history-list"));
  list.append(el("p", { class: "review-error", role: "alert", text: err.message }));
}

export async function loadHistory() {
  $("history-q").value = "";
  let data;
  try { data = await getJSON({}); } catch (err) { showError(err); return; }
  const list = clear($("history-list"));
  $("history-summary").textContent = data.total
    ? `${data.total} sessions, ${fmtBytes(data.bytes)}` + (data.total > data.sessions.length ? ` (the newest ${data.sessions.length} listed; search finds all)` : "")
    : "";
  if (!data.sessions.length) {
    list.append(el("p", { class: "empty", text: data.note || "No session history yet: sessions are added when they end, and `agd-memory history import` adds past ones." }));
    return;
  }
  for (const s of data.sessions) list.append(sessionCard(s));
}

function sessionCard(s) {
  const node = el("article", { class: "history-session", dataset: { session: s.session } },
    el("div", { class: "review-head" },
      el("span", { class: "chip date", text: when(s.first) }),
      el("span", { class: "desc history-prompt", text: s.prompt || "(no words)" }),
      el("span", { class: "chip", text: `${s.exchanges} exchanges · ${fmtBytes(s.bytes)}` })),
    el("div", { class: "review-actions" },
      el("button", { class: "btn", type: "button", text: "Read", "data-action": "read", onclick: () => openExchange(`h-${s.session}-1`, 1000) }),
      el("button", { class: "btn", type: "button", text: "Forget…", "data-action": "forget", onclick: () => askForget(s, node) })),
    el("div", { class: "review-error", role: "alert", hidden: true }));
  return node;
}

function askForget(s, node) {
  node.querySelector(".history-confirm")?.remove();
  const box = el("div", { class: "history-confirm", role: "alertdialog" },
    el("span", { text: `Forget session ${s.session} (${s.exchanges} exchanges)? Its file is deleted; this cannot be undone. ` }),
    el("button", { class: "btn danger", type: "button", text: "Forget", "data-action": "confirm-forget", onclick: () => forget(s, node) }),
    el("button", { class: "btn", type: "button", text: "Cancel", onclick: () => box.remove() }));
  node.insertBefore(box, node.querySelector(".review-error"));
}

async function forget(s, node) {
  try {
    const answer = await post("/api/history", { project: state.key, action: "forget", session: s.session });
    actions.toast(answer.message);
    await loadHistory();
  } catch (err) {
    const box = node.querySelector(".review-error");
    box.textContent = err.message;
    box.hidden = false;
  }
}

async function search(words) {
  if (!words.trim()) { loadHistory(); return; }
  let data;
  try { data = await getJSON({ q: words }); } catch (err) { showError(err); return; }
  const list = clear($("history-list"));
  $("history-summary").textContent = `${data.hits.length} exchanges match`;
  if (!data.hits.length) list.append(el("p", { class: "empty", text: `No exchange in the history matches "${words}".` }));
  for (const hit of data.hits) {
    list.append(el("article", { class: "history-hit", dataset: { id: hit.id } },
      el("div", { class: "review-head" },
        el("span", { class: "bid", text: `#${hit.id}` }),
        el("span", { class: "chip date", text: `session ${hit.session} · ${when(hit.at)} · exchange ${hit.n}` })),
      el("pre", { class: "history-text", text: hit.text.length > 600 ? hit.text.slice(0, 600) + "…" : hit.text }),
      el("div", { class: "review-actions" },
        el("button", { class: "btn", type: "button", text: "Open with neighbours", "data-action": "open", onclick: () => openExchange(hit.id, CONTEXT) }))));
  }
}

async function openExchange(id, context) {
  let data;
  try { data = await getJSON({ id, context: String(context) }); } catch (err) { showError(err); return; }
  const list = clear($("history-list"));
  const first = data.exchanges[0];
  $("history-summary").textContent = first ? `session ${first.session}` : "";
  list.append(el("div", { class: "review-actions" },
    el("button", { class: "btn", type: "button", text: "← Sessions", "data-action": "back", onclick: loadHistory })));
  for (const e of data.exchanges) {
    list.append(el("article", { class: `history-exchange${e.id === data.id ? " hit" : ""}`, dataset: { id: e.id } },
      el("div", { class: "review-head" },
        el("span", { class: "bid", text: `#${e.id}` }),
        el("span", { class: "chip date", text: `${when(e.at)} · exchange ${e.n}` })),
      el("pre", { class: "history-text", text: e.text })));
  }
  list.querySelector(".history-exchange.hit")?.scrollIntoView({ block: "center" });
}

export function setupHistory() {
  $("history-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search($("history-q").value);
  });
}

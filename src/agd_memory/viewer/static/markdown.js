// A block body as Markdown: markdown-it with raw HTML off, images off (an image would be a
// request to another host; the CSP blocks it too). Without markdown-it (node_modules not
// installed) the body is shown as plain preformatted text.
import { el } from "./dom.js";

let md = null;

function renderer() {
  if (md === null && typeof window.markdownit === "function") {
    md = window.markdownit({ html: false, linkify: true, breaks: false, typographer: false });
    md.disable("image");
  }
  return md;
}

const CITATION = /(^|[^\w&/#-])#([A-Za-z_][\w-]*)/g;

// `#some-id` written in prose becomes a link when the id names a block (resolveId returns its uid).
function linkCitations(root, resolveId, onRef) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      return node.parentElement.closest("a, code, pre") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    },
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const text = node.nodeValue;
    CITATION.lastIndex = 0;
    let match;
    let last = 0;
    const parts = [];
    while ((match = CITATION.exec(text)) !== null) {
      const uid = resolveId(match[2]);
      if (!uid) continue;
      const start = match.index + match[1].length;
      parts.push(text.slice(last, start));
      parts.push(refLink(`#${match[2]}`, uid, onRef));
      last = start + 1 + match[2].length;
    }
    if (!parts.length) continue;
    parts.push(text.slice(last));
    node.replaceWith(...parts.filter((p) => p !== ""));
  }
}

export function refLink(label, uid, onRef) {
  return el("a", {
    class: "ref-link",
    href: `#${encodeURIComponent(uid)}`,
    text: label,
    onclick: (event) => { event.preventDefault(); onRef(uid); },
  });
}

export function renderBody(container, text, { resolveId, onRef }) {
  const markdown = renderer();
  if (!text) {
    container.append(el("p", { class: "muted", text: "(no body)" }));
    return container;
  }
  if (!markdown) {
    container.append(el("pre", { class: "plain-body", text }));
    return container;
  }
  const box = el("div", { class: "md" });
  // markdown-it escapes every raw HTML tag (html: false), so this is text turned into markup,
  // never memory text taken as HTML.
  box.innerHTML = markdown.render(text);
  for (const a of box.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    if (href.startsWith("#")) {
      const uid = resolveId(decodeURIComponent(href.slice(1)));
      if (uid) {
        a.addEventListener("click", (event) => { event.preventDefault(); onRef(uid); });
        a.classList.add("ref-link");
      }
    } else {
      a.target = "_blank";
      a.rel = "noopener noreferrer";
    }
  }
  linkCitations(box, resolveId, onRef);
  container.append(box);
  return container;
}

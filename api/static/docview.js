// The document view: the exact source text laid out as headings and paragraphs of sentences
// (from /documents/{doc}/layout), one span highlighted. Layout only wraps the text in elements:
// the text content of #doc-text is the document, character for character, so citation offsets
// (#s=START-END) index it exactly.
import { api, clear, docHref, documentsIndex, errorBox, formatLabel, h, idPath, loadingBox, outlineLabel } from "./core.js";
import { lang, t } from "./i18n.js";

export function parseFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const s = params.get("s");
  let start = null;
  let end = null;
  if (s && /^\d+-\d+$/.test(s)) {
    [start, end] = s.split("-").map(Number);
  }
  return { start, end, node: params.get("n") };
}

/**
 * Append text[from:to] to `parent`, the part inside [hlStart, hlEnd) wrapped in <mark class="hl">
 * (the first such mark gets id="hl" and the whole span's offsets). Returns the marks made.
 */
function emit(parent, text, from, to, hl, marks) {
  if (to <= from) return;
  const cut = [from, to];
  if (hl) {
    if (hl.start > from && hl.start < to) cut.push(hl.start);
    if (hl.end > from && hl.end < to) cut.push(hl.end);
  }
  cut.sort((a, b) => a - b);
  for (let i = 0; i + 1 < cut.length; i += 1) {
    const [a, b] = [cut[i], cut[i + 1]];
    if (b <= a) continue;
    const piece = text.slice(a, b);
    if (hl && a >= hl.start && b <= hl.end) {
      const mark = h("mark", { class: "hl" }, piece);
      if (!marks.length) {
        mark.id = "hl";
        mark.tabIndex = -1;
        mark.dataset.start = String(hl.start);
        mark.dataset.end = String(hl.end);
      }
      marks.push(mark);
      parent.append(mark);
    } else {
      parent.append(piece);
    }
  }
}

const BLOCK_TAGS = { heading: (depth) => "h" + Math.min(2 + depth, 6), paragraph: () => "p", item: () => "p" };

/** The document as blocks; text between and around blocks stays as plain text nodes. */
export function laidOutText(box, text, blocks, hl) {
  const marks = [];
  let at = 0;
  // Whitespace between blocks (line breaks, no-break spaces) is kept in a hidden span: the blocks
  // already break the lines, and a stray no-break space would render as an empty line.
  const between = (from, to) => {
    if (to <= from) return;
    if (/^\s*$/.test(text.slice(from, to))) {
      const gap = h("span", { class: "doc-gap" });
      emit(gap, text, from, to, hl, marks);
      box.append(gap);
    } else emit(box, text, from, to, hl, marks);
  };
  for (const block of blocks) {
    if (block.start < at || block.end > text.length) continue; // never reorder or drop text
    between(at, block.start);
    const tag = BLOCK_TAGS[block.kind] ? BLOCK_TAGS[block.kind](block.depth) : "p";
    const el = h(tag, { class: "doc-block doc-" + block.kind, "data-start": String(block.start), "data-end": String(block.end) });
    let inner = block.start;
    for (const s of block.sentences || []) {
      if (s.start < inner || s.end > block.end) continue;
      emit(el, text, inner, s.start, hl, marks);
      const span = h("span", { class: "sentence", "data-node": s.node });
      emit(span, text, s.start, s.end, hl, marks);
      el.append(span);
      inner = s.end;
    }
    emit(el, text, inner, block.end, hl, marks);
    box.append(el);
    at = block.end;
  }
  if (blocks.length) between(at, text.length);
  else emit(box, text, at, text.length, hl, marks);
  return marks;
}

export async function renderDocument() {
  const docId = decodeURIComponent(location.pathname.slice("/doc/".length).replace(/\/$/, ""));
  const title = document.getElementById("doc-title");
  const meta = document.getElementById("doc-meta");
  const status = document.getElementById("doc-status");
  const textBox = document.getElementById("doc-text");
  const back = document.getElementById("doc-back");
  if (document.referrer && new URL(document.referrer).origin === location.origin) {
    back.href = document.referrer;
  }
  clear(status).append(loadingBox());
  let doc;
  try {
    doc = await api("/documents/" + encodeURIComponent(docId));
  } catch (err) {
    title.textContent = docId;
    clear(status).append(errorBox(err));
    if (err.body && Array.isArray(err.body.suggestions) && err.body.suggestions.length) {
      status.append(h("p", {}, t("error.closest") + " ",
        ...err.body.suggestions.map((s, i) => [i ? ", " : "", h("a", { href: docHref(s) }, s)])));
    }
    clear(textBox);
    return;
  }
  let blocks = [];
  try {
    blocks = (await api("/documents/" + encodeURIComponent(doc.id) + "/layout")).blocks || [];
  } catch (_) {
    // Without the layout the text is shown as it is.
  }
  document.title = (lang === "en" && doc.title_en ? doc.title_en : doc.title) + " · ygo-rulings";
  title.textContent = lang === "en" && doc.title_en ? doc.title_en : doc.title;
  meta.textContent = formatLabel(doc.format) + " · " + doc.text.length + " " + t("doc.chars_total");
  let { start, end, node } = parseFragment();
  if ((start === null || end === null) && node) {
    try {
      const n = await api("/id/" + idPath(node));
      if (n.span && n.span.document === doc.id) ({ start, end } = n.span);
    } catch (_) {
      // Unknown node: show the document without a highlight.
    }
  }
  const valid = start !== null && end !== null && start >= 0 && end > start && end <= doc.text.length;
  clear(textBox);
  clear(status);
  textBox.classList.toggle("laid-out", blocks.length > 0);
  const marks = laidOutText(textBox, doc.text, blocks, valid ? { start, end } : null);
  if (valid && marks.length) {
    const mark = marks[0];
    status.append(h("p", { class: "notice" },
      t("doc.cited") + ": " + t("doc.chars") + " " + start + "–" + end + ". ",
      h("button", { type: "button", class: "link-button", onclick: () => focusMark(mark) }, t("doc.jump")),
    ));
    requestAnimationFrame(() => focusMark(mark));
  } else if (start !== null || node) {
    status.append(h("p", { class: "notice" }, t("doc.noSpan")));
  }
  renderOutline(doc.id);
}

function focusMark(mark) {
  mark.scrollIntoView({ block: "center" });
  mark.focus({ preventScroll: true });
}

async function renderOutline(docId) {
  const nav = clear(document.getElementById("doc-outline"));
  let data;
  try {
    data = await documentsIndex();
  } catch (_) {
    return;
  }
  const doc = data.documents.find((d) => d.id === docId);
  if (!doc || !doc.outline.length) return;
  const list = h("ul", {});
  for (const row of doc.outline) {
    list.append(h("li", { class: "depth-" + Math.min(row.depth, 3) },
      h("a", { href: docHref(docId, row.start, row.end, row.id) }, outlineLabel(row))));
  }
  nav.append(h("details", { open: window.matchMedia("(min-width: 60em)").matches }, h("summary", {}, t("doc.outlineTitle")), list));
}

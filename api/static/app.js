// ygo-rulings web page: plain ES modules, no build step, no network assets.
// Every piece of data goes into the page through textContent and attributes, never parsed as markup.
// Views: ask (default), /doc/{document}, ?view=node|browse|cards here; ?view=quiz in quiz.js.
import {
  api,
  cardLinker,
  clear,
  docHref,
  documentsIndex,
  errorBox,
  fillSelect,
  formatLabel,
  h,
  idPath,
  knownDocuments,
  loadingBox,
  nodeHref,
  outlineLabel,
  postJson,
  ruleLinker,
  sourceHref,
} from "./core.js";
import { applyStaticText, EXAMPLES, lang, t, toggleLang } from "./i18n.js";
import { checkQuiz, renderQuiz, submitQuizSetup } from "./quiz.js";

// ---------------------------------------------------------------------------------------
// Views. The URL says which: /doc/{doc} or /?view=browse|cards|quiz|node, else ask.
// ---------------------------------------------------------------------------------------
const VIEWS = ["ask", "doc", "node", "browse", "cards", "quiz"];

function currentView() {
  if (location.pathname.startsWith("/doc/")) return "doc";
  const view = new URLSearchParams(location.search).get("view");
  return VIEWS.includes(view) ? view : "ask";
}

function showView(name) {
  for (const v of VIEWS) document.getElementById("view-" + v).hidden = v !== name;
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.getAttribute("data-nav") === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function route() {
  const view = currentView();
  showView(view);
  const params = new URLSearchParams(location.search);
  if (view === "doc") return renderDocument();
  if (view === "node") return renderNode(params.get("id") || "");
  if (view === "browse") return renderBrowse(params);
  if (view === "cards") return renderCards();
  if (view === "quiz") return renderQuiz(params);
  return renderAsk(params);
}

// --- ask ---------------------------------------------------------------------------------
function renderExamples() {
  const list = clear(document.getElementById("examples"));
  for (const q of EXAMPLES[lang]) {
    list.append(h("li", {}, h("a", { href: "/?q=" + encodeURIComponent(q) }, q)));
  }
}

async function renderAsk(params) {
  renderExamples();
  const q = params.get("q") || "";
  const fmt = params.get("format") || "";
  const input = document.getElementById("q");
  const select = document.getElementById("format");
  input.value = q;
  select.value = ["edison", "tag", "general"].includes(fmt) ? fmt : "";
  const out = document.getElementById("ask-results");
  if (!q.trim()) {
    clear(out);
    return;
  }
  document.title = q + " · ygo-rulings";
  out.setAttribute("aria-busy", "true");
  clear(out).append(loadingBox());
  const body = { question: q, format: select.value || null, k: 5 };
  const searchUrl = "/search?" + new URLSearchParams({ q, k: "5", ...(select.value ? { format: select.value } : {}) });
  const [answer, hits, docs] = await Promise.allSettled([postJson("/ask", body), api(searchUrl), knownDocuments()]);
  const known = docs.status === "fulfilled" ? docs.value : new Set();
  const parts = [];
  if (answer.status === "fulfilled") parts.push(await answerCard(answer.value, known));
  else parts.push(errorBox(answer.reason));
  if (hits.status === "fulfilled") parts.push(searchCard(hits.value));
  else if (answer.status === "fulfilled") parts.push(errorBox(hits.reason));
  clear(out).append(...parts);
  out.setAttribute("aria-busy", "false");
}

function verdictBadge(verdict) {
  const key = verdict === "yes" ? "yes" : verdict === "no" ? "no" : "null";
  return h("span", { class: "verdict verdict-" + key, title: t("verdict." + key + "Long"), "data-verdict": String(verdict) }, t("verdict." + key));
}

/** The question with its linked entities marked (spans are offsets into the question). */
function markedQuestion(question, entities) {
  const spans = (entities || [])
    .filter((e) => Array.isArray(e.span) && e.span.length === 2)
    .sort((a, b) => a.span[0] - b.span[0]);
  const frag = h("p", { class: "question-echo" });
  let at = 0;
  for (const e of spans) {
    const [start, end] = e.span;
    if (start < at || end > question.length) continue;
    frag.append(question.slice(at, start));
    frag.append(h("mark", { class: "entity", title: e.label + " (" + e.type + ")" }, question.slice(start, end)));
    at = end;
  }
  frag.append(question.slice(at));
  return frag;
}

async function answerCard(a, known) {
  const card = h("article", { class: "card answer", "aria-labelledby": "answer-title" });
  const pct = Math.round((Number(a.confidence) || 0) * 100);
  card.append(
    h("header", { class: "answer-head" },
      h("h2", { id: "answer-title" }, t("answer.title")),
      verdictBadge(a.verdict),
    ),
    markedQuestion(a.question || "", a.entities),
    h("p", { class: "answer-text" }, a.answer || t("answer.none")),
    h("dl", { class: "facts-row" },
      h("div", {}, h("dt", {}, t("answer.confidence")),
        h("dd", {}, h("meter", { min: "0", max: "1", value: String(a.confidence || 0), "aria-label": t("answer.confidence") }), " " + pct + "%")),
      h("div", {}, h("dt", {}, t("answer.format")), h("dd", {}, formatLabel(a.format))),
    ),
  );
  const citations = a.citations || [];
  const byId = new Map(citations.map((c) => [c.id, c]));
  if ((a.reasoning || []).length) {
    const list = h("ol", { class: "reasoning" });
    for (const step of a.reasoning) {
      const cited = step.source ? byId.get(step.source) : null;
      const href = !step.source ? null : cited ? docHref(cited.document, cited.start, cited.end, cited.id) : sourceHref(step.source, known);
      list.append(h("li", {}, h("span", { class: "step" }, step.step), step.source ? h("a", { class: "source", href }, step.source) : null));
    }
    card.append(h("h3", {}, t("answer.reasoning")), list);
  }
  if (citations.length) {
    const list = h("ol", { class: "citations" });
    for (const c of citations) list.append(await citationItem(c));
    card.append(h("h3", {}, t("answer.citations")), list);
  }
  const entities = a.entities || [];
  if (entities.length) {
    const links = await entityLinks(entities);
    card.append(h("h3", {}, t("answer.entities")), links);
  }
  if (a.verdict === null && (a.related || []).length) {
    const list = h("ul", { class: "related" });
    for (const id of a.related) list.append(h("li", {}, h("a", { href: sourceHref(id, known) }, id)));
    card.append(h("h3", {}, t("answer.related")), list);
  }
  return card;
}

/** A citation in context: the cited text marked inside a little of the document around it. */
async function citationItem(c) {
  const href = docHref(c.document, c.start, c.end, c.id);
  const quote = h("blockquote", { class: "cite-text", lang: "pt-BR" });
  let before = "";
  let after = "";
  try {
    const doc = await api("/documents/" + encodeURIComponent(c.document));
    const text = doc.text || "";
    const from = Math.max(0, c.start - 90);
    const to = Math.min(text.length, c.end + 90);
    before = (from > 0 ? "…" : "") + text.slice(from, c.start);
    after = text.slice(c.end, to) + (to < text.length ? "…" : "");
  } catch (_) {
    // The citation text alone is still exact.
  }
  quote.append(h("span", { class: "context" }, before), h("mark", {}, c.text), h("span", { class: "context" }, after));
  return h("li", { class: "citation" },
    h("div", { class: "cite-head" },
      h("a", { class: "cite-link", href }, c.id),
      h("span", { class: "meta" }, " · " + t("answer.score") + " " + Number(c.score || 0).toFixed(2)),
    ),
    quote,
    h("a", { class: "open-doc", href, "data-cite": c.id }, t("answer.openDoc") + " →"),
  );
}

async function entityLinks(entities) {
  const list = h("ul", { class: "chips" });
  const firstCard = entities.find((e) => e.type === "Card");
  const cardHref = await cardLinker(firstCard ? firstCard.id : null);
  const seen = new Set();
  for (const e of entities) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    const href = e.type === "Card" && cardHref ? cardHref(e.id) : nodeHref(e.id);
    list.append(h("li", {}, h("a", { class: "chip chip-" + String(e.type).toLowerCase(), href }, e.label), " ", h("span", { class: "meta" }, e.type)));
  }
  return list;
}

function searchCard(data) {
  const card = h("section", { class: "card search", "aria-labelledby": "search-title" });
  card.append(h("h2", { id: "search-title" }, t("search.title")));
  const hits = data.hits || [];
  if (!hits.length) {
    card.append(h("p", {}, t("search.none")));
    return card;
  }
  const list = h("ol", { class: "hits" });
  for (const hit of hits) {
    list.append(h("li", { class: "hit" },
      h("div", { class: "cite-head" },
        h("span", { class: "badge" }, hit.type),
        " ",
        h("a", { href: docHref(hit.document, hit.start, hit.end, hit.id) }, hit.id),
        h("span", { class: "meta" }, " · " + formatLabel(hit.format) + " · " + Number(hit.score || 0).toFixed(3)),
      ),
      h("p", { class: "hit-text", lang: "pt-BR" }, hit.text),
    ));
  }
  card.append(list);
  return card;
}

// --- document view ---------------------------------------------------------------------------
function parseFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const s = params.get("s");
  let start = null;
  let end = null;
  if (s && /^\d+-\d+$/.test(s)) {
    [start, end] = s.split("-").map(Number);
  }
  return { start, end, node: params.get("n") };
}

async function renderDocument() {
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
    clear(textBox);
    return;
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
  if (valid) {
    const mark = h("mark", { id: "hl", tabindex: "-1", "data-start": String(start), "data-end": String(end) }, doc.text.slice(start, end));
    textBox.append(doc.text.slice(0, start), mark, doc.text.slice(end));
    status.append(h("p", { class: "notice" },
      t("doc.cited") + (node ? " (" + node + ")" : "") + ": " + t("doc.chars") + " " + start + "–" + end + ". ",
      h("button", { type: "button", class: "link-button", onclick: () => focusMark(mark) }, t("doc.jump")),
    ));
    requestAnimationFrame(() => focusMark(mark));
  } else {
    textBox.append(doc.text);
    if (start !== null || node) status.append(h("p", { class: "notice" }, t("doc.noSpan")));
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

// --- node view -------------------------------------------------------------------------------
async function renderNode(id) {
  const title = document.getElementById("node-title");
  const body = clear(document.getElementById("node-body"));
  title.textContent = id || "—";
  if (!id) return;
  body.append(loadingBox());
  let node;
  try {
    node = await api("/id/" + idPath(id));
  } catch (err) {
    clear(body).append(errorBox(err));
    if (err.body && Array.isArray(err.body.suggestions) && err.body.suggestions.length) {
      body.append(h("ul", {}, err.body.suggestions.map((s) => h("li", {}, h("a", { href: nodeHref(s) }, s)))));
    }
    return;
  }
  const label = (lang === "en" ? node.label_en || node.label_pt : node.label_pt || node.label_en) || node.id;
  title.textContent = label;
  document.title = label + " · ygo-rulings";
  clear(body);
  const dl = h("dl", { class: "props" },
    h("dt", {}, "id"), h("dd", {}, h("code", {}, node.id)),
    h("dt", {}, t("node.type")), h("dd", {}, node.type),
  );
  const names = [node.label_pt, node.label_en].filter(Boolean);
  if (names.length) dl.append(h("dt", {}, t("node.labels")), h("dd", {}, names.join(" / ")));
  const props = node.props || {};
  const definition = lang === "en" ? props.definition_en || props.definition_pt : props.definition_pt || props.definition_en;
  if (definition) dl.append(h("dt", {}, t("node.definition")), h("dd", {}, definition));
  for (const [k, v] of Object.entries(props)) {
    if (k.startsWith("definition_") || k === "line" || v === null || (Array.isArray(v) && !v.length)) continue;
    dl.append(h("dt", {}, k), h("dd", {}, Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v)));
  }
  body.append(dl);
  const links = h("p", { class: "actions" });
  if (node.span) links.append(h("a", { class: "button", href: docHref(node.span.document, node.span.start, node.span.end, node.id) }, t("node.inDoc")), " ");
  if (node.type === "Card") {
    const linker = await cardLinker(node.id);
    if (linker) links.append(h("a", { class: "button", href: linker(node.id) }, t("node.wiki")), " ");
  } else if (node.type === "Rule" || node.type === "Section") {
    const linker = await ruleLinker(node.id);
    if (linker) links.append(h("a", { class: "button", href: linker(node.id) }, t("node.wiki")), " ");
  }
  for (const [as, label] of [["json", "JSON"], ["jsonld", "JSON-LD"], ["ttl", "Turtle"]]) {
    links.append(h("a", { class: "button", href: "/id/" + idPath(node.id) + "?as=" + as }, label), " ");
  }
  body.append(links);
  if (node.text) body.append(h("h2", {}, t("node.text")), h("blockquote", { class: "cite-text", lang: "pt-BR" }, node.text));
  const known = await knownDocuments();
  const factList = (facts, other) => {
    const list = h("ul", { class: "fact-list" });
    for (const f of facts.slice(0, 80)) {
      const target = f[other];
      list.append(h("li", {},
        h("span", { class: "predicate" }, f.predicate), " ",
        h("a", { href: nodeHref(target) }, target),
        f.source && f.source !== node.id ? h("span", { class: "meta" }, " · ", t("answer.source") + " ", h("a", { href: sourceHref(f.source, known) }, f.source)) : null,
        h("span", { class: "meta" }, " · " + t("node.authority") + ": " + f.authority),
      ));
    }
    return list;
  };
  const out = (node.out || []).filter((f) => f.predicate !== "mentions");
  const inc = (node.in || []).filter((f) => f.predicate !== "mentions");
  if (out.length) body.append(h("h2", {}, t("node.out")), factList(out, "object"));
  if (inc.length) body.append(h("h2", {}, t("node.in")), factList(inc, "subject"));
  const mentionedIn = [...new Set((node.in || []).filter((f) => f.predicate === "mentions").map((f) => f.subject))];
  if (mentionedIn.length) {
    body.append(h("h2", {}, t("node.mentionedIn")),
      h("ul", { class: "fact-list" }, mentionedIn.slice(0, 100).map((id) => h("li", {}, h("a", { href: sourceHref(id, known) }, id)))));
  }
  if ((node.children || []).length) {
    body.append(h("h2", {}, t("node.children")),
      h("ul", {}, node.children.map((c) => h("li", {}, h("a", { href: nodeHref(c) }, c)))));
  }
}

// --- browse ----------------------------------------------------------------------------------
async function renderBrowse(params) {
  const out = clear(document.getElementById("browse-results"));
  out.append(loadingBox());
  let data;
  try {
    data = await documentsIndex();
  } catch (err) {
    clear(out).append(errorBox(err));
    return;
  }
  const topic = params.get("topic") || "";
  const only = params.get("doc") || "";
  const topicSelect = document.getElementById("browse-topic");
  const docSelect = document.getElementById("browse-doc");
  fillSelect(topicSelect, data.topics.map((tp) => [tp.id, (lang === "en" ? tp.label_en : tp.label_pt) + " (" + tp.count + ")"]), topic);
  fillSelect(docSelect, data.documents.map((d) => [d.id, lang === "en" && d.title_en ? d.title_en : d.title]), only);
  const firstRule = data.documents.flatMap((d) => d.outline).find((r) => r.type === "Rule") ||
    data.documents.flatMap((d) => d.outline)[0];
  const wiki = await ruleLinker(firstRule ? firstRule.id : null);
  const topicLabels = new Map(data.topics.map((tp) => [tp.id, lang === "en" ? tp.label_en : tp.label_pt]));
  clear(out);
  if (!wiki) out.append(h("p", { class: "notice" }, t("browse.wikiMissing")));
  let shown = 0;
  for (const doc of data.documents) {
    if (only && doc.id !== only) continue;
    const rows = doc.outline.filter((r) => !topic || r.topics.includes(topic));
    if (topic && !rows.length) continue;
    const section = h("section", { class: "card doc-card", "aria-labelledby": "browse-" + doc.id });
    section.append(h("h2", { id: "browse-" + doc.id },
      h("a", { href: docHref(doc.id) }, lang === "en" && doc.title_en ? doc.title_en : doc.title)),
      h("p", { class: "meta" }, formatLabel(doc.format) + " · " + rows.length + " " + t("browse.count")));
    const list = h("ul", { class: "outline" });
    for (const row of rows) {
      shown += 1;
      const mainHref = wiki ? wiki(row.id) : nodeHref(row.id);
      list.append(h("li", { class: "depth-" + Math.min(row.depth, 3) },
        h("a", { class: "outline-title", href: mainHref }, outlineLabel(row)),
        h("span", { class: "outline-links" },
          h("a", { href: docHref(doc.id, row.start, row.end, row.id) }, t("browse.inDoc")),
          wiki ? h("a", { href: nodeHref(row.id) }, t("browse.data")) : null,
        ),
        row.topics.length ? h("ul", { class: "chips small" }, row.topics.slice(0, 4).map((id) =>
          h("li", {}, h("a", { class: "chip" + (id === topic ? " chip-active" : ""), href: "/?view=browse&topic=" + encodeURIComponent(id) }, topicLabels.get(id) || id)))) : null,
      ));
    }
    section.append(list);
    out.append(section);
  }
  if (!shown) out.append(h("p", {}, t("browse.none")));
}

// --- cards -----------------------------------------------------------------------------------
async function renderCards() {
  const out = clear(document.getElementById("cards-results"));
  const count = document.getElementById("cards-count");
  const filter = document.getElementById("cards-filter");
  out.append(loadingBox());
  let data;
  try {
    data = await api("/catalog");
  } catch (err) {
    clear(out).append(errorBox(err));
    return;
  }
  const cards = data.cards || [];
  const wiki = await cardLinker(cards.length ? cards[0].id : null);
  const fold = (s) => String(s || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const draw = () => {
    const needle = fold(filter.value.trim());
    const chosen = cards.filter((c) => !needle || fold(c.label_pt).includes(needle) || fold(c.label_en).includes(needle));
    const list = h("ul", { class: "card-list" });
    for (const c of chosen) {
      list.append(h("li", {},
        h("a", { href: wiki ? wiki(c.id) : nodeHref(c.id) }, (lang === "en" ? c.label_en || c.label_pt : c.label_pt || c.label_en) || c.id),
        h("span", { class: "meta" }, " · " + (lang === "en" ? c.label_pt || "" : c.label_en || "")),
        c.card_type ? h("span", { class: "badge badge-" + c.card_type }, t("cardtype." + c.card_type)) : null,
      ));
    }
    clear(out);
    if (!wiki) out.append(h("p", { class: "notice" }, t("cards.wikiMissing")));
    out.append(list);
    count.textContent = chosen.length + " / " + cards.length + " " + t("cards.count");
  };
  filter.oninput = draw;
  draw();
}

// ---------------------------------------------------------------------------------------
// Wiring.
// ---------------------------------------------------------------------------------------
function submitAsk(event) {
  event.preventDefault();
  const q = document.getElementById("q").value.trim();
  if (!q) {
    document.getElementById("q").focus();
    return;
  }
  const fmt = document.getElementById("format").value;
  const params = new URLSearchParams({ q, ...(fmt ? { format: fmt } : {}) });
  history.pushState(null, "", "/?" + params.toString());
  renderAsk(params);
}

function toggleLanguage() {
  toggleLang();
  route();
}

function start() {
  applyStaticText();
  document.getElementById("ask-form").addEventListener("submit", submitAsk);
  document.getElementById("quiz-setup").addEventListener("submit", submitQuizSetup);
  document.getElementById("quiz-form").addEventListener("submit", (event) => {
    event.preventDefault();
    checkQuiz();
  });
  document.getElementById("lang-toggle").addEventListener("click", toggleLanguage);
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", () => {
    // Only a span or node fragment changes the highlight (not the skip link's #main).
    if (currentView() === "doc" && /(^#|&)(s|n)=/.test(location.hash)) renderDocument();
  });
  route();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();

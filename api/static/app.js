// ygo-rulings web page: plain ES modules, no build step, no network assets.
// Every piece of data goes into the page through textContent and attributes, never parsed as markup.
// Views: ask (default), /doc/{document}, ?view=node|browse|cards here; ?view=quiz in quiz.js,
// ?view=sparql in sparql.js, ?view=training in training.js, ?view=deck in deck.js, ?view=banlist in banlist.js.
import { answerCard, searchCard } from "./answer.js";
import { cardStatusBadges, renderBanlist, submitBanlist } from "./banlist.js";
import { renderCards, submitCards } from "./cards.js";
import {
  api,
  briefs,
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
  nodeLabel,
  outlineLabel,
  placeLabel,
  postJson,
  ruleLinker,
  sourceHref,
  truncate,
} from "./core.js";
import { renderDeck, submitDeck } from "./deck.js";
import { renderDocument } from "./docview.js";
import { applyStaticText, EXAMPLES, lang, t, toggleLang } from "./i18n.js";
import { cardRows, label } from "./labels.js";
import { changeQuizFormat, checkQuiz, renderQuiz, submitQuizSetup } from "./quiz.js";
import { renderSparql, submitSparql } from "./sparql.js";
import { fillTopics as fillTrainingTopics, renderTraining, startTraining } from "./training.js";

// ---------------------------------------------------------------------------------------
// Views. The URL says which: /doc/{doc} or /?view=browse|cards|deck|banlist|quiz|training|sparql|node,
// else ask.
// ---------------------------------------------------------------------------------------
const VIEWS = ["ask", "doc", "node", "browse", "cards", "deck", "banlist", "quiz", "training", "sparql"];

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
  if (view === "deck") return renderDeck(params);
  if (view === "banlist") return renderBanlist(params);
  if (view === "quiz") return renderQuiz(params);
  if (view === "sparql") return renderSparql(params);
  if (view === "training") return renderTraining();
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
  const [answer, hits] = await Promise.allSettled([postJson("/ask", body), api(searchUrl)]);
  const parts = [];
  const retry = () => renderAsk(params);
  if (answer.status === "fulfilled") parts.push(await answerCard(answer.value));
  else parts.push(errorBox(answer.reason, retry));
  if (hits.status === "fulfilled") parts.push(await searchCard(hits.value));
  else if (answer.status === "fulfilled") parts.push(errorBox(hits.reason, retry));
  clear(out).append(...parts);
  out.setAttribute("aria-busy", "false");
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
      body.append(h("p", {}, t("error.closest")), h("ul", {}, err.body.suggestions.map((s) => h("li", {}, h("a", { href: nodeHref(s) }, s)))));
    }
    return;
  }
  const name = (lang === "en" ? node.label_en || node.label_pt : node.label_pt || node.label_en) || node.id;
  title.textContent = name;
  document.title = name + " · ygo-rulings";
  clear(body);
  if (node.type === "Card") {
    const badges = await cardStatusBadges(node.id);
    if (badges.length) body.append(h("p", { class: "card-statuses" }, ...badges));
  }
  const dl = h("dl", { class: "props" },
    h("dt", {}, "id"), h("dd", {}, h("code", {}, node.id)),
    h("dt", {}, t("node.type")), h("dd", {}, label("nodeType", node.type)),
  );
  const both = [...new Set([node.label_pt, node.label_en].filter(Boolean))];
  if (both.length) dl.append(h("dt", {}, t("node.labels")), h("dd", {}, both.join(" / ")));
  const props = node.props || {};
  const definition = lang === "en" ? props.definition_en || props.definition_pt : props.definition_pt || props.definition_en;
  if (definition) dl.append(h("dt", {}, t("node.definition")), h("dd", {}, definition));
  if (node.type === "Card") {
    for (const [field, value] of cardRows(props)) dl.append(h("dt", {}, field), h("dd", {}, value));
  } else if (props.number) {
    dl.append(h("dt", {}, t("node.number")), h("dd", {}, String(props.number)));
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
  for (const [as, kind] of [["json", "JSON"], ["jsonld", "JSON-LD"], ["ttl", "Turtle"]]) {
    links.append(h("a", { class: "button", href: "/id/" + idPath(node.id) + "?as=" + as }, kind), " ");
  }
  body.append(links);
  if (node.text) body.append(h("h2", {}, t("node.text")), h("blockquote", { class: "cite-text", lang: "pt-BR" }, node.text));
  const known = await knownDocuments();
  const outFacts = (node.out || []).filter((f) => f.predicate !== "mentions").slice(0, 80);
  const inFacts = (node.in || []).filter((f) => f.predicate !== "mentions").slice(0, 80);
  const mentioners = [...new Set((node.in || []).filter((f) => f.predicate === "mentions").map((f) => f.subject))].slice(0, 100);
  const names = await briefs([
    ...outFacts.map((f) => f.object), ...inFacts.map((f) => f.subject),
    ...[...outFacts, ...inFacts].map((f) => f.source), ...mentioners, ...(node.children || []).slice(0, 100),
  ]);
  const nameOf = (id) => {
    const b = names.get(id);
    if (!b) return id;
    if (b.text && b.document) return [placeLabel(b, null), truncate(b.text, 90)].filter(Boolean).join(": ");
    return nodeLabel(b) || placeLabel(b, null) || id;
  };
  const factList = (facts, other) => {
    const list = h("ul", { class: "fact-list" });
    for (const f of facts) {
      const target = f[other];
      list.append(h("li", {},
        h("span", { class: "predicate" }, label("predicate", f.predicate)), " ",
        h("a", { href: nodeHref(target) }, nameOf(target)),
        f.source && f.source !== node.id && f.source !== target ? h("span", { class: "meta" }, " · ", t("answer.source") + " ", h("a", { href: sourceHref(f.source, known) }, nameOf(f.source))) : null,
        h("span", { class: "meta" }, " · " + t("node.authority") + ": " + label("authority", f.authority)),
      ));
    }
    return list;
  };
  if (outFacts.length) body.append(h("h2", {}, t("node.out")), factList(outFacts, "object"));
  if (inFacts.length) body.append(h("h2", {}, t("node.in")), factList(inFacts, "subject"));
  if (mentioners.length) {
    body.append(h("h2", {}, t("node.mentionedIn")),
      h("ul", { class: "fact-list" }, mentioners.map((id) => h("li", {}, h("a", { href: sourceHref(id, known) }, nameOf(id))))));
  }
  if ((node.children || []).length) {
    body.append(h("h2", {}, t("node.children")),
      h("ul", {}, node.children.slice(0, 100).map((c) => h("li", {}, h("a", { href: nodeHref(c) }, nameOf(c))))));
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
  document.getElementById("cards-form").addEventListener("submit", submitCards);
  document.getElementById("deck-form").addEventListener("submit", submitDeck);
  document.getElementById("banlist-form").addEventListener("submit", submitBanlist);
  document.getElementById("quiz-setup").addEventListener("submit", submitQuizSetup);
  document.getElementById("sparql-form").addEventListener("submit", submitSparql);
  document.getElementById("training-setup").addEventListener("submit", startTraining);
  document.getElementById("training-format").addEventListener("change", fillTrainingTopics);
  document.getElementById("quiz-format").addEventListener("change", changeQuizFormat);
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

// The answer view: verdict, value, confidence (only with a verdict), reasoning, citations in
// context, related passages and related cards/concepts as chips, then the search hits.
import {
  api,
  briefs,
  cardLinker,
  confidencePercent,
  docHref,
  documentTitles,
  formatLabel,
  h,
  nodeHref,
  nodeLabel,
  placeLabel,
  truncate,
} from "./core.js";
import { lang, t } from "./i18n.js";
import { label, valueText } from "./labels.js";

const RELATED_PASSAGES = 6;
const RELATED_CHIPS = 16;
const PASSAGE_CHARS = 280;

export function verdictBadge(verdict) {
  const key = verdict === "yes" ? "yes" : verdict === "no" ? "no" : "null";
  return h("span", { class: "verdict verdict-" + key, "data-verdict": String(verdict) }, t("verdict." + key));
}

/** The question with its linked entities marked (spans are offsets into the question). */
function markedQuestion(question, entities, names) {
  const spans = (entities || [])
    .filter((e) => Array.isArray(e.span) && e.span.length === 2)
    .sort((a, b) => a.span[0] - b.span[0]);
  const frag = h("p", { class: "question-echo" });
  let at = 0;
  for (const e of spans) {
    const [start, end] = e.span;
    if (start < at || end > question.length) continue;
    frag.append(question.slice(at, start));
    const name = nodeLabel(names.get(e.id)) || e.label;
    frag.append(h("mark", { class: "entity", title: name + " (" + label("entityType", e.type) + ")" }, question.slice(start, end)));
    at = end;
  }
  frag.append(question.slice(at));
  return frag;
}

/** Where a card, concept or format chip leads: the card's page when served, else its node view. */
async function chipLinker(ids) {
  const firstCard = ids.find((id) => id.startsWith("card/"));
  const cardHref = await cardLinker(firstCard || null);
  return (id) => (id.startsWith("card/") && cardHref ? cardHref(id) : nodeHref(id));
}

function chip(id, brief, type, href) {
  const name = nodeLabel(brief) || id.replace(/^[a-z]+\//, "").replace(/-/g, " ");
  return h("li", {},
    h("a", { class: "chip chip-" + String(type).toLowerCase(), href, "data-id": id },
      name, h("span", { class: "chip-kind" }, label("entityType", type))));
}

function sourceLink(id, brief, cited, titles) {
  const href = cited ? docHref(cited.document, cited.start, cited.end, cited.id)
    : brief && brief.document ? docHref(brief.document, brief.start, brief.end, id) : nodeHref(id);
  return h("a", { class: "source", href, "data-id": id }, placeLabel(brief, titles) || nodeLabel(brief) || id);
}

export async function answerCard(a) {
  const citations = a.citations || [];
  const entities = a.entities || [];
  const related = a.related || [];
  const steps = a.reasoning || [];
  const [names, titles] = await Promise.all([
    briefs([...entities.map((e) => e.id), ...related, ...steps.map((s) => s.source), ...citations.map((c) => c.id)]),
    documentTitles(),
  ]);
  const card = h("article", { class: "card answer", "aria-labelledby": "answer-title" });
  card.append(h("header", { class: "answer-head" }, h("h2", { id: "answer-title" }, t("answer.title")), verdictBadge(a.verdict)));
  card.append(markedQuestion(a.question || "", entities, names));
  if (a.value && a.value.value !== null && a.value.value !== undefined) {
    card.append(h("p", { class: "answer-value" },
      h("span", { class: "value-label" }, t("answer.value")), " ",
      h("strong", { class: "value" }, valueText(a.value))));
  }
  card.append(h("p", { class: "answer-text" }, a.answer || t("answer.none")));
  if ((a.suggestions || []).length) card.append(await didYouMean(a));
  const facts = h("dl", { class: "facts-row" });
  const pct = a.verdict === "yes" || a.verdict === "no" ? confidencePercent(a.confidence) : null;
  if (pct !== null) {
    facts.append(h("div", { class: "confidence" }, h("dt", {}, t("answer.confidence")),
      h("dd", {}, h("meter", { min: "0", max: "1", value: String(pct / 100), "aria-label": t("answer.confidence") }), " " + pct + "%")));
  }
  facts.append(h("div", {}, h("dt", {}, t("answer.format")), h("dd", {}, formatLabel(a.format))));
  card.append(facts);

  const byId = new Map(citations.map((c) => [c.id, c]));
  if (steps.length) {
    const list = h("ol", { class: "reasoning" });
    for (const step of steps) {
      const origin = step.source ? sourceLink(step.source, names.get(step.source), byId.get(step.source), titles)
        : step.fact ? h("span", { class: "meta authority" }, t("answer.source") + ": " + label("authority", step.fact.authority)) : null;
      list.append(h("li", {}, h("span", { class: "step" }, step.step), origin ? " " : null, origin));
    }
    card.append(h("h3", {}, t("answer.reasoning")), list);
  }
  if (citations.length) {
    const list = h("ol", { class: "citations" });
    for (const c of citations) list.append(await citationItem(c, names.get(c.id), titles));
    card.append(h("h3", {}, t("answer.citations")), list);
  }
  const linkChip = await chipLinker([...entities.map((e) => e.id), ...related]);
  if (entities.length) {
    const seen = new Set();
    const list = h("ul", { class: "chips entities" });
    for (const e of entities) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      list.append(chip(e.id, names.get(e.id) || { label_en: e.label }, e.type, linkChip(e.id)));
    }
    card.append(h("h3", {}, t("answer.entities")), list);
  }
  const cited = new Set(citations.map((c) => c.id));
  const shownTexts = new Set(citations.map((c) => c.text));
  const passages = [];
  for (const b of related.map((id) => names.get(id))) {
    if (!b || !b.text || !b.document || cited.has(b.id) || shownTexts.has(b.text)) continue;
    shownTexts.add(b.text); // the same sentence in two places is shown once
    passages.push(b);
  }
  if (passages.length) {
    const list = h("ul", { class: "related-passages" });
    for (const b of passages.slice(0, RELATED_PASSAGES)) list.append(relatedPassage(b, titles));
    card.append(h("h3", {}, t("answer.related")), list);
  }
  const named = new Set(entities.map((e) => e.id));
  const things = related.map((id) => names.get(id)).filter((b) => b && ["Card", "Concept", "Format"].includes(b.type) && !named.has(b.id));
  if (things.length) {
    const list = h("ul", { class: "chips related-chips" });
    for (const b of things.slice(0, RELATED_CHIPS)) list.append(chip(b.id, b, b.type, linkChip(b.id)));
    card.append(h("h3", {}, t("answer.relatedEntities")), list);
  }
  return card;
}

/** "Did you mean": each card a span of the question may mean, as the question asked again with
 * the card's name in place of the span, and a link to the card's page. */
async function didYouMean(a) {
  const cardHref = await cardLinker(a.suggestions[0].id);
  const list = h("ul", { class: "suggestions" });
  for (const s of a.suggestions) {
    const name = (lang === "en" ? s.name_en : s.name_pt || s.name_en) || s.id;
    const [start, end] = s.span;
    const asked = a.question.slice(0, start) + name + a.question.slice(end);
    const params = new URLSearchParams({ q: asked, ...(a.format ? { format: a.format } : {}) });
    list.append(h("li", { class: "suggestion", "data-id": s.id },
      h("a", { class: "suggestion-ask", href: "/?" + params.toString() }, name),
      " ", h("span", { class: "meta" }, t("answer.insteadOf", { text: s.text })),
      " · ", h("a", { class: "suggestion-card", href: cardHref ? cardHref(s.id) : nodeHref(s.id) }, t("answer.cardPage"))));
  }
  return h("div", { class: "did-you-mean" }, h("p", { class: "did-you-mean-title" }, t("answer.didYouMean")), list);
}

function relatedPassage(b, titles) {
  const href = docHref(b.document, b.start, b.end, b.id);
  return h("li", { class: "related-passage" },
    h("a", { class: "passage-title", href }, placeLabel(b, titles) || label("nodeType", b.type)),
    h("p", { class: "passage-text", lang: "pt-BR" }, truncate(b.text, PASSAGE_CHARS)),
    h("a", { class: "open-doc", href, "data-id": b.id }, t("answer.openDoc") + " →"));
}

/** A citation in context: the cited text marked inside a little of the document around it. */
async function citationItem(c, brief, titles) {
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
      h("a", { class: "cite-link", href }, placeLabel(brief, titles) || titles.get(c.document) || c.document),
      h("span", { class: "meta" }, " · " + t("answer.score") + " " + Number(c.score || 0).toFixed(2)),
    ),
    quote,
    h("a", { class: "open-doc", href, "data-cite": c.id }, t("answer.openDoc") + " →"),
  );
}

export async function searchCard(data) {
  const card = h("section", { class: "card search", "aria-labelledby": "search-title" });
  card.append(h("h2", { id: "search-title" }, t("search.title")));
  const hits = data.hits || [];
  if (!hits.length) {
    card.append(h("p", { class: "empty" }, t("search.empty")));
    return card;
  }
  const [names, titles] = await Promise.all([briefs(hits.map((x) => x.id)), documentTitles()]);
  const list = h("ol", { class: "hits" });
  for (const hit of hits) {
    const brief = names.get(hit.id);
    list.append(h("li", { class: "hit" },
      h("div", { class: "cite-head" },
        h("span", { class: "badge" }, label("nodeType", hit.type)),
        " ",
        h("a", { href: docHref(hit.document, hit.start, hit.end, hit.id) }, placeLabel(brief, titles) || titles.get(hit.document) || hit.document),
        h("span", { class: "meta" }, " · " + formatLabel(hit.format) + " · " + t("answer.score") + " " + Number(hit.score || 0).toFixed(3)),
      ),
      h("p", { class: "hit-text", lang: "pt-BR" }, hit.text),
    ));
  }
  card.append(list);
  return card;
}


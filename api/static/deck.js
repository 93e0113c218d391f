// The Deck view: a pasted .ydk file or card list checked against a format (POST /deck/validate).
// Each violation shows its kind, its card, the lines it comes from (a button selects the line in
// the text box) and the rule it rests on, linked to its place in the document. The deck text stays
// in the text box (never in the URL); the format is in the URL (?view=deck&format=).
import { cardLinker, clear, docHref, errorBox, h, loadingBox, nodeHref, postJson } from "./core.js";
import { cardFormats, formatName } from "./banlist.js";
import { lang, t } from "./i18n.js";
import { label } from "./labels.js";

const PARTS = ["main", "extra", "side"];
let ready = Promise.resolve(); // the format list being filled (a check waits for it)

export function renderDeck(params) {
  ready = fillFormats(params);
  return ready.then(() => (document.getElementById("deck-text").value.trim() ? checkDeck() : null));
}

async function fillFormats(params) {
  const select = document.getElementById("deck-format");
  const formats = (await cardFormats()).filter((f) => f.deck_rules);
  const asked = params.get("format") || "";
  const current = select.value;
  clear(select);
  for (const f of formats) select.append(h("option", { value: f.id }, formatName(f)));
  const pick = [asked, current].find((id) => formats.some((f) => f.id === id));
  select.value = pick || (formats.length ? formats[0].id : "");
}

/** Select lines `first`..`last` (1-based) of the text box and bring them into view. */
export function selectLines(box, first, last) {
  const lines = box.value.split("\n");
  if (first < 1 || last > lines.length || last < first) return;
  const start = lines.slice(0, first - 1).reduce((sum, line) => sum + line.length + 1, 0);
  const end = lines.slice(first - 1, last).reduce((sum, line) => sum + line.length + 1, start) - 1;
  box.focus();
  box.setSelectionRange(start, end);
  const height = box.scrollHeight / Math.max(1, lines.length);
  box.scrollTop = Math.max(0, (first - 3) * height);
}

/** Sorted line numbers as runs of consecutive lines: [2, 3, 4, 9] → [[2, 4], [9, 9]]. */
export function lineRuns(lines) {
  const runs = [];
  for (const n of [...new Set(lines)].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  return runs;
}

async function checkDeck() {
  await ready;
  const out = document.getElementById("deck-results");
  const text = document.getElementById("deck-text").value;
  const fmt = document.getElementById("deck-format").value || null;
  out.setAttribute("aria-busy", "true");
  clear(out).append(loadingBox());
  let report;
  try {
    report = await postJson("/deck/validate", { format: fmt, deck: text });
  } catch (err) {
    clear(out).append(errorBox(err));
    out.setAttribute("aria-busy", "false");
    return;
  }
  const formats = await cardFormats();
  const spec = formats.find((f) => f.id === report.format);
  const ids = report.violations.map((v) => v.card_id).filter(Boolean);
  const wiki = await cardLinker(ids.length ? ids[0] : null);
  clear(out).append(drawReport(report, spec ? formatName(spec) : report.format, wiki));
  out.setAttribute("aria-busy", "false");
}

function drawReport(report, formatText, wiki) {
  const box = h("article", { class: "card deck-report", "data-ok": String(report.ok), "aria-labelledby": "deck-verdict" });
  const verdict = report.ok ? t("deck.legal", { format: formatText }) : t("deck.illegal", { format: formatText, n: report.violations.length });
  box.append(h("h2", { id: "deck-verdict", class: report.ok ? "deck-ok" : "deck-bad" }, verdict));
  box.append(h("p", { class: "meta deck-counts" },
    PARTS.map((p) => t("deck.part." + p) + " " + report.counts[p]).join(" · ")));
  if (report.violations.length) {
    const list = h("ol", { class: "deck-violations" });
    for (const v of report.violations) list.append(violationItem(v, wiki));
    box.append(list);
  }
  if (report.resolved.length) {
    const list = h("ul", { class: "deck-resolved" });
    for (const r of report.resolved) {
      list.append(h("li", {}, lineButton(r.line, r.line), " ",
        t("deck.readAs", { entry: r.entry, card: r.card })));
    }
    box.append(h("h3", {}, t("deck.resolved")), list);
  }
  return box;
}

/** A button selecting lines first..last of the deck text ("Linha 12", "Linhas 2–14"). */
function lineButton(first, last) {
  const box = document.getElementById("deck-text");
  const text = first === last ? t("deck.line", { n: first }) : t("deck.lines", { from: first, to: last });
  return h("button", { type: "button", class: "link-button line-link", "data-line": String(first), onclick: () => selectLines(box, first, last) }, text);
}

function violationItem(v, wiki) {
  const item = h("li", { class: "violation", "data-kind": v.kind, "data-line": v.line === null ? null : String(v.line) });
  const head = h("p", { class: "violation-head" }, h("strong", { class: "violation-kind" }, kindLabel(v.kind)));
  if (v.card) {
    const href = v.card_id ? (wiki ? wiki(v.card_id) : nodeHref(v.card_id)) : null;
    head.append(" ", href ? h("a", { href, class: "violation-card" }, v.card) : h("span", {}, v.card));
  }
  if (v.duelist) head.append(" ", h("span", { class: "meta" }, t("deck.duelist", { n: v.duelist })));
  item.append(head);
  if (v.line !== null && v.line !== undefined) {
    const where = h("p", { class: "violation-lines" }, lineButton(v.line, v.line));
    const runs = lineRuns(v.lines || []);
    if ((v.lines || []).some((n) => n !== v.line)) {
      where.append(" ", h("span", { class: "meta" }, t("deck.allLines")), " ",
        ...runs.flatMap(([a, b], i) => [i ? ", " : "", lineButton(a, b)]));
    }
    item.append(where);
  }
  if (v.suggestions && v.suggestions.length) {
    item.append(h("p", { class: "meta" }, t("error.closest") + " " + v.suggestions.join(", ")));
  }
  if (lang === "en") item.append(h("p", { class: "violation-message", lang: "en" }, v.message));
  else {
    item.append(h("details", { class: "violation-message" },
      h("summary", {}, t("error.serverText")), h("p", { lang: "en" }, v.message)));
  }
  if (v.source) item.append(sourceLine(v.source));
  return item;
}

function kindLabel(kind) {
  const key = "deck.kind." + kind;
  const text = t(key);
  return text === key ? label("listStatus", kind) : text;
}

function sourceLine(source) {
  const href = source.document ? docHref(source.document, source.start, source.end, source.id) : nodeHref(source.id);
  return h("p", { class: "violation-source" },
    h("span", { class: "meta" }, t("deck.rule") + " "),
    h("a", { href, class: "source", "data-id": source.id }, source.text));
}

export function submitDeck(event) {
  event.preventDefault();
  const box = document.getElementById("deck-text");
  if (!box.value.trim()) {
    box.focus();
    return;
  }
  const fmt = document.getElementById("deck-format").value;
  const url = "/?" + new URLSearchParams({ view: "deck", ...(fmt ? { format: fmt } : {}) }).toString();
  if (location.pathname + location.search !== url) history.pushState(null, "", url);
  checkDeck();
}

// What the training view (trainingsession.js) shows once answers are graded: a graded answer
// (practice, at once; an exam's missed questions, after its close) with its key, explanation and
// cited span, and a closed exam's result. Keys, explanations and citations only ever come from
// the server's answers.
import { docHref, h, placeLabel } from "./core.js";
import { lang, t } from "./i18n.js";
import { partLang } from "./quiz.js";
import { barChart, topicName } from "./trainingchart.js";

/** A graded answer: right or wrong, the key, the explanation (in `asked`, the language it was
 * asked in) and its citation at its span. */
export function feedbackCard(item, names, titles, options, asked, question) {
  const c = item.citation;
  const given = (options || []).find((o) => o.key === item.given);
  const href = docHref(c.document, c.start, c.end, c.id);
  const own = asked === "en" ? "en" : "pt-BR";
  return h("div", { class: "card training-feedback " + (item.correct ? "right" : "wrong"), "data-correct": String(item.correct), "data-lang": asked, tabindex: "-1" },
    h("p", {}, h("span", { class: "verdict " + (item.correct ? "verdict-yes" : "verdict-no") }, item.correct ? t("quiz.correct") : t("quiz.wrong"))),
    h("p", { class: "meta training-key" }, t("quiz.yours") + ": " + (item.given === null ? t("quiz.unanswered") : given ? given.text : item.given) + " · " + t("quiz.expected") + ": ",
      h("strong", { class: "expected", lang: question ? partLang(question, "option", asked) : own }, item.expected_text)),
    h("p", { class: "explanation", lang: own }, item.explanation),
    item.machine_translated ? h("p", { class: "notice machine-translated" }, t("training.machineTranslated")) : null,
    h("blockquote", { class: "cite-text", lang: "pt-BR" }, h("mark", {}, c.text)),
    h("p", { class: "meta" }, t("answer.source") + ": ",
      h("a", { class: "cite-link", href, "data-cite": c.id }, placeLabel(names.get(c.id), titles) || titles.get(c.document) || c.document)),
  );
}

/** A closed exam's result (POST /exams/{id}/close or GET …/result): the score, pass or fail, a
 * bar per topic and every missed question graded; `asked` maps question ids to the questions. */
export function resultCard(result, { names, titles, topics, asked }) {
  const card = h("section", { class: "training-result", id: "training-result", "aria-labelledby": "training-result-title", tabindex: "-1" },
    h("h2", { id: "training-result-title" }, t("training.result")),
    h("p", { class: "score", "data-score": String(result.correct), "data-total": String(result.total) },
      t("quiz.score", { score: result.correct, total: result.total }), " ",
      h("span", { class: "verdict " + (result.passed ? "verdict-yes" : "verdict-no") }, result.passed ? t("training.passed") : t("training.failed"))),
    h("p", { class: "meta" }, t("training.passMark", { mark: Math.round(result.pass_mark * 100) }) + (result.timed_out ? " · " + t("training.timedOut") : "")),
    h("h3", {}, t("training.byTopic")),
    barChart(result.by_topic.map((r) => ({ key: r.topic, name: topicName(topics, r.topic), value: r.score, text: r.correct + "/" + r.total + " · " + Math.round(r.score * 100) + "%" })), "training-result-chart"),
  );
  if (result.retired.length) card.append(h("p", { class: "meta" }, t("training.retired", { n: result.retired.length })));
  if (result.missed.length) {
    card.append(h("h3", {}, t("training.missed")));
    const list = h("ol", { class: "training-missed" });
    for (const item of result.missed) {
      const q = asked.get(item.question_id);
      list.append(h("li", {}, feedbackCard(item, names, titles, q ? q.options : null, lang, q)));
    }
    card.append(list);
  }
  return card;
}

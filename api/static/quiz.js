// The judge quiz: GET /quiz (questions with answer keys), POST /quiz/check (graded, explained),
// both in the page language (`lang`); its topics from GET /quiz/topics.
import {
  api,
  briefs,
  clear,
  docHref,
  documentTitles,
  errorBox,
  fetchJson,
  fillSelect,
  h,
  knownDocuments,
  loadingBox,
  placeLabel,
  sourceHref,
} from "./core.js";
import { lang, t } from "./i18n.js";
import { quizTopics, topicLabel } from "./trainingchart.js";

// --- state ------------------------------------------------------------------------------------
// {key, base (the key without lang), lang, questions, answers: Map(id → value), result}
let quiz = null;

/** The language of a question's part as shown: the quiz's own words (prompt, options,
 * explanation) in the language asked for (`asked`, pt or en), the document's words as written
 * (Portuguese): a statement's sentence (a claim's is in the language asked for) and the steps an
 * order question offers. */
export function partLang(q, part, asked) {
  const own = asked === "en" ? "en" : "pt-BR";
  if (part === "statement") return q.family === "claim" ? own : "pt-BR";
  if (part === "option") return q.family === "order" ? "pt-BR" : own;
  return own;
}

function normalizeChoices(q) {
  const raw = q.choices || q.options || q.alternatives || null;
  if (Array.isArray(raw) && raw.length) {
    return raw.map((c, i) => {
      if (c !== null && typeof c === "object") {
        const value = c.id ?? c.key ?? c.value ?? c.label ?? c.text ?? String(i);
        return { value: String(value), label: String(c.text ?? c.label ?? c.value ?? value) };
      }
      return { value: String(c), label: String(c) };
    });
  }
  const key = answerKey(q);
  if (key === null || ["yes", "no", "true", "false", "sim", "não", "nao"].includes(String(key).toLowerCase()) || q.kind === "verdict" || q.type === "yes_no") {
    return [
      { value: "yes", label: t("verdict.yesLong") },
      { value: "no", label: t("verdict.noLong") },
    ];
  }
  return null; // free text
}

function answerKey(q) {
  const v = q.answer ?? q.correct ?? q.answer_key ?? q.key ?? q.expected ?? q.verdict ?? null;
  if (v === true) return "yes";
  if (v === false) return "no";
  return v === null ? null : String(v);
}

function normalizeQuestions(data) {
  const list = Array.isArray(data) ? data : data.questions || data.items || [];
  return list.map((q, i) => ({
    id: String(q.id ?? q.qid ?? i),
    text: q.prompt || q.question || q.text || "",
    context: q.context || null,
    statement: q.statement || null,
    choices: normalizeChoices(q),
    key: answerKey(q),
    explanation: q.explanation || q.why || q.rationale || "",
    source: citationOf(q),
    format: q.format || null,
    family: q.family || null,
  }));
}

/** Where an explanation comes from: a citation {id, document, start, end} or a bare id. */
function citationOf(r) {
  if (r.citation && typeof r.citation === "object") return r.citation;
  const id = r.source || (Array.isArray(r.sources) && r.sources.length ? r.sources[0].id || r.sources[0] : null);
  return id ? { id: String(id) } : null;
}

function sameAnswer(a, b) {
  const norm = (s) => String(s ?? "").trim().toLowerCase().replace(/^sim$/, "yes").replace(/^n[aã]o$/, "no");
  return a !== null && a !== undefined && norm(a) !== "" && norm(a) === norm(b);
}

export async function renderQuiz(params) {
  const status = clear(document.getElementById("quiz-status"));
  const form = document.getElementById("quiz-form");
  const score = clear(document.getElementById("quiz-score"));
  const fmt = params.get("format") || "";
  const topic = params.get("topic") || "";
  let seed = params.get("seed");
  if (!seed || !/^\d+$/.test(seed)) seed = String(Math.floor(Math.random() * 100000));
  document.getElementById("quiz-format").value = ["edison", "tag", "general"].includes(fmt) ? fmt : "";
  document.getElementById("quiz-seed").value = seed;
  await fillQuizTopics(fmt, topic);
  const query = new URLSearchParams({ n: "5", seed, ...(fmt ? { format: fmt } : {}), ...(topic ? { topic } : {}) });
  const base = query.toString();
  const asked = lang === "en" ? "en" : "pt";
  query.set("lang", asked);
  const key = query.toString();
  if (!quiz || quiz.key !== key) {
    status.append(loadingBox());
    let data;
    try {
      data = await api("/quiz?" + key);
    } catch (err) {
      form.hidden = true;
      clear(status).append(err.routeMissing ? h("p", { class: "notice", "data-missing": "quiz" }, t("quiz.missing")) : errorBox(err));
      return;
    }
    // The same quiz in another language (the ids and keys are the same): the answers given
    // stay, and a graded quiz is graded again so its explanations come in the new language.
    const same = quiz && quiz.base === base;
    const regrade = same && quiz.result !== null;
    quiz = { key, base, lang: asked, seed, format: fmt || null, raw: data, questions: normalizeQuestions(data), answers: same ? quiz.answers : new Map(), result: null };
    clear(status);
    if (regrade) quiz.result = gradeQuiz(await checkAnswers());
  }
  if (!quiz.questions.length) {
    form.hidden = true;
    status.append(h("p", { class: "notice" }, t("quiz.empty")));
    return;
  }
  drawQuizQuestions();
  form.hidden = false;
  if (quiz.result) score.append(...(await scoreView()));
}

/** Quiz topics with questions in the format (GET /quiz/topics), themes first, named in the
 * page language with their question counts; without the route, the themes alone. */
async function fillQuizTopics(format, value) {
  const topics = await quizTopics(format);
  const entries = topics.length
    ? topics.map((topic) => [topic.id, topicLabel(topic) + " (" + topic.questions + ")"])
    : ["chain", "damage-step", "spell-speed", "summon"].map((f) => [f, t("quiz.family." + f)]);
  fillSelect(document.getElementById("quiz-topic"), entries, value);
}

/** The setup's format changed: offer the topics of the new format (keeping the chosen one when
 * it has questions there). */
export function changeQuizFormat() {
  fillQuizTopics(document.getElementById("quiz-format").value, document.getElementById("quiz-topic").value);
}

function drawQuizQuestions() {
  const list = clear(document.getElementById("quiz-questions"));
  quiz.questions.forEach((q, i) => {
    const legendId = "quiz-q-" + i;
    const fieldset = h("fieldset", { class: "quiz-question", "data-qid": q.id, "data-lang": quiz.lang },
      h("legend", { id: legendId }, h("span", { class: "qnum" }, t("quiz.question") + " " + (i + 1) + ". "),
        h("span", { class: "prompt", lang: partLang(q, "prompt", quiz.lang) }, q.text)));
    if (q.context) fieldset.append(h("p", { class: "quiz-context", lang: partLang(q, "context", quiz.lang) }, q.context));
    if (q.statement) fieldset.append(h("blockquote", { class: "cite-text quiz-statement", lang: partLang(q, "statement", quiz.lang) }, q.statement));
    if (q.choices) {
      q.choices.forEach((c, j) => {
        const inputId = "quiz-" + i + "-" + j;
        const input = h("input", { type: "radio", name: "quiz-" + i, id: inputId, value: c.value });
        input.checked = quiz.answers.get(q.id) === c.value;
        input.addEventListener("change", () => quiz.answers.set(q.id, c.value));
        fieldset.append(h("div", { class: "choice" }, input, h("label", { for: inputId, lang: partLang(q, "option", quiz.lang) }, c.label)));
      });
    } else {
      const inputId = "quiz-" + i + "-text";
      const input = h("input", { type: "text", id: inputId, autocomplete: "off" });
      input.value = quiz.answers.get(q.id) || "";
      input.addEventListener("input", () => quiz.answers.set(q.id, input.value));
      fieldset.append(h("label", { for: inputId }, t("quiz.answer")), input);
    }
    list.append(h("li", {}, fieldset));
  });
}

export async function checkQuiz() {
  quiz.result = gradeQuiz(await checkAnswers());
  const score = clear(document.getElementById("quiz-score"));
  score.append(...(await scoreView()));
  score.focus();
}

/** The server's grading of the answers given, explained in the quiz's language (null when
 * /quiz/check does not answer, or nothing is answered). Unanswered questions are not sent (they
 * count as wrong); the server grades the rest. */
async function checkAnswers() {
  const answers = quiz.questions
    .filter((q) => (quiz.answers.get(q.id) ?? "") !== "")
    .map((q) => ({ id: q.id, answer: quiz.answers.get(q.id) }));
  if (!answers.length) return null;
  try {
    return await fetchJson("/quiz/check?lang=" + quiz.lang, { method: "POST", body: JSON.stringify({ answers }) });
  } catch (_) {
    return null;
  }
}

/** Per-question results: the server's when /quiz/check answered, else from the answer key. */
function gradeQuiz(server) {
  const serverItems = server ? server.results || server.items || [] : [];
  const byId = new Map();
  serverItems.forEach((r, i) => byId.set(String(r.id ?? r.qid ?? i), r));
  const items = quiz.questions.map((q) => {
    const given = quiz.answers.get(q.id) ?? null;
    const r = byId.get(q.id) || null;
    const expected = r ? answerKey({ answer: r.expected ?? r.answer ?? q.key }) : q.key;
    const correct = r && typeof r.correct === "boolean" ? r.correct : sameAnswer(given, expected);
    return {
      q,
      given,
      expected,
      expectedText: r && r.expected_text ? r.expected_text : null,
      correct,
      explanation: (r && (r.explanation || r.why)) || q.explanation,
      source: (r && citationOf(r)) || q.source,
    };
  });
  return {
    items,
    score: items.filter((i) => i.correct).length,
    total: items.length,
    local: !server && items.some((i) => i.given !== null),
  };
}

function choiceLabel(q, value) {
  if (value === null || value === undefined || value === "") return t("quiz.unanswered");
  const c = (q.choices || []).find((x) => x.value === String(value));
  if (c) return c.label;
  const v = String(value).toLowerCase();
  if (v === "yes") return t("verdict.yesLong");
  if (v === "no") return t("verdict.noLong");
  return String(value);
}

function citationHref(c, known) {
  if (c.document && Number.isInteger(c.start) && Number.isInteger(c.end)) return docHref(c.document, c.start, c.end, c.id);
  return sourceHref(c.id, known);
}

async function scoreView() {
  const r = quiz.result;
  const known = await knownDocuments();
  const sources = r.items.map((item) => (item.source ? item.source.id : null));
  const [places, titles] = await Promise.all([briefs(sources), documentTitles()]);
  const sourceName = (source) => placeLabel(places.get(source.id), titles) || source.id || "";
  const parts = [h("p", { class: "score", "data-score": String(r.score), "data-total": String(r.total) }, t("quiz.score", { score: r.score, total: r.total }))];
  if (r.local) parts.push(h("p", { class: "meta" }, t("quiz.localGrade")));
  const list = h("ol", { class: "quiz-results" });
  for (const item of r.items) {
    const asked = quiz.lang;
    list.append(h("li", { class: item.correct ? "right" : "wrong" },
      h("p", {}, h("span", { class: "verdict " + (item.correct ? "verdict-yes" : "verdict-no") }, item.correct ? t("quiz.correct") : t("quiz.wrong")), " ",
        h("span", { lang: partLang(item.q, "prompt", asked) }, item.q.text)),
      item.q.context ? h("p", { class: "quiz-context", lang: partLang(item.q, "context", asked) }, item.q.context) : null,
      item.q.statement ? h("blockquote", { class: "cite-text", lang: partLang(item.q, "statement", asked) }, item.q.statement) : null,
      h("p", { class: "meta" }, t("quiz.yours") + ": " + choiceLabel(item.q, item.given) + " · " + t("quiz.expected") + ": " + (item.expectedText || choiceLabel(item.q, item.expected))),
      item.explanation ? h("p", { class: "explanation", lang: partLang(item.q, "explanation", asked) }, item.explanation) : null,
      item.source ? h("p", { class: "meta quiz-source" }, t("answer.source") + ": ",
        h("a", { class: "open-doc", href: citationHref(item.source, known), "data-id": item.source.id || null }, sourceName(item.source))) : null,
    ));
  }
  parts.push(list);
  return parts;
}

export function submitQuizSetup(event) {
  event.preventDefault();
  const fmt = document.getElementById("quiz-format").value;
  const topic = document.getElementById("quiz-topic").value;
  let seed = document.getElementById("quiz-seed").value.trim();
  if (!/^\d+$/.test(seed) || (quiz && quiz.seed === seed)) seed = String(Math.floor(Math.random() * 100000));
  const params = new URLSearchParams({ view: "quiz", seed, ...(fmt ? { format: fmt } : {}), ...(topic ? { topic } : {}) });
  history.pushState(null, "", "/?" + params.toString());
  clear(document.getElementById("quiz-score"));
  renderQuiz(params);
}

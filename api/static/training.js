// The training view (?view=training): a trainee's token kept in localStorage, practice one
// question at a time (graded at once by the server), an exam with a countdown the server
// enforces (no key before the close), progress by topic as bars drawn in inline SVG, and the
// trainee's history downloaded or imported as JSON (trainingfile.js). Questions and explanations
// come in the page language (`lang` on every route that shows them) and switch with it.
// Keys, explanations and citations only ever come from the server's answers: the page never
// sees them before an answer is in (practice) or the exam is closed.
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
  loadingBox,
  placeLabel,
} from "./core.js";
import { lang, t } from "./i18n.js";
import { partLang } from "./quiz.js";
import { barChart, quizTopics, topicLabel, topicName, topicNames } from "./trainingchart.js";
import { historyBox } from "./trainingfile.js";

const TOKEN_KEY = "ygo-rulings.trainee";
const SESSION_KEY = "ygo-rulings.training-session"; // {kind, id} of the open session, this tab

// --- state -------------------------------------------------------------------------------------
// {data (the server's session, in `lang`), lang, at (index of the question shown), answered,
//  feedback: the last answer's {item, names, titles, lang} (practice)}
let session = null;
let timer = null; // the exam countdown's interval

function savedTrainee() {
  try {
    const raw = window.localStorage.getItem(TOKEN_KEY);
    const value = raw ? JSON.parse(raw) : null;
    return value && typeof value.token === "string" ? value : null;
  } catch (_) {
    return null;
  }
}

function saveTrainee(trainee) {
  try {
    window.localStorage.setItem(TOKEN_KEY, JSON.stringify({ token: trainee.token, name: trainee.name, expires: trainee.expires }));
    return true;
  } catch (_) {
    return false; // private mode: the token lasts for this page only
  }
}

let memoryTrainee = null; // when localStorage refuses

/** The open session's kind and id, so a reload of this tab picks it up again. */
function rememberSession(data) {
  try {
    if (data) window.sessionStorage.setItem(SESSION_KEY, JSON.stringify({ kind: data.kind, id: data.id }));
    else window.sessionStorage.removeItem(SESSION_KEY);
  } catch (_) {
    // private mode: a reload starts afresh
  }
}

function rememberedSession() {
  try {
    const value = JSON.parse(window.sessionStorage.getItem(SESSION_KEY) || "null");
    return value && (value.kind === "practice" || value.kind === "exam") && typeof value.id === "string" ? value : null;
  } catch (_) {
    return null;
  }
}

/** Pick up the session this tab had open (after a reload or a change of language): practice at
 * its first unanswered question, an exam with its countdown, or a closed exam's result. */
async function resumeSession() {
  const saved = rememberedSession();
  if (!saved) return;
  try {
    const data = await authed(sessionPath(saved.kind, saved.id));
    const answered = new Set(data.answered || []);
    const at = data.questions.findIndex((q) => !answered.has(q.id));
    session = { data, lang, at: at < 0 ? data.questions.length : at, feedback: null, answered };
    if (data.kind === "exam" && data.closed) await showResult("GET");
    else drawSession();
  } catch (_) {
    rememberSession(null); // gone (another token, a new database): start afresh
  }
}

/** A session's route, with the page language for its questions. */
function sessionPath(kind, id) {
  return withLang((kind === "exam" ? "/exams/" : "/practice/") + encodeURIComponent(id));
}

/** A route that shows questions or explanations, asked in the page language (pt or en). */
function withLang(path) {
  return path + (path.includes("?") ? "&" : "?") + "lang=" + (lang === "en" ? "en" : "pt");
}

/** The open session's questions again, in the page language (after the language changed): the
 * question shown, the answers and the last feedback stay. */
async function relocalize() {
  const s = session;
  try {
    const data = await authed(sessionPath(s.data.kind, s.data.id));
    s.data = data;
    s.lang = lang;
    s.answered = new Set(data.answered || []);
  } catch (err) {
    showError(err);
  }
}

function trainee() {
  return savedTrainee() || memoryTrainee;
}

function forgetTrainee() {
  try {
    window.localStorage.removeItem(TOKEN_KEY);
  } catch (_) {
    // nothing kept
  }
  memoryTrainee = null;
  stopTimer();
  session = null;
  rememberSession(null);
  renderTraining();
}

/** A training request with the trainee's token (never memoised: answers are personal). */
function authed(path, method, body) {
  const me = trainee();
  return fetchJson(path, {
    method: method || "GET",
    headers: me ? { authorization: "Bearer " + me.token } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

function status() {
  return document.getElementById("training-status");
}

function showError(err) {
  const box = clear(status());
  box.append(errorBox(err));
  if (err && err.status === 401) box.append(forgetButton());
}

function forgetButton() {
  return h("p", {}, h("button", { type: "button", class: "link-button forget-token", onclick: forgetTrainee }, t("training.forget")));
}

async function fillSetup() {
  const stats = await api("/stats").catch(() => null);
  const formatSelect = document.getElementById("training-format");
  const current = formatSelect.value;
  const formats = stats && Array.isArray(stats.formats) ? stats.formats : [];
  fillSelect(formatSelect, formats.map((f) => [f.id, lang === "en" ? f.label_en : f.label_pt]), current);
  await fillTopics();
}

/** The topics with questions in the chosen format (GET /quiz/topics), named in the page
 * language with their question counts, themes first; the chosen ones stay chosen. */
export async function fillTopics() {
  const topics = await quizTopics(document.getElementById("training-format").value);
  const topicSelect = document.getElementById("training-topics");
  const chosen = new Set([...topicSelect.selectedOptions].map((o) => o.value));
  clear(topicSelect);
  for (const topic of topics) {
    const option = h("option", { value: topic.id, "data-questions": String(topic.questions) }, topicLabel(topic) + " (" + topic.questions + ")");
    option.selected = chosen.has(topic.id);
    topicSelect.append(option);
  }
}

function setupRequest(exam) {
  const form = document.getElementById("training-setup");
  const body = {
    format: form.elements["format"].value || null,
    topics: [...document.getElementById("training-topics").selectedOptions].map((o) => o.value),
    n: Number.parseInt(form.elements["n"].value, 10) || 10,
  };
  if (exam) {
    const minutes = Number.parseFloat(form.elements["minutes"].value);
    body.time_limit = Number.isFinite(minutes) && minutes > 0 ? Math.round(minutes * 60) : null;
    const mark = Number.parseFloat(form.elements["pass"].value);
    if (Number.isFinite(mark)) body.pass_mark = mark / 100;
  }
  return body;
}

// --- the view --------------------------------------------------------------------------------
export async function renderTraining() {
  const account = clear(document.getElementById("training-account"));
  const me = trainee();
  document.getElementById("training-setup").hidden = !me;
  document.getElementById("training-progress").hidden = !me;
  if (!me) {
    clear(document.getElementById("training-stage"));
    clear(document.getElementById("training-history"));
    account.append(newTraineeForm());
    return;
  }
  account.append(h("p", { class: "trainee" },
    h("strong", {}, me.name || t("training.anonymous")), " · ",
    t("training.kept", { date: String(me.expires || "").slice(0, 10) }), " ",
    h("button", { type: "button", class: "link-button", id: "training-forget", onclick: forgetTrainee }, t("training.forget"))));
  await fillSetup();
  if (session && session.lang !== lang) await relocalize();
  if (session) drawSession();
  else await resumeSession();
  document.getElementById("training-history").replaceChildren(historyBox({ authed, onImported: renderProgress, onUnauthorized: forgetButton }));
  await renderProgress();
}

function newTraineeForm() {
  const form = h("form", { class: "filters", id: "training-new" },
    h("div", { class: "field field-question" },
      h("label", { for: "training-name" }, t("training.name")),
      h("input", { id: "training-name", name: "name", type: "text", maxlength: "80", autocomplete: "nickname" })),
    h("button", { type: "submit", class: "primary" }, t("training.create")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = form.elements["name"].value.trim();
    clear(status());
    try {
      const created = await fetchJson("/trainees", { method: "POST", body: JSON.stringify(name ? { name } : {}) });
      if (!saveTrainee(created)) memoryTrainee = created;
      renderTraining();
    } catch (err) {
      showError(err);
    }
  });
  return h("div", {}, h("p", { class: "meta" }, t("training.storage")), form);
}

export async function startTraining(event) {
  event.preventDefault();
  const exam = event.submitter && event.submitter.value === "exam";
  stopTimer();
  clear(status()).append(loadingBox());
  try {
    const data = await authed(withLang(exam ? "/exams" : "/practice"), "POST", setupRequest(exam));
    clear(status());
    session = { data, lang, at: 0, feedback: null, answered: new Set(data.answered || []) };
    rememberSession(data);
    drawSession();
  } catch (err) {
    session = null;
    rememberSession(null);
    clear(document.getElementById("training-stage"));
    showError(err);
  }
}

// --- a session, one question at a time --------------------------------------------------------
function drawSession() {
  const stage = clear(document.getElementById("training-stage"));
  const s = session;
  const exam = s.data.kind === "exam";
  const total = s.data.questions.length;
  const head = h("div", { class: "training-head" },
    h("h2", { id: "training-stage-title" }, exam ? t("training.exam") : t("training.practice")),
    h("p", { class: "meta", id: "training-count" }, t("training.answered", { answered: s.answered.size, total })));
  if (exam && s.data.deadline) head.append(h("p", { class: "timer", id: "training-timer", role: "timer", "aria-live": "off" }));
  if (exam) head.append(h("p", { class: "meta" }, t("training.noKeys", { mark: Math.round((s.data.pass_mark ?? 0.75) * 100) })));
  stage.append(head);
  if (exam && s.data.deadline) startTimer(s.data.deadline);
  const q = s.data.questions[s.at];
  if (!q || (exam && s.answered.size >= total)) {
    if (exam) stage.append(h("p", {}, t("training.allAnswered")));
    else stage.append(h("p", { class: "training-done" }, t("training.practiceDone")));
  } else {
    stage.append(questionForm(q, s.at, total));
  }
  if (s.feedback) {
    const asked = s.data.questions.find((x) => x.id === s.feedback.item.question_id);
    stage.append(feedbackCard(s.feedback.item, s.feedback.names, s.feedback.titles, asked ? asked.options : null, s.feedback.lang, asked));
  }
  if (!exam && s.feedback && s.at + 1 < total) {
    stage.append(h("button", { type: "button", class: "primary", id: "training-next", onclick: nextQuestion }, t("training.next")));
  }
  if (exam) stage.append(h("button", { type: "button", id: "training-close", onclick: closeExam }, t("training.close")));
}

/** Keyboard users land where the page changed: the feedback after an answer, else the question. */
function focusStage() {
  const stage = document.getElementById("training-stage");
  const target = stage.querySelector(".training-feedback") || stage.querySelector(".training-question");
  if (target) target.focus();
}

function questionForm(q, i, total) {
  const s = session;
  const done = s.answered.has(q.id);
  const asked = s.lang;
  const form = h("form", { class: "quiz-question training-question", "data-qid": q.id, "data-lang": asked, tabindex: "-1" });
  const fieldset = h("fieldset", {},
    h("legend", {}, h("span", { class: "qnum" }, t("quiz.question") + " " + (i + 1) + "/" + total + ". "), h("span", { class: "prompt", lang: partLang(q, "prompt", asked) }, q.prompt)));
  if (q.context) fieldset.append(h("p", { class: "quiz-context", lang: partLang(q, "context", asked) }, q.context));
  if (q.statement) fieldset.append(h("blockquote", { class: "cite-text quiz-statement", lang: partLang(q, "statement", asked) }, q.statement));
  q.options.forEach((option, j) => {
    const id = "training-" + i + "-" + j;
    fieldset.append(h("div", { class: "choice" },
      h("input", { type: "radio", name: "answer", id, value: option.key, required: true, disabled: done }),
      h("label", { for: id, lang: partLang(q, "option", asked) }, option.text)));
  });
  form.append(fieldset);
  if (!done) form.append(h("button", { type: "submit", class: "primary" }, t("training.answer")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = form.querySelector("input[name=answer]:checked");
    if (chosen) submitAnswer(q, chosen.value, form);
  });
  return form;
}

async function submitAnswer(q, answer, form) {
  const s = session;
  const exam = s.data.kind === "exam";
  for (const control of form.querySelectorAll("input, button")) control.disabled = true;
  clear(status());
  try {
    const path = (exam ? "/exams/" : "/practice/") + encodeURIComponent(s.data.id) + "/answers";
    const reply = await authed(exam ? path : withLang(path), "POST", { question_id: q.id, answer });
    s.answered.add(q.id);
    if (exam) {
      s.at += 1;
      s.feedback = null;
    } else {
      const [names, titles] = await Promise.all([briefs([reply.citation.id]), documentTitles()]);
      s.feedback = { item: reply, names, titles, lang: s.lang };
    }
    drawSession();
    focusStage();
    if (!exam) renderProgress();
  } catch (err) {
    for (const control of form.querySelectorAll("input, button")) control.disabled = false;
    showError(err);
  }
}

function nextQuestion() {
  session.at += 1;
  session.feedback = null;
  drawSession();
  focusStage();
}

/** A graded answer: right or wrong, the key, the explanation (in `asked`, the language it was
 * asked in) and its citation at its span. */
function feedbackCard(item, names, titles, options, asked, question) {
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

// --- the exam's countdown and result ---------------------------------------------------------
function startTimer(deadline) {
  const end = Date.parse(deadline);
  const tick = () => {
    const node = document.getElementById("training-timer");
    if (!node) return stopTimer();
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    const text = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    node.textContent = t("training.timeLeft", { time: text });
    node.setAttribute("data-seconds", String(left));
    if (left === 0) {
      stopTimer();
      showResult("GET"); // the server closes an exam past its deadline
    }
  };
  stopTimer();
  tick();
  timer = window.setInterval(tick, 1000);
}

function stopTimer() {
  if (timer !== null) window.clearInterval(timer);
  timer = null;
}

function closeExam() {
  stopTimer();
  showResult("POST");
}

async function showResult(method, tries) {
  if (!session) return;
  const id = encodeURIComponent(session.data.id);
  clear(status());
  let result;
  try {
    result = await authed(withLang(method === "POST" ? "/exams/" + id + "/close" : "/exams/" + id + "/result"), method);
  } catch (err) {
    // At the countdown's end the server may not have reached the deadline yet (clocks differ
    // by a little): ask again a few times before saying so.
    if (method === "GET" && err.status === 409 && (tries || 0) < 5) {
      window.setTimeout(() => showResult("GET", (tries || 0) + 1), 1000);
      return;
    }
    showError(err);
    return;
  }
  const [names, titles, topics] = await Promise.all([
    briefs(result.missed.map((m) => m.citation.id)),
    documentTitles(),
    topicNames(),
  ]);
  const asked = new Map(session.data.questions.map((q) => [q.id, q]));
  // The closed exam stays this tab's session: a reload or a change of language shows its
  // result again (in the page language) until another practice or exam starts.
  rememberSession(session.data);
  session = null;
  const stage = clear(document.getElementById("training-stage"));
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
  stage.append(card);
  card.focus();
  renderProgress();
}

// --- progress by topic ------------------------------------------------------------------------
export async function renderProgress() {
  const box = document.getElementById("training-progress-body");
  if (!trainee()) return;
  let data;
  try {
    data = await authed("/progress");
  } catch (err) {
    clear(box).append(errorBox(err));
    if (err && err.status === 401) box.append(forgetButton());
    return;
  }
  const names = await topicNames();
  clear(box);
  box.append(h("p", { class: "meta", id: "training-totals" }, t("training.totals", { answers: data.answers, correct: data.correct, due: data.due })));
  if (!data.by_topic.length) {
    box.append(h("p", {}, t("training.noProgress")));
    return;
  }
  box.append(barChart(data.by_topic.map((m) => ({
    key: m.key,
    name: topicName(names, m.key),
    value: m.accuracy,
    text: m.correct + "/" + m.answers + " · " + Math.round(m.accuracy * 100) + "% · " + t("training.mastery", { pct: Math.round(m.mastery * 100) }),
  })), "training-chart"));
}

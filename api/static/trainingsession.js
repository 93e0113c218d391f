// A practice or an exam in the training view (training.js), one question at a time: the question
// form, the answers sent (a practice answer graded at once, an exam answer only recorded), the
// feedback, the exam's countdown (the page only shows it, the server enforces it), its close and
// result, and the session this tab had open picked up again after a reload or a change of language.
import { briefs, clear, documentTitles, errorBox, h } from "./core.js";
import { lang, t } from "./i18n.js";
import { partLang } from "./quiz.js";
import { topicNames } from "./trainingchart.js";
import { feedbackCard, resultCard } from "./trainingfeedback.js";
import { authed, rememberedSession, rememberSession, sessionPath, withLang } from "./trainingstore.js";

// --- state -------------------------------------------------------------------------------------
// {data (the server's session, in `lang`), lang, at (index of the question shown), answered,
//  feedback: the last answer's {item, names, titles, lang} (practice)}
let session = null;
let timer = null; // the exam countdown's interval
// What a session needs of the view (training.js, through connectSession): the progress drawn
// again after an answer or a result, and the way out of an unknown token (a button).
let view = { onProgress: () => {}, onUnauthorized: () => null };

export function connectSession(hooks) {
  view = hooks;
}

export function status() {
  return document.getElementById("training-status");
}

export function showError(err) {
  const box = clear(status());
  box.append(errorBox(err));
  if (err && err.status === 401) box.append(view.onUnauthorized());
}

/** A new session from the server (POST /practice or /exams), drawn at its first question. */
export function beginSession(data) {
  session = { data, lang, at: 0, feedback: null, answered: new Set(data.answered || []) };
  rememberSession(data);
  drawSession();
}

/** No open session, in this page or this tab (a countdown is stopped with stopTimer). */
export function endSession() {
  session = null;
  rememberSession(null);
}

/** The open session drawn again (its questions asked again when the page language changed), or
 * the one this tab had open picked up. */
export async function showSession() {
  if (session && session.lang !== lang) await relocalize();
  if (session) drawSession();
  else await resumeSession();
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
    if (!exam) view.onProgress();
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

export function stopTimer() {
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
  const card = resultCard(result, { names, titles, topics, asked });
  stage.append(card);
  card.focus();
  view.onProgress();
}

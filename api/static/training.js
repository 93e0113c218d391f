// The training view (?view=training): a trainee's token kept in localStorage (trainingstore.js),
// practice one question at a time (graded at once by the server) and an exam with a countdown the
// server enforces, no key before the close (trainingsession.js, trainingfeedback.js), progress by
// topic as bars drawn in inline SVG (trainingchart.js), and the trainee's history downloaded or
// imported as JSON (trainingfile.js). Questions and explanations come in the page language (`lang`
// on every route that shows them) and switch with it. Keys, explanations and citations only ever
// come from the server's answers: the page never sees them before an answer is in (practice) or the
// exam is closed.
import { api, clear, errorBox, fetchJson, fillSelect, h, loadingBox } from "./core.js";
import { lang, t } from "./i18n.js";
import { barChart, quizTopics, topicLabel, topicName, topicNames } from "./trainingchart.js";
import { historyBox } from "./trainingfile.js";
import { beginSession, connectSession, endSession, showError, showSession, status, stopTimer } from "./trainingsession.js";
import { authed, forgetTrainee, keepTrainee, trainee, withLang } from "./trainingstore.js";

connectSession({ onProgress: renderProgress, onUnauthorized: forgetButton });

/** The trainee forgotten: the token, the open session and its countdown; the view starts afresh. */
function forget() {
  forgetTrainee();
  stopTimer();
  endSession();
  renderTraining();
}

function forgetButton() {
  return h("p", {}, h("button", { type: "button", class: "link-button forget-token", onclick: forget }, t("training.forget")));
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
    h("button", { type: "button", class: "link-button", id: "training-forget", onclick: forget }, t("training.forget"))));
  await fillSetup();
  await showSession();
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
      keepTrainee(created);
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
    beginSession(data);
  } catch (err) {
    endSession();
    clear(document.getElementById("training-stage"));
    showError(err);
  }
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

// The trainee and the open session as this browser keeps them, for the training view
// (training.js): the trainee's token in localStorage (for this page only when the browser refuses
// it), the open session's kind and id in the tab's sessionStorage, and the training requests made
// with the token, asked in the page language where they show questions.
import { fetchJson } from "./core.js";
import { lang } from "./i18n.js";

const TOKEN_KEY = "ygo-rulings.trainee";
const SESSION_KEY = "ygo-rulings.training-session"; // {kind, id} of the open session, this tab

let memoryTrainee = null; // when localStorage refuses

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

/** A new trainee (POST /trainees) kept in localStorage, or for this page only when refused. */
export function keepTrainee(created) {
  if (!saveTrainee(created)) memoryTrainee = created;
}

/** The trainee {token, name, expires} this browser keeps, or null. */
export function trainee() {
  return savedTrainee() || memoryTrainee;
}

/** The trainee's token forgotten, kept or in memory (the tab's session is the view's to drop). */
export function forgetTrainee() {
  try {
    window.localStorage.removeItem(TOKEN_KEY);
  } catch (_) {
    // nothing kept
  }
  memoryTrainee = null;
}

/** The open session's kind and id, so a reload of this tab picks it up again. */
export function rememberSession(data) {
  try {
    if (data) window.sessionStorage.setItem(SESSION_KEY, JSON.stringify({ kind: data.kind, id: data.id }));
    else window.sessionStorage.removeItem(SESSION_KEY);
  } catch (_) {
    // private mode: a reload starts afresh
  }
}

export function rememberedSession() {
  try {
    const value = JSON.parse(window.sessionStorage.getItem(SESSION_KEY) || "null");
    return value && (value.kind === "practice" || value.kind === "exam") && typeof value.id === "string" ? value : null;
  } catch (_) {
    return null;
  }
}

/** A training request with the trainee's token (never memoised: answers are personal). */
export function authed(path, method, body) {
  const me = trainee();
  return fetchJson(path, {
    method: method || "GET",
    headers: me ? { authorization: "Bearer " + me.token } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** A session's route, with the page language for its questions. */
export function sessionPath(kind, id) {
  return withLang((kind === "exam" ? "/exams/" : "/practice/") + encodeURIComponent(id));
}

/** A route that shows questions or explanations, asked in the page language (pt or en). */
export function withLang(path) {
  return path + (path.includes("?") ? "&" : "?") + "lang=" + (lang === "en" ? "en" : "pt");
}

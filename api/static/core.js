// DOM and HTTP helpers and the links every view builds (no markup is ever parsed from data).
import { errorMessage } from "./errors.js";
import { lang, t } from "./i18n.js";

/** Build an element; children are nodes or strings (inserted as text, never as HTML). */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A path made of an id's segments, each percent-encoded (ids contain slashes). */
export function idPath(id) {
  return String(id).split("/").map(encodeURIComponent).join("/");
}

export class ApiError extends Error {
  constructor(status, message, body, retryAfter) {
    super(message);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter || null; // seconds, from a 503's Retry-After
  }
  /** A 404 from the framework itself: the route does not exist (yet) on this server. */
  get routeMissing() {
    if (this.status !== 404) return false;
    return !this.body || this.body.code === "route_not_found" || (!this.body.code && this.body.error === "Not Found");
  }
}

const cache = new Map();

/** JSON from the API, memoised per request (the knowledge base is read-only). */
export function api(path, options) {
  const key = (options && options.method ? options.method : "GET") + " " + path + " " +
    (options && options.body ? options.body : "");
  if (!cache.has(key)) {
    const promise = fetchJson(path, options);
    promise.catch(() => cache.delete(key));
    cache.set(key, promise);
  }
  return cache.get(key);
}

/** The response of a request that succeeded; an ApiError (with the error envelope) otherwise. */
export async function request(path, options, accept) {
  let response;
  try {
    response = await fetch(path, {
      ...options,
      headers: {
        accept: accept || "application/json",
        ...(options && options.body ? { "content-type": "application/json" } : {}),
        ...(options && options.headers ? options.headers : {}),
      },
    });
  } catch (_) {
    throw new ApiError(0, t("error.network"), null);
  }
  if (response.ok) return response;
  let body = null;
  try {
    body = await response.json();
  } catch (_) {
    body = null;
  }
  const message = body && body.error ? body.error : response.status + " " + response.statusText;
  const retry = Number.parseInt(response.headers.get("retry-after") || "", 10);
  throw new ApiError(response.status, message, body, Number.isFinite(retry) ? retry : null);
}

export async function fetchJson(path, options) {
  const response = await request(path, options);
  try {
    return await response.json();
  } catch (_) {
    return null;
  }
}

export function postJson(path, data) {
  return api(path, { method: "POST", body: JSON.stringify(data) });
}

/** The percentage a confidence shows, or null when there is none (no verdict, or not a number). */
export function confidencePercent(confidence) {
  if (confidence === null || confidence === undefined || confidence === "") return null;
  const value = Number(confidence);
  return Number.isFinite(value) ? Math.round(Math.min(1, Math.max(0, value)) * 100) : null;
}

/** At most `max` characters, cut at a word boundary, with an ellipsis when cut. */
export function truncate(text, max) {
  const s = String(text || "").trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return (space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.–-]+$/, "") + "…";
}

/** An error in the page language: its framing (network, not found, refused, server failure),
 * the envelope's code worded here (`message`), and the server's English text (`detail`) only
 * when the code is unknown or says less than the server's text. */
export function errorFrame(err) {
  const status = err && typeof err.status === "number" ? err.status : 0;
  if (status === 0) return { frame: t("error.network"), message: null, detail: null, status };
  const body = err.body || null;
  const worded = errorMessage(body);
  const serverText = body && body.error ? String(body.error) : null;
  const detail = !worded || worded.partial ? serverText : null;
  let frame = t("error.request", { status });
  if (status === 404) frame = t("error.notFound");
  else if (status >= 500) frame = t("error.server", { status });
  const message = worded ? worded.text : null;
  const later = err.retryAfter ? t("error.retryAfter", { seconds: err.retryAfter }) : null;
  return { frame, message: [message, later].filter(Boolean).join(" ") || null, detail, status };
}

/** A page-level error state: what happened and why in the page language, and a retry button
 * when `retry` is given; the server's English text only where the page cannot word it. */
export function errorBox(err, retry) {
  const { frame, message, detail, status } = errorFrame(err);
  const code = err && err.body && err.body.code ? err.body.code : null;
  return h("div", { class: "notice error", role: "alert", "data-status": String(status), "data-code": code },
    h("p", { class: "error-frame" }, h("strong", {}, t("error") + ": "), frame),
    message ? h("p", { class: "error-message" }, message) : null,
    detail ? h("details", { class: "error-server" },
      h("summary", {}, t("error.serverText")),
      h("p", { class: "error-detail", lang: "en" }, detail)) : null,
    retry ? h("button", { type: "button", class: "link-button", onclick: retry }, t("error.retry")) : null,
  );
}

/** Ids in chunks the /briefs route accepts, merged into one map id → brief. */
export async function briefs(ids) {
  const unique = [...new Set(ids.filter(Boolean))];
  const out = new Map();
  for (let i = 0; i < unique.length; i += 50) {
    const chunk = unique.slice(i, i + 50);
    try {
      const data = await api("/briefs?" + chunk.map((id) => "id=" + encodeURIComponent(id)).join("&"));
      for (const b of data.nodes) out.set(b.id, b);
    } catch (_) {
      // Without briefs the ids still link; the labels fall back to the ids.
    }
  }
  return out;
}

/** A node's name in the page language (pt or en label), else null. */
export function nodeLabel(brief) {
  if (!brief) return null;
  return (lang === "en" ? brief.label_en || brief.label_pt : brief.label_pt || brief.label_en) || null;
}

/** Where a text node sits, in words: its section heading and its document's short title. */
export function placeLabel(brief, docTitles) {
  if (!brief) return null;
  const section = lang === "en" ? brief.section_en || brief.section_pt : brief.section_pt || brief.section_en;
  const full = brief.document && docTitles && docTitles.get(brief.document) ? docTitles.get(brief.document) : brief.document_title;
  const doc = full ? String(full).split(" — ")[0] : null; // "Rulings — Invocação-Especial …" → "Rulings"
  if (section && doc) return section + " (" + doc + ")";
  return section || doc || null;
}

/** Document id → title in the page language. */
export async function documentTitles() {
  try {
    const data = await documentsIndex();
    return new Map(data.documents.map((d) => [d.id, lang === "en" && d.title_en ? d.title_en : d.title]));
  } catch (_) {
    return new Map();
  }
}

export function loadingBox() {
  return h("p", { class: "loading" }, t("loading"));
}

export function formatLabel(fmt) {
  if (!fmt) return t("format.all");
  const key = "format." + fmt;
  const text = t(key);
  return text === key ? fmt : text;
}

// Documents and their outlines, shared by several views.
export function documentsIndex() {
  return api("/documents");
}

export async function knownDocuments() {
  try {
    const data = await documentsIndex();
    return new Set(data.documents.map((d) => d.id));
  } catch (_) {
    return new Set();
  }
}

export function docHref(doc, start, end, nodeId) {
  const params = new URLSearchParams();
  if (start !== null && start !== undefined && end !== null && end !== undefined) params.set("s", start + "-" + end);
  if (nodeId) params.set("n", nodeId);
  const frag = params.toString();
  return "/doc/" + encodeURIComponent(doc) + (frag ? "#" + frag : "");
}

export function nodeHref(id) {
  return "/?view=node&id=" + encodeURIComponent(id);
}

/** Where a source id is best read: its document (when the id starts with one), else its node view. */
export function sourceHref(id, docs) {
  const first = String(id).split("/")[0];
  return docs.has(first) ? docHref(first, null, null, id) : nodeHref(id);
}

// Wiki routes (another group's): probed once; links fall back to the node view.
const wikiProbe = new Map();

export function probeRoute(url) {
  if (!wikiProbe.has(url)) {
    wikiProbe.set(
      url,
      fetch(url, { headers: { accept: "text/html" } })
        .then((r) => r.ok)
        .catch(() => false),
    );
  }
  return wikiProbe.get(url);
}

export async function ruleLinker(sampleId) {
  if (sampleId && (await probeRoute("/rules/" + idPath(sampleId) + "?as=html"))) {
    return (id) => "/rules/" + idPath(id) + "?as=html";
  }
  return null;
}

export async function cardLinker(sampleId) {
  if (!sampleId) return null;
  const slug = sampleId.replace(/^card\//, "");
  if (await probeRoute("/cards/" + encodeURIComponent(slug) + "?as=html")) {
    return (id) => "/cards/" + encodeURIComponent(id.replace(/^card\//, "")) + "?as=html";
  }
  if (await probeRoute("/cards/" + idPath(sampleId) + "?as=html")) {
    return (id) => "/cards/" + idPath(id) + "?as=html";
  }
  return null;
}

export function outlineLabel(row) {
  const label = lang === "en" && row.label_en ? row.label_en : row.label;
  return row.number ? row.number + ". " + label : label;
}

export function fillSelect(select, entries, value) {
  const first = select.options[0];
  clear(select).append(first);
  for (const [v, label] of entries) select.append(h("option", { value: v }, label));
  select.value = value;
  if (select.value !== value) select.value = "";
}

// Topics of judge training and bars by topic, for the quiz and training views: the topics the
// server offers (GET /quiz/topics), their names in the page language, and horizontal bars in
// inline SVG made here (no chart library; nothing inline in the page, which the
// Content-Security-Policy forbids).
import { api, h } from "./core.js";
import { lang } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// --- topics the server offers ------------------------------------------------------------------
/** The quiz's topics (GET /quiz/topics): those with questions in `format` (every format when
 * empty), each {id, kind, node, label_pt, label_en, questions, formats}; [] when unavailable. */
export async function quizTopics(format) {
  try {
    const data = await api("/quiz/topics" + (format ? "?" + new URLSearchParams({ format }) : ""));
    return Array.isArray(data.topics) ? data.topics : [];
  } catch (_) {
    return [];
  }
}

/** A topic's name in the page language. */
export function topicLabel(topic) {
  return (lang === "en" ? topic.label_en : topic.label_pt) || topic.id;
}

/** Topic id → its name in the page language, for every topic of every format. */
export async function topicNames() {
  return new Map((await quizTopics("")).map((topic) => [topic.id, topicLabel(topic)]));
}

export function topicName(names, id) {
  return names.get(id) || String(id).replace(/[-_]+/g, " ");
}

/** Horizontal bars (0..1), one row per topic: its name, an inline SVG bar and its numbers. */
export function barChart(rows, id) {
  const list = h("ul", { class: "bar-chart", id });
  for (const row of rows) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 100 6");
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "chart-bar");
    svg.setAttribute("aria-hidden", "true");
    const track = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["x", "0"], ["y", "0"], ["width", "100"], ["height", "6"], ["class", "bar-track"]]) track.setAttribute(k, v);
    const fill = document.createElementNS(SVG, "rect");
    const width = Math.max(0, Math.min(1, Number(row.value) || 0)) * 100;
    for (const [k, v] of [["x", "0"], ["y", "0"], ["width", width.toFixed(1)], ["height", "6"], ["class", "bar-fill"]]) fill.setAttribute(k, v);
    svg.append(track, fill);
    list.append(h("li", { "data-topic": row.key, "data-value": String(row.value) },
      h("span", { class: "bar-name" }, row.name), svg, h("span", { class: "bar-text meta" }, row.text)));
  }
  return list;
}

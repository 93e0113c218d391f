// Topics of judge training and bars by topic, for the training view (training.js): the topics
// the server offers, their names in the page language, and horizontal bars in inline SVG made
// here (no chart library; nothing inline in the page, which the Content-Security-Policy forbids).
import { api, documentsIndex, formatLabel, h, outlineLabel } from "./core.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// --- topics and formats the server offers ------------------------------------------------------
/** The question bank's topics, as the server's own OpenAPI document lists them for /quiz. */
export async function offeredTopics() {
  try {
    const spec = await api("/openapi.json");
    const params = spec.paths["/quiz"].get.parameters || [];
    const topic = params.find((p) => p.name === "topic");
    const found = [];
    const walk = (schema) => {
      if (!schema || typeof schema !== "object") return;
      if (Array.isArray(schema.enum)) found.push(...schema.enum);
      for (const key of ["anyOf", "oneOf", "allOf"]) (schema[key] || []).forEach(walk);
    };
    walk(topic ? topic.schema : null);
    return [...new Set(found.filter((v) => typeof v === "string" && v))];
  } catch (_) {
    return [];
  }
}

/** Topic id → its name in the page language: a question family, or a document's top section. */
export async function topicNames() {
  const names = new Map();
  for (const family of ["chain", "damage-step", "spell-speed", "summon"]) names.set(family, t("quiz.family." + family));
  try {
    const data = await documentsIndex();
    for (const doc of data.documents) {
      for (const row of doc.outline.filter((r) => r.depth === 0)) {
        names.set(row.id.split("/").join("-"), (doc.format ? formatLabel(doc.format) + " · " : "") + outlineLabel(row));
        names.set(row.id, (doc.format ? formatLabel(doc.format) + " · " : "") + outlineLabel(row));
      }
    }
  } catch (_) {
    // the ids stand for themselves
  }
  return names;
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

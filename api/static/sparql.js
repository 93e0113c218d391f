// The SPARQL view: a read-only query over the graph (GET /sparql), its results as a table (SELECT),
// a yes/no (ASK) or Turtle text (CONSTRUCT, DESCRIBE); a refused query is a page-level error state
// in the page language (a malformed one also shows its line with a caret under the column).
import { clear, errorBox, h, loadingBox, nodeHref, request } from "./core.js";
import { t } from "./i18n.js";

const EXAMPLE = `SELECT ?rule ?title WHERE {
  ?rule a ygo:Rule ;
        skos:prefLabel ?title .
  FILTER(lang(?title) = "pt")
}
ORDER BY ?rule
LIMIT 10`;
// Solutions as SPARQL JSON, graphs as Turtle (the endpoint picks by the query's form).
const ACCEPT = "application/sparql-results+json, text/turtle;q=0.9";
const RESOURCE = /\/id\/(.+)$/; // a node's IRI (<base>id/<id>) → its id, shown in the node view

export function renderSparql(params) {
  const input = document.getElementById("sparql-query");
  const query = params.get("query");
  input.value = query || input.value || EXAMPLE;
  const out = clear(document.getElementById("sparql-results"));
  if (query && query.trim()) return runQuery(query, out);
  return null;
}

export function submitSparql(event) {
  event.preventDefault();
  const query = document.getElementById("sparql-query").value;
  const params = new URLSearchParams({ view: "sparql", query });
  history.pushState(null, "", "/?" + params.toString());
  renderSparql(params);
}

function endpointUrl(query) {
  return "/sparql?" + new URLSearchParams({ query }).toString();
}

async function runQuery(query, out) {
  out.setAttribute("aria-busy", "true");
  out.append(loadingBox());
  const parts = [];
  try {
    const response = await request(endpointUrl(query), {}, ACCEPT);
    const media = (response.headers.get("content-type") || "").split(";")[0].trim();
    if (media.endsWith("json")) parts.push(...solutionsView(await response.json()));
    else parts.push(h("h2", {}, t("sparql.graph")), h("pre", { class: "sparql-text", lang: "en" }, await response.text()));
  } catch (err) {
    parts.push(errorBox(err));
    const where = err.body && err.body.code === "malformed_query" ? caretView(query, err.body.params || {}) : null;
    if (where) parts.push(where);
  }
  parts.push(h("p", { class: "meta" }, h("a", { href: endpointUrl(query) }, t("sparql.raw"))));
  clear(out).append(...parts);
  out.setAttribute("aria-busy", "false");
}

/** SELECT results as a table, ASK as true/false. */
function solutionsView(data) {
  if (typeof data.boolean === "boolean") {
    return [h("p", { class: "sparql-boolean", "data-value": String(data.boolean) }, data.boolean ? t("sparql.true") : t("sparql.false"))];
  }
  const vars = (data.head && data.head.vars) || [];
  const rows = (data.results && data.results.bindings) || [];
  if (!rows.length) return [h("p", { class: "notice" }, t("sparql.none"))];
  const count = rows.length === 1 ? t("sparql.row") : t("sparql.rows", { count: rows.length });
  const table = h("table", { class: "sparql-table" },
    h("thead", {}, h("tr", {}, vars.map((v) => h("th", { scope: "col" }, "?" + v)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, vars.map((v) => h("td", {}, termView(row[v])))))),
  );
  return [h("p", { class: "meta sparql-count", "data-rows": String(rows.length) }, count), h("div", { class: "table-scroll" }, table)];
}

function termView(term) {
  if (!term) return "";
  if (term.type === "uri") {
    const found = RESOURCE.exec(term.value);
    return found ? h("a", { href: nodeHref(decodeURIComponent(found[1])) }, found[1]) : h("code", {}, term.value);
  }
  const tag = term["xml:lang"];
  return h("span", tag ? { lang: tag } : {}, term.value);
}

/** The query's line that failed to parse, with a caret under the column (both from the envelope). */
function caretView(query, params) {
  const line = Number(params.line);
  const column = Number(params.column);
  const text = query.split("\n")[line - 1];
  if (!Number.isInteger(line) || !Number.isInteger(column) || text === undefined) return null;
  return h("figure", { class: "sparql-where" },
    h("figcaption", {}, t("sparql.where")),
    h("pre", { class: "sparql-caret", lang: "en" }, text + "\n" + " ".repeat(Math.max(0, column - 1)) + "^"));
}

// Failed requests in the page language: the error envelope's `code` (kb/errors.py ERROR_CODES)
// worded in Portuguese or English from its `field` and `params`, never from its English `error`.
import { lang } from "./i18n.js";

// Every code in both languages (tests/test_web_routes.py checks the table against ERROR_CODES).
const ERROR_TEXT = {
  pt: {
    error: "A base de conhecimento recusou o pedido.",
    invalid: "O servidor recusou o campo «{field}».",
    empty: "O campo «{field}» não pode ficar vazio.",
    too_long: "O campo «{field}» tem {length} caracteres; o limite é {limit}.",
    out_of_range: "O campo «{field}» deve ficar entre {min} e {max} (veio {value}).",
    unknown_value: "«{value}» não é um valor conhecido para o campo «{field}».",
    missing: "Falta o campo «{field}».",
    bad_type: "O campo «{field}» tem um valor do tipo errado.",
    unsafe_string: "O campo «{field}» tem um caractere não permitido (de controle) na posição {position}.",
    bad_json: "O corpo do pedido não é JSON válido.",
    not_found: "«{key}» não foi encontrado.",
    "not_found.id": "Nenhum nó da base tem o id «{key}».",
    "not_found.card": "Nenhum card se chama «{key}».",
    "not_found.document": "Nenhum documento tem o id «{key}».",
    route_not_found: "Este endereço não existe neste servidor.",
    method_not_allowed: "Este endereço não aceita este método.",
    not_acceptable: "O servidor não tem este conteúdo no formato pedido.",
    unsupported_media_type: "O servidor não lê o corpo do pedido neste tipo de conteúdo.",
    body_too_large: "O pedido é grande demais: o limite é de {limit} bytes.",
    bad_request: "O pedido está malformado.",
    malformed_query: "A consulta SPARQL está malformada na linha {line}, coluna {column}.",
    sparql_update: "O endpoint SPARQL é somente leitura: SPARQL Update não é permitido.",
    invalid_query: "A consulta SPARQL não pode ser executada.",
    query_refused: "O endpoint não executa esta consulta (SERVICE, FROM, GRAPH ou um erro de avaliação).",
    query_too_large: "O resultado passa do limite de memória: acrescente um LIMIT ou restrinja o padrão.",
    too_many_results: "A consulta tem mais de {limit} resultados: acrescente um LIMIT ou restrinja o padrão.",
    result_too_large: "O resultado passa de {limit} bytes: selecione menos valores ou acrescente um LIMIT.",
    query_stopped: "A consulta foi interrompida por passar do tempo limite: restrinja o padrão ou acrescente um LIMIT.",
    busy: "O servidor está ocupado.",
    worker_restarting: "O processo que respondia à consulta parou e está sendo reiniciado: tente de novo em instantes.",
    unauthorized: "Este endereço pede um token de acesso.",
    conflict: "O pedido contradiz o que já foi registrado ({what} «{key}»).",
    database_unavailable: "O banco de dados do treino não está acessível agora; o resto do site funciona.",
    rate_limited: "Pedidos demais deste endereço.",
    unavailable: "A API não está acessível agora.",
    timeout: "O pedido levou mais que o tempo máximo de {seconds} s: tente um pedido mais restrito.",
    internal: "Falha interna do servidor.",
  },
  en: {
    error: "The knowledge base refused the request.",
    invalid: "The server refused the field “{field}”.",
    empty: "The field “{field}” must not be empty.",
    too_long: "The field “{field}” is {length} characters long; the limit is {limit}.",
    out_of_range: "The field “{field}” must be between {min} and {max} (got {value}).",
    unknown_value: "“{value}” is not a known value for the field “{field}”.",
    missing: "The field “{field}” is missing.",
    bad_type: "The field “{field}” has a value of the wrong type.",
    unsafe_string: "The field “{field}” has a character that is not allowed (a control character) at position {position}.",
    bad_json: "The request body is not valid JSON.",
    not_found: "“{key}” was not found.",
    "not_found.id": "No node of the knowledge base has the id “{key}”.",
    "not_found.card": "No card is called “{key}”.",
    "not_found.document": "No document has the id “{key}”.",
    route_not_found: "This address does not exist on this server.",
    method_not_allowed: "This address does not take this method.",
    not_acceptable: "The server does not have this content in the format asked for.",
    unsupported_media_type: "The server does not read a request body of this content type.",
    body_too_large: "The request is too large: the limit is {limit} bytes.",
    bad_request: "The request is malformed.",
    malformed_query: "The SPARQL query is malformed at line {line}, column {column}.",
    sparql_update: "The SPARQL endpoint is read-only: SPARQL Update is not allowed.",
    invalid_query: "The SPARQL query cannot be run.",
    query_refused: "The endpoint does not run this query (SERVICE, FROM, GRAPH or an evaluation error).",
    query_too_large: "The result is past the memory bound: add a LIMIT or narrow the pattern.",
    too_many_results: "The query has more than {limit} results: add a LIMIT or narrow the pattern.",
    result_too_large: "The result is larger than {limit} bytes: select fewer values or add a LIMIT.",
    query_stopped: "The query was stopped for running past the time limit: narrow the pattern or add a LIMIT.",
    busy: "The server is busy.",
    worker_restarting: "The process answering the query stopped and is restarting: try again in a moment.",
    unauthorized: "This address needs an access token.",
    conflict: "The request contradicts what is recorded ({what} “{key}”).",
    database_unavailable: "The training database cannot be reached right now; the rest of the site works.",
    rate_limited: "Too many requests from this address.",
    unavailable: "The API is not reachable right now.",
    timeout: "The request took longer than the limit of {seconds} s: try a narrower request.",
    internal: "The server failed unexpectedly.",
  },
};
// Codes whose wording says less than the server's own text (which the page then also shows).
const PARTIAL_CODES = new Set(["error", "invalid", "bad_request", "invalid_query", "query_refused"]);
// The parameters a request may name (`field`), by their first segment (`answers.0.id` → answers).
const FIELD_NAMES = {
  pt: {
    question: "pergunta", q: "busca", k: "número de resultados", format: "formato", type: "tipo",
    attribute: "atributo", id: "id", n: "número de perguntas", seed: "semente", topic: "tema",
    query: "consulta", limit: "limite", offset: "início", lang: "idioma", answers: "respostas",
    deck: "deck", decks: "decks", as: "representação", links: "links", template: "modelo de página",
    rule_template: "modelo de página de regra", node_id: "id", card_id: "card", doc: "documento",
    subject: "assunto", body: "corpo do pedido", topics: "temas", time_limit: "tempo da prova",
    pass_mark: "nota mínima", question_id: "pergunta", answer: "resposta", name: "nome",
  },
  en: {
    question: "question", q: "search", k: "number of results", format: "format", type: "type",
    attribute: "attribute", id: "id", n: "number of questions", seed: "seed", topic: "topic",
    query: "query", limit: "limit", offset: "offset", lang: "language", answers: "answers",
    deck: "deck", decks: "decks", as: "representation", links: "links", template: "page template",
    rule_template: "rule page template", node_id: "id", card_id: "card", doc: "document",
    subject: "subject", body: "request body", topics: "topics", time_limit: "exam time",
    pass_mark: "pass mark", question_id: "question", answer: "answer", name: "name",
  },
};

function fieldName(field) {
  if (!field) return lang === "en" ? "request" : "pedido";
  const first = String(field).split(/[.[]/)[0];
  return FIELD_NAMES[lang][first] || String(field);
}

function fill(template, vars) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** An error envelope worded in the page language from its code, field and params:
 * {text, partial} (partial: the server's text says more), or null for an unknown code. */
export function errorMessage(body) {
  if (!body || typeof body.code !== "string") return null;
  const table = ERROR_TEXT[lang];
  const params = body.params && typeof body.params === "object" ? body.params : {};
  const specific = body.code === "not_found" && params.what ? table["not_found." + params.what] : null;
  const template = specific || table[body.code];
  if (!template) return null;
  const text = fill(template, { ...params, field: fieldName(body.field) });
  if (/\{\w+\}/.test(text)) return null; // a param the envelope did not send: say nothing wrong
  return { text, partial: PARTIAL_CODES.has(body.code) };
}

// The Cards view: every card of the card table through GET /catalog/page, searched as you type
// (debounced), filtered by type, attribute and card pool, PAGE_SIZE cards a page; each card with
// a badge for its status on each Forbidden & Limited list that names it.
// The state lives in the URL (?view=cards&q=&type=&attribute=&format=&page=).
import { cardFormats, listBadges } from "./banlist.js";
import { api, cardLinker, clear, errorBox, fillSelect, h, loadingBox, nodeHref } from "./core.js";
import { lang, t } from "./i18n.js";
import { cardKind, label } from "./labels.js";

export const PAGE_SIZE = 30;
const DEBOUNCE_MS = 250;
const TYPES = ["monster", "spell", "trap", "normal", "effect", "fusion", "ritual", "synchro", "xyz", "link", "pendulum", "tuner", "flip", "union", "spirit", "toon", "gemini", "trap-monster"];
const ATTRIBUTES = ["DARK", "LIGHT", "EARTH", "WATER", "FIRE", "WIND", "DIVINE"];
const POOLS = ["edison"]; // formats that declare a card pool

let timer = null;
let requestNo = 0;

function number(n) {
  return Number(n).toLocaleString(lang === "en" ? "en" : "pt-BR");
}

function typeLabel(code) {
  return ["monster", "spell", "trap"].includes(code) ? label("cardType", code) : label("monsterClass", code);
}

function readState() {
  const params = new URLSearchParams(location.search);
  const page = Math.max(1, parseInt(params.get("page") || "1", 10) || 1);
  return {
    q: params.get("q") || "",
    type: params.get("type") || "",
    attribute: params.get("attribute") || "",
    format: params.get("format") || "",
    page,
  };
}

function writeState(state, push) {
  const params = new URLSearchParams({ view: "cards" });
  for (const key of ["q", "type", "attribute", "format"]) if (state[key]) params.set(key, state[key]);
  if (state.page > 1) params.set("page", String(state.page));
  const url = "/?" + params.toString();
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

function formState() {
  return {
    q: document.getElementById("cards-filter").value.trim(),
    type: document.getElementById("cards-type").value,
    attribute: document.getElementById("cards-attribute").value,
    format: document.getElementById("cards-format").value,
    page: 1,
  };
}

function cardItem(c, href, formats) {
  const name = (lang === "en" ? c.name_en || c.name_pt : c.name_pt || c.name_en) || c.id;
  const other = lang === "en" ? c.name_pt : c.name_en;
  const level = c.link_rating ? "Link " + c.link_rating
    : c.rank ? (lang === "en" ? "Rank " : "Classe ") + c.rank
      : c.level ? (lang === "en" ? "Level " : "Nível ") + c.level : null;
  return h("li", { class: "card-hit" },
    h("a", { class: "card-name", href }, name),
    other && other !== name ? h("span", { class: "meta other-name" }, other) : null,
    h("span", { class: "card-facts" },
      h("span", { class: "badge badge-" + c.card_type }, cardKind(c)),
      c.attribute ? h("span", { class: "meta" }, label("attribute", c.attribute)) : null,
      level ? h("span", { class: "meta" }, level) : null,
      ...listBadges(c.lists, formats),
    ),
  );
}

async function draw(state) {
  const out = document.getElementById("cards-results");
  const count = document.getElementById("cards-count");
  const mine = (requestNo += 1);
  const params = new URLSearchParams({
    offset: String((state.page - 1) * PAGE_SIZE),
    limit: String(PAGE_SIZE),
    lang: lang === "en" ? "en" : "pt",
  });
  for (const key of ["q", "type", "attribute", "format"]) if (state[key]) params.set(key, state[key]);
  out.setAttribute("aria-busy", "true");
  if (!out.firstChild) out.append(loadingBox());
  let data;
  try {
    data = await api("/catalog/page?" + params.toString());
  } catch (err) {
    if (mine !== requestNo) return;
    count.textContent = "";
    clear(out).append(errorBox(err, () => draw(state)));
    out.setAttribute("aria-busy", "false");
    return;
  }
  if (mine !== requestNo) return; // a newer keystroke's request owns the list
  const [wiki, formats] = await Promise.all([cardLinker(data.cards.length ? data.cards[0].id : null), cardFormats()]);
  clear(out);
  out.setAttribute("aria-busy", "false");
  const pages = Math.max(1, Math.ceil(data.total / PAGE_SIZE));
  if (!data.total) {
    count.textContent = t("cards.total", { total: 0 });
    out.append(h("p", { class: "empty" }, t("cards.none")));
    return;
  }
  const from = data.offset + 1;
  const to = data.offset + data.cards.length;
  count.textContent = t("cards.range", { from: number(from), to: number(to), total: number(data.total) });
  count.dataset.total = String(data.total);
  const list = h("ul", { class: "card-list" });
  for (const c of data.cards) list.append(cardItem(c, wiki ? wiki(c.id) : nodeHref(c.id), formats));
  out.append(list);
  const go = (page) => {
    const next = { ...state, page };
    writeState(next, true);
    draw(next).then(() => document.getElementById("cards-title").scrollIntoView({ block: "start" }));
  };
  out.append(h("nav", { class: "pager", "aria-label": t("cards.page", { page: state.page, pages }) },
    h("button", { type: "button", class: "pager-prev", disabled: state.page <= 1, onclick: () => go(state.page - 1) }, t("cards.prev")),
    h("span", { class: "pager-page" }, t("cards.page", { page: state.page, pages: number(pages) })),
    h("button", { type: "button", class: "pager-next", disabled: state.page >= pages, onclick: () => go(state.page + 1) }, t("cards.next")),
  ));
}

export function renderCards() {
  const state = readState();
  const filter = document.getElementById("cards-filter");
  filter.value = state.q;
  fillSelect(document.getElementById("cards-type"), TYPES.map((c) => [c, typeLabel(c)]), state.type);
  fillSelect(document.getElementById("cards-attribute"), ATTRIBUTES.map((c) => [c, label("attribute", c)]), state.attribute);
  fillSelect(document.getElementById("cards-format"), POOLS.map((f) => [f, f === "edison" ? "Edison" : f]), state.format);
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const next = formState();
      writeState(next, false);
      draw(next);
    }, DEBOUNCE_MS);
  };
  filter.oninput = changed;
  for (const id of ["cards-type", "cards-attribute", "cards-format"]) document.getElementById(id).onchange = changed;
  return draw(state);
}

/** Enter in the search box: search now (no page reload). */
export function submitCards(event) {
  event.preventDefault();
  clearTimeout(timer);
  const next = formState();
  writeState(next, true);
  draw(next);
}

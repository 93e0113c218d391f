// The Banlist view: a format's Forbidden & Limited list (GET /banlist?format=), filtered by name
// as you type; and the list-status badges the card results, card views and deck reports show.
// Which formats have a list, deck rules or a card pool comes from /stats (the manifest's data).
import { api, cardLinker, clear, errorBox, h, idPath, loadingBox, nodeHref } from "./core.js";
import { lang, t } from "./i18n.js";
import { label } from "./labels.js";

export const LIST_STATUSES = ["forbidden", "limited", "semi-limited"];
const GROUPS = [["forbidden", "forbidden"], ["limited", "limited"], ["semi_limited", "semi-limited"]];

/** The declared formats with their card rules: [{id, label_pt, label_en, banlist, deck_rules …}]. */
export async function cardFormats() {
  try {
    return (await api("/stats")).formats || [];
  } catch (_) {
    return [];
  }
}

export function formatName(f) {
  return (lang === "en" ? f.label_en : f.label_pt) || f.id;
}

/** A badge for a list status ("Proibido", "Limited" …), with the format's short name. */
export function statusBadge(status, formatLabel) {
  const text = label("listStatus", status) + (formatLabel ? " · " + formatLabel : "");
  return h("span", { class: "badge badge-status status-" + status, "data-status": status }, text);
}

/** The badges of a card's list marks [{format, status}] (the catalog's `lists`). */
export function listBadges(marks, formats) {
  const names = new Map((formats || []).map((f) => [f.id, shortName(f)]));
  return (marks || []).map((m) => statusBadge(m.status, names.get(m.format) || m.format));
}

function shortName(f) {
  return f.id === "tag" || f.id === "edison" ? t("format." + f.id) : formatName(f);
}

/** The card's status in every format with a list (GET /cards/{id}/legality per format). */
export async function cardStatusBadges(cardId) {
  const formats = (await cardFormats()).filter((f) => f.banlist);
  const found = await Promise.allSettled(formats.map((f) =>
    api("/cards/" + idPath(cardId) + "/legality?format=" + encodeURIComponent(f.id))));
  const badges = [];
  found.forEach((r, i) => {
    if (r.status === "fulfilled" && LIST_STATUSES.includes(r.value.status)) {
      badges.push(statusBadge(r.value.status, shortName(formats[i])));
    }
  });
  return badges;
}

let timer = null;

export async function renderBanlist(params) {
  const out = document.getElementById("banlist-results");
  const select = document.getElementById("banlist-format");
  const filter = document.getElementById("banlist-filter");
  const formats = (await cardFormats()).filter((f) => f.banlist);
  const asked = params.get("format") || "";
  const fmt = formats.some((f) => f.id === asked) ? asked : formats.length ? formats[0].id : "";
  clear(select);
  for (const f of formats) select.append(h("option", { value: f.id }, formatName(f)));
  select.value = fmt;
  filter.value = params.get("q") || "";
  select.onchange = () => go(true);
  filter.oninput = () => {
    clearTimeout(timer);
    timer = setTimeout(() => go(false), 200);
  };
  if (!fmt) {
    clear(out).append(h("p", { class: "empty" }, t("banlist.noFormat")));
    return;
  }
  out.setAttribute("aria-busy", "true");
  clear(out).append(loadingBox());
  let list;
  try {
    list = await api("/banlist?format=" + encodeURIComponent(fmt));
  } catch (err) {
    clear(out).append(errorBox(err, () => renderBanlist(params)));
    out.setAttribute("aria-busy", "false");
    return;
  }
  const all = [...list.forbidden, ...list.limited, ...list.semi_limited];
  const wiki = await cardLinker(all.length ? all[0].id : null);
  document.title = t("banlist.title") + " · " + formatName(formats.find((f) => f.id === fmt)) + " · ygo-rulings";
  clear(out).append(drawList(list, filter.value.trim(), wiki));
  out.setAttribute("aria-busy", "false");
}

function drawList(list, query, wiki) {
  const box = h("div", { class: "banlist", "data-format": list.format });
  const effective = list.effective === "current" ? t("banlist.current") : list.effective;
  box.append(h("p", { class: "meta banlist-meta" },
    t("banlist.effective", { date: effective }), " · ",
    t("banlist.counts", { forbidden: list.counts.forbidden, limited: list.counts.limited, semi: list.counts.semi_limited })),
  h("details", { class: "meta banlist-provenance" }, h("summary", {}, t("banlist.provenance")), h("p", { lang: "en" }, list.provenance)));
  const needle = fold(query);
  let shown = 0;
  for (const [key, status] of GROUPS) {
    const cards = list[key].filter((c) => !needle || fold(c.name_en).includes(needle) || fold(c.name_pt || "").includes(needle));
    shown += cards.length;
    const section = h("section", { class: "card banlist-group", "data-status": status, "aria-labelledby": "banlist-" + status });
    section.append(h("h2", { id: "banlist-" + status }, statusBadge(status, null), " ", h("span", { class: "meta" }, String(cards.length))));
    const ul = h("ul", { class: "card-list banlist-cards" });
    for (const c of cards) {
      const name = (lang === "en" ? c.name_en : c.name_pt || c.name_en) || c.id;
      const other = lang === "en" ? c.name_pt : c.name_en;
      ul.append(h("li", { class: "card-hit" },
        h("a", { class: "card-name", href: wiki ? wiki(c.id) : nodeHref(c.id) }, name),
        other && other !== name ? h("span", { class: "meta other-name" }, other) : null,
        c.in_pool === false ? h("span", { class: "meta" }, label("listStatus", "not-in-pool")) : null));
    }
    section.append(cards.length ? ul : h("p", { class: "empty" }, t("banlist.none")));
    box.append(section);
  }
  if (query && !shown) box.append(h("p", { class: "empty" }, t("banlist.noMatch")));
  return box;
}

function fold(text) {
  return String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

function go(push) {
  const params = new URLSearchParams({ view: "banlist", format: document.getElementById("banlist-format").value });
  const q = document.getElementById("banlist-filter").value.trim();
  if (q) params.set("q", q);
  if (push) history.pushState(null, "", "/?" + params.toString());
  else history.replaceState(null, "", "/?" + params.toString());
  renderBanlist(params);
}

export function submitBanlist(event) {
  event.preventDefault();
  clearTimeout(timer);
  go(true);
}

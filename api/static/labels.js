// Labels for the codes the API returns (card kinds and properties, authorities, node types,
// predicates), in Portuguese and English. Names of things (cards, concepts, sections) come from
// the API's own pt/en labels; only closed vocabularies of codes are translated here.
import { lang } from "./i18n.js";

// The tables live in one file the server's wiki pages read too (kb/presentation/codes.json,
// served as /static/codes.json): `codes` (vocabulary -> code -> [pt, en]; units [pt one, pt many,
// en one, en many]), `fieldCodes` (which vocabulary translates each card field's values) and
// `fieldDigits` (the digits a numeric code is written with: a password keeps its leading zeros).
const { codes: CODES, fieldCodes: FIELD_CODES, fieldDigits: FIELD_DIGITS = {} } = await fetch("/static/codes.json").then((r) => {
  if (!r.ok) throw new Error("/static/codes.json: " + r.status);
  return r.json();
});

/** A code's label in the page language; an unknown code is shown with its dashes as spaces. */
export function label(vocabulary, code) {
  const row = CODES[vocabulary] && CODES[vocabulary][code];
  if (row) return lang === "en" ? row[1] : row[0];
  return String(code).replace(/[-_]+/g, " ");
}

export function hasLabel(vocabulary, code) {
  return Boolean(CODES[vocabulary] && CODES[vocabulary][code]);
}

/** The card data rows a node view shows: [field label, value text] in a fixed order. */
export function cardRows(props) {
  const yes = label("infobox", "yes");
  const no = label("infobox", "no");
  const rows = [];
  for (const field of Object.keys(CODES.cardField)) {
    const value = props[field];
    if (value === null || value === undefined || (Array.isArray(value) && !value.length)) continue;
    const vocabulary = FIELD_CODES[field];
    const digits = FIELD_DIGITS[field];
    const one = (v) =>
      typeof v === "boolean"
        ? v ? yes : no
        : digits && typeof v === "number"
          ? String(v).padStart(digits, "0")
          : vocabulary ? label(vocabulary, v) : String(v);
    rows.push([label("cardField", field), Array.isArray(value) ? value.map(one).join(", ") : one(value)]);
  }
  return rows;
}

/** A card's kind in words: "Armadilha Contínua", "Monstro de Efeito / Sincro" … */
export function cardKind(card) {
  const type = label("cardType", card.card_type);
  if (card.card_type !== "monster") {
    if (!card.property) return type;
    if (lang === "en") return label("property", card.property) + " " + type;
    const prop = label("property", card.property);
    // "Magia Rápida", "Armadilha Contínua" (feminine nouns), "Magia de Campo".
    return type + " " + prop;
  }
  const classes = (card.monster_classes || []).filter((c) => c !== "trap-monster").map((c) => label("monsterClass", c));
  return classes.length ? type + " · " + classes.join(" / ") : type;
}

/** A stated value in words: "0 cópias", "2 PV", or the value alone. */
export function valueText(value) {
  if (!value || value.value === null || value.value === undefined) return "";
  const row = value.unit ? CODES.unit[value.unit] : null;
  if (!row) return value.unit ? value.value + " " + String(value.unit).replace(/[-_]+/g, " ") : String(value.value);
  const one = Number(value.value) === 1;
  const word = lang === "en" ? (one ? row[2] : row[3]) : one ? row[0] : row[1];
  return value.value + " " + word;
}

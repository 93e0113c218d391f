// Labels for the codes the API returns (card kinds and properties, authorities, node types,
// predicates), in Portuguese and English. Names of things (cards, concepts, sections) come from
// the API's own pt/en labels; only closed vocabularies of codes are translated here.
import { lang } from "./i18n.js";

const CODES = {
  cardType: {
    monster: ["Monstro", "Monster"],
    spell: ["Magia", "Spell"],
    trap: ["Armadilha", "Trap"],
  },
  // Monster classes and the `type` filter's values.
  monsterClass: {
    normal: ["Normal", "Normal"],
    effect: ["Efeito", "Effect"],
    fusion: ["Fusão", "Fusion"],
    ritual: ["Ritual", "Ritual"],
    synchro: ["Sincro", "Synchro"],
    xyz: ["Xyz", "Xyz"],
    link: ["Link", "Link"],
    pendulum: ["Pêndulo", "Pendulum"],
    tuner: ["Regulador", "Tuner"],
    flip: ["Virar", "Flip"],
    union: ["União", "Union"],
    spirit: ["Espírito", "Spirit"],
    toon: ["Toon", "Toon"],
    gemini: ["Gêmeos", "Gemini"],
    token: ["Ficha", "Token"],
    "trap-monster": ["Monstro de Armadilha", "Trap Monster"],
  },
  property: {
    normal: ["Normal", "Normal"],
    continuous: ["Contínua", "Continuous"],
    "quick-play": ["Rápida", "Quick-Play"],
    counter: ["Resposta", "Counter"],
    field: ["de Campo", "Field"],
    equip: ["de Equipamento", "Equip"],
    ritual: ["de Ritual", "Ritual"],
  },
  attribute: {
    DARK: ["TREVAS", "DARK"],
    LIGHT: ["LUZ", "LIGHT"],
    EARTH: ["TERRA", "EARTH"],
    WATER: ["ÁGUA", "WATER"],
    FIRE: ["FOGO", "FIRE"],
    WIND: ["VENTO", "WIND"],
    DIVINE: ["DIVINO", "DIVINE"],
  },
  race: {
    "Warrior": ["Guerreiro", "Warrior"],
    "Machine": ["Máquina", "Machine"],
    "Fiend": ["Demônio", "Fiend"],
    "Dragon": ["Dragão", "Dragon"],
    "Spellcaster": ["Mago", "Spellcaster"],
    "Fairy": ["Fada", "Fairy"],
    "Beast": ["Besta", "Beast"],
    "Winged Beast": ["Besta Alada", "Winged Beast"],
    "Cyberse": ["Ciberso", "Cyberse"],
    "Aqua": ["Aqua", "Aqua"],
    "Zombie": ["Zumbi", "Zombie"],
    "Rock": ["Rocha", "Rock"],
    "Beast-Warrior": ["Besta-Guerreira", "Beast-Warrior"],
    "Insect": ["Inseto", "Insect"],
    "Plant": ["Planta", "Plant"],
    "Psychic": ["Psíquico", "Psychic"],
    "Reptile": ["Réptil", "Reptile"],
    "Pyro": ["Piro", "Pyro"],
    "Thunder": ["Trovão", "Thunder"],
    "Dinosaur": ["Dinossauro", "Dinosaur"],
    "Fish": ["Peixe", "Fish"],
    "Sea Serpent": ["Serpente Marinha", "Sea Serpent"],
    "Wyrm": ["Wyrm", "Wyrm"],
    "Illusion": ["Ilusão", "Illusion"],
    "Divine-Beast": ["Besta Divina", "Divine-Beast"],
    "Creator God": ["Deus Criador", "Creator God"],
  },
  effectType: {
    continuous: ["Contínuo", "Continuous"],
    ignition: ["de Ignição", "Ignition"],
    trigger: ["de Gatilho", "Trigger"],
    quick: ["Rápido", "Quick"],
    flip: ["de Virar", "Flip"],
  },
  negates: {
    "trap-effects": ["efeitos de Armadilha", "Trap effects"],
    "spell-effects": ["efeitos de Magia", "Spell effects"],
    "monster-effects": ["efeitos de monstro", "monster effects"],
    "spell-activation": ["ativação de Magia", "Spell activation"],
    "trap-activation": ["ativação de Armadilha", "Trap activation"],
    "monster-effect-activation": ["ativação de efeito de monstro", "monster effect activation"],
    "special-summon": ["Invocação-Especial", "Special Summon"],
    summon: ["Invocação", "Summon"],
    effects: ["efeitos", "effects"],
  },
  specialSummon: {
    inherent: ["inerente", "inherent"],
    "non-inherent": ["não-inerente", "non-inherent"],
  },
  lpCostKind: {
    effect: ["de efeito", "effect"],
    activation: ["de ativação", "activation"],
    maintenance: ["de manutenção", "maintenance"],
  },
  // Units of a stated value, [pt one, pt many, en one, en many].
  unit: {
    copy: ["cópia", "cópias", "copy", "copies"],
    copies: ["cópia", "cópias", "copy", "copies"],
    turn: ["turno", "turnos", "turn", "turns"],
    lp: ["PV", "PV", "LP", "LP"],
    card: ["card", "cards", "card", "cards"],
    zone: ["zona", "zonas", "zone", "zones"],
    monster: ["monstro", "monstros", "monster", "monsters"],
  },
  authority: {
    document: ["documento de regras", "rule document"],
    curated: ["dados curados", "curated data"],
    inferred: ["inferido dos dados do card", "inferred from card data"],
  },
  entityType: {
    Card: ["Card", "Card"],
    Concept: ["Conceito", "Concept"],
    Format: ["Formato", "Format"],
  },
  nodeType: {
    Document: ["Documento", "Document"],
    Section: ["Seção", "Section"],
    Rule: ["Regra", "Rule"],
    Passage: ["Trecho", "Passage"],
    Example: ["Exemplo", "Example"],
    Step: ["Passo", "Step"],
    Card: ["Card", "Card"],
    Concept: ["Conceito", "Concept"],
    Format: ["Formato", "Format"],
    Claim: ["Afirmação", "Claim"],
  },
  predicate: {
    instance_of: ["é", "is a"],
    has_effect_type: ["tem efeito do tipo", "has effect type"],
    has_spell_speed: ["tem Velocidade de Magia", "has Spell Speed"],
    summoned_by: ["é invocado por", "is summoned by"],
    concerns: ["trata de", "concerns"],
    mentions: ["menciona", "mentions"],
    has_capability: ["tem a capacidade", "has the capability"],
    applies_in: ["vale em", "applies in"],
    stated_in: ["afirmado em", "stated in"],
    part_of: ["faz parte de", "part of"],
    broader: ["é um caso de", "broader"],
    example_of: ["é exemplo de", "example of"],
    allows: ["permite", "allows"],
    about: ["trata de", "about"],
    stated_speed_context: ["contexto de velocidade", "speed context"],
    forbids: ["proíbe", "forbids"],
    rules_activation: ["regula a ativação de", "rules the activation of"],
    precedes: ["vem antes de", "precedes"],
    differs_from: ["difere de", "differs from"],
    cannot_respond_to: ["não pode responder a", "cannot respond to"],
    can_respond_to: ["pode responder a", "can respond to"],
    negatable_by: ["pode ser negado por", "negatable by"],
    not_negatable_by: ["não pode ser negado por", "not negatable by"],
    limits_cost: ["limita o custo", "limits the cost"],
    does_not_start_chain: ["não inicia Corrente", "does not start a Chain"],
    starts_chain: ["inicia Corrente", "starts a Chain"],
  },
  // The card data fields the node view shows (other keys are not shown as properties).
  cardField: {
    card_type: ["Tipo de card", "Card type"],
    property: ["Propriedade", "Property"],
    attribute: ["Atributo", "Attribute"],
    race: ["Tipo de monstro", "Monster type"],
    monster_types: ["Classes", "Classes"],
    level: ["Nível", "Level"],
    rank: ["Classe (Xyz)", "Rank"],
    link_rating: ["Link", "Link rating"],
    atk: ["ATK", "ATK"],
    defense: ["DEF", "DEF"],
    effect_types: ["Efeitos", "Effects"],
    spell_speeds: ["Velocidade de Magia", "Spell Speed"],
    negates: ["Nega", "Negates"],
    special_summon: ["Invocação-Especial", "Special Summon"],
    lp_cost_amount: ["Custo em PV", "LP cost"],
    lp_cost_kind: ["Tipo do custo", "Cost kind"],
    password: ["Senha", "Password"],
    first_tcg_date: ["Lançamento no TCG", "First TCG release"],
    edison_pool: ["No conjunto Edison", "In the Edison pool"],
    edison_limit: ["Limite no Edison", "Edison limit"],
    aliases: ["Outros nomes", "Other names"],
  },
};

// Which vocabulary translates each card field's values.
const FIELD_CODES = {
  card_type: "cardType",
  property: "property",
  race: "race",
  attribute: "attribute",
  monster_types: "monsterClass",
  effect_types: "effectType",
  negates: "negates",
  special_summon: "specialSummon",
  lp_cost_kind: "lpCostKind",
};

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
  const yes = lang === "en" ? "yes" : "sim";
  const no = lang === "en" ? "no" : "não";
  const rows = [];
  for (const field of Object.keys(CODES.cardField)) {
    const value = props[field];
    if (value === null || value === undefined || (Array.isArray(value) && !value.length)) continue;
    const vocabulary = FIELD_CODES[field];
    const one = (v) => (typeof v === "boolean" ? (v ? yes : no) : vocabulary ? label(vocabulary, v) : String(v));
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

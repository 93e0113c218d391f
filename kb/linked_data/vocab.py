"""The small RDF vocabulary of the knowledge base: classes and properties with pt/en labels."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    name: str
    label_en: str
    label_pt: str
    comment: str
    domain: str | None = None
    range: str | None = None
    # The XSD datatype of a literal-valued property ("string", "integer", "date" …); None for a
    # property whose values are resources (or literals of several kinds: text, labels).
    datatype: str | None = None


CLASSES: tuple[Term, ...] = (
    Term("Document", "Document", "Documento", "A source document of the corpus."),
    Term("Section", "Section", "Seção", "A headed part of a document."),
    Term(
        "Rule",
        "Rule",
        "Regra",
        "A numbered rule of a document (e.g. one of a format's rule differences).",
    ),
    Term(
        "Passage",
        "Passage",
        "Trecho",
        "A paragraph, bullet, list item, table row or sentence, "
        "with its exact character span in its document.",
    ),
    Term("Example", "Example", "Exemplo", "A worked example: a game situation and its outcome."),
    Term(
        "Step", "Step", "Passo", "An ordered step: SEGOC steps, Damage Step sub-steps, turn order."
    ),
    Term("Card", "Card", "Card", "A Yu-Gi-Oh! card, with official English and pt-BR names."),
    Term("Concept", "Concept", "Conceito", "A game mechanic or term."),
    Term(
        "Format",
        "Format",
        "Formato",
        "A rules format a statement applies in (the formats the corpus manifest declares).",
    ),
    Term(
        "Claim",
        "Claim",
        "Afirmação",
        "An atomic rule statement in pt and en, whether it holds, and the sentence stating it.",
    ),
    Term(
        "Statement",
        "Statement",
        "Enunciado",
        "A main clause of a document sentence read into a typed proposition (modality, polarity, "
        "roles, conditions), with the sentence's exact span.",
    ),
    Term("Fact", "Fact", "Fato", "A typed statement with its source passage and authority."),
)


def _card(name: str, en: str, pt: str, comment: str, datatype: str | None = None) -> Term:
    """A property of a Card read from the card-facts table (kb.cards.table)."""
    return Term(name, en, pt, comment, "Card", None if datatype else "Format", datatype)


# The card-facts table's data as properties of a Card (kb.linked_data.rdf.card_triples).
CARD_DATA: tuple[Term, ...] = (
    _card("attribute", "attribute", "atributo", "A monster's Attribute (DARK, LIGHT …).", "string"),
    _card("race", "monster type", "tipo de monstro", "A monster's Type (Dragon …).", "string"),
    _card(
        "typeLine",
        "type line",
        "linha de tipo",
        "The Type line printed on a monster (`Dragon / Effect`).",
        "string",
    ),
    _card("level", "level", "nível", "A monster's Level.", "integer"),
    _card("rank", "rank", "classe", "An Xyz Monster's Rank.", "integer"),
    _card("linkRating", "link rating", "valor de link", "A Link Monster's rating.", "integer"),
    _card("atk", "ATK", "ATK", "A monster's ATK.", "integer"),
    _card("def", "DEF", "DEF", "A monster's DEF.", "integer"),
    _card("password", "password", "senha", "The card's passcode (8 digits).", "integer"),
    _card(
        "firstTcgDate",
        "first TCG date",
        "lançamento no TCG",
        "The date of the card's first TCG release.",
        "date",
    ),
    _card(
        "inCardPoolOf",
        "in the card pool of",
        "no conjunto de cards de",
        "The card is in the format's card pool (the manifest's `card_pool` flag).",
    ),
    _card(
        "forbiddenIn",
        "forbidden in",
        "proibido em",
        "The format's Forbidden & Limited list forbids the card (0 copies).",
    ),
    _card(
        "limitedIn",
        "limited in",
        "limitado em",
        "The format's Forbidden & Limited list limits the card to 1 copy.",
    ),
    _card(
        "semiLimitedIn",
        "semi-limited in",
        "semi-limitado em",
        "The format's Forbidden & Limited list limits the card to 2 copies.",
    ),
)

PROPERTIES: tuple[Term, ...] = (
    Term("partOf", "part of", "parte de", "Structural containment.", None, None),
    Term(
        "mentions",
        "mentions",
        "menciona",
        "A text names a card, concept or format.",
        "Passage",
        None,
    ),
    Term(
        "about",
        "about",
        "sobre",
        "A rule or section is about an entity (named in its heading).",
        "Rule",
        None,
    ),
    Term(
        "appliesIn",
        "applies in",
        "aplica-se em",
        "The format a rule or section applies in.",
        None,
        "Format",
    ),
    Term(
        "exampleOf",
        "example of",
        "exemplo de",
        "The rule or statement an example illustrates.",
        "Example",
        None,
    ),
    Term(
        "instanceOf",
        "instance of",
        "instância de",
        "A card belongs to a card class.",
        "Card",
        "Concept",
    ),
    Term(
        "hasSpellSpeed",
        "has spell speed",
        "tem velocidade de magia",
        "Spell speed of a card or class.",
        None,
        "Concept",
    ),
    Term(
        "canRespondTo",
        "can respond to",
        "pode responder a",
        "A spell speed may be chained to another.",
        "Concept",
        "Concept",
    ),
    Term(
        "cannotRespondTo",
        "cannot respond to",
        "não pode responder a",
        "A spell speed may not be chained to another.",
        "Concept",
        "Concept",
    ),
    Term(
        "summonedBy",
        "summoned by",
        "invocado por",
        "How a monster is Special Summoned (inherent or not).",
        "Card",
        "Concept",
    ),
    Term(
        "hasCapability",
        "has capability",
        "tem capacidade",
        "What a card can negate (summons, activations, effects).",
        "Card",
        "Concept",
    ),
    Term(
        "negatableBy",
        "negatable by",
        "negável por",
        "A kind of summon can be negated by a capability.",
        "Concept",
        "Concept",
    ),
    Term(
        "notNegatableBy",
        "not negatable by",
        "não negável por",
        "A kind of summon cannot be negated by a capability.",
        "Concept",
        "Concept",
    ),
    Term(
        "startsChain",
        "starts a chain",
        "inicia uma Corrente",
        "An action starts a chain.",
        "Concept",
        "Concept",
    ),
    Term(
        "doesNotStartChain",
        "does not start a chain",
        "não inicia uma Corrente",
        "An action does not start a chain.",
        "Concept",
        "Concept",
    ),
    Term(
        "formedOnlyBy",
        "formed only by",
        "formada somente por",
        "Only this kind of act forms a chain (activations).",
        "Concept",
        "Concept",
    ),
    Term(
        "notAboveChainLink",
        "not above chain link",
        "não acima do elo",
        "A Spell Speed whose effects cannot be Chain Link 2 or higher (save when activated "
        "together).",
        "Concept",
        "Concept",
    ),
    Term(
        "cannotBeChainedTo",
        "cannot be chained to",
        "não pode ser encadeado",
        "An action no Chain Link can be added to (it has no Spell Speed: a Summon).",
        "Concept",
        "Concept",
    ),
    Term(
        "canBeRespondedTo",
        "can be responded to",
        "pode ser respondido",
        "An action a card or effect can be activated in response to.",
        "Concept",
        "Concept",
    ),
    Term(
        "disjointWith",
        "disjoint with",
        "disjunto de",
        "Two kinds exclude each other (a Limited card is not Semi-Limited).",
        "Concept",
        "Concept",
    ),
    Term(
        "appliesWithout",
        "applies without",
        "se aplica sem",
        "An effect kind applies without being activated (a Continuous Effect).",
        "Concept",
        "Concept",
    ),
    Term(
        "hasEffectType",
        "has effect type",
        "tem tipo de efeito",
        "A monster's effect types.",
        "Card",
        "Concept",
    ),
    Term(
        "allows",
        "allows",
        "permite",
        "A Damage Step sub-step allows a class of activation.",
        "Step",
        "Concept",
    ),
    Term(
        "forbids",
        "forbids",
        "proíbe",
        "A Damage Step sub-step forbids a class of activation.",
        "Step",
        "Concept",
    ),
    Term("precedes", "precedes", "precede", "Order between steps.", "Step", "Step"),
    Term(
        "rulesActivation",
        "rules activation",
        "regula ativação",
        "A bullet says whether a class of card (fact prop `class`) may be activated (prop "
        "`allowed`; null: its sub-steps decide) in the rule or sub-step it points to.",
        "Passage",
    ),
    Term(
        "limitsCost",
        "limits cost",
        "limita custo",
        "A passage limits what Life Points paying a cost may leave (prop `min_remaining`).",
        "Passage",
        "Concept",
    ),
    Term(
        "differsFrom",
        "differs from",
        "difere de",
        "A format's rule differs from today's (base) rules.",
        "Rule",
        "Format",
    ),
    Term(
        "statedIn",
        "stated in",
        "afirmado em",
        "The passage whose text states a claim.",
        "Claim",
        "Passage",
    ),
    Term(
        "concerns",
        "concerns",
        "diz respeito a",
        "A card, concept or format a claim is about.",
        "Claim",
        None,
    ),
    Term("broader", "broader", "mais amplo", "A more general concept.", "Concept", "Concept"),
    Term(
        "statedSpeedContext",
        "stated in speed context",
        "citado no contexto de velocidade",
        "A class named in a spell-speed section.",
        "Concept",
        "Concept",
    ),
    Term(
        "text",
        "text",
        "texto",
        "The exact source text of a passage.",
        "Passage",
        None,
        "langString",
    ),
    Term("document", "document", "documento", "The document a span is in.", "Passage", "Document"),
    Term(
        "start",
        "start",
        "início",
        "Start character offset of the span (0-based).",
        "Passage",
        None,
        "integer",
    ),
    Term(
        "end",
        "end",
        "fim",
        "End character offset of the span (exclusive).",
        "Passage",
        None,
        "integer",
    ),
    Term("order", "order", "ordem", "Position among siblings.", None, None, "integer"),
    Term(
        "authority",
        "authority",
        "autoridade",
        "document > curated > inferred.",
        "Fact",
        None,
        "string",
    ),
    Term("subject", "subject", "sujeito", "Subject of a fact.", "Fact", None),
    Term("predicate", "predicate", "predicado", "Predicate of a fact.", "Fact", None),
    Term("object", "object", "objeto", "Object of a fact.", "Fact", None),
    Term(
        "holds",
        "holds",
        "é válida",
        "Whether a claim's statement is true according to its source.",
        "Claim",
        None,
        "boolean",
    ),
    Term(
        "cardType", "card type", "tipo de card", "monster, spell or trap.", "Card", None, "string"
    ),
    Term("property", "property", "propriedade", "Spell/Trap property.", "Card", None, "string"),
    *CARD_DATA,
)


def camel(predicate: str) -> str:
    """`has_spell_speed` -> `hasSpellSpeed`."""
    head, *rest = predicate.split("_")
    return head + "".join(w.capitalize() for w in rest)


PROPERTY_NAMES = frozenset(t.name for t in PROPERTIES)

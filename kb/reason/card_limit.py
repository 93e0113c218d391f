"""How many copies of a card a format allows: its status on the format's Forbidden & Limited list.

The format's spec names the card-record field holding each card's status on its list (0
Forbidden, 1 Limited, 2 Semi-Limited, unset: unlisted, 3 copies). The rule passage is the one under
the format's Rule or Section `about` the status concept (concept/forbidden, /limited,
/semi-limited), found through the graph; the card's status is a card fact with its source.
"""

from __future__ import annotations

import weakref

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Node
from kb.reading.question import Amount, Question
from kb.reason import Decision, Knowledge, Step, Value

# Status → (max copies, concept, en, pt)
STATUSES: dict[int, tuple[int, str, str, str]] = {
    0: (0, "forbidden", "Forbidden", "Proibido"),
    1: (1, "limited", "Limited", "Limitado"),
    2: (2, "semi-limited", "Semi-Limited", "Semi-Limitado"),
}
_FIELDS: weakref.WeakKeyDictionary[KnowledgeGraph, frozenset[str]] = weakref.WeakKeyDictionary()


def _has_field(kg: KnowledgeGraph, field: str) -> bool:
    """Whether some card of the graph has a value in `field` (cached per graph)."""
    known = _FIELDS.get(kg)
    if known is None:
        known = frozenset(k for n in kg.of_type("Card") for k in n.props)
        _FIELDS[kg] = known
    return field in known


def status_rule(kg: KnowledgeGraph, concept: str, fmt: str) -> str | None:
    """The first passage under the format's Rule/Section about a list status."""
    for node in kg.rules_about(concept_id(concept), fmt):
        for child in kg.children(node.id):
            n = kg.node(child)
            if n.span is not None and n.text and n.type not in ("Section", "Rule"):
                return n.id
    return None


def _asked_copies(q: Question) -> int | None:
    """The number of copies the question asks about, when it says one."""
    numbers = [n.value for n in q.numbers if 0 < n.value <= 9]
    if numbers:
        return max(numbers)
    if q.senses.has("another"):
        return 2
    return None


def _of_card(q: Question, amount: Amount) -> bool:
    """The amount counts a card: the next thing the question names after it, right after it, is a
    card ("tenho 2 Dark Armed Dragon", not "tenho 2 trevas no cemitério … Dark Armed Dragon")."""
    after = [m for m in q.mentions if m.start >= amount.end]
    if not after:
        return False
    first = min(after, key=lambda m: m.start)
    return first.entity.startswith("card/") and first.start - amount.end <= 2


def decide_card_limit(kb: Knowledge, q: Question) -> Decision | None:
    spec = kb.formats.get(q.format)
    if spec is None or spec.banlist is None:
        return None
    asked = _asked_copies(q)
    # the question's words outside the cards' names ("Cálice Proibido" is a name, not the status)
    said = q.senses.outside((m.start, m.end) for m in q.mentions if m.entity.startswith("card/"))
    # Whether the card is legal at all: only when the question names nothing it would do
    # ("allowed during the Damage Step?" asks about a timing).
    legality = said.has("legal") and not any(m.entity.startswith("concept/") for m in q.mentions)
    # The question is about copies, a list status, or having the card in a deck section (an
    # Extra Deck named for where a monster is summoned from is not a section to fill).
    about_copies = (
        said.has("copies", "list_status")
        or any(
            a.value <= 9 and said.before(a.start, "use", "have") and _of_card(q, a)
            for a in q.amounts
        )
        or legality
        or (said.has("deck_section") and (asked is not None or not said.has("extra_deck")))
    )
    # or using or playing the card at all: "can I play X in Edison?", "posso usar X no Edison?"
    if not about_copies and not said.has("use", "put"):
        return None
    if not _has_field(kb.kg, spec.banlist.field):
        return None  # the card data holds no status of this list
    cards: list[Node] = []
    for m in q.mentions:
        node = kb.kg.get(m.entity)
        if node is not None and node.type == "Card" and node not in cards:
            cards.append(node)
    if len(cards) != 1:
        return None
    card = cards[0]
    field = spec.banlist.field
    if "password" not in card.props:
        return None  # no card data for this card: its status is unknown
    status = card.props.get(field)
    if not about_copies and status != 0:
        # "Can I play X in Edison?" decides by the list only for a Forbidden card: it may not be
        # used at all; another card's use is a question for the rules
        return None
    limit, concept, en_name, pt_name = (
        STATUSES[status]
        if isinstance(status, int) and status in STATUSES
        else (3, "", "unlisted", "sem limite")
    )
    allowed = limit >= (asked if asked is not None else 1)
    name_en, name_pt = card.label_en or card.id, card.label_pt or card.label_en or card.id
    fact = {
        "subject": card.id,
        "predicate": field,
        "object": str(status if status is not None else "unlisted"),
        "authority": "inferred",
        **({"password": card.props["password"]} if card.props.get("password") else {}),
        **({"dataset": "|".join(card.props["datasets"])} if card.props.get("datasets") else {}),
    }
    listed = f"on the list of {spec.banlist.effective}"
    steps = [
        Step(
            f"{name_en} is {en_name} {listed}: at most {limit} {'copy' if limit == 1 else 'copies'}"
            " across the Main, Extra and Side Deck.",
            f"{name_pt} é {pt_name} na lista de {spec.banlist.effective}: no máximo {limit} "
            f"{'cópia' if limit == 1 else 'cópias'} somando Deck Principal, Adicional e Auxiliar.",
            None,
            fact,
        )
    ]
    rule = status_rule(kb.kg, concept, spec.id) if concept else None
    if rule is not None:
        steps.append(Step(f"The {en_name} rule.", f"A regra de {pt_name}.", rule))
    copies_en = f"{limit} {'copy' if limit == 1 else 'copies'}"
    copies_pt = f"{limit} {'cópia' if limit == 1 else 'cópias'}"
    en = f"{name_en} is {en_name} in {spec.label_en}: at most {copies_en}."
    pt = f"{name_pt} é {pt_name} no {spec.label_pt}: no máximo {copies_pt}."
    # "Does that mean I can't run a copy?": the answer to the question as asked
    yes = allowed != q.negated
    verdict = ("yes" if yes else "no") if q.yes_no else None
    if verdict is not None:
        en = f"{'Yes' if yes else 'No'}. {en}"
        pt = f"{'Sim' if yes else 'Não'}. {pt}"
    return Decision(
        verdict,
        steps,
        en,
        pt,
        0.9 if verdict else None,
        [s.source for s in steps if s.source],
        "card-limit",
        Value("number", limit, "copies"),
    )

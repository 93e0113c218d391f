"""How many cards a deck of a format holds: the deck sizes the manifest declares for it.

A format's spec may declare its deck sizes (Main Deck min..max, Extra and Side Deck maxima:
curated, `corpus/manifest.yaml`). A question naming a part of the deck and a number of cards
("a Main Deck of 39 cards?", "more than 15 cards in the Extra Deck?", "at least 40?") is decided
against them; one asking how many ("how many cards can the Side Deck have?") gets the number.
"""

from __future__ import annotations

from typing import Literal

from kb.formats import DeckSizes, FormatSpec
from kb.ids import concept_id
from kb.reading.question import Question
from kb.reading.senses import Senses
from kb.reason import Decision, Knowledge, Step, Value

Part = Literal["main", "extra", "side"]
_PARTS: dict[str, Part] = {
    concept_id("main-deck"): "main",
    concept_id("extra-deck"): "extra",
    concept_id("side-deck"): "side",
    concept_id("deck"): "main",  # "a Deck of 39 cards" is the Main Deck
}
_NAMES: dict[Part, tuple[str, str]] = {
    "main": ("Main Deck", "Deck Principal"),
    "extra": ("Extra Deck", "Deck Adicional"),
    "side": ("Side Deck", "Deck Auxiliar"),
}
# What the number is compared with, as the words just before it say.
_COMPARED = ("at_least", "more_than", "fewer_than", "at_most")


def decide_deck_size(kb: Knowledge, q: Question) -> Decision | None:
    """Can a deck part hold N cards / how many can it hold, in the format asked?"""
    spec = _spec(kb, q.format)
    if spec is None or spec.deck is None:
        return None
    parts = [_PARTS[m.entity] for m in q.mentions if m.entity in _PARTS]
    if not parts:
        return None
    part = next((p for p in parts if p != "main"), parts[0])
    asked = _from(q.senses, q.last_at)  # the asking sentence's words
    if not q.yes_no:
        if q.unit_asked != "card" and not asked.has("size_asked"):
            return None
        return _how_many(spec, spec.deck, part, asked)
    if asked.has("moves_cards"):
        return None  # "draw 1 card from the Deck", "send 2 cards from my Deck": not its size
    numbers = [
        (a, cards)
        for a in q.amounts
        if a.digits and a.start >= q.last_at and a.value < 1000
        for cards in [asked.after(a.end, "card_word", gap=2)]
        if cards is not None and _counts_the_deck(asked, a.start, cards[1])
    ]
    counted = {a.value for a, _ in numbers}
    if len(counted) != 1:
        return None
    n = counted.pop()
    said = next((c for c in _COMPARED if asked.before(numbers[0][0].start, c)), None)
    low, high = _bounds(spec.deck, part)
    if said == "at_least":
        # "does the Main Deck need at least 40 cards?": the minimum asked
        yes = low == n
        said_en, said_pt = f"at least {n} cards", f"pelo menos {n} cards"
    elif said == "more_than":
        yes = high > n
        said_en, said_pt = f"more than {n} cards", f"mais de {n} cards"
    elif said == "fewer_than":
        yes = low < n
        said_en, said_pt = f"fewer than {n} cards", f"menos de {n} cards"
    elif said == "at_most":
        yes = n <= high
        said_en, said_pt = f"up to {n} cards", f"até {n} cards"
    else:
        yes = low <= n <= high
        said_en, said_pt = f"{n} cards", f"{n} cards"
    if q.negated:
        yes = not yes
    step = _step(spec, spec.deck, part)
    name_en, name_pt = _NAMES[part]
    en = (
        f"{'Yes' if yes else 'No'} ({spec.label_en}): {step.text_en} The question asks about "
        f"{said_en} in the {name_en}."
    )
    pt = (
        f"{'Sim' if yes else 'Não'} ({spec.label_pt}): {step.text_pt} A pergunta é sobre "
        f"{said_pt} no {name_pt}."
    )
    return Decision("yes" if yes else "no", [step], en, pt, 0.85, [], "deck-size")


def _from(senses: Senses, start: int) -> Senses:
    """The senses from character `start` on (the asking sentence)."""
    return Senses({n: kept for n in senses.spans if (kept := senses.where(n, start))})


def _counts_the_deck(asked: Senses, start: int, end: int) -> bool:
    """The number of cards (from `start` to `end`, "39 cards") counts a deck: "a Main Deck of
    (only) 39 cards", "my Extra Deck contain more than 15 cards", "40 cards in my Main Deck",
    "a 60-card deck"."""
    after = asked.first("deck_word", start=end)
    if after is not None and asked.led_by(after[0], ("card_word",), ("deck_filler",), 3):
        return True
    decks = [d for d in asked.where("deck_word", end=start)]
    if not decks:
        return False
    last = decks[-1]
    # a few words after the deck, none naming another thing counted or moved
    return start - last[1] <= 40 and not asked.has("not_the_deck", start=last[1], end=start)


def _how_many(spec: FormatSpec, deck: DeckSizes, part: Part, asked: Senses) -> Decision:
    low, high = _bounds(deck, part)
    step = _step(spec, deck, part)
    if asked.has("min_word"):
        value: int | str = low
    elif asked.has("max_word") or part != "main":
        value = high
    else:
        value = f"{low}-{high}"
    kind: Literal["number", "text"] = "number" if isinstance(value, int) else "text"
    return Decision(
        None,
        [step],
        step.text_en,
        step.text_pt,
        None,
        [],
        "deck-size",
        value=Value(kind, value, "card"),
    )


def _bounds(deck: DeckSizes, part: Part) -> tuple[int, int]:
    if part == "main":
        return deck.main_min, deck.main_max
    return 0, deck.extra_max if part == "extra" else deck.side_max


def _step(spec: FormatSpec, deck: DeckSizes, part: Part) -> Step:
    low, high = _bounds(deck, part)
    name_en, name_pt = _NAMES[part]
    if part == "main":
        en = f"In {spec.label_en} a {name_en} has {low} to {high} cards."
        pt = f"No {spec.label_pt} um {name_pt} tem de {low} a {high} cards."
    else:
        article = "an" if part == "extra" else "a"
        en = f"In {spec.label_en} {article} {name_en} has at most {high} cards."
        pt = f"No {spec.label_pt} um {name_pt} tem no máximo {high} cards."
    if spec.per_duelist_decks:
        en += " Each duelist of a team brings their own deck."
        pt += " Cada duelista de uma equipe traz seu próprio deck."
    fact = {
        "subject": spec.node_id,
        "predicate": "deck_sizes",
        "object": ", ".join(f"{k} {v}" for k, v in deck.props().items()),
        "authority": "curated",
        "file": "manifest.yaml",
    }
    return Step(en, pt, None, fact)


def _spec(kb: Knowledge, fmt: str | None) -> FormatSpec | None:
    formats = kb.formats
    return formats.get(fmt or formats.base or "")

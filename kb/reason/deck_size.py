"""How many cards a deck of a format holds: the deck sizes the manifest declares for it.

A format's spec may declare its deck sizes (Main Deck min..max, Extra and Side Deck maxima:
curated, `corpus/manifest.yaml`). A question naming a part of the deck and a number of cards
("a Main Deck of 39 cards?", "more than 15 cards in the Extra Deck?", "at least 40?") is decided
against them; one asking how many ("how many cards can the Side Deck have?") gets the number.
"""

from __future__ import annotations

import re
from typing import Literal

from kb.formats import DeckSizes, FormatSpec
from kb.ids import concept_id, fold
from kb.reading.clauses import asked_unit, last_sentence, question_negated
from kb.reading.question import Question
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
# What the number is compared with, as the words before it say.
_AT_LEAST = re.compile(r"\b(?:at least|no minimo|pelo menos|minimum of|minimo de)\s*$")
_MORE = re.compile(
    r"\b(?:more than|over|above|exceed\w*|mais (?:de|que|do que)|acima de|passar de|"
    r"ultrapassar)\s*$"
)
_FEWER = re.compile(r"\b(?:fewer than|less than|under|below|menos (?:de|que|do que)|abaixo de)\s*$")
_AT_MOST = re.compile(r"\b(?:at most|up to|no maximo|ate|maximum of|maximo de)\s*$")
_MIN_WORD = re.compile(r"\b(?:minim\w*|at least|pelo menos|smallest|fewest)\b")
_MAX_WORD = re.compile(r"\b(?:maxim\w*|at most|largest|biggest|limit\w*|limite)\b")
_DECK = re.compile(
    r"\b(?:main deck|extra deck|side deck|deck principal|deck adicional|"
    r"deck auxiliar|decks?|baralho)\b"
)
# between "N cards" and the deck it counts: "in my", "no", or nothing ("a 60-card deck")
_BETWEEN_AFTER = re.compile(r"\s*(?:(?:in|inside|no|na|em|my|your|the|o|a|meu|minha|seu|sua)\s+)*")
# between a deck and a number that is not its size: another thing counted or moved
_NOT_THE_DECK = re.compile(r"\b(?:from|do|da|dos|das|to|para|pro|pra|and|e|then|depois)\b")
_MOVES_CARDS = re.compile(
    r"\b(?:draw\w*|compr\w*|send\w*|sent|envi\w*|mill\w*|banish\w*|bani\w*|add\w*|"
    r"adicion\w*|return\w*|devolv\w*|reveal\w*|revel\w*|search\w*|busc\w*|excavat\w*|"
    r"escav\w*|look\w*|olh\w*|discard\w*|descart\w*|shuffl\w*|embaralh\w*|mand\w*)\b"
)
_N_CARDS = re.compile(r"\b(\d{1,3})\s*-?\s*(?:cards?|cartas?)\b")
# "the minimum number of cards", "deck size": how many, asked without "how many"
_SIZE_ASKED = re.compile(
    r"\b(?:numero|number|quantidade)\s+(?:minimo|maximo|minimum|maximum)\b"
    r"|\b(?:minimum|maximum|minimo|maximo)\s+(?:number|numero|size|tamanho|de cards|of cards)\b"
    r"|\bdeck size\b|\btamanho (?:minimo |maximo )?d[oe] deck\b"
)


def decide_deck_size(kb: Knowledge, q: Question) -> Decision | None:
    """Can a deck part hold N cards / how many can it hold, in the format asked?"""
    spec = _spec(kb, q.format)
    if spec is None or spec.deck is None:
        return None
    parts = [_PARTS[m.entity] for m in q.mentions if m.entity in _PARTS]
    if not parts:
        return None
    part = next((p for p in parts if p != "main"), parts[0])
    asking = fold(last_sentence(q.text))
    if not q.yes_no:
        if asked_unit(asking) != "card" and not _SIZE_ASKED.search(asking):
            return None
        return _how_many(spec, spec.deck, part, asking, q.lang)
    if _MOVES_CARDS.search(asking):
        return None  # "draw 1 card from the Deck", "send 2 cards from my Deck": not its size
    digits = [m for m in _N_CARDS.finditer(asking) if _counts_the_deck(asking, m)]
    counted = {int(m.group(1)) for m in digits}
    if len(counted) != 1:
        return None
    n = counted.pop()
    before = asking[: digits[0].start()]
    low, high = _bounds(spec.deck, part)
    if _AT_LEAST.search(before):
        # "does the Main Deck need at least 40 cards?": the minimum asked
        yes = low == n
        said_en, said_pt = f"at least {n} cards", f"pelo menos {n} cards"
    elif _MORE.search(before):
        yes = high > n
        said_en, said_pt = f"more than {n} cards", f"mais de {n} cards"
    elif _FEWER.search(before):
        yes = low < n
        said_en, said_pt = f"fewer than {n} cards", f"menos de {n} cards"
    elif _AT_MOST.search(before):
        yes = n <= high
        said_en, said_pt = f"up to {n} cards", f"até {n} cards"
    else:
        yes = low <= n <= high
        said_en, said_pt = f"{n} cards", f"{n} cards"
    if question_negated(q.text):
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


def _counts_the_deck(asking: str, number: re.Match[str]) -> bool:
    """The number of cards counts a deck: "a Main Deck of (only) 39 cards", "my Extra Deck
    contain more than 15 cards", "40 cards in my Main Deck", "a 60-card deck"."""
    after = _DECK.search(asking, number.end())
    if after is not None and _BETWEEN_AFTER.fullmatch(asking[number.end() : after.start()]):
        return True
    decks = [d for d in _DECK.finditer(asking, 0, number.start())]
    if not decks:
        return False
    between = asking[decks[-1].end() : number.start()]
    return len(between.split()) <= 6 and not _NOT_THE_DECK.search(between)


def _how_many(spec: FormatSpec, deck: DeckSizes, part: Part, asking: str, lang: str) -> Decision:
    low, high = _bounds(deck, part)
    step = _step(spec, deck, part)
    if _MIN_WORD.search(asking):
        value: int | str = low
    elif _MAX_WORD.search(asking) or part != "main":
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

"""The names the linker knows, from the graph: its entries, and the everyday words among them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from kb.cards.names import common_words, everyday_words
from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.link import Entry, Linker, lexicon_words
from kb.reading.language import language

LANGUAGES = ("pt", "en")


@cache
def _heads_and_relatives() -> tuple[frozenset[str], frozenset[str]]:
    heads: set[str] = set()
    relatives: set[str] = set()
    for code in LANGUAGES:
        lang = language(code)
        heads |= lang.heads
        relatives |= {p[0] for p in lang.subordinators.get("relative", ()) if len(p) == 1}
    return frozenset(heads), frozenset(relatives)


def with_predicate_names(entries: Iterable[Entry]) -> list[Entry]:
    """A concept named by a head noun and a relative clause ("Cards que modificam ATK/DEF",
    "Cards that modify ATK/DEF") is also named by the clause alone, after any other noun
    ("Magias/Armadilhas que modificam ATK/DEF" are Spells/Traps of that concept)."""
    heads, relatives = _heads_and_relatives()
    out = []
    for entry in entries:
        extra = []
        if entry.type == "Concept":
            for surface in entry.surfaces:
                words = surface.split()
                if len(words) > 2 and fold(words[0]) in heads and fold(words[1]) in relatives:
                    extra.append(" ".join(words[1:]))
        out.append(replace(entry, surfaces=(*entry.surfaces, *extra)) if extra else entry)
    return out


def linker_entries(kg: KnowledgeGraph, formats: Formats) -> tuple[list[Entry], list[Entry]]:
    """The linker's entries: (the curated cards, concepts and formats; the card database's)."""
    entries: list[Entry] = []
    many: list[Entry] = []
    for n in kg.of_type("Card", "Concept"):
        surfaces = [s for s in (n.label_en, n.label_pt, *n.props.get("aliases", [])) if s]
        entry = Entry(n.id, n.type, n.label_en or n.label_pt or n.id, tuple(surfaces))
        (many if n.props.get("origin") == "carddb" else entries).append(entry)
    return [*with_predicate_names(entries), *formats.entries()], many


def everyday_lexicon(kg: KnowledgeGraph) -> list[str]:
    """The everyday words among the words of every name the linker knows (what a build stores
    as `everyday_words`, so a server need not load wordfreq)."""
    core, many = linker_entries(kg, Formats.of_nodes(kg.of_type("Format")))
    return sorted(everyday_words(lexicon_words([*core, *many])))


def linker_for(
    kg: KnowledgeGraph,
    formats: Formats | None = None,
    texts: Iterable[str] = (),
    everyday: Iterable[str] | None = None,
) -> Linker:
    """A linker over the graph's cards and concepts (from their labels and aliases) and formats;
    `everyday` as `everyday_lexicon` gives it (worked out when not given)."""
    formats = formats if formats is not None else Formats.of_nodes(kg.of_type("Format"))
    core, many = linker_entries(kg, formats)
    rule_words = [s for e in core if e.type != "Card" for s in e.surfaces]
    return Linker(
        core,
        many=many,
        common_words=common_words(rule_words, texts),
        everyday=None if everyday is None else frozenset(everyday),
    )

"""The cards of a Forbidden & Limited list section, from the card data.

A rules document may say "Os seguintes cards são Proibidos:" and stop there (its list was an
image). A section `about` a list status (the glossary concept `concept/forbidden`, `…/limited`,
`…/semi-limited`: the statuses of kb.cards.banlist) in a format that declares a list gets the
cards the card data gives that status, as `/banlist` lists them, each cited to the card data:
its password and the datasets its row comes from, under a note naming the list's field, date
and provenance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kb.cards.banlist import STATUS_NAMES, list_status
from kb.cards.nodes import record_of
from kb.cards.table import CardRecord
from kb.formats import Formats, FormatSpec
from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Node
from kb.presentation.codes import field_value, label
from kb.presentation.page import Item, Link

CARD_TABLE = "corpus/carddb/cards.tsv"
_STATUS_CONCEPTS = {concept_id(name): code for code, name in STATUS_NAMES.items()}


def list_status_of(kg: KnowledgeGraph, section: Node) -> int | None:
    """The list status (0 forbidden, 1 limited, 2 semi-limited) a section is about, if any."""
    for f in kg.out(section.id, "about"):
        if f.object in _STATUS_CONCEPTS:
            return _STATUS_CONCEPTS[f.object]
    return None


def listed_records(kg: KnowledgeGraph, spec: FormatSpec, status: int) -> list[CardRecord]:
    """The cards the format's list gives `status`, by English name (as /banlist orders them)."""
    assert spec.banlist is not None
    field = spec.banlist.field
    records = (record_of(n) for n in kg.of_type("Card") if field in n.props)
    listed = [r for r in records if list_status(r, spec) == status]
    return sorted(listed, key=lambda r: (r.name_en.casefold(), r.slug))


def list_items(
    kg: KnowledgeGraph,
    section: Node,
    format_id: str | None,
    link: Callable[[Node, str], Link],
    lang: str = "pt",
) -> tuple[str, tuple[Item, ...]] | None:
    """(heading, items) of the cards listed with the status the section is about in its format,
    or None when the section is about no status or its format declares no list."""
    status = list_status_of(kg, section)
    spec = Formats.of_nodes(kg.of_type("Format")).get(format_id)
    if status is None or spec is None or spec.banlist is None:
        return None
    records = listed_records(kg, spec, status)
    status_label = label("listStatus", STATUS_NAMES[status], lang)
    heading = f"Cards — {status_label} ({len(records)}; {label('infobox', 'card_data', lang)})"
    items = (source_item(spec, lang), *card_items(kg, records, link, lang))
    return heading, items


def source_item(spec: FormatSpec, lang: str) -> Item:
    """Where the list comes from: the table, its field, the list's date and provenance."""
    assert spec.banlist is not None
    return Item(
        text=f"{CARD_TABLE}, {spec.banlist.field} ({spec.banlist.effective}): "
        f"{spec.banlist.provenance}",
        label=label("infobox", "source", lang),
    )


def card_items(
    kg: KnowledgeGraph,
    records: list[CardRecord],
    link: Callable[[Node, str], Link],
    lang: str,
) -> Iterator[Item]:
    """One item per card: its page, its other name, its password and datasets."""
    for r in records:
        node = kg.node(r.id)
        shown = (r.name_pt or r.name_en) if lang == "pt" else r.name_en
        other = r.name_en if lang == "pt" else r.name_pt
        cite = (
            [f"{label('cardField', 'password', lang)} {field_value('password', r.password, lang)}"]
            if r.password
            else []
        )
        if r.datasets:
            cite.append(f"{label('infobox', 'dataset', lang)}: {', '.join(r.datasets)}")
        parts = [f"({'en' if lang == 'pt' else 'pt'}: {other})"] if other and other != shown else []
        parts.append(f"[{'; '.join(cite)}]" if cite else "")
        yield Item(text=" ".join(p for p in parts if p), link=link(node, shown))

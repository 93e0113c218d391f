"""A card page's infobox: its names, its card data and its status in each format with card rules.

Field labels and values are those of the web page's node view (kb.presentation.codes, one table
for both), in the page's language: a pt page reads "Atributo: TREVAS", an en page
"Attribute: DARK". The list statuses are the format's own (kb.cards.banlist over the card's
record and the manifest's format spec), never read from a field name in code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kb.cards.banlist import has_card_rules, status_of
from kb.cards.nodes import record_of
from kb.formats import FormatSpec
from kb.model import Node
from kb.presentation.codes import card_rows, label


def card_facts(
    card: Node, specs: Sequence[FormatSpec] = (), lang: str = "pt"
) -> tuple[tuple[str, str], ...]:
    """The card's infobox rows: names, card data, then its status in each of `specs` that
    declares card rules."""
    rows = [
        (label("infobox", "name_pt", lang), card.label_pt or "—"),
        (label("infobox", "name_en", lang), card.label_en or "—"),
    ]
    ruled = [s for s in specs if has_card_rules(s)]
    pools = frozenset(s.card_pool for s in ruled if s.card_pool)  # shown as the status instead
    rows.extend(card_rows(card.props, lang, skip=pools))
    rows.extend(list_rows(card, ruled, lang))
    return tuple(rows)


def list_rows(card: Node, specs: Sequence[FormatSpec], lang: str) -> Iterator[tuple[str, str]]:
    """("Lista (Edison)", "Limitado") for each format with card rules."""
    record = record_of(card)
    for spec in specs:
        badge = spec.badge(lang) or spec.label(lang)
        yield (
            f"{label('infobox', 'list_status', lang)} ({badge})",
            label("listStatus", status_of(record, spec), lang),
        )

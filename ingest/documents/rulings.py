"""Parser of the rulings document, whose text runs together in a few long lines.

It is cut into its sections by their headings (inherent Special Summon, non-inherent Special
Summon, Chain Link, who may start a chain, Spell Speed and its three speeds, monster effect types),
then into list items ("-Cyber Dragon, Dark Armed Dragon …", "-PODEM ser negados …") and sentences,
so that each statement is its own passage with exact offsets. The cards inside the summon lists get
their own entry passages later, once they are linked (see `ingest.extract`).
"""

from __future__ import annotations

import re

from ingest.builder import DocumentBuilder
from ingest.segment import sentences, split_at, trimmed
from kb.ids import format_id
from kb.model import ParsedDocument

# (slug, heading as written, label_pt, label_en, parent slug or None)
_SECTIONS: tuple[tuple[str, str, str, str, str | None], ...] = (
    (
        "special-summon",
        "Special Summon Inerente e Não-inerente.",
        "Invocação-Especial inerente e não-inerente",
        "Inherent and non-inherent Special Summons",
        None,
    ),
    (
        "inherent",
        "Inerentes",
        "Invocações-Especiais inerentes",
        "Inherent Special Summons",
        "special-summon",
    ),
    (
        "non-inherent",
        "Não-inerentes",
        "Invocações-Especiais não-inerentes",
        "Non-inherent Special Summons",
        "special-summon",
    ),
    ("chain-link", "Chain Link", "Elo de Corrente", "Chain Link", None),
    (
        "chain-start",
        "Quem tem o direito de começar a Cadeia?",
        "Quem pode começar a Corrente",
        "Who may start a Chain",
        None,
    ),
    ("spell-speed", "Spell Speed", "Velocidade de Magia", "Spell Speed", None),
    ("speed-1", "Velocidade de Feitiço 1", "Velocidade de Magia 1", "Spell Speed 1", "spell-speed"),
    ("speed-2", "Spell Speed 2", "Velocidade de Magia 2", "Spell Speed 2", "spell-speed"),
    ("speed-3", "Velocidade de Feitiço 3", "Velocidade de Magia 3", "Spell Speed 3", "spell-speed"),
    (
        "effect-types",
        "Tipos (monster effect)",
        "Tipos de efeito de monstro",
        "Monster effect types",
        None,
    ),
)
# Where each heading is searched for: the first occurrence at or after this anchor text.
_ANCHORS = {
    "inherent": "Inerentes Os inerentes",
    "non-inherent": "Não-inerentesOs não-inerentes",
    "chain-link": "Chain Link A cadeia",
    "spell-speed": "Spell Speed Velocidade de Feitiço (",
    "speed-1": "Velocidade de Feitiço 1 (",
    "speed-2": "Spell Speed 2 (",
    "speed-3": "Velocidade de Feitiço 3 (",
}
_LIST_SECTIONS = {"inherent", "non-inherent"}
_ITEM_START = re.compile(r"(?<=\s)-(?=\s?[A-Za-zÀ-ÿ])")
_RULES_HEADING = "Regras:"


def _locate(text: str) -> list[tuple[int, int, tuple[str, str, str, str, str | None]]]:
    """(heading start, heading end, section spec) for each section found, in text order."""
    found = []
    for spec in _SECTIONS:
        slug, heading = spec[0], spec[1]
        anchor = _ANCHORS.get(slug, heading)
        at = text.find(anchor)
        if at < 0:
            continue
        found.append((at, at + len(heading), spec))
    return sorted(found, key=lambda f: f[0])


def parse_rulings(document_id: str, text: str, title_pt: str, title_en: str) -> ParsedDocument:
    """Parse the rulings document into sections, list items and sentences with exact offsets."""
    b = DocumentBuilder(document_id, text, title_pt, title_en)
    general = format_id("general")
    located = _locate(text)
    first = located[0][0] if located else len(text)
    for seg in sentences(text, 0, first):
        b.child(document_id, "Passage", seg, kind="title")
    for i, (start, end, spec) in enumerate(located):
        slug, _heading, label_pt, label_en, parent_slug = spec
        parent = f"{document_id}/{parent_slug}" if parent_slug else document_id
        heading = trimmed(text, start, end)
        assert heading is not None
        section = b.section(parent, slug, heading, label_pt=label_pt, label_en=label_en).id
        b.fact(section, "applies_in", general, section)
        body_end = located[i + 1][0] if i + 1 < len(located) else len(text)
        if slug in _LIST_SECTIONS:
            _list_body(b, section, text, end, body_end)
        else:
            for seg in sentences(text, end, body_end):
                b.child(section, "Passage", seg, kind="sentence")
    return b.build()


def _list_body(b: DocumentBuilder, section: str, text: str, start: int, end: int) -> None:
    """A summon section: prose sentences, list items, and the 'Regras:' sub-list."""
    cuts = [m.start() for m in _ITEM_START.finditer(text, start, end)]
    rules_at = text.find(_RULES_HEADING, start, end)
    if rules_at >= 0:
        cuts += [rules_at, rules_at + len(_RULES_HEADING)]
    parent = section
    for piece in split_at(text, start, end, cuts):
        if piece.start == rules_at:
            parent = b.section(section, "rules", piece, label_pt="Regras", label_en="Rules").id
            b.fact(parent, "applies_in", format_id("general"), parent)
        elif text[piece.start] == "-":
            b.child(parent, "Passage", piece, kind="list-item")
        else:
            for seg in sentences(text, piece.start, piece.end):
                b.child(parent, "Passage", seg, kind="sentence")

"""Parser of the Tag Duel document: its five sections, sub-lists, example rows and turn order.

- The table of contents names the five sections; the same names as lines open each section.
- "- …" lines are sub-list items of the paragraph above them (or of the section).
- "Exemplos" opens a block of `| … |` rows: each row is an Example of the rule stated just before.
- "Ordem do Turno:" opens the turn-order list, whose "- Equipe N Duelista NX" lines are ordered Steps.
"""

from __future__ import annotations

from ingest.builder import DocumentBuilder
from ingest.segment import Segment, lines, trimmed
from kb.ids import format_id
from kb.model import ParsedDocument

_SECTIONS = {
    "Regras Básicas": ("basic-rules", "Basic Rules"),
    "Procedimentos do Turno": ("turn-procedure", "Turn Procedure"),
    "Atacando": ("attacking", "Attacking"),
    "Regras Adicionais": ("additional-rules", "Additional Rules"),
    "Efeitos de Cards": ("card-effects", "Card Effects"),
}


def parse_tag(document_id: str, text: str, title_pt: str, title_en: str) -> ParsedDocument:
    """Parse the Tag Duel document into sections, passages, example rows and turn-order steps."""
    b = DocumentBuilder(document_id, text, title_pt, title_en)
    tag = format_id("tag")
    section: str | None = None
    paragraph: str | None = None  # the last rule paragraph: owner of sub-lists and examples
    turn_order: str | None = None
    for seg in lines(text):
        line = seg.text
        if seg.start == 0:
            b.child(document_id, "Passage", seg, kind="title")
            continue
        if section is None and line.startswith("- ") and line[2:] in _SECTIONS:
            b.child(document_id, "Passage", seg, prefix="toc", kind="toc")
            continue
        if line in _SECTIONS:
            slug, en = _SECTIONS[line]
            section = b.section(document_id, slug, seg, label_pt=line, label_en=en).id
            b.fact(section, "applies_in", tag, section)
            paragraph, turn_order = None, None
            continue
        if section is None:
            b.child(document_id, "Passage", seg, kind="paragraph")
            continue
        if line == "Exemplos":
            continue
        if line.startswith("|") and line.endswith("|"):
            row = trimmed(text, seg.start + 1, seg.end - 1)
            if row is not None:
                _example(b, section, paragraph, row)
            continue
        if line.startswith("Ordem do Turno"):
            turn_order = b.section(
                section, "turn-order", seg, label_pt="Ordem do Turno", label_en="Turn order"
            ).id
            b.fact(turn_order, "applies_in", tag, turn_order)
            paragraph = turn_order
            continue
        if turn_order is not None and line.startswith("- Equipe"):
            b.child(turn_order, "Step", seg, prefix="step", kind="turn-order-step")
            continue
        if turn_order is not None and line.startswith("*"):
            b.child(turn_order, "Passage", seg, kind="paragraph")
            continue
        turn_order = None
        if line.startswith("- "):
            owner = paragraph or section
            b.child(owner, "Passage", seg, prefix="item", kind="list-item")
            continue
        paragraph = b.child(section, "Passage", seg, kind="paragraph").id
    return b.build()


def _example(b: DocumentBuilder, section: str, paragraph: str | None, row: Segment) -> None:
    node = b.child(section, "Example", row, prefix="example", kind="table-row")
    if paragraph is not None:
        b.fact(node.id, "example_of", paragraph, node.id)

"""Parser of the Edison Format document: F&L lists, card pool and the 13 numbered rule differences.

Structure recognised (line by line):
- the F&L section with its three categories (Proibidos / Limitados / Semi-Limitados); this copy of
  the page lost the card lists themselves, so each category's "Os seguintes cards são …:" passage is
  marked `cards_missing` instead of inventing cards;
- the card-pool line (a link to the pool) under "Conjunto de Cards";
- `REGRA DO FORMATO EDISON # N - title` headings as Rule nodes with number and title;
- every `•` bullet as a passage of its rule; worked examples ("Exemplo N:" and bullets describing a
  game situation and its outcome) as Example nodes;
- rule 7's SEGOC steps ("Passo N:") and rule 8's Damage Step sub-steps ("Sub-etapa N - …") as
  ordered Step nodes; each sub-step's bullets say what may / may not be activated then.
"""

from __future__ import annotations

import re
from typing import Any

from ingest.builder import DocumentBuilder
from ingest.segment import Segment, lines
from kb.ids import format_id, numbered
from kb.model import Node, ParsedDocument, Span
from kb.reading.negation import FORBIDDING

_RULE = re.compile(r"^REGRA DO FORMATO EDISON # (\d+) - (.+)$")
_SUBSTEP = re.compile(r"^Sub-etapa (\d+) - (.+)$")
_STEP = re.compile(r"^• Passo (\d+):")
_EXAMPLE = re.compile(r"^• Exemplo (\d+)")
_BULLET = re.compile(r"^[•●]\s*")
_FL_CATEGORIES = {
    "Proibidos": ("forbidden", "Forbidden"),
    "Limitados": ("limited", "Limited"),
    "Semi-Limitados": ("semi-limited", "Semi-Limited"),
}
# Bullets that open like this describe a game situation and its outcome (a worked example).
_SITUATION = re.compile(
    r"^• (?:O Jogador|Você|Seu|Sua|Se |Um Monstro|Monstros de Armadilha|Um card|“|\")"
)
_FORBIDDEN = FORBIDDING
_ALLOWED = re.compile(r"\b(?:pode|podem|ativam|aplicam|ativar)\b", re.IGNORECASE)


def permission(text: str) -> str:
    """What a Damage Step statement says: 'forbidden', 'allowed' or 'happens' (a timing fact)."""
    if _FORBIDDEN.search(text):
        return "forbidden"
    if _ALLOWED.search(text) and re.search(r"\bpode", text, re.IGNORECASE):
        return "allowed"
    return "happens"


def _is_example(rule: int, seg: Segment) -> bool:
    if _EXAMPLE.match(seg.text):
        return True
    # Rule 3 bullets quote a card condition / list cards; rule 8 and 11 bullets state which classes
    # of effects may activate (statements, not situations).
    if rule in (3, 8, 11):
        return False
    return bool(_SITUATION.match(seg.text))


def parse_edison(document_id: str, text: str, title_pt: str, title_en: str) -> ParsedDocument:
    """Parse the Edison document into Document → Section/Rule → Passage/Example/Step nodes."""
    b = DocumentBuilder(document_id, text, title_pt, title_en)
    edison = format_id("edison")
    parent = document_id
    rule_no = 0
    substep: str | None = None
    for seg in lines(text):
        line = seg.text
        if seg.start == 0:
            b.add(_title(document_id, seg))
            continue
        rule = _RULE.match(line)
        if rule:
            rule_no = int(rule.group(1))
            substep = None
            parent = f"{document_id}/{numbered('rule', rule_no)}"
            b.add(
                Node(
                    id=parent,
                    type="Rule",
                    label_pt=rule.group(2).strip(),
                    text=line,
                    span=Span(document_id, seg.start, seg.end),
                    parent=document_id,
                    order=rule_no,
                    props={"number": rule_no, "title": rule.group(2).strip()},
                )
            )
            b.fact(parent, "applies_in", edison, parent)
            continue
        if line == "Lista de Proibidos e Limitados":
            parent = b.section(
                document_id, "fl", seg, label_pt=line, label_en="Forbidden & Limited"
            ).id
            continue
        if line in _FL_CATEGORIES and parent.startswith(f"{document_id}/fl"):
            slug, en = _FL_CATEGORIES[line]
            fl = f"{document_id}/fl"
            parent = b.section(fl, slug, seg, label_pt=line, label_en=en).id
            continue
        if line == "Conjunto de Cards":
            parent = b.section(
                document_id, "card-pool", seg, label_pt=line, label_en="Card pool"
            ).id
            continue
        if line.startswith("Diferenças nas Regras"):
            parent = b.section(
                document_id, "differences", seg, label_pt=line, label_en="Rule differences"
            ).id
            continue
        sub = _SUBSTEP.match(line)
        if sub and rule_no == 8:
            n = int(sub.group(1))
            rule_id = f"{document_id}/{numbered('rule', 8)}"
            substep = b.child(
                rule_id,
                "Step",
                seg,
                prefix="substep",
                number=n,
                label_pt=sub.group(2).strip(),
                kind="damage-substep",
                title=sub.group(2).strip(),
            ).id
            continue
        _add_line(b, document_id, parent, substep, rule_no, seg)
    return b.build()


def _title(document_id: str, seg: Segment) -> Node:
    return Node(
        id=f"{document_id}/title",
        type="Passage",
        text=seg.text,
        span=Span(document_id, seg.start, seg.end),
        parent=document_id,
        order=0,
        props={"kind": "title"},
    )


def _add_line(
    b: DocumentBuilder,
    document_id: str,
    parent: str,
    substep: str | None,
    rule_no: int,
    seg: Segment,
) -> None:
    line = seg.text
    is_bullet = bool(_BULLET.match(line))
    if substep is not None and not line.startswith("Cli"):
        b.child(substep, "Passage", seg, kind="bullet", permission=permission(line))
        return
    step = _STEP.match(line)
    if step and rule_no == 7:
        b.child(parent, "Step", seg, prefix="step", number=int(step.group(1)), kind="segoc-step")
        return
    if is_bullet and rule_no == 8:
        b.child(parent, "Passage", seg, kind="bullet", permission=permission(line))
        return
    if is_bullet and rule_no and _is_example(rule_no, seg):
        node = b.child(parent, "Example", seg, prefix="example", kind="example")
        b.fact(node.id, "example_of", parent, node.id)
        return
    kind = (
        "bullet"
        if is_bullet
        else "link"
        if "http" in line or line.startswith("Cli")
        else "paragraph"
    )
    props: dict[str, Any] = {"kind": kind}
    if line.startswith("Os seguintes cards são"):
        props["cards_missing"] = parent.split("/")[-1] != "card-pool"
    b.child(parent, "Passage", seg, **props)

"""Reading every rule sentence of a document into `Statement` nodes (kb/reading).

Each sentence of every leaf text node (passage, bullet, table row, example, step) is read with the
entities the linker finds in it (a pronoun or a left-out subject opening a sentence read as the
card or class the sentence before was about); each main clause becomes a Statement: the sentence's exact span,
authority `document`, the document's format, the section it belongs to, and the typed proposition
in its props. A sentence the reader cannot type stays a plain passage (searchable, citable) and
is counted as unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.corpus import SourceDocument
from kb.link import Linker
from kb.model import RETRIEVABLE_TYPES, Fact, Node, Span
from kb.reading import read_sentence
from kb.reading.order import Order, read_order
from kb.text import Segment, sentences, split_at

# A dash opening a new item inside a line ("… Rai-oh - Para negar …"): bullets run together.
_RUN_IN_BULLET = re.compile(r"\s[-–]\s?(?=[A-ZÁÉÍÓÚÂÊÔÃÕÇ])")


def _pieces(text: str, start: int, end: int) -> list[Segment]:
    """The sentences of text[start:end], run-in bullets cut apart (not a numbered label's
    title: "após a Sub-etapa 4 - Cálculo de Dano" names one thing)."""
    out: list[Segment] = []
    for seg in sentences(text, start, end):
        cuts = [
            seg.start + m.start()
            for m in _RUN_IN_BULLET.finditer(seg.text)
            if m.start() > 0 and not seg.text[: m.start()].rstrip()[-1:].isdigit()
        ]
        out += split_at(text, seg.start, seg.end, cuts) if cuts else [seg]
    return out


@dataclass(frozen=True)
class ReadStatements:
    nodes: list[Node]
    facts: list[Fact]
    read: int  # sentences read into at least one statement
    unread: int  # sentences left as plain passages


def _section(node: Node, by_id: dict[str, Node]) -> str | None:
    """The nearest Rule or Section above a node."""
    parent = node.parent
    while parent is not None:
        up = by_id.get(parent)
        if up is None:
            return None
        if up.type in ("Rule", "Section"):
            return up.id
        parent = up.parent
    return None


def read_statements(doc: SourceDocument, nodes: list[Node], linker: Linker) -> ReadStatements:
    """The Statement nodes of one document's leaf text nodes, each sentence read once."""
    by_id = {n.id: n for n in nodes}
    seen: set[tuple[int, int]] = set()
    out_nodes: list[Node] = []
    out_facts: list[Fact] = []
    read = unread = 0
    leaves = [
        n
        for n in nodes
        if n.type in RETRIEVABLE_TYPES and n.span is not None and n.span.document == doc.id
    ]
    antecedent: str | None = None  # what the last sentence read was about (its subject)
    last_section: str | None = None
    for node in sorted(leaves, key=lambda n: (n.span.start, n.span.end) if n.span else (0, 0)):
        assert node.span is not None
        section = _section(node, by_id)
        if section != last_section:
            antecedent, last_section = None, section
        frame: Order | None = None  # the last order of the passage placed before/after something
        for i, seg in enumerate(_pieces(doc.text, node.span.start, node.span.end)):
            if (seg.start, seg.end) in seen:
                continue
            seen.add((seg.start, seg.end))
            mentions = linker.link(seg.text)
            reading = read_sentence(seg.text, mentions, doc.language, antecedent)
            order = read_order(seg.text, mentions, doc.language)
            if order is not None and order.frame is not None:
                frame = order
            elif order is not None and frame is not None:
                # "Depois da damage calculation …. Primeiro …, de seguida …": the steps of the
                # sentence after a placed one are placed alike
                order = order.placed_like(frame)
            if not reading.propositions:
                unread += 1
                continue
            read += 1
            # "Os monstros Link … . Eles …" / "… Não possuem …": a pronoun or a left-out subject
            # opening the next sentence stands for a card or class; after a sentence about a
            # party it stays that party
            first = reading.propositions[0]
            antecedent = first.subject if first.actor is None else None
            for k, prop in enumerate(reading.propositions):
                sid = f"{node.id}/st-{i + 1:02d}" + (f"-{k + 1}" if k else "")
                props: dict[str, object] = {
                    **prop.to_props(),
                    "format": doc.format,
                    "language": reading.language,
                    "clause": [seg.start + prop.start, seg.start + prop.end],
                }
                if section is not None:
                    props["section"] = section
                if order is not None and k == 0:
                    props["order"] = order.to_props()
                out_nodes.append(
                    Node(
                        id=sid,
                        type="Statement",
                        text=seg.text,
                        span=Span(doc.id, seg.start, seg.end),
                        parent=node.id,
                        order=i * 10 + k,
                        props=props,
                    )
                )
                out_facts.append(Fact(sid, "part_of", node.id, node.id, "document"))
    return ReadStatements(out_nodes, out_facts, read, unread)

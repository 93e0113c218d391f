"""Extraction: entity mentions in every text node, and the typed facts the documents state.

Facts carry their source passage and authority "document". Extraction rules read the structure
the parsers recognised (which section a statement is in) and the statement's own words (polarity,
"como A, B ou C" lists), never a specific question or card. What only one document's structure
states (its summon lists, its numbered rule differences) is extracted by that document's own
refinement in `ingest.documents`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

from kb.link import Linker
from kb.model import TEXT_TYPES, Fact, Mention, Node, ParsedDocument

Extractor = Callable[[ParsedDocument, Linker], tuple[list[Node], list[Fact]]]


def mentions_of(node: Node, linker: Linker) -> list[Mention]:
    """Mentions in a text node, with offsets relative to the node's text."""
    return linker.link(node.text or "") if node.text else []


def extract(
    doc: ParsedDocument, linker: Linker, refine: Extractor | None = None
) -> tuple[list[Node], list[Fact]]:
    """Facts every document gets, whatever its parser: mentions, what each Rule/Section is
    `about`, the permissions its bullets state, the order of its Steps; then the facts of the
    document's own refinement (`refine`), when one is registered."""
    nodes: list[Node] = []
    facts: list[Fact] = []
    for node in doc.nodes:
        if node.type not in TEXT_TYPES or node.span is None or not node.text:
            continue
        found = mentions_of(node, linker)
        for m in found:
            facts.append(_mention_fact(node, m))
        if node.type in ("Rule", "Section"):
            facts += [Fact(node.id, "about", m.entity, node.id, "document") for m in found]
        if node.props.get("permission") in ("allowed", "forbidden") and node.parent:
            pred = "allows" if node.props["permission"] == "allowed" else "forbids"
            for m in found:
                if m.entity.startswith("concept/"):
                    facts.append(Fact(node.parent, pred, m.entity, node.id, "document"))
    facts += _ordering(doc.nodes)
    if refine is not None:
        extra_nodes, extra_facts = refine(doc, linker)
        nodes += extra_nodes
        facts += extra_facts
    return nodes, facts


def _mention_fact(node: Node, m: Mention) -> Fact:
    assert node.span is not None
    start = node.span.start + m.start
    return Fact(
        node.id,
        "mentions",
        m.entity,
        node.id,
        "document",
        {"start": start, "end": node.span.start + m.end, "matched": m.matched},
    )


def section_slug(node: Node, by_id: dict[str, Node]) -> str | None:
    """The slug of the innermost Section containing a node (walking part_of)."""
    parent = node.parent
    while parent is not None:
        p = by_id.get(parent)
        if p is None:
            return None
        if p.type == "Section":
            return p.id.rsplit("/", 1)[-1]
        parent = p.parent
    return None


def _ordering(nodes: Iterable[Node]) -> list[Fact]:
    """`precedes` between consecutive ordered Steps of the same parent (SEGOC, sub-steps, turns)."""
    steps: dict[str, list[Node]] = {}
    for n in nodes:
        if n.type == "Step" and n.parent is not None:
            steps.setdefault(n.parent, []).append(n)
    out = []
    for group in steps.values():
        group.sort(key=lambda n: n.order or 0)
        out += [
            Fact(a.id, "precedes", b.id, b.id, "document") for a, b in itertools.pairwise(group)
        ]
    return out


def dedupe(facts: list[Fact]) -> list[Fact]:
    seen: set[tuple[str, str, str, str | None]] = set()
    out = []
    for f in facts:
        key = (f.subject, f.predicate, f.object, f.source)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out

"""Accumulates one document's nodes and structural facts while a parser walks its text."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ingest.segment import Segment
from kb.ids import numbered
from kb.model import Fact, Node, NodeType, ParsedDocument, Span


class DocumentBuilder:
    """Creates nodes with spans into `text`, numbering children per parent in document order."""

    def __init__(self, document_id: str, text: str, title_pt: str, title_en: str) -> None:
        self.document_id = document_id
        self.text = text
        self._nodes: dict[str, Node] = {}
        self._facts: list[Fact] = []
        self._counters: dict[tuple[str, str], int] = defaultdict(int)
        self.add(
            Node(
                id=document_id,
                type="Document",
                label_pt=title_pt,
                label_en=title_en,
                span=Span(document_id, 0, len(text)),
                props={"length": len(text)},
            )
        )

    def add(self, node: Node) -> Node:
        """Register a node (ids must be unique) and its `part_of` edge to its parent."""
        if node.id in self._nodes:
            raise ValueError(f"duplicate id {node.id!r} in document {self.document_id!r}")
        if node.span is not None:
            sliced = self.text[node.span.start : node.span.end]
            if node.text is not None and sliced != node.text:
                raise ValueError(f"span of {node.id!r} does not match its text")
        self._nodes[node.id] = node
        if node.parent is not None:
            self._facts.append(Fact(node.id, "part_of", node.parent, node.id, "document"))
        return node

    def child(
        self,
        parent: str,
        type_: NodeType,
        seg: Segment,
        *,
        prefix: str = "p",
        number: int | None = None,
        label_pt: str | None = None,
        **props: Any,
    ) -> Node:
        """A text node under `parent`: id `parent/prefix-NN` (auto-numbered unless given)."""
        if number is None:
            self._counters[(parent, prefix)] += 1
            number = self._counters[(parent, prefix)]
        node = Node(
            id=f"{parent}/{numbered(prefix, number)}",
            type=type_,
            label_pt=label_pt,
            text=seg.text,
            span=Span(self.document_id, seg.start, seg.end),
            parent=parent,
            order=number,
            props=props,
        )
        return self.add(node)

    def section(
        self, parent: str, slug: str, seg: Segment, *, label_pt: str, label_en: str | None = None
    ) -> Node:
        """A named section `parent/slug` whose span is its heading."""
        return self.add(
            Node(
                id=f"{parent}/{slug}",
                type="Section",
                label_pt=label_pt,
                label_en=label_en,
                text=seg.text,
                span=Span(self.document_id, seg.start, seg.end),
                parent=parent,
            )
        )

    def fact(self, subject: str, predicate: str, obj: str, source: str, **props: Any) -> None:
        self._facts.append(Fact(subject, predicate, obj, source, "document", props))

    def has(self, node_id: str) -> bool:
        return node_id in self._nodes

    def build(self) -> ParsedDocument:
        return ParsedDocument(
            self.document_id, self.text, tuple(self._nodes.values()), tuple(self._facts)
        )

"""The knowledge graph: a networkx MultiDiGraph of typed nodes and typed, sourced fact edges."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kb.model import RETRIEVABLE_TYPES, Fact, Node, Span

if TYPE_CHECKING:
    import networkx as nx


class KnowledgeGraph:
    """Read-mostly wrapper over nx.MultiDiGraph: node records by id and edges keyed by predicate."""

    def __init__(self, nodes: Iterable[Node], facts: Iterable[Fact]) -> None:
        self._nodes: dict[str, Node] = {n.id: n for n in nodes}
        self._facts: list[Fact] = list(facts)
        # Adjacency as networkx keeps it (neighbours in first-seen order, then edge keys), built
        # with plain dicts: a MultiDiGraph of every card's facts took ~1 s of server start.
        self._out: dict[str, dict[str, list[int]]] = {}
        self._in: dict[str, dict[str, list[int]]] = {}
        for k, f in enumerate(self._facts):
            self._out.setdefault(f.subject, {}).setdefault(f.object, []).append(k)
            self._in.setdefault(f.object, {}).setdefault(f.subject, []).append(k)
        self._by_predicate: dict[str, list[Fact]] | None = None
        self._children: dict[str, list[str]] = {}
        for n in self._nodes.values():
            if n.parent is not None:
                self._children.setdefault(n.parent, []).append(n.id)

    @cached_property
    def g(self) -> nx.MultiDiGraph:
        """The graph as a networkx MultiDiGraph (typed nodes, edges keyed by fact index with
        their predicate), built on first use for graph algorithms and exports."""
        import networkx as nx

        g: nx.MultiDiGraph = nx.MultiDiGraph()
        for n in self._nodes.values():
            g.add_node(n.id, type=n.type)
        for k, f in enumerate(self._facts):
            g.add_edge(f.subject, f.object, key=k, predicate=f.predicate)
        return g

    # --- nodes -----------------------------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def node(self, node_id: str) -> Node:
        return self._nodes[node_id]

    def get(self, node_id: str) -> Node | None:
        return self._nodes.get(node_id)

    @property
    def nodes(self) -> list[Node]:
        return list(self._nodes.values())

    def of_type(self, *types: str) -> list[Node]:
        return [n for n in self._nodes.values() if n.type in types]

    def retrievable(self) -> list[Node]:
        """The text units search indexes and answers cite (passages, examples, steps)."""
        return [n for n in self._nodes.values() if n.type in RETRIEVABLE_TYPES and n.text]

    def children(self, node_id: str) -> list[str]:
        return self._children.get(node_id, [])

    def ancestors(self, node_id: str) -> list[str]:
        """Parents up to the document, nearest first."""
        out = []
        parent = self._nodes[node_id].parent
        while parent is not None:
            out.append(parent)
            parent = self._nodes[parent].parent
        return out

    def section_of(self, node_id: str) -> Node | None:
        """The nearest Rule or Section above a node (what it is 'about')."""
        for a in self.ancestors(node_id):
            if self._nodes[a].type in ("Rule", "Section"):
                return self._nodes[a]
        return None

    def document_of(self, node_id: str) -> str | None:
        n = self._nodes[node_id]
        return n.span.document if n.span else None

    def format_of(self, node_id: str) -> str | None:
        """The format (id without `format/`) a node applies in: its own or its nearest
        ancestor's `applies_in`, else its document's."""
        for nid in (node_id, *self.ancestors(node_id)):
            for f in self.out(nid, "applies_in"):
                return f.object.removeprefix("format/")
        doc = self.document_of(node_id)
        if doc is not None and doc in self._nodes and doc != node_id:
            return self.format_of(doc)
        return None

    def rules_about(self, concept: str, fmt: str | None = None) -> list[Node]:
        """Rules and Sections `about` a concept that apply in `fmt` (any format when None), in
        document order; Rules before Sections."""
        ids = dict.fromkeys(
            f.subject
            for f in self.into(concept, "about")
            if f.subject in self._nodes and self._nodes[f.subject].type in ("Rule", "Section")
        )
        found = [self._nodes[i] for i in ids]
        if fmt is not None:
            found = [n for n in found if self.format_of(n.id) == fmt]
        return sorted(
            found,
            key=lambda n: (
                n.type != "Rule",
                n.span.document if n.span else "",
                n.span.start if n.span else 0,
            ),
        )

    def with_predicate(self, predicate: str) -> list[Fact]:
        """Every fact of one predicate."""
        if self._by_predicate is None:
            index: dict[str, list[Fact]] = {}
            for f in self._facts:
                index.setdefault(f.predicate, []).append(f)
            self._by_predicate = index
        return self._by_predicate.get(predicate, [])

    # --- facts -----------------------------------------------------------------------------
    @property
    def facts(self) -> list[Fact]:
        return list(self._facts)

    def out(self, node_id: str, predicate: str | None = None) -> list[Fact]:
        return self._adjacent(self._out.get(node_id), predicate)

    def into(self, node_id: str, predicate: str | None = None) -> list[Fact]:
        return self._adjacent(self._in.get(node_id), predicate)

    def _adjacent(self, by_node: dict[str, list[int]] | None, predicate: str | None) -> list[Fact]:
        if not by_node:
            return []
        facts = (self._facts[k] for keys in by_node.values() for k in keys)
        return [f for f in facts if predicate is None or f.predicate == predicate]

    # --- summaries -------------------------------------------------------------------------
    def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        nodes = Counter(n.type for n in self._nodes.values())
        edges = Counter(f.predicate for f in self._facts)
        return dict(sorted(nodes.items())), dict(sorted(edges.items()))

    def iter_records(self) -> Iterator[dict[str, Any]]:
        for n in self._nodes.values():
            yield node_record(n)


def node_record(n: Node) -> dict[str, Any]:
    """A node as plain JSON-able data (its props shared with the node, not copied: read them)."""
    span = n.span
    return {
        "id": n.id,
        "type": n.type,
        "label_pt": n.label_pt,
        "label_en": n.label_en,
        "text": n.text,
        "span": None
        if span is None
        else {"document": span.document, "start": span.start, "end": span.end},
        "parent": n.parent,
        "order": n.order,
        "props": n.props,
    }


def node_from_record(data: dict[str, Any]) -> Node:
    span = data.get("span")
    return Node(
        id=data["id"],
        type=data["type"],
        label_pt=data.get("label_pt"),
        label_en=data.get("label_en"),
        text=data.get("text"),
        span=Span(**span) if span else None,
        parent=data.get("parent"),
        order=data.get("order"),
        props=data.get("props") or {},
    )


def fact_record(f: Fact) -> dict[str, Any]:
    """A fact as plain JSON-able data (its props shared with the fact, not copied: read them)."""
    return {
        "subject": f.subject,
        "predicate": f.predicate,
        "object": f.object,
        "source": f.source,
        "authority": f.authority,
        "props": f.props,
    }


def fact_from_record(data: dict[str, Any]) -> Fact:
    return Fact(
        data["subject"],
        data["predicate"],
        data["object"],
        data.get("source"),
        data["authority"],
        data.get("props") or {},
    )

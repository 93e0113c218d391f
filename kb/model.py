"""The knowledge base's data model: frozen records shared by ingest, graph, search and answers."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Literal, TypeVar

_Record = TypeVar("_Record", bound=type)


def pickled_by_fields(cls: _Record) -> _Record:
    """Pickle instances as a call of the class with their fields in order. A frozen dataclass
    with slots is otherwise restored by a ``__setstate__`` that looks its fields up again for
    every object: twice as slow, which a snapshot of ~100k nodes and facts pays on every start."""
    values = attrgetter(*(f.name for f in fields(cls)))

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[assignment]
    return cls


NodeType = Literal[
    "Document",
    "Section",
    "Rule",
    "Passage",
    "Example",
    "Step",
    "Card",
    "Concept",
    "Format",
    "Claim",
    "Statement",
]
NODE_TYPES: tuple[NodeType, ...] = (
    "Document",
    "Section",
    "Rule",
    "Passage",
    "Example",
    "Step",
    "Card",
    "Concept",
    "Format",
    "Claim",
    "Statement",
)
# Node types that carry a span of source text and can be retrieved and cited.
TEXT_TYPES: frozenset[str] = frozenset({"Passage", "Example", "Step", "Rule", "Section"})
RETRIEVABLE_TYPES: frozenset[str] = frozenset({"Passage", "Example", "Step"})

Authority = Literal["document", "curated", "inferred"]
AUTHORITY_RANK: dict[str, int] = {"document": 3, "curated": 2, "inferred": 1}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range [start, end) into one corpus document."""

    document: str
    start: int
    end: int


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Node:
    """A graph node. Text-bearing nodes carry the exact source span they were parsed from."""

    id: str
    type: NodeType
    label_pt: str | None = None
    label_en: str | None = None
    text: str | None = None
    span: Span | None = None
    parent: str | None = None
    order: int | None = None
    props: dict[str, Any] = field(default_factory=dict)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Fact:
    """A typed edge. `source` is the id of the passage that states it (None only for structure)."""

    subject: str
    predicate: str
    object: str
    source: str | None
    authority: Authority
    props: dict[str, Any] = field(default_factory=dict)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Mention:
    """An entity found in a text: which node, where (offsets into that text) and how matched."""

    entity: str
    start: int
    end: int
    matched: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """Everything one document parses into: its nodes (document first) and structural facts."""

    document_id: str
    text: str
    nodes: tuple[Node, ...]
    facts: tuple[Fact, ...]

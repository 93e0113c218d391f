"""What the documents state about a subject: the `Statement` nodes about a concept, card or format.

Every rule sentence was read at ingest into Statements (ingest/statements.py): the sentence's exact
span, its format, the Rule or Section holding it and its typed proposition, whose `roles` name the
entities it speaks of (actor, object, target …) and whose `conditions` name those of its "when"
and "if" clauses. A Statement is about a subject (any Concept, Card or Format node) when

- one of its roles names the subject or a narrower concept (`X broader subject`, followed down):
  `role`;
- else one of its conditions does: `condition`;
- else it sits inside a Rule or Section `about` the subject (`KnowledgeGraph.rules_about`): such a
  rule's sentences may speak of its subject without naming it ("it", a bullet): `section`.

Results come in that order; in each group those naming the subject itself come before those naming
a narrower concept, then document order. A format keeps the statements of that
format's documents only: the base format's statements (today's rules) hold in the others unless
they differ, which is for a reasoner to decide, not a filter. Nothing here reads raw text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from pydantic import Field
from rapidfuzz import process

from kb.errors import InvalidQuery, NotFound
from kb.graph import KnowledgeGraph
from kb.model import Mention, Node, NodeType, Span
from kb.presentation.quiz_sources import Sources
from kb.schemas import Closed, SourceSpan

Via = Literal["role", "condition", "section"]
VIA_ORDER: dict[str, int] = {"role": 0, "condition": 1, "section": 2}
SUBJECT_TYPES = frozenset({"Concept", "Card", "Format"})


# --- the result ---------------------------------------------------------------------------------


class SubjectRef(Closed):
    id: str = Field(description="The node id (concept/…, card/…, format/…).")
    type: NodeType = Field(description="Concept, Card or Format.")
    label_pt: str | None
    label_en: str | None
    narrower: list[str] = Field(description="Narrower concepts whose statements count too.")


class RoleView(Closed):
    entity: str = Field(description="The entity the statement names.")
    role: str = Field(description="Its role in the statement (subject, object, target …).")


class Clause(Closed):
    """The main clause the proposition was read from, inside the sentence."""

    start: int = Field(ge=0, description="Character offset into the document's exact text.")
    end: int = Field(ge=0, description="Exclusive offset into the document's exact text.")
    text: str = Field(description="The exact slice of the document.")


class StatementView(Closed):
    """One Statement: the sentence it was read from (its citation) and what was read."""

    id: str = Field(description="The Statement's node id.")
    passage: str | None = Field(description="The passage, example or step holding the sentence.")
    format: str | None = Field(description="The format of its document.")
    modality: str = Field(description="fact, can, must …: what the sentence asserts.")
    negative: bool = Field(description='The sentence denies it ("não pode").')
    roles: list[RoleView] = Field(description="The entities it speaks of and how.")
    via: Via = Field(description="Why it is about the subject (see matched).")
    matched: str = Field(description="The entity named (role, condition) or the Rule (section).")
    citation: SourceSpan = Field(description="The sentence: text == document[start:end].")
    clause: Clause


class RulesAbout(Closed):
    """`RulingsService.rules_about` (the MCP tool `rules_about`)."""

    subject: SubjectRef
    format: str | None = Field(description="The format filter; null for every format.")
    total: int = Field(ge=0, description="Statements found (before the limit k).")
    statements: list[StatementView] = Field(description="role, condition, section; doc order.")


# --- the subject --------------------------------------------------------------------------------


def subject_of(kg: KnowledgeGraph, text: str, mentions: Sequence[Mention]) -> Node:
    """The subject a text names: a node id of a Concept, Card or Format, else the entity the
    text's longest, best mention links to (Concepts before Cards before Formats)."""
    key = text.strip()
    node = kg.get(key)
    if node is not None:
        if node.type not in SUBJECT_TYPES:
            raise InvalidQuery(
                "subject", f"{key!r} is a {node.type}, not a concept, card or format"
            )
        return node
    preference = {"Concept": 0, "Card": 1, "Format": 2}
    found = [(m, kg.get(m.entity)) for m in mentions]
    ranked = sorted(
        ((m, n) for m, n in found if n is not None and n.type in SUBJECT_TYPES),
        key=lambda p: (-(p[0].end - p[0].start), -p[0].score, preference[p[1].type]),
    )
    if ranked:
        return ranked[0][1]
    concepts = [n.id for n in kg.of_type("Concept")]
    close = [m[0] for m in process.extract(key, concepts, limit=5, score_cutoff=50)]
    raise NotFound("subject", key, close)


def narrower(kg: KnowledgeGraph, concept: str) -> list[str]:
    """Every concept below `concept` through `broader` facts, nearest first."""
    seen: dict[str, None] = {}
    frontier = [concept]
    while frontier:
        below = [f.subject for c in frontier for f in kg.into(c, "broader")]
        frontier = [c for c in below if c != concept and c not in seen]
        seen.update(dict.fromkeys(frontier))
    return list(seen)


# --- the statements -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    node: Node
    via: Via
    matched: str


def statements_about(
    kg: KnowledgeGraph, subject: str, names: Iterable[str], fmt: str | None
) -> list[Found]:
    """The Statements about `subject` (or one of `names`, its narrower concepts) of format `fmt`
    (every format when None): role matches first, then conditions, then sections; in each, those
    naming the subject itself before those naming a narrower concept, then document order."""
    entities = {subject, *names}
    sections = {n.id for n in kg.rules_about(subject, fmt)}
    found: list[Found] = []
    for node in kg.of_type("Statement"):
        if fmt is not None and node.props.get("format") != fmt:
            continue
        hit = _match(kg, node, entities, sections)
        if hit is not None:
            found.append(hit)
    return sorted(found, key=lambda f: _order(f, subject))


def _match(kg: KnowledgeGraph, node: Node, entities: set[str], sections: set[str]) -> Found | None:
    for entity, _role in node.props.get("roles", []):
        if entity in entities:
            return Found(node, "role", entity)
    for condition in node.props.get("conditions", []):
        for entity in condition.get("entities", []):
            if entity in entities:
                return Found(node, "condition", entity)
    for ancestor in kg.ancestors(node.id):
        if ancestor in sections:
            return Found(node, "section", ancestor)
    return None


def _order(found: Found, subject: str) -> tuple[int, bool, str, int]:
    span = found.node.span
    narrower = found.via != "section" and found.matched != subject
    return (VIA_ORDER[found.via], narrower, *_position(span))


def _position(span: Span | None) -> tuple[str, int]:
    return (span.document, span.start) if span else ("", 0)


def statement_view(sources: Sources, found: Found) -> StatementView:
    """A found Statement with its sentence and clause quoted from the document's exact text."""
    node = found.node
    citation = sources.citation(node)  # every Statement is read from a span of its document
    start, end = node.props.get("clause", [citation.start, citation.end])
    return StatementView(
        id=node.id,
        passage=node.parent,
        format=node.props.get("format"),
        modality=str(node.props.get("modality", "fact")),
        negative=bool(node.props.get("negative", False)),
        roles=[RoleView(entity=e, role=r) for e, r in node.props.get("roles", [])],
        via=found.via,
        matched=found.matched,
        citation=SourceSpan(**asdict(citation)),
        clause=Clause(start=start, end=end, text=sources.documents[citation.document][start:end]),
    )


def rules_about(
    kg: KnowledgeGraph,
    documents: dict[str, str],
    subject: Node,
    fmt: str | None,
    k: int,
) -> RulesAbout:
    """The first `k` Statements about `subject` in `fmt`, with the subject and the total."""
    below = narrower(kg, subject.id) if subject.type == "Concept" else []
    found = statements_about(kg, subject.id, below, fmt)
    sources = Sources(kg, documents, {})
    return RulesAbout(
        subject=SubjectRef(
            id=subject.id,
            type=subject.type,
            label_pt=subject.label_pt,
            label_en=subject.label_en,
            narrower=below,
        ),
        format=fmt,
        total=len(found),
        statements=[statement_view(sources, f) for f in found[:k]],
    )

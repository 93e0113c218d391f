"""The ingest pipeline: corpus directory → nodes and facts of the whole knowledge base."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ingest.candidates import Candidate, candidates
from ingest.card_table import card_graph, read_card_table
from ingest.claims import load_claims
from ingest.corpus import SourceDocument, corpus_hash, load_manifest
from ingest.curated import load_cards, load_glossary
from ingest.documents import REFINEMENTS, Parser, Refinement
from ingest.extract import extract
from ingest.statements import ReadStatements, read_statements
from kb.cards.names import common_words
from kb.errors import IngestError
from kb.formats import Formats
from kb.ids import format_id
from kb.link import Entry, Linker
from kb.model import TEXT_TYPES, Fact, Node
from kb.reading.lexicon import with_predicate_names
from kb.reading.relations import derive


@dataclass
class Corpus:
    """Everything a build produces before it becomes a graph."""

    documents: list[SourceDocument]
    formats: Formats
    nodes: list[Node]
    facts: list[Fact]
    corpus_hash: str
    unlinked: list[Candidate] = field(default_factory=list)


def ingest_corpus(corpus_dir: Path) -> Corpus:
    """Parse, link and extract the whole corpus; raises IngestError naming any bad input."""
    manifest = load_manifest(corpus_dir)
    docs, formats = manifest.documents, manifest.formats
    cards = load_cards(corpus_dir / "cards.yaml")
    glossary = load_glossary(corpus_dir / "glossary.yaml")
    _, records = read_card_table(corpus_dir)
    curated_cards, db_cards, db_facts, db_entries = card_graph(
        records, list(cards.nodes), {n.id for n in glossary.nodes}
    )
    core = [*cards.entries, *with_predicate_names(glossary.entries), *formats.entries()]
    common = common_words(_rule_words(core), (d.text for d in docs))
    linker = Linker(core, many=db_entries, common_words=common)
    nodes: list[Node] = [*formats.nodes(), *glossary.nodes, *curated_cards, *db_cards]
    facts: list[Fact] = [*glossary.facts, *cards.facts, *db_facts]
    unlinked: list[Candidate] = []
    for doc in docs:
        refinement = _refinement(doc, corpus_dir)
        parse = refinement.parse or _default_parser()
        parsed = parse(doc.id, doc.text, doc.title_pt, doc.title_en)
        extra_nodes, extra_facts = extract(parsed, linker, refinement.extract)
        doc_nodes = [*parsed.nodes, *extra_nodes]
        statements = read_statements(doc, doc_nodes, linker)
        doc_nodes = [_with_reading_counts(n, doc.id, statements) for n in doc_nodes]
        nodes += [*doc_nodes, *statements.nodes]
        facts += [*parsed.facts, *extra_facts, *statements.facts]
        if refinement.extract is None:  # a bespoke extractor states its document's facts
            facts += derive(statements.nodes, glossary.facts, facts)
        facts.append(Fact(doc.id, "applies_in", format_id(doc.format), doc.id, "document"))
        unlinked += _unlinked(doc_nodes, linker)
    facts += _inferred(nodes, facts)
    claim_nodes, claim_facts = load_claims(corpus_dir / "claims", docs, nodes, linker, formats.ids)
    nodes += claim_nodes
    facts += claim_facts
    _check_unique(nodes, corpus_dir)
    _check_references(nodes, facts, corpus_dir)
    return Corpus(docs, formats, nodes, facts, corpus_hash(corpus_dir), unlinked)


def _with_reading_counts(node: Node, doc_id: str, read: ReadStatements) -> Node:
    """The document node records how many of its sentences became statements."""
    if node.type != "Document" or node.id != doc_id:
        return node
    props = {**node.props, "statements_read": read.read, "statements_unread": read.unread}
    return Node(
        node.id,
        node.type,
        node.label_pt,
        node.label_en,
        node.text,
        node.span,
        node.parent,
        node.order,
        props,
    )


def _rule_words(entries: list[Entry]) -> list[str]:
    """The names of concepts and formats: words a card name made of them needs quotes for."""
    return [s for e in entries if e.type != "Card" for s in e.surfaces]


def _default_parser() -> Parser:
    from ingest.default_parser import parse_document

    return parse_document


def _refinement(doc: SourceDocument, corpus_dir: Path) -> Refinement:
    """The document's registered refinement (its manifest `parser`), or none: the default."""
    if doc.parser is None:
        return Refinement()
    found = REFINEMENTS.get(doc.parser)
    if found is None:
        raise IngestError(
            str(corpus_dir / "manifest.yaml"),
            f"document {doc.id!r}: unknown parser {doc.parser!r} (field parser; registered: "
            f"{', '.join(sorted(REFINEMENTS))}; leave it out for the default parser)",
        )
    return found


def _unlinked(nodes: list[Node], linker: Linker) -> list[Candidate]:
    out = []
    for node in nodes:
        if node.type not in TEXT_TYPES or node.props.get("kind") == "entry":
            continue
        cands = candidates(node)
        if not cands:
            continue
        assert node.span is not None
        found = linker.link(node.text or "")
        spans = [(node.span.start + m.start, node.span.start + m.end, m.entity) for m in found]
        for c in cands:
            hits = [e for a, b, e in spans if a < c.end and c.start < b]
            if any(e.startswith("card/") for e in hits):
                continue
            covered = any(a <= c.start and c.end <= b for a, b, _ in spans)
            if not covered:
                out.append(c)
    return out


def _inferred(nodes: list[Node], facts: list[Fact]) -> list[Fact]:
    """Spell speed of each card from its classes (a card is as fast as its class says)."""
    speed_of = {
        f.subject: f.object
        for f in facts
        if f.predicate == "has_spell_speed" and f.subject.startswith("concept/")
    }
    out = []
    for f in facts:
        if f.predicate == "instance_of" and f.subject.startswith("card/") and f.object in speed_of:
            out.append(
                Fact(
                    f.subject,
                    "has_spell_speed",
                    speed_of[f.object],
                    None,
                    "inferred",
                    {"via": f.object},
                )
            )
    del nodes
    return out


def _check_unique(nodes: list[Node], corpus_dir: Path) -> None:
    seen: set[str] = set()
    for n in nodes:
        if n.id in seen:
            raise IngestError(str(corpus_dir), f"duplicate id {n.id!r}")
        seen.add(n.id)


def _check_references(nodes: list[Node], facts: list[Fact], corpus_dir: Path) -> None:
    known = {n.id for n in nodes}
    for f in facts:
        for end in (f.subject, f.object):
            if end not in known:
                where = f.props.get("file", "corpus")
                raise IngestError(
                    str(corpus_dir / str(where)),
                    f"fact {f.predicate} refers to unknown {end!r}",
                    f.props.get("line"),
                )

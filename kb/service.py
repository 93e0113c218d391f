"""The service facade: one method per CLI command and HTTP route, returning plain JSON data."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from kb.answering.cache import AnswerCache, answer_key
from kb.config import Settings
from kb.errors import (
    ArtifactError,
    InvalidQuery,
    NotFound,
    empty,
    out_of_range,
    too_long,
    unknown_value,
)
from kb.formats import Formats
from kb.graph import fact_record, node_record
from kb.model import RETRIEVABLE_TYPES, Fact, Node
from kb.store import Artifact, file_digest

if TYPE_CHECKING:
    from kb.answering.answer import Answerer
    from kb.cards.service import CardService
    from kb.link import Linker
    from kb.linked_data.rdf import Triple
    from kb.linked_data.sparql import SparqlBackend
    from kb.presentation.quiz import QuestionBank
    from kb.search.embedding import Embedder
    from kb.search.index import SearchIndex
    from kb.snapshot import Snapshot
    from kb.training.service import TrainingService

T = TypeVar("T")


class built_part(Generic[T]):
    """A part of the service built on first use and kept (as ``cached_property``), read from the
    service's snapshot instead when it holds that part (kb.snapshot), built by the method when
    it does not or the part does not read back."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> built_part[T]: ...
    @overload
    def __get__(self, instance: object, owner: type) -> T: ...
    def __get__(self, instance: object | None, owner: type) -> built_part[T] | T:
        if instance is None:
            return self
        found: Snapshot | None = instance.__dict__.get("_snapshot")
        value = found.part(self.name) if found is not None else None
        if value is None:
            value = self.build(instance)
        instance.__dict__[self.name] = value  # the instance's attribute from now on
        return value


class RulingsService:
    """Read-only queries over one loaded artifact.

    The parts a query needs are built on first use, so a command loads only what it asks for
    (`cards search` builds the card index, never the linker, the search index or the reasoners);
    a server calls `warm()` to build them all before it serves (and before it forks workers)."""

    def __init__(
        self,
        artifact: Artifact,
        settings: Settings,
        embedder: Embedder | None = None,
        vectors: Any = None,
        clause_vectors: Any = None,
        claim_vectors: Any = None,
    ) -> None:
        self.artifact = artifact
        self.settings = settings
        self.kg = artifact.graph
        self.formats = Formats.of_nodes(self.kg.of_type("Format"))
        self._embedder = embedder
        self._vectors = (vectors, clause_vectors, claim_vectors)
        self._exports: dict[str, tuple[int, int, int]] = {}  # format → file last verified
        self._export_lock = threading.Lock()
        self._sparql_lock = threading.Lock()
        self._sparql: SparqlBackend | None = None
        sources = artifact.manifest.get("sources", {})
        self.doc_formats = {doc: meta["format"] for doc, meta in sources.items()}
        self.answers = AnswerCache(settings.answer_cache)

    @property
    def embedder(self) -> Embedder | None:
        return self._embedder

    @property
    def vectors(self) -> tuple[Any, Any, Any]:
        """The passages', clauses' and claims' vectors (rows in the search index's order)."""
        return self._vectors

    # The parts built on first use that a snapshot (kb.snapshot) holds.
    PARTS = ("linker", "index", "answerer", "card_service", "question_bank")

    def built_parts(self) -> dict[str, Any]:
        """The parts built so far, by name."""
        return {name: self.__dict__[name] for name in self.PARTS if name in self.__dict__}

    def restore(self, found: Snapshot) -> None:
        """Read the parts from `found`, a snapshot of a service over the same build with the same
        embedder and settings (kb.snapshot), on their first use instead of building them."""
        self.__dict__["_snapshot"] = found

    def warm(self, everything: bool = False) -> None:
        """Build now what the queries build on first use: the linker, the search index and the
        answerer (the reasoners); with `everything` also the card index and the question bank,
        which a server that forks workers builds once, before the fork, so that the workers share
        them instead of each building its own on its first card or quiz request."""
        _ = self.answerer
        _ = self._reasoner_status
        if everything:
            _ = self.card_service
            _ = self.question_bank

    @built_part
    def linker(self) -> Linker:
        """The entity linker over the graph's cards, concepts and formats."""
        from kb.reading.lexicon import linker_for

        return linker_for(
            self.kg,
            self.formats,
            self.artifact.documents.values(),
            self.artifact.manifest.get("everyday_words"),
        )

    @built_part
    def index(self) -> SearchIndex:
        """Hybrid retrieval over the passages (dense with the embedder given, BM25, graph)."""
        from kb.search.index import SearchIndex

        vectors, clause_vectors, claim_vectors = self._vectors
        s = self.settings
        return SearchIndex(
            self.kg,
            self.linker,
            self._embedder,
            vectors,
            clause_vectors,
            self.doc_formats,
            {"dense": s.weight_dense, "lexical": s.weight_lexical, "graph": s.weight_graph},
            s.rrf_k,
            claim_vectors,
        )

    @built_part
    def answerer(self) -> Answerer:
        """Reads questions and runs the reasoners over the graph and the search index."""
        from kb.answering.answer import Answerer
        from kb.answering.claims import ClaimSettings
        from kb.reason.order import OrderSettings
        from kb.reason.statement_match import StatementSettings

        s = self.settings
        return Answerer(
            self.kg,
            self.index,
            self.artifact.documents,
            self.formats,
            StatementSettings(
                min_score=s.statement_min_score,
                lexical_weight=s.statement_lexical_weight,
                context_weight=s.statement_context_weight,
                tie_margin=s.statement_tie_margin,
                other_format_penalty=s.statement_other_format_penalty,
                amount_margin=s.statement_amount_margin,
                override_margin=s.statement_override_margin,
                exclusive_min=s.statement_exclusive_min,
                singling_share=s.statement_singling_share,
            ),
            ClaimSettings(
                min_score=s.claim_min_score,
                same_topic=s.claim_same_topic,
                format_margin=s.claim_format_margin,
                general_penalty=s.claim_general_penalty,
                other_format_penalty=s.claim_other_format_penalty,
                card_bonus=s.claim_card_bonus,
                asked_weight=s.claim_asked_weight,
                other_case=s.claim_other_case,
                class_penalty=s.claim_class_penalty,
            ),
            suggest=self._suggest,
            order_settings=OrderSettings(min_fit=s.order_min_fit, tie_margin=s.order_tie_margin),
        )

    # --- ask -----------------------------------------------------------------------------
    def ask(self, question: str, format: str | None = None, k: int = 5) -> dict[str, Any]:
        """A verdict, the reasoning path and exact citations for a ruling question (a question
        asked before, with the same format and k, is answered from the bounded answer cache)."""
        text = check_text("question", question, self.settings.max_query_chars)
        fmt = check_format(format, self.formats)
        k = check_k(k, self.settings.max_k)
        key = answer_key(text, fmt, k, self.artifact.manifest.get("build_id"))
        cached = self.answers.get(key)
        if cached is not None:
            return cached
        answer = self.answerer.answer(text, fmt, k)
        self.answers.put(key, answer)
        return answer

    def _suggest(self, question: str, taken: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """The Answerer's "did you mean": cards the question's name-like spans outside `taken`
        (the linked cards and formats) may mean, found by card search at `suggest_min_score` or
        more (kb.answering.suggest); none when the setting is above 1."""
        limit = self.settings.suggest_min_score
        if limit > 1:
            return []
        from kb.answering.suggest import suggest_cards

        found = suggest_cards(question, taken, self.card_service.index, limit)
        return [
            {
                "span": [s.start, s.end],
                "text": s.text,
                "id": s.card,
                "name_en": s.name_en,
                "name_pt": s.name_pt,
                "score": s.score,
            }
            for s in found
        ]

    # --- search --------------------------------------------------------------------------
    def search(
        self, q: str, k: int = 10, format: str | None = None, type: str | None = None
    ) -> dict[str, Any]:
        """Hybrid search over passages, examples and steps."""
        from kb.search.index import SearchOptions, hit_json

        text = check_text("q", q, self.settings.max_query_chars)
        k = check_k(k, self.settings.max_k)
        fmt = check_format(format, self.formats)
        types = check_types(type)
        hits = self.index.search(text, SearchOptions(k=k, format=fmt, types=types))
        return {"query": text, "format": fmt, "hits": [hit_json(h) for h in hits]}

    # --- stats ---------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        nodes, edges = self.kg.counts()
        cards = self.kg.of_type("Card")
        unlinked = self.artifact.manifest.get("unlinked", [])
        rules_by_doc: dict[str, int] = {}
        for r in self.kg.of_type("Rule"):
            doc = r.span.document if r.span else "?"
            rules_by_doc[doc] = rules_by_doc.get(doc, 0) + 1
        substeps = [n for n in self.kg.of_type("Step") if n.props.get("kind") == "damage-substep"]
        examples_by_doc: dict[str, int] = {}
        for e in self.kg.of_type("Example"):
            doc = e.span.document if e.span else "?"
            examples_by_doc[doc] = examples_by_doc.get(doc, 0) + 1
        return {
            "build_id": self.artifact.manifest.get("build_id"),
            "corpus_hash": self.artifact.manifest.get("corpus_hash"),
            "nodes": nodes,
            "edges": edges,
            "rules_by_document": rules_by_doc,
            "examples_by_document": examples_by_doc,
            "damage_substeps": len(substeps),
            "cards": len(cards),
            "cards_bilingual": sum(1 for c in cards if c.label_pt and c.label_en),
            "concepts": len(self.kg.of_type("Concept")),
            "unlinked_card_mentions": len(unlinked),
            "unlinked": unlinked,
            "statements": len(self.kg.of_type("Statement")),
            "statements_unread": sum(
                int(d.props.get("statements_unread", 0)) for d in self.kg.of_type("Document")
            ),
            "formats": [
                {
                    "id": f.id,
                    "label_pt": f.label_pt,
                    "label_en": f.label_en,
                    "documents": list(f.documents),
                    "card_pool": bool(f.card_pool),
                    "banlist": f.banlist is not None,
                    "deck_rules": f.deck is not None,
                }
                for f in self.formats.specs
            ],
            "reasoners": self.reasoner_status(),
        }

    def reasoner_status(self) -> list[dict[str, Any]]:
        """Every reasoner with whether the loaded KB enables it and what it needs."""
        return [dict(r) for r in self._reasoner_status]

    @cached_property
    def _reasoner_status(self) -> tuple[dict[str, Any], ...]:
        """`reasoner_status`, read once: the loaded KB never changes (each /health reads it)."""
        from kb.reason.registry import status

        return tuple(
            {"name": r.name, "enabled": r.enabled, "needs": r.needs}
            for r in status(self.kg, len(self.kg.of_type("Claim")))
        )

    # --- nodes ---------------------------------------------------------------------------
    def resolve(self, node_id: str) -> Node:
        """The node with this id, or NotFound with the closest ids."""
        node = self.kg.get(node_id)
        if node is None:
            from rapidfuzz import process

            ids = [n.id for n in self.kg.nodes]
            close = [m[0] for m in process.extract(node_id, ids, limit=5, score_cutoff=50)]
            raise NotFound("id", node_id, close)
        return node

    def show(self, node_id: str) -> dict[str, Any]:
        """A node with its source span, its outgoing and incoming facts and its children."""
        node = self.resolve(node_id)
        data = node_record(node)
        data["document_title"] = None
        if node.span is not None:
            doc = self.kg.get(node.span.document)
            data["document_title"] = doc.label_pt if doc else None
        data["out"] = [self._fact_json(f) for f in self.kg.out(node.id) if f.predicate != "part_of"]
        data["in"] = [
            self._fact_json(f) for f in self.kg.into(node.id) if f.predicate != "part_of"
        ][:200]
        data["children"] = self.kg.children(node.id)
        section = self.kg.section_of(node.id) if node.parent else None
        data["section"] = section.id if section else None
        return data

    def _fact_json(self, f: Fact) -> dict[str, Any]:
        data = fact_record(f)
        if not f.props:
            del data["props"]
        return data

    # --- export ----------------------------------------------------------------------------
    def export(self, fmt: str) -> Path:
        """The whole graph as a Turtle ('ttl') or compacted JSON-LD ('jsonld', with the served
        @context) file: the store's dump, written with the build (or, for another base IRI, when the server started), checked
        against the manifest's checksum before it is first given out and again whenever the file
        changed. Read only: a missing or damaged export is an ArtifactError, never rewritten
        here (a restart rebuilds it)."""
        from kb.adapters.oxigraph_store import export_path, store_dir

        if fmt not in ("ttl", "jsonld"):
            raise InvalidQuery("format", f"unknown export format {fmt!r}; use ttl or jsonld")
        build = self.artifact.path
        path = export_path(store_dir(build, self.settings.base_iri) / "store", fmt)
        with self._export_lock:
            try:
                seen = path.stat()
            except OSError:
                raise ArtifactError(
                    f"the {fmt} export of build {build.name} is missing; a restart rebuilds it"
                ) from None
            mark = (seen.st_ino, seen.st_size, seen.st_mtime_ns)
            if self._exports.get(fmt) != mark:
                recorded = self.artifact.manifest.get("derived", {})
                if recorded.get(path.relative_to(build).as_posix()) != file_digest(path):
                    raise ArtifactError(
                        f"the {fmt} export of build {build.name} is damaged (checksum "
                        "mismatch); it is not served, a restart rebuilds it"
                    )
                self._exports[fmt] = mark
            return path

    # --- linked data -----------------------------------------------------------------------
    def whole_graph(self) -> Iterator[Triple]:
        """The graph's RDF triples, made anew on every call (seconds with every card): only to
        write a missing or damaged SPARQL store, never on a request's path."""
        from kb.linked_data.rdf import graph_triples

        return graph_triples(self.kg, self.settings.base_iri)

    def sparql(self, query: str, accept: str | None = None) -> tuple[str, str]:
        """(body, media type) of a read-only SPARQL query, bounded in time and results."""
        if query is None or not query.strip():
            raise empty("query")
        return self.sparql_endpoint().query(query, accept)

    def sparql_endpoint(self) -> SparqlBackend:
        """The SPARQL backend (Oxigraph workers over the build's store, or YGO_SPARQL_ENDPOINT),
        opened once; `warm()` it to have it ready before the first query."""
        from kb.adapters.oxigraph_store import open_endpoint

        with self._sparql_lock:
            if self._sparql is None:
                self._sparql = open_endpoint(self.settings, self.artifact.path, self.whole_graph)
            return self._sparql

    def close(self) -> None:
        """Stop the SPARQL worker processes (they also stop when this process exits)."""
        with self._sparql_lock:
            endpoint, self._sparql = self._sparql, None
        if endpoint is not None:
            endpoint.close()

    def node_rdf(self, node_id: str, fmt: str) -> str:
        """A node's description (its triples, its neighbours' labels, its facts): ttl or jsonld,
        built from the node's own records (never the whole graph)."""
        from kb.linked_data.rdf import describe_node, serialize

        check_rdf_format("as", fmt)
        node = self.resolve(node_id)
        base = self.settings.base_iri
        return serialize(describe_node(self.kg, node.id, base), fmt, base)

    def vocab(self, fmt: str = "ttl") -> str:
        """The vocabulary (classes, properties, pt/en labels, comments, domain/range): ttl or jsonld."""
        from kb.linked_data.rdf import serialize, vocabulary

        check_rdf_format("as", fmt)
        return serialize(vocabulary(self.settings.base_iri), fmt, self.settings.base_iri)

    def jsonld_context(self) -> dict[str, Any]:
        """The JSON-LD `@context` of `/id/{id}` and the export, served at `<base>context.jsonld`."""
        from kb.linked_data.jsonld import context

        return context(self.settings.base_iri).document()

    # --- wiki pages --------------------------------------------------------------------------
    def render(
        self,
        node_id: str,
        as_: str = "wikitext",
        links: str | None = None,
        template: str | None = None,
        rule_template: str | None = None,
        lang: str = "pt",
    ) -> str:
        """A Rule, Section, Document or Card page as wikitext, markdown, html or json; `lang`
        (pt or en) is the language of a card's data and of the card lists' words.

        `links` (kb.presentation.links): `iri` (the public pages; wikitext, markdown, json),
        `local` (this server's pages; html's default) or `wiki` (`[[…]]` through the page-name
        templates `template` for cards and `rule_template` for rules, sections, documents)."""
        from kb.presentation.links import link_style
        from kb.presentation.markup import MARKUPS, write
        from kb.presentation.render import PageBuilder

        if as_ not in MARKUPS:
            raise InvalidQuery("as", f"unknown markup {as_!r}; use one of {', '.join(MARKUPS)}")
        style = link_style(as_, self.settings.base_iri, links, template, rule_template)
        if lang not in ("pt", "en"):
            raise unknown_value("lang", lang, f"unknown language {lang!r}; use pt or en")
        node = self.resolve(node_id)
        builder = PageBuilder(
            self.kg, self.artifact.documents, self.doc_formats, self.settings.base_iri, style, lang
        )
        return write(builder.page(node), as_)

    # --- judge training ----------------------------------------------------------------------
    @built_part
    def question_bank(self) -> QuestionBank:
        """Every question the KB supports (built once, on first use; deterministic)."""
        from kb.presentation.quiz import build_bank

        sources = self.artifact.manifest.get("sources", {})
        translated = [doc for doc, meta in sources.items() if meta.get("machine_translated")]
        return build_bank(self.kg, self.artifact.documents, self.doc_formats, translated)

    def quiz(
        self,
        format: str | None = None,
        topic: str | None = None,
        n: int = 10,
        seed: int | None = None,
        lang: str = "pt",
    ) -> dict[str, Any]:
        """`n` questions with answer keys, explanations and citations; same seed, same quiz.
        `lang` (pt or en) is the language of the prompts, options and explanations (the ids and
        keys are the same in both; quoted document text stays as the document wrote it)."""
        from kb.presentation.quiz_model import check_lang

        check_lang(lang)
        fmt = check_format(format, self.formats)
        if seed is None:
            from kb.presentation.quiz import MAX_SEED

            seed = random.SystemRandom().randrange(MAX_SEED + 1)
        return self.question_bank.quiz(fmt, topic or None, n, seed, lang)

    def quiz_topics(self, format: str | None = None) -> dict[str, Any]:
        """The quiz's topics with questions in `format` (every format when None): each with its
        pt/en names, how many distinct questions it has there and the formats that have some."""
        return self.question_bank.topic_list(check_format(format, self.formats))

    @cached_property
    def training(self) -> TrainingService:
        """Judge training that remembers (kb.training): trainees, practice, exams, progress, on
        the training database (`database_url`; SQLite in the data directory by default). Nothing
        connects until a training call; a database that cannot be used fails those calls only."""
        from kb.training.database import Database, database_url  # SQLAlchemy: on first use
        from kb.training.service import TrainingService

        url = database_url(self.settings.database_url, self.settings.data_dir)
        return TrainingService(
            lambda: self.question_bank,
            str(self.artifact.manifest.get("build_id") or "unbuilt"),
            lambda fmt: check_format(fmt, self.formats),
            Database(url),
            lambda: datetime.now(UTC),
            self.settings.training_token_days,
        )

    def quiz_check(self, answers: list[dict[str, Any]], lang: str = "pt") -> dict[str, Any]:
        """Grade `[{id, answer}]` against the answer keys, each with its explanation (in `lang`)
        and citation."""
        return self.question_bank.check(answers, lang)

    # --- what the documents state about a subject ---------------------------------------------
    def rules_about(self, subject: str, format: str | None = None, k: int = 20) -> dict[str, Any]:
        """The Statements (rule sentences read from the documents) about a concept, card class,
        card or format (an id or a name, pt or en), with their exact citations (kb.search.about)."""
        from kb.search.about import rules_about, subject_of

        text = check_text("subject", subject, self.settings.max_query_chars)
        fmt = check_format(format, self.formats)
        k = check_k(k, self.settings.max_k)
        node = subject_of(self.kg, text, self.linker.link(text, fuzzy=True))
        return rules_about(self.kg, self.artifact.documents, node, fmt, k).model_dump()

    # --- linking ---------------------------------------------------------------------------
    def link(self, q: str) -> dict[str, Any]:
        """Entities named in a text (typo-tolerant)."""
        text = check_text("q", q, self.settings.max_query_chars)
        mentions = self.linker.link(text, fuzzy=True)
        return {
            "query": text,
            "entities": [
                {
                    "id": m.entity,
                    "type": self.linker.entries[m.entity].type,
                    "label": self.linker.entries[m.entity].label,
                    "span": [m.start, m.end],
                    "matched": m.matched,
                    "score": m.score,
                }
                for m in mentions
            ],
        }

    # --- cards (kb.cards.service: one method per route and command) ---------------------------
    @built_part
    def card_service(self) -> CardService:
        """Card search, legality, lists and deck checks over the graph's cards (built on first use)."""
        from kb.cards.service import CardService

        s = self.settings
        return CardService.of_graph(
            self.kg, self.formats, max_k=s.max_k, max_query_chars=s.max_query_chars
        )

    def cards(
        self,
        q: str,
        type: str | None = None,
        attribute: str | None = None,
        format: str | None = None,
        k: int = 10,
    ) -> dict[str, Any]:
        return self.card_service.search(q, type, attribute, format, k).model_dump(by_alias=True)

    def card(self, card_id: str, format: str | None = None) -> dict[str, Any]:
        """A card's node and facts, its legality in `format` (else in every format with card
        rules), the rules of its classes and the passages naming it (kb.cards.report)."""
        from kb.cards.report import card_report

        cards = self.card_service
        record = cards.card(card_id)
        formats = [format] if format else list(cards.accepted_formats("rules"))
        legality = [cards.legality(record.id, f) for f in formats]
        report = card_report(self.kg, self.artifact.documents, self.show(record.id), legality)
        return report.model_dump(by_alias=True)

    def card_page(self, key: str) -> tuple[str, bool]:
        """The id of the card whose page `/cards/{key}` means (a name pt or en, exact or as the
        card search finds it; a password) and whether the key names it exactly; NotFound
        suggests the closest card ids."""
        record, exact = self.card_service.lookup(key)
        return record.id, exact

    def card_legality(self, card_id: str, format: str | None = None) -> dict[str, Any]:
        return self.card_service.legality(card_id, format).model_dump()

    def banlist(self, format: str | None = None) -> dict[str, Any]:
        return self.card_service.banlist(format).model_dump()

    def lflist(self, format: str | None = None) -> str:
        return self.card_service.lflist(format)

    def deck_validate(
        self, format: str | None = None, deck: str | None = None, decks: list[str] | None = None
    ) -> dict[str, Any]:
        return self.card_service.validate(format, deck, decks).model_dump()


def check_text(field: str, value: str | None, limit: int) -> str:
    """A non-empty text parameter of at most `limit` characters."""
    if value is None or not value.strip():
        raise empty(field)
    if len(value) > limit:
        raise too_long(field, len(value), limit)
    return value


def check_rdf_format(field: str, value: str) -> str:
    """An RDF serialization name: ttl or jsonld."""
    if value not in ("ttl", "jsonld"):
        raise InvalidQuery(field, f"unknown RDF format {value!r}; use ttl or jsonld")
    return value


def check_format(value: str | None, formats: Formats) -> str | None:
    """A format the manifest declares (or None)."""
    if value is None or value == "":
        return None
    if value not in formats:
        raise unknown_value(
            "format", value, f"unknown format {value!r}; use one of {', '.join(formats.ids)}"
        )
    return value


def check_k(value: int, limit: int) -> int:
    if not 1 <= value <= limit:
        raise out_of_range("k", 1, limit, value)
    return value


def check_types(value: str | None) -> frozenset[str] | None:
    """A comma-separated list of retrievable node types (Passage, Example, Step)."""
    if value is None or value == "":
        return None
    names = {v.strip() for v in value.split(",") if v.strip()}
    lookup = {t.lower(): t for t in RETRIEVABLE_TYPES}
    bad = sorted(n for n in names if n.lower() not in lookup)
    if bad or not names:
        raise InvalidQuery(
            "type",
            f"unknown type {', '.join(bad) or value!r}; use {', '.join(sorted(RETRIEVABLE_TYPES))}",
        )
    return frozenset(lookup[n.lower()] for n in names)

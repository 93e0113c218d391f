"""Hybrid retrieval: dense (embeddings) + lexical (BM25) + graph (linked entities), fused by RRF."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from kb.graph import KnowledgeGraph
from kb.link import Linker
from kb.model import Mention, Node
from kb.search.analysis import analyse
from kb.search.embedding import Embedder
from kb.search.fusion import fuse_rrf, ranks
from kb.search.lexical import BM25Index
from kb.text import Segment, clauses

CONTRAST = re.compile(r"^(mas|porém|no entanto|enquanto)\b", re.IGNORECASE)
SKIPPED_KINDS = frozenset({"entry", "title", "toc", "link"})
RANK_DEPTH = 60
OTHER_FORMAT_FACTOR = 0.5  # passages scoped to another format are demoted, not hidden
GENERAL_FACTOR = 0.8  # general rules still apply inside a format, slightly below its own rules


@dataclass(frozen=True)
class SearchOptions:
    k: int = 10
    format: str | None = None
    types: frozenset[str] | None = None
    document: str | None = None


@dataclass
class Hit:
    node: Node
    score: float
    scores: dict[str, float]
    format: str | None
    section: Node | None
    entities: list[str] = field(default_factory=list)


def search_units(kg: KnowledgeGraph) -> list[Node]:
    """The nodes search indexes, in a stable order (titles, links and card entries are left out)."""
    return [n for n in kg.retrievable() if n.props.get("kind") not in SKIPPED_KINDS]


def index_texts(kg: KnowledgeGraph) -> list[str]:
    """The indexed text of each search unit, in `search_units` order."""
    return [index_text(n, kg.section_of(n.id)) for n in search_units(kg)]


@dataclass(frozen=True)
class ClauseUnit:
    """A clause of a search unit: offsets relative to the unit's text, and its entities."""

    unit: int
    start: int
    end: int
    text: str
    entities: frozenset[str]
    mentions: tuple[Mention, ...] = ()


def unit_clauses(kg: KnowledgeGraph) -> list[tuple[int, Segment]]:
    """(unit index, clause segment relative to the unit's text) for every search unit."""
    out = []
    for i, n in enumerate(search_units(kg)):
        text = n.text or ""
        out += [(i, seg) for seg in clauses(text, 0, len(text))]
    return out


def clause_texts(kg: KnowledgeGraph) -> list[str]:
    """What each clause is embedded as: its section heading, then the clause."""
    units = search_units(kg)
    return [
        index_text(Node(id="", type="Passage", text=seg.text), kg.section_of(units[i].id))
        for i, seg in unit_clauses(kg)
    ]


def claim_nodes(kg: KnowledgeGraph) -> list[Node]:
    """The curated rule claims, in a stable order."""
    return sorted(kg.of_type("Claim"), key=lambda n: n.id)


def claim_texts(kg: KnowledgeGraph) -> list[str]:
    """What each claim is embedded as: its English statement, then its Portuguese one."""
    return [t for n in claim_nodes(kg) for t in (n.label_en or "", n.label_pt or "")]


def index_text(node: Node, section: Node | None) -> str:
    """What a passage is indexed as: its section's heading, then its text."""
    head = (section.label_pt or section.text or "") if section else ""
    return f"{head}: {node.text}" if head else node.text or ""


class SearchIndex:
    """Indexes over the retrievable passages of one graph."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        linker: Linker,
        embedder: Embedder | None,
        vectors: np.ndarray | None,
        clause_vectors: np.ndarray | None,
        doc_formats: dict[str, str],
        weights: dict[str, float],
        rrf_k: int,
        claim_vectors: np.ndarray | None = None,
    ) -> None:
        self.kg = kg
        self.linker = linker
        self.embedder = embedder
        self.units = search_units(kg)
        self.position = {n.id: i for i, n in enumerate(self.units)}
        self.sections = [kg.section_of(n.id) for n in self.units]
        self.texts = [index_text(n, s) for n, s in zip(self.units, self.sections, strict=True)]
        self.formats = [doc_formats.get(n.span.document) if n.span else None for n in self.units]
        self.lexical = BM25Index(self.texts)
        self.vectors = vectors
        self.clauses = self._clauses(kg, linker)
        self.clauses_of: dict[int, list[int]] = defaultdict(list)
        for c, cl in enumerate(self.clauses):
            self.clauses_of[cl.unit].append(c)
        self.clause_vectors = clause_vectors
        self.claims = claim_nodes(kg)
        self.claim_vectors = claim_vectors
        self.weights = weights
        self.rrf_k = rrf_k
        self._entity_links = self._graph_links()
        self._query_vec = lru_cache(maxsize=512)(self._embed_query)

    @staticmethod
    def _clauses(kg: KnowledgeGraph, linker: Linker) -> list[ClauseUnit]:
        """Clauses with their entities; a contrast clause ("…, mas Y não pode") inherits the
        previous clause's context except that clause's subject (its last card)."""
        out: list[ClauseUnit] = []
        for i, seg in unit_clauses(kg):
            mentions = tuple(linker.link(seg.text))
            own = {m.entity for m in mentions}
            prev = out[-1] if out and out[-1].unit == i else None
            if prev is not None and CONTRAST.match(seg.text):
                cards = [m for m in prev.mentions if m.entity.startswith("card/")]
                subject = (
                    {cards[-1].entity}
                    if cards and own & {m.entity for m in mentions if m.entity.startswith("card/")}
                    else set()
                )
                own |= set(prev.entities) - subject
            out.append(ClauseUnit(i, seg.start, seg.end, seg.text, frozenset(own), mentions))
        return out

    # --- graph ranking ---------------------------------------------------------------------
    def _indexed_ancestor(self, node_id: str) -> int | None:
        if node_id in self.position:
            return self.position[node_id]
        if node_id not in self.kg:
            return None
        for a in self.kg.ancestors(node_id):
            if a in self.position:
                return self.position[a]
        return None

    def _graph_links(self) -> dict[str, dict[int, float]]:
        """entity → {unit: strength}: mentions (1.0), stated facts (0.7), rules about it (0.3)."""
        links: dict[str, dict[int, float]] = defaultdict(dict)

        def put(entity: str, unit: int | None, strength: float) -> None:
            if unit is not None:
                links[entity][unit] = max(links[entity].get(unit, 0.0), strength)

        for f in self.kg.facts:
            if f.predicate == "mentions":
                put(f.object, self._indexed_ancestor(f.subject), 1.0)
            elif f.predicate == "about":
                for i, s in enumerate(self.sections):
                    if s is not None and s.id == f.subject:
                        put(f.object, i, 0.3)
            elif (
                f.source is not None
                and f.predicate not in ("part_of", "example_of", "precedes")
                and self.kg.node(f.subject).type != "Claim"
            ):
                unit = self._indexed_ancestor(f.source)
                put(f.subject, unit, 0.7)
                put(f.object, unit, 0.7)
        return dict(links)

    def graph_scores(self, entities: list[str]) -> np.ndarray:
        scores = np.zeros(len(self.units), dtype=np.float32)
        for e in dict.fromkeys(entities):
            linked = self._entity_links.get(e, {})
            if not linked:
                continue
            specificity = 1.0 / math.log2(2 + len(linked))
            for unit, strength in linked.items():
                scores[unit] += specificity * strength
        return scores

    # --- dense -----------------------------------------------------------------------------
    def _embed_query(self, text: str) -> np.ndarray:
        assert self.embedder is not None
        return self.embedder.embed_queries([text])[0]

    def clause_similarity(self, query: str, clause_ids: list[int]) -> np.ndarray:
        """Cosine of the query with each given clause (zeros without a model)."""
        if self.embedder is None or self.clause_vectors is None or not clause_ids:
            return np.zeros(len(clause_ids), dtype=np.float32)
        return (self.clause_vectors[clause_ids] @ self._query_vec(query)).astype(np.float32)

    def claim_similarity(self, query: str) -> np.ndarray:
        """Cosine of the query with each claim statement: shape (claims, 2) for (en, pt)."""
        if self.embedder is None or self.claim_vectors is None or not self.claims:
            return np.zeros((len(self.claims), 2), dtype=np.float32)
        sims = self.claim_vectors @ self._query_vec(query)
        return sims.reshape(len(self.claims), 2).astype(np.float32)

    def dense_scores(self, query: str) -> np.ndarray:
        if self.embedder is None or self.vectors is None:
            return np.zeros(len(self.units), dtype=np.float32)
        sims = self.vectors @ self._query_vec(query)
        return np.clip(sims, 0.0, None).astype(np.float32)

    # --- lexical ---------------------------------------------------------------------------
    def expand(self, query: str, mentions: list[Mention]) -> list[str]:
        """Query terms plus every name of each linked entity (pt ↔ en, aliases)."""
        terms = analyse(query)
        for m in mentions:
            for surface in self.linker.surfaces_of(m.entity):
                terms += analyse(surface)
        return terms

    # --- search ----------------------------------------------------------------------------
    def search(
        self, query: str, options: SearchOptions, mentions: list[Mention] | None = None
    ) -> list[Hit]:
        mentions = self.linker.link(query, fuzzy=True) if mentions is None else mentions
        entities = [m.entity for m in mentions if not m.entity.startswith("format/")]
        per_ranker = {
            "dense": self.dense_scores(query),
            "lexical": self.lexical.scores(self.expand(query, mentions)),
            "graph": self.graph_scores(entities),
        }
        rankings = {name: ranks(s, RANK_DEPTH) for name, s in per_ranker.items()}
        fused = fuse_rrf(rankings, self.weights, self.rrf_k)
        ranked: list[tuple[float, str, int]] = []  # (-score, node id, unit): ids are unique
        for unit, score in fused.items():
            node = self.units[unit]
            if options.types and node.type not in options.types:
                continue
            if options.document and (node.span is None or node.span.document != options.document):
                continue
            fmt = self.formats[unit]
            if options.format and fmt != options.format:
                score *= GENERAL_FACTOR if fmt == "general" else OTHER_FORMAT_FACTOR
            ranked.append((-score, node.id, unit))
        ranked.sort()
        return [  # only the hits returned are built
            Hit(
                self.units[unit],
                -negated,
                {name: round(float(s[unit]), 4) for name, s in per_ranker.items()},
                self.formats[unit],
                self.sections[unit],
                sorted({f.object for f in self.kg.out(node_id, "mentions")}),
            )
            for negated, node_id, unit in ranked[: options.k]
        ]


def hit_json(hit: Hit) -> dict[str, Any]:
    n = hit.node
    assert n.span is not None
    return {
        "id": n.id,
        "type": n.type,
        "document": n.span.document,
        "section": hit.section.id if hit.section else None,
        "format": hit.format,
        "text": n.text,
        "start": n.span.start,
        "end": n.span.end,
        "score": round(hit.score, 6),
        "scores": hit.scores,
        "entities": hit.entities,
    }

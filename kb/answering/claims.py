"""Deciding by curated rule claims: align the question with the closest claim statement.

A claim (corpus/claims/*.yaml) is a plain pt/en proposition, whether it holds, its format and the
sentence of the document stating it. The question is aligned with every statement by embedding
similarity, shared entities and shared stems; the best claim's truth, read against the polarity of
its statement and of the question, gives the verdict. With no format given, a close claim of
another format with the opposite verdict means the formats disagree: no verdict, both cited.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.link import Mention
from kb.model import Node
from kb.reading.clauses import (
    condition_flipped,
    condition_unmet,
    differs,
    last_sentence,
    opposed,
    other_case,
    other_links,
    prevented_action,
    question_negated,
    requirement_skipped,
    reversed_order,
    stated_negative,
    states_action,
)
from kb.reading.question import Question
from kb.reason import Decision, Step
from kb.reason.facts import card_classes
from kb.search.analysis import analyse
from kb.search.index import SearchIndex


@dataclass(frozen=True)
class ClaimSettings:
    """How claims are weighed (kb.config.Settings `claim_*`)."""

    min_score: float = 0.86  # alignment under which no claim decides the question
    same_topic: float = 0.94  # claims of two formats disagree only if they say alike things
    format_margin: float = 0.15  # a claim of another format this close to the best one competes
    general_penalty: float = 0.02  # a general claim yields to one of the format asked about
    # Asked about no format, a question is about today's rules: a claim of another format yields
    # to a general one aligning about as well.
    other_format_penalty: float = 0.03
    card_bonus: float = 0.06  # a claim about the very card the question names
    asked_weight: float = 1.0  # the asking sentence's stems weigh again (what is asked)
    other_case: float = 0.08  # a claim about other parties, numbers, kinds or Chain Links
    class_penalty: float = 0.05  # a claim about cards in general, for a question about a class


# Card classes a question can single out (as "<class>-monster" or "<class>-summon" concepts); a
# claim decides only if it names the class too.
_CLASSES = frozenset(
    [
        "fusion",
        "gemini",
        "link",
        "pendulum",
        "ritual",
        "spirit",
        "synchro",
        "toon",
        "tuner",
        "union",
        "xyz",
    ]
)


def disjoint_kinds(kg: KnowledgeGraph) -> dict[str, frozenset[str]]:
    """Each concept → the kinds it excludes (`disjoint_with` facts, read both ways)."""
    out: dict[str, set[str]] = {}
    for f in kg.with_predicate("disjoint_with"):
        out.setdefault(f.subject, set()).add(f.object)
        out.setdefault(f.object, set()).add(f.subject)
    return {k: frozenset(v) for k, v in out.items()}


def other_kind(
    asked: set[str] | frozenset[str],
    stated: set[str] | frozenset[str],
    disjoint: dict[str, frozenset[str]],
) -> bool:
    """The statement is about another kind than the question's, of kinds that exclude each
    other: it names a kind excluding one the question names, and not that one ("a Limited card"
    for a question about a Semi-Limited one, an Ignition Effect for one about a Trigger Effect)."""
    return any(
        kind not in stated and (disjoint.get(kind, frozenset()) & stated) - asked for kind in asked
    )


def _class_kinds(entities: set[str] | frozenset[str]) -> set[str]:
    """The card classes entities single out, monster and Summon alike (synchro-monster and
    synchro-summon are both 'synchro')."""
    out: set[str] = set()
    for e in entities:
        head, _, rest = e.partition("/")
        kind, _, what = rest.rpartition("-")
        if head == "concept" and what in ("monster", "summon") and kind in _CLASSES:
            out.add(kind)
    return out


@dataclass(frozen=True)
class ClaimInfo:
    """What matching needs of a claim: its entities, the passage stating it, and the stems and
    polarity of its (en, pt) statements."""

    entities: frozenset[str]
    source: str
    stems: tuple[frozenset[str], frozenset[str]]
    negative: tuple[bool, bool]  # whether each statement is negative
    terms: tuple[frozenset[str], frozenset[str]]  # `concept_terms` of each statement
    classes: frozenset[str]  # the card classes its entities single out (`_class_kinds`)
    cards: frozenset[str]  # the cards it is about


class _ClaimTable:
    """The claims' matching data as arrays, so a question is weighed against all of them at once:
    for each term, entity and card, the claims having it."""

    def __init__(self, claims: list[Node], meta: list[ClaimInfo]) -> None:
        self.formats = np.array([str(n.props["format"]) for n in claims], dtype=object)
        self.contrast = np.array([bool(n.props.get("contrast")) for n in claims], dtype=bool)
        self.classes = [info.classes for info in meta]
        self.has_classes = np.array([bool(c) for c in self.classes], dtype=bool)
        self.cards = np.array([len(info.cards) for info in meta], dtype=np.float64)
        self._size = len(claims)
        self._terms = (_postings(m.terms[0] for m in meta), _postings(m.terms[1] for m in meta))
        self._entities = _postings(m.entities for m in meta)

    def count(self, side: int, terms: Iterable[str]) -> np.ndarray:
        """How many of `terms` each claim's statement on `side` (0 en, 1 pt) has."""
        return self._count(self._terms[side], terms)

    def count_entities(self, entities: Iterable[str]) -> np.ndarray:
        return self._count(self._entities, entities)

    def count_cards(self, cards: Iterable[str]) -> np.ndarray:
        return self._count(self._entities, (c for c in cards if c.startswith("card/")))

    def _count(self, postings: dict[str, np.ndarray], keys: Iterable[str]) -> np.ndarray:
        out = np.zeros(self._size)
        for key in set(keys):
            rows = postings.get(key)
            if rows is not None:
                out[rows] += 1
        return out


def _postings(sets: Iterable[frozenset[str]]) -> dict[str, np.ndarray]:
    """Each key → the (sorted, distinct) rows whose set has it."""
    rows: dict[str, list[int]] = {}
    for i, keys in enumerate(sets):
        for key in keys:
            rows.setdefault(key, []).append(i)
    return {k: np.array(v, dtype=np.intp) for k, v in rows.items()}


@dataclass(frozen=True)
class ClaimMatch:
    node: Node
    score: float
    statement: str  # the statement (en or pt) the question aligned with best
    verdict: bool  # the answer to the question this claim gives
    source: str  # the passage stating the claim

    @property
    def format(self) -> str:
        return str(self.node.props["format"])


def concept_terms(text: str, mentions: list[Mention]) -> frozenset[str]:
    """The stems of a text's words outside the entities it names, and those entities: "meu
    companheiro de equipe" and "my teammate" give the same one term (concept/teammate), so a
    question and its translation share as many terms with a claim."""
    ents = {m.entity for m in mentions if not m.entity.startswith("format/")}
    return frozenset(analyse(text)) | ents


class ClaimReader:
    """Matches questions against the curated claims of one graph."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        index: SearchIndex,
        formats: Formats,
        settings: ClaimSettings | None = None,
    ) -> None:
        self.settings = settings if settings is not None else ClaimSettings()
        self.kg = kg
        self.index = index
        self.formats = formats
        self.base = formats.base
        self.disjoint = disjoint_kinds(kg)
        _ = self._meta  # read the claims once at start-up, not on the first question

    @cached_property
    def _meta(self) -> list[ClaimInfo]:
        out = []
        for n in self.index.claims:
            source = next((f.object for f in self.kg.out(n.id, "stated_in")), n.id)
            ents = frozenset(f.object for f in self.kg.out(n.id, "concerns"))
            stems = (frozenset(analyse(n.label_en or "")), frozenset(analyse(n.label_pt or "")))
            negative = (stated_negative(n.label_en or ""), stated_negative(n.label_pt or ""))
            terms = tuple(
                concept_terms(text, self.index.linker.link(text))
                for text in (n.label_en or "", n.label_pt or "")
            )
            out.append(
                ClaimInfo(
                    ents,
                    source,
                    stems,
                    negative,
                    (terms[0], terms[1]),
                    frozenset(_class_kinds(ents)),
                    frozenset(e for e in ents if e.startswith("card/")),
                )
            )
        return out

    def rank(
        self,
        question: str,
        mentions: list[Mention],
        fmt: str | None,
        depth: int = 12,
        lang: str | None = None,
    ) -> list[ClaimMatch]:
        """The claims best aligned with the question. With `lang`, each claim is read in the
        question's language (its pt or en statement), so a question and its translation weigh a
        claim and its contrary alike."""
        if not self.index.claims:
            return []
        cfg = self.settings
        sims = self.index.claim_similarity(question)
        q_terms = concept_terms(question, mentions) | self._card_classes(mentions)
        asking = last_sentence(question)
        at = max(question.rfind(asking), 0)
        within = [replace(m, start=m.start - at, end=m.end - at) for m in mentions if m.start >= at]
        asked = concept_terms(question[at:], within) or q_terms  # the asking sentence's terms
        q_ents = {m.entity for m in mentions if not m.entity.startswith("format/")}
        q_neg = question_negated(question)
        prevented = prevented_action(question)
        classes = _class_kinds(q_ents)
        q_cards = {e for e in q_ents if e.startswith("card/")}
        if lang in ("en", "pt"):
            sides = np.full(len(sims), 0 if lang == "en" else 1)
        else:
            sides = sims.argmax(axis=1)
        sim = sims[np.arange(len(sims)), sides].astype(np.float64)
        table = self._table
        en = sides == 0
        shared = np.where(en, table.count(0, q_terms), table.count(1, q_terms))
        shared = shared / max(len(q_terms), 1)
        on_asked = np.where(en, table.count(0, asked), table.count(1, asked))
        shared += cfg.asked_weight * on_asked / len(asked)
        named = table.count_entities(q_ents)
        overlap = named / len(q_ents) if q_ents else np.zeros(len(sims))
        cards_named = table.count_cards(q_cards)
        foreign = np.divide(
            table.cards - cards_named,
            table.cards,
            out=np.zeros(len(sims)),
            where=table.cards > 0,
        )
        if classes:
            kept = np.array([classes <= c for c in table.classes])
            class_penalty = np.where(kept, 0.0, cfg.class_penalty)
            kept |= ~table.has_classes
        else:
            kept = np.ones(len(sims), dtype=bool)
            class_penalty = np.zeros(len(sims))
        if fmt is not None:
            kept &= (table.formats == fmt) | ((table.formats == self.base) & ~table.contrast)
        score = sim + 0.2 * overlap - 0.08 * foreign + 0.1 * shared - class_penalty
        score = np.where(cards_named > 0, score + cfg.card_bonus, score)
        if fmt is not None and fmt != self.base:
            score = np.where(table.formats == self.base, score - cfg.general_penalty, score)
        if fmt is None:
            score = np.where(table.formats != self.base, score - cfg.other_format_penalty, score)
        # The claims about another case than the question's are lowered by `other_case`, which is
        # costly to check: they are checked best first, until no claim left can enter the top.
        top: list[tuple[float, int, int]] = []
        for at in np.argsort(-np.where(kept, score, -np.inf), kind="stable"):
            i = int(at)
            if not kept[i] or (len(top) >= depth and score[i] < top[-1][0]):
                break
            n, info, side = self.index.claims[i], self._meta[i], int(sides[i])
            statement = (n.label_en if side == 0 else n.label_pt) or ""
            positive = bool(n.props["holds"]) and not info.negative[side]
            lowered = (
                other_case(question, statement, positive)
                or other_kind(q_ents, info.entities, self.disjoint)
                or (not positive and other_links(question, statement, self.index.linker))
            )
            top.append((float(score[i]) - (cfg.other_case if lowered else 0.0), i, side))
            top.sort(key=lambda t: (-t[0], t[1]))
            del top[depth:]
        out = []
        for score, i, side in top:
            n = self.index.claims[i]
            statement = (n.label_en if side == 0 else n.label_pt) or ""
            holds, negative = bool(n.props["holds"]), self._meta[i].negative[side]
            truth = holds != negative  # whether the statement's positive proposition is so
            if (
                opposed(last_sentence(question), statement)
                or reversed_order(question, statement, self.index.linker)
                or (
                    holds
                    and not negative
                    and (
                        differs(question, statement)
                        or condition_unmet(question, statement)
                        or other_links(question, statement, self.index.linker)
                    )
                )
            ):
                truth = not truth
            if condition_flipped(question, statement) or requirement_skipped(question, statement):
                truth = not truth
            stems = self._meta[i].stems[side]
            negated = q_neg or (prevented is not None and states_action(prevented, stems))
            out.append(ClaimMatch(n, score, statement, truth != negated, self._meta[i].source))
        return out

    @cached_property
    def _table(self) -> _ClaimTable:
        return _ClaimTable(self.index.claims, self._meta)

    def _card_classes(self, mentions: list[Mention]) -> frozenset[str]:
        """The classes of the cards named (a Trigger Effect, a Union monster): terms of the
        question too, so a claim about the class shares them."""
        return frozenset().union(
            *(card_classes(self.kg, m.entity) for m in mentions if m.entity.startswith("card/"))
        )

    def decide(self, q: Question) -> Decision | None:
        """The best-aligned claim decides (yes/no from its truth and the question's polarity,
        or the claim itself for an open question); None below `min_score`."""
        return self.decide_ranked(
            self.rank(q.text, q.mentions, q.format, lang=q.lang), q.format, q.yes_no
        )

    def decide_ranked(
        self, ranked: list[ClaimMatch], fmt: str | None, yes_no: bool
    ) -> Decision | None:
        if not ranked or ranked[0].score < self.settings.min_score:
            return None
        top, cfg = ranked[0], self.settings
        if not yes_no:
            return self._open(top)
        if fmt is None:
            rivals: dict[str, ClaimMatch] = {}  # the best disagreeing claim of each other format
            for m in ranked[1:]:
                if (
                    m.score >= top.score - cfg.format_margin
                    and m.format != top.format
                    and m.format not in rivals
                    and m.verdict != top.verdict
                    and self.related(top, m) >= cfg.same_topic
                ):
                    rivals[m.format] = m
            if rivals:
                return self._disagree([top, *rivals.values()])
        return self._verdict(top)

    def related(self, a: ClaimMatch, b: ClaimMatch) -> float:
        """How alike b is to what a's passage claims (cosine, best over the claims stated in a's
        passage and the en/pt pairs; 1.0 without vectors)."""
        vectors = self.index.claim_vectors
        if vectors is None or self.index.embedder is None:
            return 1.0
        j = self._position[b.node.id]
        rows = [r for i in self._by_source[a.source] for r in (2 * i, 2 * i + 1)]
        return float((vectors[rows] @ vectors[2 * j : 2 * j + 2].T).max())

    @cached_property
    def _position(self) -> dict[str, int]:
        return {n.id: i for i, n in enumerate(self.index.claims)}

    @cached_property
    def _by_source(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, info in enumerate(self._meta):
            out.setdefault(info.source, []).append(i)
        return out

    def _names(self, fmt: str) -> tuple[str, str]:
        return self.formats.label(fmt, "en"), self.formats.label(fmt, "pt")

    def _step(self, m: ClaimMatch) -> Step:
        en_fmt, pt_fmt = self._names(m.format)
        holds = bool(m.node.props["holds"])
        return Step(
            f"Rule ({en_fmt}): “{m.node.label_en}” — {'holds' if holds else 'does not hold'}.",
            f"Regra ({pt_fmt}): “{m.node.label_pt}” — {'vale' if holds else 'não vale'}.",
            m.node.id,
        )

    def _steps(self, m: ClaimMatch) -> list[Step]:
        """The claim applied, then the sentence of the document stating it."""
        sentence = m.node.text or ""
        return [self._step(m), Step(f"Source: {sentence}", f"Fonte: {sentence}", m.source)]

    def _verdict(self, m: ClaimMatch) -> Decision:
        sentence = m.node.text or ""
        yes = m.verdict
        en_fmt, pt_fmt = self._names(m.format)
        return Decision(
            "yes" if yes else "no",
            self._steps(m),
            f"{'Yes' if yes else 'No'} ({en_fmt}). The rules state: “{sentence}”",
            f"{'Sim' if yes else 'Não'} ({pt_fmt}). Segundo as regras: “{sentence}”",
            round(m.score, 3),  # the alignment; bench.calibrate turns it into a probability
            [m.node.id, m.source],
            "claim",
        )

    def _open(self, m: ClaimMatch) -> Decision:
        sentence = m.node.text or ""
        return Decision(
            None,
            self._steps(m),
            f"{m.node.label_en if m.node.props['holds'] else sentence}",
            f"{m.node.label_pt if m.node.props['holds'] else sentence}",
            round(min(0.8, max(0.4, m.score - 0.1)), 2),
            [m.node.id, m.source],
            "claim",
        )

    def _disagree(self, matches: list[ClaimMatch]) -> Decision:
        def part(m: ClaimMatch, lang: str) -> str:
            en_fmt, pt_fmt = self._names(m.format)
            if lang == "en":
                return f"{en_fmt}: {'yes' if m.verdict else 'no'} (“{m.node.text}”)"
            return f"{pt_fmt}: {'sim' if m.verdict else 'não'} (“{m.node.text}”)"

        return Decision(
            None,
            [self._step(m) for m in matches],
            "The formats disagree, so there is no single answer; give the format. "
            + "; ".join(part(m, "en") for m in matches),
            "Os formatos divergem, então não há uma resposta única; informe o formato. "
            + "; ".join(part(m, "pt") for m in matches),
            0.5,
            [m.node.id for m in matches] + [m.source for m in matches],
            "formats-disagree",
        )

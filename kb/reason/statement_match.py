"""Deciding by the documents' own statements: match the question's roles, read the polarity.

Every rule sentence was read at ingest into a `Statement` (kb/reading). The question is read by
the same reader; each statement of the asked format (and today's rules) is scored by

- meaning: the cosine of the question's embedding with the statement's clauses (pt ↔ en);
- roles: the question's entities found in the statement, directly or through the classes a card
  or concept belongs to in the graph (a rule about a class speaks of each card of it), and the
  content stems both use, weighted by how rarely the statements use them;

and a statement is passed over when a shared entity plays another role (what responds against
what is responded to), or when it names another party (the teammate, not the opponent). The
best statement's polarity, flipped by an exception the question falls under and by the
question's own polarity, is the verdict; a statement of "can" does not decide a "must". Two
statements scoring alike with opposite verdicts decide nothing, and the reasoning says so.

This module reads the typed question and the graph only: no raw text, no regular expression.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from kb.graph import KnowledgeGraph
from kb.model import Node, Span
from kb.reading.proposition import Condition, Proposition, Quantity, QuestionReading
from kb.reading.reader import TIMES
from kb.reading.relations import relations
from kb.reason import Decision, Step
from kb.reason.facts import EVERY_MONSTER, broader_chain
from kb.search.index import SearchIndex

PARTIES = frozenset({"opponent", "teammate", "team", "turn-player"})
# Parties that are never the duelist asking ("can I …?")
_OTHERS = frozenset({"opponent", "teammate"})
# Actions whose target is the other side of a relation (what is responded or chained to): the
# ones `kb/reading/relations.yaml` reads as can_respond_to.
# What a card is, as far as rules about classes go: its kinds, effect types, Summon kind, Spell
# Speed and what it can do (negate Summons, negate activations …).
_CARD_CLASSES = frozenset(
    {"instance_of", "has_effect_type", "summoned_by", "has_spell_speed", "has_capability"}
)
_MAX = 1 << 62  # past any offset or index, for bisecting (start, end, index) rows
# Roles that tell apart what acts (or is acted on) from what it is directed at.
_DIRECTED = "target"
# Dependent clauses a rule holds under (its case), as against causes, exceptions and contrasts.
_CONDITIONAL = frozenset({"condition", "time"})


@dataclass(frozen=True)
class StatementSettings:
    """The matcher's tuned values (kb.config.Settings `statement_*`); bench.fit searches them on
    half of the evaluation questions and reports the other half."""

    min_score: float = 0.95  # under this nothing the documents say decides the question
    lexical_weight: float = 0.35  # how much shared entities and stems add to the cosine
    context_weight: float = 0.15  # how much the question's whole set-up found around it adds
    tie_margin: float = 0.01  # statements this close with opposite verdicts: formats/rules differ
    other_format_penalty: float = 0.03  # a statement of another format than the one asked
    amount_margin: float = 0.08  # a statement of the amount asked this close to the best wins
    # how far above a sentence that cannot speak to the question the best statement must score to
    # decide in its place
    override_margin: float = 0.08
    # two card classes no card has together, each held by this many cards, exclude each other
    exclusive_min: int = 20
    # a class held by at most this share of the cards singles a card out (a rule about it speaks
    # of the card the question names)
    singling_share: float = 0.05


@dataclass(frozen=True)
class Scored:
    node: Node
    prop: Proposition
    score: float
    dense: float
    lexical: float
    verdict: str | None
    flipped_by_exception: bool


class StatementMatcher:
    """The statements of one graph, indexed for matching questions against them."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        index: SearchIndex | None,
        base_format: str | None,
        settings: StatementSettings | None = None,
    ) -> None:
        self.settings = settings or StatementSettings()
        self.directed_actions = frozenset(a for r in relations() for a in r.action)
        self.kg = kg
        self.index = index
        self.base = base_format
        self.statements: list[tuple[Node, Proposition]] = []
        for n in sorted(kg.of_type("Statement"), key=lambda n: n.id):
            start, end = n.props.get("clause") or (n.span.start, n.span.end) if n.span else (0, 0)
            self.statements.append((n, Proposition.from_props(start, end, n.props)))
        self._idf_cache: dict[str, float] = {}
        self._last_candidates: tuple[tuple[object, ...], list[Scored]] | None = None
        self._class_items_cache: dict[str, frozenset[str]] = {}
        # a statement also speaks of what its section is about (a bullet's implicit subject:
        # "-PODEM ser negados …" under the heading naming inherent Special Summons)
        # and it holds in its document's format, said or not ("No Formato Edison, …" says no
        # more of Edison than any other sentence of the Edison document)
        self._items_of = [
            frozenset(self._items(p) | self._section_items(n) | _format_item(n))
            for n, p in self.statements
        ]
        self._df: Counter[str] = Counter()
        self._postings: dict[str, list[int]] = {}
        for i, items in enumerate(self._items_of):
            self._df.update(items)
            for item in items:
                self._postings.setdefault(item, []).append(i)
        self._formats = [n.props.get("format") for n, _ in self.statements]
        # each statement's clauses in the search index, flattened for one product per question
        clauses = [self._clause_ids(n) for n, _ in self.statements]
        self._with_clauses = np.array([i for i, c in enumerate(clauses) if c], dtype=np.int64)
        self._flat = np.array([c for cs in clauses for c in cs], dtype=np.int64)
        lengths = [len(c) for c in clauses if c]
        self._starts = np.cumsum([0, *lengths[:-1]]).astype(np.int64)
        # what the rest of its passage says: the set-up of an example, the rule around a clause
        by_parent: dict[str | None, set[str]] = {}
        for n, p in self.statements:
            by_parent.setdefault(n.parent, set()).update(self._items(p))
        self._context = [frozenset(by_parent[n.parent]) for n, _ in self.statements]
        self.disjoint: dict[str, set[str]] = {}
        for f in kg.with_predicate("disjoint_with"):
            self.disjoint.setdefault(f.subject, set()).add(f.object)
            self.disjoint.setdefault(f.object, set()).add(f.subject)

    @cached_property
    def _by_document(self) -> dict[str, list[tuple[int, int, int]]]:
        """Each document's statements as (start, end, index), by start."""
        out: dict[str, list[tuple[int, int, int]]] = {}
        for i, (n, _) in enumerate(self.statements):
            if n.span is not None:
                out.setdefault(n.span.document, []).append((n.span.start, n.span.end, i))
        for rows in out.values():
            rows.sort()
        return out

    def _at(self, at: Span) -> frozenset[int]:
        """The statements whose sentence holds the position `at`."""
        rows = self._by_document.get(at.document, [])
        found = set()
        for start, end, i in rows[: bisect_right(rows, (at.start, _MAX, _MAX))]:
            if start <= at.start < end:
                found.add(i)
        return frozenset(found)

    def _items(self, p: Proposition) -> set[str]:
        return _item_set(p.all_stems, p.all_entities)

    def _section_items(self, n: Node) -> set[str]:
        section = n.props.get("section")
        if not section:
            return set()
        return {
            f"@{f.object}"
            for f in self.kg.out(str(section), "about")
            if not f.object.startswith("format/")
        }

    def _clause_ids(self, n: Node) -> list[int]:
        """The search index's clauses that lie inside the statement's sentence."""
        if n.span is None or n.parent is None or self.index is None:
            return []
        lo, hi = n.props.get("clause") or (n.span.start, n.span.end)
        unit = self.index.position.get(n.parent)
        if unit is None:
            unit = self.index._indexed_ancestor(n.parent)
        if unit is None:
            return []
        unit_node = self.index.units[unit]
        if unit_node.span is None:
            return []
        base = unit_node.span.start
        out = []
        for c in self.index.clauses_of.get(unit, []):
            cl = self.index.clauses[c]
            a, b = base + cl.start, base + cl.end
            if a < hi and b > lo:
                out.append(c)
        return out

    def _idf(self, item: str) -> float:
        w = self._idf_cache.get(item)
        if w is None:
            w = self._idf_cache[item] = math.log(1 + len(self.statements) / (1 + self._df[item]))
        return w

    def _class_items(self, entity: str) -> frozenset[str]:
        got = self._class_items_cache.get(entity)
        if got is None:
            got = self._class_items_cache[entity] = frozenset(f"@{c}" for c in self.classes(entity))
        return got

    @cached_property
    def _class_cache(self) -> dict[str, frozenset[str]]:
        return {}

    def classes(self, entity: str) -> frozenset[str]:
        """What an entity is, through the graph: a card's classes and their broader concepts, a
        concept's broader ones."""
        cache = self._class_cache
        if entity not in cache:
            out: set[str] = set()
            seeds = (
                {
                    f.object
                    for f in self.kg.out(entity)
                    if f.predicate in _CARD_CLASSES and f.object not in EVERY_MONSTER
                }
                if entity.startswith("card/")
                else set()
            )
            if entity.startswith("concept/"):
                seeds.add(entity)
            for s in seeds:
                out.add(s)
                out.update(broader_chain(self.kg, s))
            out.discard(entity)
            cache[entity] = frozenset(out)
        return cache[entity]

    # --- scoring ---------------------------------------------------------------------------
    def _coverage(
        self, entities: Iterable[str], stems: Iterable[str], s_items: frozenset[str] | set[str]
    ) -> float:
        """Weighted share of the question's entities and stems the statement has (an entity
        reached through one of its classes counts 0.7)."""
        total = got = 0.0
        for e in entities:
            w = self._idf(f"@{e}")
            total += w
            if f"@{e}" in s_items:
                got += w
            elif not self._class_items(e).isdisjoint(s_items):
                got += 0.7 * w
        for stem in stems:
            w = self._idf(stem)
            total += w
            if stem in s_items:
                got += w
        if total == 0:
            return 0.0
        return got / total

    def _role_conflict(self, q: Proposition, s: Proposition) -> bool:
        """A shared entity (or its class) that is what acts in one and what is acted towards
        in the other: "X chained to Y" is not "Y chained to X"."""
        for e, qr in q.roles:
            if not e.startswith("card/"):
                continue
            for cand in (e, *self.classes(e)):
                sr = s.role_of(cand)
                if sr is None:
                    continue
                if (qr == _DIRECTED) != (sr == _DIRECTED):
                    return True
                break
        return False

    @cached_property
    def _card_kinds(self) -> tuple[dict[str, frozenset[str]], Counter[str]]:
        """Each card's classes (every class fact, the monster's kind included), and how many
        cards hold each class."""
        own: dict[str, set[str]] = {}
        for p in _CARD_CLASSES:
            for f in self.kg.with_predicate(p):
                if f.subject.startswith("card/"):
                    own.setdefault(f.subject, set()).add(f.object)
        held: Counter[str] = Counter()
        for kinds in own.values():
            held.update(kinds)
        return {c: frozenset(k) for c, k in own.items()}, held

    @cached_property
    def exclusive(self) -> dict[str, frozenset[str]]:
        """Each card class → the classes no card of the graph has with it, both held by at least
        `exclusive_min` cards (read from the card facts: a Counter Trap is never a monster, a
        Spell Speed 3 effect never Spell Speed 2)."""
        own, held = self._card_kinds
        together: Counter[tuple[str, str]] = Counter()
        for kinds in own.values():
            ordered = sorted(kinds)
            together.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
        common = sorted(k for k, n in held.items() if n >= self.settings.exclusive_min)
        out: dict[str, set[str]] = {}
        for i, a in enumerate(common):
            for b in common[i + 1 :]:
                if not together[(a, b)]:
                    out.setdefault(a, set()).add(b)
                    out.setdefault(b, set()).add(a)
        # a class no card holds by itself ("a Spell/Trap Card") excludes what every class right
        # under it excludes, when those are kinds of card no card is two of (it is split in them)
        under: dict[str, set[str]] = {}
        for f in self.kg.with_predicate("broader"):
            under.setdefault(f.object, set()).add(f.subject)
        for c, parts in under.items():
            if held[c] or len(parts) < 2 or not all(k in out for k in parts):
                continue
            if any(b not in out[a] for a in parts for b in parts if a != b):
                continue
            shared = set.intersection(*(out[k] for k in parts))
            if shared:
                out[c] = shared
                for x in shared:
                    out.setdefault(x, set()).add(c)
        return {k: frozenset(v) for k, v in out.items()}

    def singling(self, card: str) -> frozenset[str]:
        """The card's classes that single it out: held by at most `singling_share` of the
        cards (a Counter Trap, a Gemini monster; not "a Trap Card" or "Spell Speed 1")."""
        own, held = self._card_kinds
        most = self.settings.singling_share * max(len(own), 1)
        return frozenset(k for k in own.get(card, ()) if held[k] <= most)

    def other_card_kind(self, q: Proposition, s: Proposition) -> bool:
        """The statement speaks of a kind of card that a card of the question is not, and cannot
        be (no card is of both): a rule about Spell Speed 2 negators says nothing of a Counter
        Trap. A statement listing the card's kind beside one excluding it classifies, and one naming
        the card speaks of it: both stay."""
        exclusive = self.exclusive
        kinds = {e for e in s.entities if e in exclusive}
        if not kinds:
            return False
        cards = [e for e in q.entities if e.startswith("card/")]
        for e in cards:
            if e in s.all_entities:
                continue  # (a statement naming the card itself speaks of it)
            own = self._card_kinds[0].get(e, frozenset())
            if not own:
                continue
            # a kind another card of the question is of speaks of that card ("a monster equipped
            # with 1 Union" of the Fusion Monster and the Union Monster asked about)
            others = {k for c in cards if c != e for k in self.classes(c)}
            for k in kinds - own - others:
                if exclusive[k] & own and not exclusive[k] & own & kinds:
                    return True
        return False

    def narrower_kind(self, q: Proposition, s: Proposition) -> bool:
        """The statement's relative clause narrows what it speaks of to a kind of card a card of
        the question is not ("Spells/Traps that negate activations" of a Spell that negates
        nothing): a kind some card holds, that the card holds neither itself nor by a class."""
        held = self._card_kinds[1]
        narrowing = [
            kinds
            for c in s.conditions
            if c.kind == "relative" and not c.negative
            for kinds in [frozenset(e for e in c.entities if held[e])]
            if kinds
        ]
        if not narrowing:
            return False
        for e in q.entities:
            if not e.startswith("card/") or e in s.all_entities:
                continue
            own = self._card_kinds[0].get(e, frozenset()) | self.classes(e)
            if own and any(not kinds & own for kinds in narrowing):
                return True
        return False

    def speaks_to(self, q: Proposition, s: Proposition) -> bool:
        """A statement speaks to the question when it says something of what the question asks
        besides naming its cards (an action, a concept or a word of the asking clause), and of
        each card the asking clause names: the card itself or a class it belongs to (a general
        rule about Spell Speed 1 speaks of Pot of Greed)."""
        s_items = self._items(s)
        s_entities = s.all_entities
        asked = {f"@{e}" for e in q.all_entities if not e.startswith("card/")} | set(q.all_stems)
        if not asked & s_items:
            return False  # (a question naming only cards asks nothing a statement could decide)
        named = [e for e in q.entities if e.startswith("card/") and e not in q.denied]
        reached = [e in s_entities or bool(self.own_classes(e) & s_entities) for e in named]
        if all(reached):
            return True
        # a statement speaking of one card of the question by its kind speaks of the others as
        # what it names in general ("um monstro", "a monster"), when they are that
        return any(reached) and all(
            ok or bool(self.classes(e) & EVERY_MONSTER & s_entities)
            for e, ok in zip(named, reached, strict=True)
        )

    def own_classes(self, card: str) -> frozenset[str]:
        """A card's own classes from its facts, without their broader ones (a rule about
        "effects" in general does not single out a card)."""
        return frozenset(
            f.object
            for f in self.kg.out(card)
            if f.predicate in _CARD_CLASSES and f.object not in EVERY_MONSTER
        )

    def swaps_roles(self, q: QuestionReading, span: Span) -> bool:
        """The question asks what responds to what, and every statement read from the sentence
        at `span` gives a card of the question (or a class of it) the other side."""
        if q.asking is None or not q.asking.entities & self.directed_actions:
            return False
        found = self._by_span.get(span, ())
        return bool(found) and all(self._role_conflict(q.asking, p) for p in found)

    @cached_property
    def _by_span(self) -> dict[Span, list[Proposition]]:
        """The statements read from each sentence, by the sentence's span."""
        out: dict[Span, list[Proposition]] = {}
        for n, p in self.statements:
            if n.span is not None:
                out.setdefault(n.span, []).append(p)
        return out

    def other_case(self, q: QuestionReading, at: Span) -> bool:
        """A statement read from the sentence holding `at` states another amount of what the
        question counts, or a kind excluding the one it asks about: the question is another case
        than the sentence's (read from the typed propositions, whatever decided the polarity)."""
        if q.asking is None:
            return False
        found = [self.statements[i][1] for i in self._at(at)]
        return self.another_case(q, found)

    def another_case(self, q: QuestionReading, props: Iterable[Proposition]) -> bool:
        """The positive propositions state another amount of what the question counts (and
        none of them the amount asked: "each may run one, so a team has two" gives one), or one
        states a kind excluding the one it asks about, or the other end of an order."""
        if q.asking is None:
            return False
        positive = [p for p in props if not p.negative]
        amounts = [x for p in positive for x in p.quantities]
        restrictive = any(p.restrictive for p in positive)
        done = frozenset(e for p in positive for e in p.all_entities)
        return self._other_amount_of(q.asking, amounts, restrictive, done) or any(
            self._other_kind(q.asking, p) or _other_end(q.asking, p) for p in positive
        )

    @staticmethod
    def _other_party(q: Proposition, s: Proposition) -> bool:
        return q.actor in PARTIES and s.actor in PARTIES and q.actor != s.actor

    def _exception_applies(self, q: Proposition, s: Proposition) -> bool:
        """The question is a case of the statement's exception ("… a menos que controle X" and
        the question has X; not when it says "without X")."""
        present = q.all_entities - q.denied
        q_entities = present | {c for e in present for c in self.classes(e)}
        for ex in s.exceptions:
            own = ex.entities - s.entities  # what singles the exception out of the rule
            if own & q.denied:
                continue  # "without X": the question is not the exception's case
            if own & q_entities:
                return True
            if ex.stems and len(ex.stems & q.all_stems) * 2 >= len(ex.stems):
                return True
        return False

    def _other_kind(self, q: Proposition, s: Proposition) -> bool:
        """The statement speaks of a kind that excludes one the question asks about, and not of
        that one ("Dark Simorgh is non-inherent" to "is it an inherent Summon?")."""
        s_entities = s.entities
        for e in q.entities:
            others = self.disjoint.get(e, set()) & s_entities
            if e in s_entities or not others:
                continue
            # a statement listing kinds that exclude each other classifies; it is no other case
            if not any(self.disjoint.get(o, set()) & others for o in others):
                return True
        return False

    def _lacks_required(self, q: Proposition, s: Proposition) -> bool:
        """The statement says what must be there ("Ritual monsters need a Spell Card") and the
        question goes without it, or without a kind of it ("without any Spell Card?")."""
        if s.modality != "must" or s.negative or not q.denied:
            return False
        required = s.entities - s.denied
        return any(d in required or self.classes(d) & required for d in q.denied)

    def _done(self, entities: frozenset[str]) -> frozenset[str]:
        """What a statement names that can be done: not the duelists, teams and parties (the
        times a turn passes are not a number of opponents)."""
        return frozenset(
            e for e in entities if not ({e} | self.classes(e)) & {"concept/duelist", "concept/team"}
        )

    def _same_unit(self, a: str, b: str) -> bool:
        """Two counted things are the same: the same stem, or entities one of which is a kind
        of the other (Extra Monster Zones are Zones)."""
        if a.startswith("@") and b.startswith("@"):
            x, y = a[1:], b[1:]
            return x == y or x in self.classes(y) or y in self.classes(x)
        return _same_unit(a, b)

    def _other_amount(self, q: Proposition, s: Proposition) -> bool:
        """The statement gives another amount of the same unit than the question asks about
        ("best of one" to "best of three?", "2 Zones per team" to "4 zones in total?"), the cards
        the question names of a kind counting as an amount of it (Oilman and Heavy Mech Support
        Platform: two Union monsters)."""
        named = self._named_amounts(q, s.quantities)
        if named:
            q = replace(q, quantities=(*q.quantities, *named))
        return self._other_amount_of(q, s.quantities, s.restrictive, s.all_entities)

    def _named_amounts(self, q: Proposition, stated: Iterable[Quantity]) -> list[Quantity]:
        """For each kind the statement counts and the question gives no amount of, the number of
        cards of that kind the question names, when it names two or more: a kind that singles a
        card out (a Union monster, not a card or a monster)."""
        asked = {x.unit for x in q.quantities}
        cards = [e for e in q.all_entities - q.denied if e.startswith("card/")]
        out = []
        for x in stated:
            if not x.unit.startswith("@") or x.named or x.unit in asked:
                continue
            kind = x.unit[1:]
            n = sum(1 for c in cards if kind in self.singling(c))
            if n >= 2:
                out.append(Quantity(n, x.unit, "min"))
        return out

    def _other_amount_of(
        self,
        q: Proposition,
        stated: Iterable[Quantity],
        restrictive: bool,
        done: frozenset[str] = frozenset(),
    ) -> bool:
        """`done`: what the statement speaks of doing; how many times it says it is done counts
        it ("once per turn" of a Normal Summon against "another Normal Summon this turn?")."""
        stated = list(stated)
        done = self._done(done) if q.quantities else done
        for qq in q.quantities:
            same_unit = [x for x in stated if self._same_unit(x.unit, qq.unit)] or [
                x for x in stated if _times_of(x, qq, done)
            ]  # (how often the thing is done, when no amount of it is given)
            if same_unit and not any(
                _compatible(qq, x, restrictive, q.restrictive) for x in same_unit
            ):
                return True
        return False

    def _verdict(self, q: Proposition, s: Proposition, exception: bool) -> str | None:
        negative = s.negative != exception
        if self._other_side_in_time(q, s):
            negative = not negative  # "not at or after damage calculation": before it, it may
        elif not negative and (
            self._other_kind(q, s)
            or self._lacks_required(q, s)
            or self._other_amount(q, s)
            or _other_end(q, s)
            or self._condition_clash(q, s)
            or _exclusive_terms(q, s)
        ):
            negative = True
        if q.modality == "must" and s.modality in ("can", "fact") and not negative:
            return None  # "it may" does not say "it must"
        if s.restrictive and not negative and _another_actor(q.actor, s.actor):
            negative = True  # "only the duelist who activated it": not the teammate asked about
        return "yes" if negative == q.negative else "no"

    def _other_side_in_time(self, q: Proposition, s: Proposition) -> bool:
        """The question asks about the time before what the statement's time clause says after,
        or after what it says before ("before damage calculation?" against "at or after damage
        calculation"): the statement holds on the other side of the same point."""
        for qc in q.conditions:
            if qc.relation is None:
                continue
            q_items = qc.stems | qc.entities
            for sc in s.conditions:
                if sc.relation is None or sc.relation == qc.relation:
                    continue
                reach = sc.stems | sc.entities | {c for e in sc.entities for c in self.classes(e)}
                shared = q_items & reach
                if shared and 2 * len(shared) >= len(q_items):
                    return True
        return False

    def _condition_clash(self, q: Proposition, s: Proposition) -> bool:
        """The question holds under the opposite of the statement's condition on the same thing
        ("when the Summon starts a chain?" against "as long as the Summon does not start one"; "an
        effect that negates nothing?" against "only if they negate activations"): its case is not
        the statement's. The statement's condition speaks of the kinds its entities are of."""
        for qc in q.conditions:
            if qc.kind not in _CONDITIONAL and qc.kind != "relative":
                continue
            q_items = qc.stems | qc.entities
            for sc in s.conditions:
                if sc.kind not in _CONDITIONAL or sc.negative == qc.negative:
                    continue
                s_items = sc.stems | sc.entities
                reach = s_items | {c for e in sc.entities for c in self.classes(e)}
                shared = q_items & reach
                if shared and 2 * len(shared) >= max(len(q_items), len(s_items)):
                    return True
        return False

    def _dense(self, qvec: np.ndarray | None) -> np.ndarray:
        """Each statement's best cosine with the question (0 without vectors)."""
        out = np.zeros(len(self.statements), dtype=np.float32)
        vectors = self.index.clause_vectors if self.index is not None else None
        if qvec is None or vectors is None or not len(self._flat):
            return out
        sims = vectors[self._flat] @ qvec
        out[self._with_clauses] = np.maximum.reduceat(sims, self._starts)
        return out

    def rank(
        self, q: QuestionReading, fmt: str | None, qvec: np.ndarray | None, depth: int = 40
    ) -> list[Scored]:
        """The statements that share something with the question, best first (the first
        `depth` with their verdicts read)."""
        asking = q.asking
        if asking is None:
            return []
        out = []
        for score, d, lexical, i in self._scored(q, fmt, qvec)[:depth]:
            node, prop = self.statements[i]
            exception = self._exception_applies(asking, prop)
            verdict = self._verdict(asking, prop, exception)
            out.append(Scored(node, prop, score, d, lexical, verdict, exception))
        return out

    def _scored(
        self, q: QuestionReading, fmt: str | None, qvec: np.ndarray | None
    ) -> list[tuple[float, float, float, int]]:
        """(score, cosine, lexical, statement) of every statement sharing something with the
        question, best first."""
        asking = q.asking
        if asking is None:
            return []
        setup_entities = {e for p in q.setup for e in p.all_entities}
        setup_stems = {t for p in q.setup for t in p.all_stems}
        all_entities = asking.all_entities | setup_entities
        all_stems = asking.all_stems | setup_stems
        reach = {f"@{c}" for e in all_entities for c in (e, *self.classes(e))} | all_stems
        candidates = sorted({i for item in reach for i in self._postings.get(item, ())})
        dense = self._dense(qvec)
        cfg = self.settings
        scored: list[tuple[float, float, float, int]] = []
        for i in candidates:
            s_fmt = self._formats[i]
            if fmt is not None and s_fmt not in (fmt, self.base):
                continue
            lexical = self._coverage(asking.all_entities, asking.all_stems, self._items_of[i])
            around = self._coverage(all_entities, all_stems, self._context[i])
            score = float(dense[i]) + cfg.lexical_weight * lexical + cfg.context_weight * around
            if s_fmt != (fmt or self.base) and s_fmt != self.base:
                score -= cfg.other_format_penalty
            scored.append((score, float(dense[i]), lexical, i))
        scored.sort(key=lambda t: -t[0])
        return scored

    def candidates(
        self, q: QuestionReading, fmt: str | None, qvec: np.ndarray | None
    ) -> list[Scored]:
        """The ranked statements that can speak to the question: none with a shared entity in
        another role, none about another party, each saying something of what is asked."""
        asking = q.asking
        if asking is None:
            return []
        # the last question's candidates: the passage fallback asks for them up to three times
        key = (id(q), q.text, fmt, qvec is None)
        last = self._last_candidates
        if last is not None and last[0] == key:
            return last[1]
        found = [
            s
            for s in self.rank(q, fmt, qvec)
            if not self._role_conflict(asking, s.prop)
            and not self._other_party(asking, s.prop)
            and not self.other_card_kind(asking, s.prop)
            and not self.narrower_kind(asking, s.prop)
            and self.speaks_to(asking, s.prop)
        ]
        self._last_candidates = (key, found)  # one attribute, replaced whole (threads share it)
        return found

    def counting(
        self, q: QuestionReading, fmt: str | None, qvec: np.ndarray | None
    ) -> Scored | None:
        """The statement that gives an amount of what the question counts, when one scores within
        `amount_margin` of the best: more specific than a rule that names the thing without its
        amount ("limits how many Unions a monster may equip" against "only 1 Union at a time")."""
        asking = q.asking
        if asking is None or not q.yes_no:
            return None
        ranked = self.candidates(q, fmt, qvec)
        if not ranked or ranked[0].score < self.settings.min_score:
            return None
        floor = ranked[0].score - self.settings.amount_margin
        for s in ranked:
            if s.score < floor:
                break
            if s.verdict is not None and self.states_amount(asking, s.prop):
                return s
        return None

    def states_amount(self, q: Proposition, s: Proposition) -> bool:
        """The statement gives an amount of something the question counts (or of a kind the
        question names two cards or more of)."""
        if self._named_amounts(q, s.quantities):
            return True
        done = self._done(s.all_entities) if q.quantities and s.quantities else frozenset()
        return any(
            self._same_unit(x.unit, qq.unit) or _times_of(x, qq, done)
            for qq in q.quantities
            if qq.unit and not qq.named
            for x in s.quantities
            if not x.named
        )

    def states_amount_at(self, q: QuestionReading, at: Span) -> bool:
        """A statement read from the sentence holding `at` gives an amount the question counts."""
        if q.asking is None:
            return False
        return any(self.states_amount(q.asking, self.statements[i][1]) for i in self._at(at))

    def speaks_at(self, q: QuestionReading, at: Span) -> bool | None:
        """Whether a statement read from the sentence holding `at` can speak to the question (no
        shared card in another role, no other party, something of what is asked); None when no
        statement was read from it."""
        asking = q.asking
        found = [self.statements[i][1] for i in self._at(at)]
        if asking is None or not found:
            return None
        return any(
            not self._role_conflict(asking, p)
            and not self._other_party(asking, p)
            and self.speaks_to(asking, p)
            for p in found
        )

    def verdict_at(self, q: QuestionReading, at: Span) -> str | None:
        """The verdict of the statement read from the clause at `at` (of the sentence holding it,
        the main clause saying most of the question, then overlapping `at` most), when it can
        speak to the question; None otherwise."""
        asking = q.asking
        if asking is None:
            return None
        best: tuple[float, int, int] | None = None
        for i in self._at(at):
            prop = self.statements[i][1]
            if self._role_conflict(asking, prop) or self._other_party(asking, prop):
                continue
            overlap = min(prop.end, at.end) - max(prop.start, at.start)
            if overlap <= 0:
                continue  # another clause of the sentence
            fit = self._coverage(asking.all_entities, asking.all_stems, self._items_of[i])
            if best is None or (fit, overlap) > best[:2]:
                best = (fit, overlap, i)
        if best is None:
            return None
        prop = self.statements[best[2]][1]
        cause = self._asserted_cause(asking, prop)
        if cause is not None:
            return "yes" if cause.negative == asking.negative else "no"
        return self._verdict(asking, prop, self._exception_applies(asking, prop))

    def _asserted_cause(self, q: Proposition, s: Proposition) -> Condition | None:
        """The statement's cause clause ("visto que X", "since X": X is asserted) when it says
        more of what the question asks than the main clause does."""
        main = self._coverage(q.all_entities, q.all_stems, _item_set(s.stems, s.entities))
        best: tuple[float, Condition] | None = None
        for c in s.conditions:
            if c.kind != "cause":
                continue
            got = self._coverage(q.all_entities, q.all_stems, _item_set(c.stems, c.entities))
            if got > main and (best is None or got > best[0]):
                best = (got, c)
        return best[1] if best else None

    def instead_of(
        self, q: QuestionReading, at: Span, fmt: str | None, qvec: np.ndarray | None
    ) -> Decision | None:
        """The decision of the statements matched by role in place of the sentence holding `at`,
        when no statement read from that sentence can speak to the question (a card of it in
        another role, another party, nothing asked) and the best statement scores
        `override_margin` above it with a verdict (statements that disagree leave it be)."""
        if self.speaks_at(q, at) is not False:
            return None
        here = self._at(at)
        own = max(
            (score for score, _, _, i in self._scored(q, fmt, qvec) if i in here), default=None
        )
        ranked = self.candidates(q, fmt, qvec)
        if own is None or not ranked or ranked[0].score < own + self.settings.override_margin:
            return None
        decided = self.decide(q, fmt, qvec)
        # statements that disagree say nothing of the sentence: it keeps deciding
        return decided if decided is not None and decided.verdict is not None else None

    def of_cards(self, s: Proposition, cards: Iterable[str]) -> bool:
        """The statement names one of the cards or a class singling one of them out."""
        named = s.all_entities
        return any(c in named or self.singling(c) & named for c in cards)

    def decide(
        self,
        q: QuestionReading,
        fmt: str | None,
        qvec: np.ndarray | None,
        cards: frozenset[str] = frozenset(),
    ) -> Decision | None:
        """The verdict of the best statement, or None when none scores `min_score`; statements
        that disagree, scoring alike, decide nothing (verdict null, both cited). With `cards`, the
        best statement decides only if it speaks of one of them, by name or by a class singling
        it out, and holds in the format asked (today's rules when none is)."""
        cfg = self.settings
        ranked = self.candidates(q, fmt, qvec)
        if not ranked or ranked[0].score < cfg.min_score:
            return None
        best = ranked[0]
        if cards and (
            not self.of_cards(best.prop, cards)
            or best.node.props.get("format") not in (fmt or self.base, self.base)
        ):
            return None
        if not q.yes_no:
            return _value_decision(best)
        if best.verdict is None:
            return None
        rivals = [
            r
            for r in ranked[1:6]
            if r.score >= best.score - cfg.tie_margin
            and r.verdict is not None
            and r.verdict != best.verdict
            and r.node.span != best.node.span
        ]
        if rivals:
            return _disagreement(best, rivals[0])
        return _yes_no_decision(best)


def _another_actor(asked: str | None, said: str | None) -> bool:
    """The question's actor is not the one the statement names: another party, or the duelist
    asking against a party that is never the one asking (the teammate, the opponent)."""
    if asked in PARTIES:
        return said != asked
    return asked == "player" and said in _OTHERS


def _other_end(q: Proposition, s: Proposition) -> bool:
    """The statement names one end of an order and the question only the other, of the same
    thing ("resolves from the card activated last" to "does the first card activated resolve
    first?"; not "the last player to activate" to "may the opponent respond first?")."""
    return bool(
        q.ordinals
        and s.ordinals
        and not q.ordinals & s.ordinals
        and q.ordinal_scope & s.ordinal_scope
    )


def _exclusive_terms(q: Proposition, s: Proposition) -> bool:
    """The question uses one term of an exclusive set and the statement only others of it
    ("the same as a Flip Summon?" against "há uma diferença entre … e uma Invocação-Virar")."""
    asked, said = _places(q.terms), _places(s.terms)
    return any(len(v) == 1 and said.get(k) and not said[k] & v for k, v in asked.items())


def _places(terms: Iterable[str]) -> dict[str, set[str]]:
    """Terms ("<set id>:<place>") by their set: the places used of each."""
    out: dict[str, set[str]] = {}
    for term in terms:
        key, _, place = term.partition(":")
        out.setdefault(key, set()).add(place)
    return out


def _format_item(n: Node) -> set[str]:
    fmt = n.props.get("format")
    return {f"@format/{fmt}"} if fmt else set()


def _item_set(stems: Iterable[str], entities: Iterable[str]) -> set[str]:
    """What a clause says, as the matcher compares it: its stems and its entities ("@id")."""
    return {*stems, *(f"@{e}" for e in entities)}


def _compatible(q: Quantity, s: Quantity, restrictive: bool, only: bool = False) -> bool:
    """The amount asked can be what the statement allows: 2 against exactly 2, 3 against at most
    3, "more than one" against "only one" not; anything against "any number", but "only one"
    (`only`: the question restricts) not."""
    if s.bound == "any":
        return not only
    if q.bound == "any":
        return s.bound == "min"
    if s.bound == "max" or (restrictive and s.bound == "exact" and q.bound == "min"):
        return q.value <= s.value
    if s.bound == "min":
        return q.value >= s.value or q.bound == "min"
    if q.bound == "min":
        return s.value >= q.value
    if q.bound == "max":
        return s.value <= q.value
    return q.value == s.value


def _times_of(stated: Quantity, asked: Quantity, done: frozenset[str]) -> bool:
    """How many times the statement says something is done counts the thing done the question
    counts ("once per turn" of a Normal Summon against "another Normal Summon this turn?")."""
    return stated.unit == TIMES and asked.unit.startswith("@") and asked.unit[1:] in done


def _same_unit(a: str, b: str) -> bool:
    if a == b:
        return True
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and long.startswith(short)


def _step(s: Scored) -> Step:
    text = s.node.text or ""
    return Step(f"Deciding statement: {text}", f"Afirmação decisiva: {text}", s.node.parent)


def _yes_no_decision(s: Scored) -> Decision:
    yes = s.verdict == "yes"
    text = s.node.text or ""
    steps = [_step(s)]
    if s.flipped_by_exception:
        steps.append(
            Step(
                "The question falls under the statement's exception.",
                "A pergunta cai na exceção da afirmação.",
                s.node.parent,
            )
        )
    return Decision(
        verdict=s.verdict,
        steps=steps,
        summary_en=f"{'Yes' if yes else 'No'}. According to the rules: “{text}”",
        summary_pt=f"{'Sim' if yes else 'Não'}. Segundo as regras: “{text}”",
        confidence=round(min(0.95, max(0.3, s.score - 0.2)), 2),
        sources=[s.node.parent] if s.node.parent else [],
        reasoner="statement-match",
    )


def amount_decision(s: Scored, general: str, general_source: str) -> Decision:
    """The verdict of a statement giving the amount asked, over a more general sentence."""
    d = _yes_no_decision(s)
    why = Step(
        f"More specific than “{general}”: it gives the amount asked about.",
        f"Mais específica que “{general}”: dá a quantidade perguntada.",
        general_source,
    )
    return replace(d, steps=[*d.steps, why], sources=[*d.sources, general_source])


def _value_decision(s: Scored) -> Decision:
    text = s.node.text or ""
    return Decision(
        verdict=None,
        steps=[_step(s)],
        summary_en=text,
        summary_pt=text,
        confidence=None,
        sources=[s.node.parent] if s.node.parent else [],
        reasoner="statement-match",
    )


def _disagreement(a: Scored, b: Scored) -> Decision:
    ta, tb = a.node.text or "", b.node.text or ""
    return Decision(
        verdict=None,
        steps=[_step(a), _step(b)],
        summary_en=f"The documents say both “{ta}” and “{tb}”; neither is more specific.",
        summary_pt=f"Os documentos dizem tanto “{ta}” quanto “{tb}”; nenhuma é mais específica.",
        confidence=None,
        sources=[x for x in (a.node.parent, b.node.parent) if x],
        reasoner="statement-match",
    )


def entities_of(mentions: Iterable[object]) -> list[str]:
    return [str(getattr(m, "entity", "")) for m in mentions]

"""The typed values the reader produces: tokens, clauses, propositions and questions.

A `Proposition` is what one clause of a rule sentence or of a question says: who acts, with what
modality and polarity, the action (its content stems and the concepts it names), the entities in
each role, the conditions and exceptions it holds under, and the amounts it states. A document
sentence and a user's question are read into the same type, so matching them is comparing roles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from kb.reading.order import OrderAsked

Modality = Literal["fact", "can", "must", "always"]
Role = Literal["subject", "object", "target"]
ClauseKind = Literal[
    "main", "condition", "time", "exception", "cause", "contrast", "comparison", "relative", "aside"
]
QuestionKind = Literal["yes_no", "which", "who", "when", "how_many", "why", "what", "how", "choice"]
# Kinds answered with a value (verdict null): every kind but yes/no and why.
VALUE_KINDS: frozenset[str] = frozenset(get_args(QuestionKind)) - {"yes_no", "why"}


@dataclass(frozen=True)
class Token:
    """A word of the sentence (folded) or one entity the linker found (`entity` set)."""

    word: str
    start: int
    end: int
    stem: str = ""
    entity: str | None = None
    raw: str = ""  # as written, lowercase (an ordinal's "ª" is lost to folding)


Bound = Literal["exact", "min", "max", "any"]


# Dependent clauses that name something other than what the clause holds of.
_ASIDE: frozenset[str] = frozenset({"exception", "comparison"})


@dataclass(frozen=True)
class Quantity:
    value: int
    unit: str  # the stem of the word counted, "@<entity id>" for an entity ("" when none)
    # "mais de 1" is min 2, "no máximo 3" max 3, "vários" min 2, "qualquer número" any (value 0)
    bound: Bound = "exact"
    named: bool = False  # the number names one of them, not how many ("Elo 4", "Exemplo 2")


@dataclass(frozen=True)
class Condition:
    """A clause the main one holds under (or not): its kind, words and entities."""

    kind: ClauseKind
    stems: frozenset[str]
    entities: frozenset[str]
    negative: bool
    relation: str | None = None  # "before" or "after" what it names (a time clause's opener)


@dataclass(frozen=True)
class Proposition:
    """What one main clause says, with the clauses it depends on."""

    start: int  # character offsets into the text that was read
    end: int
    negative: bool
    modality: Modality
    restrictive: bool  # "only", "só", "apenas": it holds for what it names and nothing else
    passive: bool
    actor: str | None  # a role word: player, opponent, teammate, team, turn-player
    roles: tuple[tuple[str, Role], ...]  # (entity id, role) in the order read
    action: tuple[str, ...]  # content stems after the modal or verb: what is done to what
    stems: frozenset[str]  # every content stem of the main clause (entities excluded)
    conditions: tuple[Condition, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    denied: frozenset[str] = frozenset()  # entities said not to be there or not used ("sem X")
    ordinals: frozenset[str] = frozenset()  # ends of an order it names: "first", "last"
    ordinal_scope: frozenset[str] = frozenset()  # what the ordinals stand next to (stems, @ids)
    terms: frozenset[str] = frozenset()  # terms of exclusive sets used ("same-different:1")

    @property
    def entities(self) -> frozenset[str]:
        return frozenset(e for e, _ in self.roles)

    @property
    def subject(self) -> str | None:
        """The first entity read as the clause's subject (None: a party or nothing)."""
        return next((e for e, r in self.roles if r == "subject"), None)

    def role_of(self, entity: str) -> Role | None:
        return next((r for e, r in self.roles if e == entity), None)

    @property
    def exceptions(self) -> tuple[Condition, ...]:
        return tuple(c for c in self.conditions if c.kind == "exception")

    @property
    def all_stems(self) -> frozenset[str]:
        """The main clause's stems and its conditions' (an exception's or a comparison's
        excluded: "just like Synchro Monsters do" names what the clause is not about)."""
        extra = (c.stems for c in self.conditions if c.kind not in _ASIDE)
        return self.stems.union(*extra)

    @property
    def all_entities(self) -> frozenset[str]:
        extra = (c.entities for c in self.conditions if c.kind not in _ASIDE)
        return self.entities.union(*extra)

    def to_props(self) -> dict[str, object]:
        """A JSON-ready form, stored on a Statement node."""
        return {
            "negative": self.negative,
            "modality": self.modality,
            "restrictive": self.restrictive,
            "passive": self.passive,
            "actor": self.actor,
            "roles": [[e, r] for e, r in self.roles],
            "action": list(self.action),
            "stems": sorted(self.stems),
            "conditions": [
                {
                    "kind": c.kind,
                    "stems": sorted(c.stems),
                    "entities": sorted(c.entities),
                    "negative": c.negative,
                    **({"relation": c.relation} if c.relation else {}),
                }
                for c in self.conditions
            ],
            "quantities": [[q.value, q.unit, q.bound, q.named] for q in self.quantities],
            "denied": sorted(self.denied),
            "ordinals": sorted(self.ordinals),
            "ordinal_scope": sorted(self.ordinal_scope),
            "terms": sorted(self.terms),
        }

    @classmethod
    def from_props(cls, start: int, end: int, p: Mapping[str, Any]) -> Proposition:
        """The proposition `to_props` stored (a Statement node's props)."""
        conditions = tuple(
            Condition(
                kind=c["kind"],
                stems=frozenset(c["stems"]),
                entities=frozenset(c["entities"]),
                negative=bool(c["negative"]),
                relation=c.get("relation"),
            )
            for c in p.get("conditions", [])
        )
        return cls(
            start=start,
            end=end,
            negative=bool(p["negative"]),
            modality=p["modality"],
            restrictive=bool(p["restrictive"]),
            passive=bool(p["passive"]),
            actor=p.get("actor"),
            roles=tuple((str(e), r) for e, r in p["roles"]),
            action=tuple(p["action"]),
            stems=frozenset(p["stems"]),
            conditions=conditions,
            quantities=tuple(
                Quantity(int(q[0]), str(q[1]), q[2], bool(q[3]) if len(q) > 3 else False)
                for q in p.get("quantities", [])
            ),
            denied=frozenset(p.get("denied", [])),
            ordinals=frozenset(p.get("ordinals", [])),
            ordinal_scope=frozenset(p.get("ordinal_scope", [])),
            terms=frozenset(p.get("terms", [])),
        )


@dataclass(frozen=True)
class Reading:
    """A sentence read: its language and the propositions of its main clauses."""

    text: str
    language: str
    propositions: tuple[Proposition, ...]

    @property
    def understood(self) -> bool:
        return bool(self.propositions)


@dataclass(frozen=True)
class QuestionReading:
    """A question read: what kind of answer it asks, the asking proposition, the set-up."""

    text: str
    language: str
    kind: QuestionKind
    asking: Proposition | None
    setup: tuple[Proposition, ...] = field(default_factory=tuple)
    unread: tuple[str, ...] = ()  # what was not understood, when `asking` is None
    order: OrderAsked | None = None  # what it asks of an order ("X before Y?", "X last?")

    @property
    def yes_no(self) -> bool:
        return self.kind == "yes_no"

"""Typed facts derived from the statements every document was read into.

`kb/reading/relations.yaml` says which roles of which actions are which graph facts: "Spell
Speed 2 … pode ser usado em resposta a Spell Speed 1 …, mas não a Spell Speed 3" gives
`spell-speed-2 can_respond_to spell-speed-1` and `spell-speed-2 cannot_respond_to
spell-speed-3`, with authority `document` and the passage as source. A document with a bespoke
extractor states these facts through it; every other document gets them from its statements.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from kb.model import Fact, Node
from kb.reading.proposition import Proposition
from kb.reading.senses import sense_stems

RELATIONS = Path(__file__).resolve().parent / "relations.yaml"


@dataclass(frozen=True)
class Relation:
    predicate: str
    negative: str | None
    action: frozenset[str]
    members: bool  # a bullet naming only `member_kind` kinds: each is `predicate` the topic
    member_kind: str | None
    member_via: str | None  # an entity whose `member_via` facts reach `member_kind` is one too
    object: str | None  # a fixed object: the statement names it, its verb is of `sense`
    sense: str | None
    modality: frozenset[str]
    sources: frozenset[str]
    targets: frozenset[str]
    kind: str
    to_kind: str  # the kind of the targets (the source's kind when not given)
    to_via: str | None  # entities named as targets stand for the `to_kind` kinds they share
    topic: bool  # a clause with no source takes the document's last subject of the kind
    bullets_only: bool  # ... only when it is a bullet ("-…")
    limit_of: str | None = None  # a negative statement on a `kind` giving an amount of this
    only: str | None = None  # a restrictive statement: only this does the verb to `object`
    # with `members`: the bullet names this action, and the cards of `member_kind` it names do it
    member_action: str | None = None
    value: str | None = None  # the fact's object, for a limit
    # a target naming one of these in general ("em resposta a quaisquer outros efeitos") stands
    # for every kind of `to_kind`
    to_all: frozenset[str] = frozenset()


@cache
def relations() -> tuple[Relation, ...]:
    raw = yaml.load(
        RELATIONS.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )
    return tuple(
        Relation(
            predicate=r["predicate"],
            negative=r.get("negative"),
            action=frozenset(r.get("action", ())),
            members=bool(r.get("members", False)),
            member_kind=r.get("member_kind"),
            member_via=r.get("member_via"),
            object=r.get("object"),
            sense=r.get("sense"),
            modality=frozenset(r.get("modality", ())),
            sources=frozenset(r.get("from", ())),
            targets=frozenset(r.get("to", ())),
            kind=r["kind"],
            to_kind=r.get("to_kind", r["kind"]),
            to_via=r.get("to_via"),
            topic=bool(r.get("topic", False)),
            bullets_only=r.get("topic") == "bullets",
            limit_of=r.get("limit_of"),
            only=r.get("only"),
            member_action=r.get("member_action"),
            value=r.get("value"),
            to_all=frozenset(r.get("to_all", ())),
        )
        for r in raw["relations"]
    )


def _read(statements: Iterable[Node]) -> list[tuple[Node, Proposition]]:
    """Each statement with a span and a passage, and its proposition: read once, for every
    relation."""
    out = []
    for node in statements:
        if node.span is None or node.parent is None:
            continue
        start, end = node.props.get("clause") or (node.span.start, node.span.end)
        out.append((node, Proposition.from_props(start, end, node.props)))
    return out


def _narrower(broader: dict[str, set[str]], kind: str) -> frozenset[str]:
    """Every concept whose broader chain reaches `kind` (not `kind` itself)."""
    out: set[str] = set()
    todo = [kind]
    children: dict[str, set[str]] = {}
    for child, parents in broader.items():
        for parent in parents:
            children.setdefault(parent, set()).add(child)
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in out:
                out.add(c)
                todo.append(c)
    return frozenset(out)


def _under(broader: dict[str, set[str]], entity: str, tops: list[str]) -> bool:
    """`entity` is one of `tops` or narrower than one of them."""
    seen: set[str] = set()
    todo = [entity]
    while todo:
        e = todo.pop()
        if e in tops:
            return True
        if e not in seen:
            seen.add(e)
            todo += broader.get(e, ())
    return False


def _members(
    rel: Relation,
    read: list[tuple[Node, Proposition]],
    broader: dict[str, set[str]],
    via: dict[str, dict[str, set[str]]],
) -> list[Fact]:
    """Bullets that only name kinds of `member_kind` ("-Synchros") or entities that are of one
    (`member_via`: "-Cyber Dragon, Chaos Sorcerer"), each `predicate` the topic (the `kind` the
    document last made a subject)."""
    kinds = _narrower(broader, rel.kind)
    tops = set((rel.member_kind or rel.kind).split())  # (several kinds, space-separated)
    member_kinds = frozenset(k for top in tops for k in _narrower(broader, top))
    of = via.get(rel.member_via or "", {})
    member_kinds = member_kinds | {
        e for e, classes in of.items() if classes & (member_kinds | tops)
    }
    topic: list[str] = []
    out: list[Fact] = []
    for node, prop in read:
        entities = prop.entities
        plain = not prop.negative and prop.modality == "fact"
        if rel.member_action is not None:
            # "-Qualquer carta que invoque monstros: Monster Reborn, Call of the Haunted": the
            # cards of `member_kind` named with the action do it (a monster named there is one
            # whose effect does it, not one done to: it is left out)
            doers = sorted(e for e in entities if e.startswith("card/") and e in member_kinds)
            if topic and plain and _bullet(node) and rel.member_action in entities and doers:
                out += [
                    Fact(e, rel.predicate, t, node.parent, "document") for e in doers for t in topic
                ]
                continue
        elif topic and entities and entities <= member_kinds and not prop.stems and plain:
            out += [
                Fact(e, rel.predicate, t, node.parent, "document") for e in entities for t in topic
            ]
            continue
        subjects = [e for e, r in prop.roles if r == "subject" and e in kinds]
        if subjects and not all(_under(broader, e, topic) for e in subjects):
            topic = subjects
    return out


_BULLET_MARKS = "-–•"


def _bullet(node: Node) -> bool:
    """A bullet of a list: its sentence starts with a dash or a bullet mark."""
    first = (node.text or "").lstrip()[:1]
    return bool(first) and first in _BULLET_MARKS


def _fixed(
    rel: Relation, read: list[tuple[Node, Proposition]], broader: dict[str, set[str]]
) -> list[Fact]:
    """Statements naming `object` with a verb of `sense`: `predicate` (or `negative`) from the
    `kind` they name as subject, else (a bullet, with `topic`) from the document's topic."""
    kinds = _narrower(broader, rel.kind)
    verbs = sense_stems(rel.sense) if rel.sense else frozenset()
    topic: list[str] = []
    out: list[Fact] = []
    for node, prop in read:
        subjects = [e for e, r in prop.roles if r == "subject" and e in kinds]
        named = rel.object in {e for e, r in prop.roles if r == "object"}
        if named and set(prop.stems) & verbs and prop.modality in rel.modality:
            sources = subjects or (
                topic if rel.topic and (_bullet(node) or not rel.bullets_only) else []
            )
            predicate = rel.negative if prop.negative else rel.predicate
            if predicate is not None and rel.object is not None:
                out += [Fact(s, predicate, rel.object, node.parent, "document") for s in sources]
        if subjects and not all(_under(broader, e, topic) for e in subjects):
            topic = subjects
    return out


def _limits(
    rel: Relation, read: list[tuple[Node, Proposition]], broader: dict[str, set[str]]
) -> list[Fact]:
    """Negative statements acting on a `kind` ("não pode pagar custos") that give an exact
    amount of `limit_of` ("… se isso fizer com que seus Pontos de Vida sejam reduzidos a 0") and
    name no card: that amount may not be reached, `predicate` `value` of the passage with the
    least that must remain (`min_remaining`, one more than the amount)."""
    kinds = _narrower(broader, rel.kind) | {rel.kind}
    unit = f"@{rel.limit_of}"
    out: list[Fact] = []
    if rel.value is None:
        return out
    for node, prop in read:
        if not prop.negative or prop.modality not in rel.modality:
            continue
        if not any(r != "target" and e in kinds for e, r in prop.roles):
            continue
        if any(e.startswith("card/") for e in prop.all_entities):
            continue  # a card's own case ("Parede Espelhada" at 2000 LP), not the general limit
        for q in prop.quantities:
            if q.unit == unit and q.bound == "exact" and not q.named:
                passage = node.parent
                assert passage is not None  # (`_read` keeps only statements of a passage)
                meta = {"min_remaining": q.value + 1}
                out.append(Fact(passage, rel.predicate, rel.value, passage, "document", meta))
                break
    return out


def _only(rel: Relation, read: list[tuple[Node, Proposition]]) -> list[Fact]:
    """Restrictive statements with a verb of `sense` naming `object` and `only` ("Somente os
    cards/efeitos que poderiam ser ativados podem formar uma cadeia"): `predicate` from `object`
    to `only`."""
    verbs = sense_stems(rel.sense) if rel.sense else frozenset()
    out: list[Fact] = []
    if rel.object is None or rel.only is None:
        return out
    for node, prop in read:
        if (
            prop.restrictive
            and not prop.negative
            and prop.modality in rel.modality
            and {rel.object, rel.only} <= prop.entities
            and set(prop.stems) & verbs
        ):
            out.append(Fact(rel.object, rel.predicate, rel.only, node.parent, "document"))
    return out


def _shared(
    rel: Relation, named: list[str], via: dict[str, set[str]], to_members: frozenset[str]
) -> list[str]:
    """The `to_kind` kinds every entity of `named` has through `rel.to_via` ("cartas como Saber
    Hole ou Thunder King Rai-oh": both negate Summons)."""
    kinds = [via.get(e, set()) & to_members for e in named]
    return sorted(set.intersection(*kinds)) if kinds else []


def derive(
    statements: Iterable[Node], glossary_facts: Iterable[Fact], facts: Iterable[Fact] = ()
) -> list[Fact]:
    """The relation facts the statements state, in statement order, each once. `facts` are the
    graph's other facts (cards' capabilities) a relation's `to_via` reads."""
    broader: dict[str, set[str]] = {}
    for f in glossary_facts:
        if f.predicate == "broader":
            broader.setdefault(f.subject, set()).add(f.object)
    wanted = {p for r in relations() for p in (r.to_via, r.member_via) if p}
    via: dict[str, dict[str, set[str]]] = {p: {} for p in wanted}
    for f in facts:
        if f.predicate in via:
            via[f.predicate].setdefault(f.subject, set()).add(f.object)
    read = _read(statements)
    out: dict[tuple[str, str, str], Fact] = {}
    breadth: dict[
        tuple[str, str, str], int
    ] = {}  # a role fact → how many sources its statement named
    for rel in relations():
        if rel.only is not None:
            for fact in _only(rel, read):
                out.setdefault((fact.subject, fact.predicate, fact.object), fact)
            continue
        if rel.limit_of is not None:
            for fact in _limits(rel, read, broader):
                out.setdefault((fact.subject, fact.predicate, fact.object), fact)
            continue
        if rel.object is not None:
            for fact in _fixed(rel, read, broader):
                out.setdefault((fact.subject, fact.predicate, fact.object), fact)
            continue
        if rel.members:
            for fact in _members(rel, read, broader, via):
                out.setdefault((fact.subject, fact.predicate, fact.object), fact)
            continue
        members = _narrower(broader, rel.kind)
        to_members = _narrower(broader, rel.to_kind)
        previous: tuple[tuple[int, int] | None, list[str]] = (None, [])
        acted: tuple[int, int] | None = None  # the sentence whose clause named the action
        topic: list[str] = []  # the kind the document last made a subject of
        for node, prop in read:
            assert node.span is not None
            sentence = (node.span.start, node.span.end)
            subjects = [e for e, r in prop.roles if r == "subject" and e in members]
            sources = [
                e
                for e, r in prop.roles
                if r in rel.sources and e in members and e not in rel.action
            ]
            targets = [
                e
                for e, r in prop.roles
                if r in rel.targets and e in to_members and e not in rel.action
            ]
            if not targets and rel.to_via:
                named = [
                    e
                    for e, r in prop.roles
                    if r in rel.targets and e not in rel.action and e in via[rel.to_via]
                ]
                targets = _shared(rel, named, via[rel.to_via], to_members)
            if not targets and any(r in rel.targets and e in rel.to_all for e, r in prop.roles):
                targets = sorted(to_members)
            if not sources and previous[0] == sentence:
                sources = previous[1]  # "…, mas não a X": the clause before's source
            if not sources and rel.topic:
                sources = topic  # a bullet without a subject of its own
            if sources:
                previous = (sentence, sources)
            # a new subject becomes the topic, unless it is a kind of the topic ("Contact
            # Fusions" listed under "inerentes")
            if subjects and not all(_under(broader, e, topic) for e in subjects):
                topic = subjects
            names_action = bool(prop.entities & rel.action)
            if names_action:
                acted = sentence
            elif not (acted == sentence and targets and not prop.stems):
                continue  # (an elliptic "…, mas não a X" keeps the clause before's action)
            if prop.modality not in rel.modality and names_action:
                continue
            predicate = rel.negative if prop.negative else rel.predicate
            if predicate is None:
                continue
            for s in sources:
                for t in targets:
                    if s != t or not prop.negative:
                        key = (s, predicate, t)
                        if key not in out:
                            out[key] = Fact(s, predicate, t, node.parent, "document")
                            breadth[key] = len(sources)
    return _consistent(out, breadth)


def _consistent(
    out: dict[tuple[str, str, str], Fact], breadth: dict[tuple[str, str, str], int]
) -> list[Fact]:
    """The facts without those a more specific statement contradicts: of `can_respond_to` and
    `cannot_respond_to` for one pair, the one read from a statement naming fewer sources stays
    (a sentence listing several Spell Speeds before its verb says less of each)."""
    opposite = {r.predicate: r.negative for r in relations() if r.negative}
    opposite |= {v: k for k, v in opposite.items()}
    dropped = set()
    for key in breadth:
        s, predicate, t = key
        other = (s, opposite.get(predicate, ""), t)
        if other in breadth and breadth[other] < breadth[key]:
            dropped.add(key)
    return [f for key, f in out.items() if key not in dropped]

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

RELATIONS = Path(__file__).resolve().parent / "relations.yaml"


@dataclass(frozen=True)
class Relation:
    predicate: str
    negative: str | None
    action: frozenset[str]
    modality: frozenset[str]
    sources: frozenset[str]
    targets: frozenset[str]
    kind: str


@cache
def relations() -> tuple[Relation, ...]:
    raw = yaml.safe_load(RELATIONS.read_text(encoding="utf-8"))
    return tuple(
        Relation(
            predicate=r["predicate"],
            negative=r.get("negative"),
            action=frozenset(r["action"]),
            modality=frozenset(r["modality"]),
            sources=frozenset(r["from"]),
            targets=frozenset(r["to"]),
            kind=r["kind"],
        )
        for r in raw["relations"]
    )


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


def derive(statements: Iterable[Node], glossary_facts: Iterable[Fact]) -> list[Fact]:
    """The relation facts the statements state, in statement order, each once."""
    broader: dict[str, set[str]] = {}
    for f in glossary_facts:
        if f.predicate == "broader":
            broader.setdefault(f.subject, set()).add(f.object)
    out: dict[tuple[str, str, str], Fact] = {}
    for rel in relations():
        members = _narrower(broader, rel.kind)
        previous: tuple[tuple[int, int] | None, list[str]] = (None, [])
        acted: tuple[int, int] | None = None  # the sentence whose clause named the action
        for node in statements:
            if node.span is None or node.parent is None:
                continue
            start, end = node.props.get("clause") or (node.span.start, node.span.end)
            prop = Proposition.from_props(start, end, node.props)
            sentence = (node.span.start, node.span.end)
            sources = [e for e, r in prop.roles if r in rel.sources and e in members]
            targets = [e for e, r in prop.roles if r in rel.targets and e in members]
            if not sources and previous[0] == sentence:
                sources = previous[1]  # "…, mas não a X": the clause before's source
            if sources:
                previous = (sentence, sources)
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
                        out.setdefault(key, Fact(s, predicate, t, node.parent, "document"))
    return list(out.values())

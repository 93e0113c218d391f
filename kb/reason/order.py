"""Deciding "does X come before Y?" and "is X the last?" by the orders the documents tell.

Every sentence telling an order was read at ingest (kb/reading/order) into its steps, first to
last, and what all of them come before or after (its frame: "Antes da damage calculation …", or
the sentence before it in the same paragraph). A question's two sides are found among the steps of
one order, or one among its steps and the other as its frame; their positions give the verdict.
A side is found in a step when the step holds most of what the side names (entities and content
stems, weighted by how rarely steps name them). Two orders deciding alike-fitting sides both ways
decide nothing.

This module reads the typed question and the graph only: no raw text, no regular expression.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from kb.graph import KnowledgeGraph
from kb.model import Node
from kb.reading.order import Order, OrderAsked, Part
from kb.reason import Decision, Step


@dataclass(frozen=True)
class OrderSettings:
    """How well a side must be found in a step (kb.config.Settings `order_*`)."""

    min_fit: float = 0.6  # the share of a side's weight a step must hold
    tie_margin: float = 0.05  # orders fitting this alike with opposite verdicts decide nothing


@dataclass(frozen=True)
class _Found:
    node: Node
    order: Order
    fit: float
    verdict: bool
    where: str  # how the sides were placed, for the reasoning


class OrderMatcher:
    """The orders the documents tell (Statement nodes carrying an `order`)."""

    def __init__(self, kg: KnowledgeGraph, settings: OrderSettings | None = None) -> None:
        self.settings = settings or OrderSettings()
        self.orders: list[tuple[Node, Order]] = [
            (n, Order.from_props(n.props["order"]))
            for n in sorted(kg.of_type("Statement"), key=lambda n: n.id)
            if n.props.get("order")
        ]
        df: Counter[str] = Counter()
        for _, order in self.orders:
            for part in (*order.steps, *([order.anchor] if order.anchor else [])):
                df.update(_items(part))
        total = sum(len(o.steps) for _, o in self.orders) + 1
        self._weight = {item: math.log(1 + total / (1 + n)) for item, n in df.items()}
        self._unseen = math.log(1 + total)

    def _w(self, item: str) -> float:
        return self._weight.get(item, self._unseen)

    def fit(self, asked: Part, step: Part) -> float:
        """The share of what `asked` names (by weight) that `step` names too. A word no order of
        the documents uses is left out (an English word, for steps read from a Portuguese text);
        an entity none names weighs most: no step speaks of it."""
        want = {i for i in _items(asked) if i in self._weight or i.startswith("@")}
        total = sum(self._w(i) for i in want)
        if not total:
            return 0.0
        return sum(self._w(i) for i in want & _items(step)) / total

    def _place(self, asked: Part, order: Order) -> tuple[int, float]:
        """The step of `order` that best holds `asked` (index, fit); -1 when none does enough."""
        best, at = 0.0, -1
        for i, step in enumerate(order.steps):
            f = self.fit(asked, step)
            if f > best:
                best, at = f, i
        return (at, best) if best >= self.settings.min_fit else (-1, best)

    def _judge(self, asked: OrderAsked, node: Node, order: Order) -> _Found | None:
        x, fx = self._place(asked.subject, order)
        if x < 0:
            return None
        last = len(order.steps) - 1
        if asked.relation in ("first", "last"):
            if last < 1:
                return None
            at = 0 if asked.relation == "first" else last
            return _Found(node, order, fx, x == at, "ends")
        if asked.other is None:
            return None
        y, fy = self._place(asked.other, order)
        if y >= 0 and y != x:
            before = x < y
            return _Found(node, order, fx + fy, before == (asked.relation == "before"), "steps")
        if order.frame is not None and order.anchor is not None:
            fa = self.fit(asked.other, order.anchor)
            if fa >= self.settings.min_fit:
                return _Found(node, order, fx + fa, order.frame == asked.relation, "frame")
        return None

    def decide(
        self, asked: OrderAsked | None, fmt: str | None, base: str | None
    ) -> Decision | None:
        """The verdict of the order best holding both sides of what is asked; None when no order
        holds them, or when two hold them alike and disagree."""
        if asked is None:
            return None
        found = [
            f
            for node, order in self.orders
            if node.props.get("format") in (fmt or base, base)
            and (f := self._judge(asked, node, order)) is not None
        ]
        if not found:
            return None
        found.sort(key=lambda f: -f.fit)
        best = found[0]
        rivals = [
            f
            for f in found[1:]
            if f.fit >= best.fit - self.settings.tie_margin and f.verdict != best.verdict
        ]
        if rivals:
            return None
        return _decision(best)


def _items(part: Part) -> frozenset[str]:
    return frozenset({*(f"@{e}" for e in part.entities), *part.stems})


def _decision(f: _Found) -> Decision:
    text = f.node.text or ""
    yes = f.verdict
    how_en = {
        "steps": "the order it tells places them so",
        "frame": "all it tells comes " + (f.order.frame or ""),
        "ends": "the order it tells ends so",
    }[f.where]
    how_pt = {
        "steps": "a ordem que descreve os põe assim",
        "frame": "tudo o que descreve vem " + ("antes" if f.order.frame == "before" else "depois"),
        "ends": "a ordem que descreve termina assim",
    }[f.where]
    source = f.node.parent
    return Decision(
        "yes" if yes else "no",
        [
            Step(
                f"Order stated: {text} ({how_en}).",
                f"Ordem descrita: {text} ({how_pt}).",
                source,
            )
        ],
        f"{'Yes' if yes else 'No'}. The rules tell the order: “{text}”",
        f"{'Sim' if yes else 'Não'}. As regras descrevem a ordem: “{text}”",
        round(min(0.9, 0.5 + f.fit / 4), 3),
        [source] if source else [],
        "order",
    )

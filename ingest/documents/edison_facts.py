"""The Edison document's refinement: the typed facts its rules state in its own wording.

- Every numbered rule `differs_from` today's rules (its differences section says so).
- Rule 8 (the Damage Step): which classes of card may be activated, in the whole step or per
  sub-step, as `rules_activation` facts (subject and source the bullet; object the Rule or the
  sub-step Step; props `class`, `allowed`). The class keys are the game's own classes that
  `kb.reason.damage` reads (a Counter Trap, a Spell/Trap that modifies ATK/DEF …); the patterns
  below are this document's wording for them.
- Rule 10 (Life Point costs): the sentence that limits paying a cost, as a `limits_cost` fact
  (props `min_remaining`: the LP a payment must leave).
The reasoners find these facts through the graph (the Rule `about` the concept, in its format);
only this module knows the document's sentences.
"""

from __future__ import annotations

import re

from kb.graph import KnowledgeGraph
from kb.ids import concept_id, fold, format_id
from kb.link import Linker
from kb.model import Fact, Node, ParsedDocument

# class key → (the bullet naming the class, sub-step bullet allowing it, sub-step bullet forbidding
# it); no sub-step patterns: the bullet decides the whole Damage Step.
_CLASSES: dict[str, tuple[str, str | None, str | None]] = {
    "counter-trap": (r"armadilha de resposta\W+podem ser ativados em qualquer ponto", None, None),
    "spell-trap-atk-def": (
        r"magia/armadilha que mudam atk/def",
        r"magias/armadilhas que (modificam|afetam) atk/def (podem|pode)",
        r"magias/armadilhas que (modificam|afetam) atk/def nao (podem|pode)",
    ),
    "monster-activation-negation": (r"efeitos de monstro que negam ativacoes", None, None),
    "monster-atk-def": (
        r"efeitos rapidos / efeitos continuos que modificam diretamente o atk/def",
        r"efeitos rapidos\b.*(modificam|afetam) atk/def (podem|pode)",
        None,
    ),
    "monster-effect-negation": (r"efeitos de monstro que somente negam os efeitos", None, None),
    "spell-trap-activation-negation": (r"velocidade de magia 2\W+que negam ativacoes", None, None),
    "spell-trap-effect-negation": (r"velocidade de magia 2\W+que negam efeitos", None, None),
}
# The bullet saying that only the listed classes may be activated: any other Spell/Trap may not.
_ONLY_LISTED = r"apenas os seguintes cards/efeitos podem ser ativados"
_COST_LIMIT = re.compile(r"nao pode pagar custos se isso fizer com que seus pontos de vida")
LP_COST = concept_id("lp-cost")


def extract_edison(doc: ParsedDocument, linker: Linker) -> tuple[list[Node], list[Fact]]:
    del linker
    kg = KnowledgeGraph(doc.nodes, doc.facts)
    facts = [*_differences(doc.nodes), *_damage_step(kg, doc.nodes), *_cost_limit(doc.nodes)]
    return [], facts


def _differences(nodes: tuple[Node, ...]) -> list[Fact]:
    """Every numbered Edison rule differs from the modern rules (the differences section says so)."""
    intro = next((n for n in nodes if n.id.endswith("differences/p-01")), None)
    if intro is None:
        return []
    return [
        Fact(n.id, "differs_from", format_id("general"), intro.id, "document")
        for n in nodes
        if n.type == "Rule"
    ]


def _child(kg: KnowledgeGraph, parent: str, pattern: str) -> Node | None:
    for child in kg.children(parent):
        n = kg.node(child)
        if n.text and re.search(pattern, fold(n.text)):
            return n
    return None


def _damage_rule(nodes: tuple[Node, ...]) -> Node | None:
    return next(
        (
            n
            for n in nodes
            if n.type == "Rule" and "etapa de dano" in fold(n.label_pt or n.text or "")
        ),
        None,
    )


def _damage_step(kg: KnowledgeGraph, nodes: tuple[Node, ...]) -> list[Fact]:
    rule = _damage_rule(nodes)
    if rule is None:
        return []
    out: list[Fact] = []
    steps = sorted(
        (kg.node(c) for c in kg.children(rule.id) if kg.node(c).type == "Step"),
        key=lambda n: n.order or 0,
    )

    def fact(bullet: Node, target: str, key: str, allowed: bool | None) -> Fact:
        return Fact(
            bullet.id,
            "rules_activation",
            target,
            bullet.id,
            "document",
            {"class": key, "allowed": allowed},
        )

    for key, (named, allows, forbids) in _CLASSES.items():
        bullet = _child(kg, rule.id, named)
        if bullet is None:
            continue
        if allows is None:
            text = fold(bullet.text or "")
            legal = "qualquer ponto" in text and not re.search(r"\bnao pode", text)
            out.append(fact(bullet, rule.id, key, legal))
            continue
        out.append(fact(bullet, rule.id, key, None))  # the sub-steps decide
        for step in steps:
            yes = _child(kg, step.id, allows)
            if yes is not None:
                out.append(fact(yes, step.id, key, True))
            no = _child(kg, step.id, forbids) if forbids else None
            if no is not None:
                out.append(fact(no, step.id, key, False))
    only = _child(kg, rule.id, _ONLY_LISTED)
    if only is not None:
        out.append(fact(only, rule.id, "spell-trap-unlisted", False))
    return out


def _cost_limit(nodes: tuple[Node, ...]) -> list[Fact]:
    """The rule passage stating that a cost may not bring your Life Points to 0."""
    out = []
    for n in nodes:
        if n.type == "Passage" and n.text and _COST_LIMIT.search(fold(n.text)):
            out.append(Fact(n.id, "limits_cost", LP_COST, n.id, "document", {"min_remaining": 1}))
    return out

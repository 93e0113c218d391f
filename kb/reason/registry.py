"""The one list of reasoners, in the order they are tried, with the graph content each needs.

A reasoner whose rule or facts are missing from the loaded KB is disabled: `status` reports it
(in `/health` and `stats`) with what it needs, and the answerer does not call it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kb.graph import KnowledgeGraph
from kb.reason import Reasoner
from kb.reason.activation import decide_negation
from kb.reason.card_class import classes_asked, decide_card_class
from kb.reason.card_limit import decide_card_limit
from kb.reason.card_pool import decide_card_pool
from kb.reason.chain import decide_chain
from kb.reason.chain_resolution import decide_order, decide_resolution, resolution_rule
from kb.reason.continuous import chain_rule, decide_continuous
from kb.reason.damage import damage_rules, decide_damage_step
from kb.reason.deck_size import decide_deck_size
from kb.reason.lp_cost import cost_limits, decide_lp_cost
from kb.reason.response import decide_response, response_rules
from kb.reason.segoc import decide_segoc, segoc_rules
from kb.reason.summon import decide_summon, decide_summon_kind


@dataclass(frozen=True)
class Registered:
    """A reasoner, what it reads from the graph, and a test that the graph has it."""

    name: str
    decide: Reasoner
    needs: str
    available: Callable[[KnowledgeGraph], bool]

    def __reduce__(self) -> tuple[Callable[[str], Registered], tuple[str]]:
        # One of REASONERS: written by name (a snapshot of the answerer, kb.snapshot).
        return registered, (self.name,)


REASONERS: tuple[Registered, ...] = (
    Registered(
        "card-pool",
        decide_card_pool,
        "cards with a format's card-pool flag (a format that declares card_pool)",
        lambda kg: any("card_pool" in n.props for n in kg.of_type("Format")),
    ),
    Registered(
        "card-limit",
        decide_card_limit,
        "cards' statuses on a format's Forbidden & Limited list (a format that declares banlist)",
        lambda kg: any("banlist" in n.props for n in kg.of_type("Format")),
    ),
    Registered(
        "deck-size",
        decide_deck_size,
        "a format's deck sizes (a format that declares deck)",
        lambda kg: any("deck" in n.props for n in kg.of_type("Format")),
    ),
    Registered(
        "chain-order",
        decide_order,
        "a passage on chain resolution inside a Rule or Section about concept/chain-link",
        lambda kg: resolution_rule(kg) is not None,
    ),
    Registered(
        "continuous-chain",
        decide_continuous,
        "a passage stating that only activations form a Chain (formed_only_by) and an effect kind "
        "that applies without activation (applies_without)",
        lambda kg: chain_rule(kg) is not None and bool(kg.with_predicate("applies_without")),
    ),
    Registered(
        "summon-negation",
        decide_summon,
        "Special Summon kinds (summoned_by) and what negates them (negatable_by)",
        lambda kg: bool(kg.with_predicate("summoned_by") and kg.with_predicate("negatable_by")),
    ),
    Registered(
        "summon-kind",
        decide_summon_kind,
        "Special Summon kinds of cards (summoned_by)",
        lambda kg: bool(kg.with_predicate("summoned_by")),
    ),
    Registered(
        "speedless-response",
        decide_response,
        "a passage stating that an action without a Spell Speed (a Summon) cannot be chained to "
        "but can be responded to (cannot_be_chained_to, can_be_responded_to)",
        lambda kg: all(f is not None for f in response_rules(kg)),
    ),
    Registered(
        "damage-step",
        decide_damage_step,
        "a Rule about concept/damage-step whose bullets state rules_activation facts",
        lambda kg: bool(damage_rules(kg, None)),
    ),
    Registered(
        "segoc",
        decide_segoc,
        "a Rule about concept/segoc with ordered Steps",
        lambda kg: bool(segoc_rules(kg, None)),
    ),
    Registered(
        "lp-cost",
        decide_lp_cost,
        "a passage stating a limits_cost fact (what Life Points a cost may leave)",
        lambda kg: bool(cost_limits(kg, None)),
    ),
    Registered(
        "negation-scope",
        decide_negation,
        "what cards negate (has_capability with a scope, or curated negates)",
        lambda kg: bool(kg.with_predicate("has_capability")),
    ),
    Registered(
        "chain-resolution",
        decide_resolution,
        "a passage on chain resolution inside a Rule or Section about concept/chain-link",
        lambda kg: resolution_rule(kg) is not None,
    ),
    Registered(
        "chain",
        decide_chain,
        "what each Spell Speed may respond to (can_respond_to)",
        lambda kg: bool(kg.with_predicate("can_respond_to")),
    ),
    Registered(
        "card-class",
        decide_card_class,
        "cards' classes and effect types (instance_of, has_effect_type)",
        classes_asked,
    ),
)


def registered(name: str) -> Registered:
    """The reasoner of REASONERS called `name`."""
    for entry in REASONERS:
        if entry.name == name:
            return entry
    raise KeyError(f"no reasoner {name!r}")


@dataclass(frozen=True)
class ReasonerStatus:
    name: str
    enabled: bool
    needs: str


def status(kg: KnowledgeGraph, claims: int) -> list[ReasonerStatus]:
    """Each reasoner (and the claims reader) with whether the loaded KB enables it."""
    out = [ReasonerStatus(r.name, r.available(kg), r.needs) for r in REASONERS]
    out.append(ReasonerStatus("claim", claims > 0, "curated rule claims (Claim nodes)"))
    return out


def enabled(kg: KnowledgeGraph) -> list[Registered]:
    return [r for r in REASONERS if r.available(kg)]

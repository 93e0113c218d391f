"""The rulings document's refinement: the typed facts its structure states.

Its parser (`ingest.documents.rulings`) cuts the text into sections (inherent / non-inherent
Special Summon lists, the rules under them, the three Spell Speeds). Here each section's statements
become facts: which cards (or monster classes) a summon list names, what negates each kind of
Summon and whether it starts a Chain, and what each Spell Speed may respond to.
"""

from __future__ import annotations

import re

from ingest.extract import dedupe, mentions_of, section_slug
from kb.ids import concept_id, fold, numbered
from kb.link import Linker
from kb.model import TEXT_TYPES, Fact, Mention, Node, ParsedDocument, Span
from kb.reading.negation import NEGATIVE_LEAD as _NEGATIVE

INHERENT = concept_id("inherent-special-summon")
NON_INHERENT = concept_id("non-inherent-special-summon")
SUMMON_NEG = concept_id("summon-negation")
ACTIVATION_NEG = concept_id("activation-negation")
CHAIN = concept_id("chain")
ACTIVATION = concept_id("activation")
_ONLY_COUNTERED_BY = re.compile(
    r"\bso pode ser combatid[ao] com outr[oa]|\bsó pode ser combatid[ao] com outr[oa]"
)
# "Somente os cartões / efeitos que poderiam ser "ativados" pode formar uma cadeia."
_ONLY_ACTIVATIONS = re.compile(r"\bsomente\b[^.]*\bativad\w*[^.]*\bformar uma cadeia")
SPEEDS = {n: concept_id(f"spell-speed-{n}") for n in (1, 2, 3)}
SPEEDLESS = concept_id("speedless-action")
RESPONSE = concept_id("response")
# "Qualquer ação que não possuem uma velocidade ortográfica não pode ser acorrentada a. Portanto,
# essas ações só pode ser respondido a."
_SPEEDLESS_RULE = re.compile(
    r"\bacao que nao possu\w* uma velocidade\b[^.]*\bnao pode ser acorrentad"
)
_ONLY_RESPONDED = re.compile(r"\bso pode(?:m)? ser respondid")
# Not Chain Link 2 or higher: "não pode ser colocado como um Chain Link 2 ou superior".
_NOT_LINK_TWO = re.compile(
    r"\bnao pode\w* ser (?:colocad\w* como )?(?:uma? )?chain link 2 ou superior"
)
_NAMES_SPEED_1 = re.compile(r"\bvelocidade de feitico 1\b")
CHAIN_LINK = concept_id("chain-link")
# "A Invocação ainda é a última ação, … e você ainda pode responder com …": a Summon responded to
# by a Chain is still the last action, and can still be responded to.
_STILL_LAST = re.compile(r"\bainda e a ultima acao\b[^.]*\bainda pode responder")
# Monster classes that a summon list can name instead of cards ("-Synchros", "-Fusões").
_CLASS_CONCEPTS = {
    concept_id(c)
    for c in (
        "synchro-monster",
        "xyz-monster",
        "fusion-monster",
        "ritual-monster",
        "contact-fusion",
        "link-monster",
        "synchro-summon",
        "xyz-summon",
        "fusion-summon",
        "ritual-summon",
    )
}


def extract_rulings(doc: ParsedDocument, linker: Linker) -> tuple[list[Node], list[Fact]]:
    """Summon-list entries and the summon, negation and spell-speed facts of the document."""
    nodes: list[Node] = []
    facts: list[Fact] = []
    by_id = {n.id: n for n in doc.nodes}
    for node in doc.nodes:
        if node.type not in TEXT_TYPES or node.span is None or not node.text:
            continue
        found = mentions_of(node, linker)
        section = section_slug(node, by_id)
        if section in ("inherent", "non-inherent") and node.props.get("kind") == "list-item":
            nodes_, facts_ = _summon_entries(node, found, section, linker)
            nodes += nodes_
            facts += facts_
        if section == "rules":
            facts += _negation_rules(node, found, _summon_class(node))
        if section in ("speed-1", "speed-2", "speed-3"):
            facts += _speed_facts(node, found, int(section[-1]), linker)
        if section == "chain-link" and _ONLY_ACTIVATIONS.search(node.text.casefold()):
            facts.append(Fact(CHAIN, "formed_only_by", ACTIVATION, node.id, "document"))
        if section == "chain-start":
            facts += _speedless_facts(node)
        if _not_above_link_two(section, fold(node.text or "")):
            facts.append(Fact(SPEEDS[1], "not_above_chain_link", CHAIN_LINK, node.id, "document"))
    return nodes, facts


def _not_above_link_two(section: str | None, text: str) -> bool:
    """ "Velocidade de Feitiço 1 efeito não pode ser colocado como um Chain Link 2 ou superior"
    (the Spell Speed 1 section says it of "esses efeitos")."""
    if section not in ("chain-link", "speed-1") or not _NOT_LINK_TWO.search(text):
        return False
    return section == "speed-1" or bool(_NAMES_SPEED_1.search(text))


def _speedless_facts(node: Node) -> list[Fact]:
    """What can be done to an action without a Spell Speed (a Summon): not chained to, only
    responded to, still responded to while a Chain built on it is open."""
    text = fold(node.text or "")
    facts: list[Fact] = []
    if _SPEEDLESS_RULE.search(text):
        facts.append(Fact(SPEEDLESS, "cannot_be_chained_to", CHAIN, node.id, "document"))
        if _ONLY_RESPONDED.search(text):
            facts.append(Fact(SPEEDLESS, "can_be_responded_to", RESPONSE, node.id, "document"))
    if _STILL_LAST.search(text):
        facts.append(
            Fact(
                SPEEDLESS,
                "can_be_responded_to",
                RESPONSE,
                node.id,
                "document",
                {"within_chain": True},
            )
        )
    return facts


def _summon_class(node: Node) -> str:
    return NON_INHERENT if "/non-inherent/" in node.id else INHERENT


def _summon_entries(
    node: Node, found: list[Mention], section: str, linker: Linker
) -> tuple[list[Node], list[Fact]]:
    """Each card (or monster class) listed in a summon-list item becomes its own entry passage."""
    assert node.span is not None
    kind = INHERENT if section == "inherent" else NON_INHERENT
    nodes: list[Node] = []
    facts: list[Fact] = []
    text = node.text or ""
    exception = "xce" in text[:20]  # "-Principais Exceções:" / "-Exceção:"
    for i, m in enumerate(
        e for e in found if e.entity.startswith("card/") or e.entity in _CLASS_CONCEPTS
    ):
        entry = Node(
            id=f"{node.id}/{numbered('entry', i + 1)}",
            type="Passage",
            text=text[m.start : m.end],
            span=(
                span := Span(node.span.document, node.span.start + m.start, node.span.start + m.end)
            ),
            parent=node.id,
            order=i + 1,
            props={"kind": "entry", "entity": m.entity},
        )
        nodes.append(entry)
        facts.append(Fact(entry.id, "part_of", node.id, entry.id, "document"))
        facts.append(
            Fact(
                entry.id,
                "mentions",
                m.entity,
                entry.id,
                "document",
                {"start": span.start, "end": span.end, "matched": m.matched},
            )
        )
        facts.append(
            Fact(
                m.entity,
                "summoned_by",
                kind,
                entry.id,
                "document",
                {"exception": exception, "context": node.id},
            )
        )
    del linker
    return nodes, facts


def _negation_rules(node: Node, found: list[Mention], summon: str) -> list[Fact]:
    """'PODEM / NÃO PODEM ser negados por … como A, B ou C' and 'gera / NÃO GERA chain'."""
    text = node.text or ""
    negative = bool(_NEGATIVE.search(text[:12]))
    facts: list[Fact] = []
    lowered = text.casefold()
    if "chain" in lowered and ("gera" in lowered):
        pred = "does_not_start_chain" if "não gera" in lowered else "starts_chain"
        out = [Fact(summon, pred, CHAIN, node.id, "document")]
        if "pode ser respondida" in lowered:  # "(mas pode ser respondida normalmente por …)"
            out.append(Fact(summon, "can_be_responded_to", RESPONSE, node.id, "document"))
        return out
    if "negad" not in lowered and "negar" not in lowered:
        return facts
    if "special summon" in lowered and "negam special summon" in lowered:
        capability = SUMMON_NEG
    elif "ativação" in lowered or "efeito que invoca" in lowered or "carta com o efeito" in lowered:
        capability = ACTIVATION_NEG
    else:
        capability = SUMMON_NEG
    how = (
        "negates the card or effect that summons, not the summoned monster"
        if capability == ACTIVATION_NEG and summon == NON_INHERENT
        else None
    )
    props = {"via": how} if how else {}
    facts.append(
        Fact(
            summon,
            "not_negatable_by" if negative else "negatable_by",
            capability,
            node.id,
            "document",
            props,
        )
    )
    cards = [m for m in found if m.entity.startswith("card/")]
    scope = None
    if "magica ou trap" in lowered or "mágica ou trap" in lowered:
        scope = "spell-trap-activation"
    elif "de um monstro" in lowered:
        scope = "monster-effect-activation"
    for m in cards:
        extra = {"scope": scope} if scope else {}
        facts.append(Fact(m.entity, "has_capability", capability, node.id, "document", extra))
    return facts


def _speed_facts(node: Node, found: list[Mention], speed: int, linker: Linker) -> list[Fact]:
    """In a Spell Speed N section: what speed N may respond to, and classes stated to be speed N."""
    text = node.text or ""
    subject = SPEEDS[speed]
    facts: list[Fact] = []
    lowered = text.casefold()
    # "não podem ser encadeados em resposta a quaisquer outros efeitos": Spell Speed 1 responds to
    # nothing, so its own name elsewhere in the sentence is no `can_respond_to`.
    responds_to_nothing = speed == 1 and "quaisquer" in lowered and bool(_NEGATIVE.search(lowered))
    if "resposta" in lowered and not responds_to_nothing:
        cut = lowered.find("mas não")
        for m in found:
            if m.entity in SPEEDS.values() and not (
                m.entity == subject and m.start < 25 and speed != 1
            ):
                negative = cut >= 0 and m.start > cut
                facts.append(
                    Fact(
                        subject,
                        "cannot_respond_to" if negative else "can_respond_to",
                        m.entity,
                        node.id,
                        "document",
                    )
                )
    if _ONLY_COUNTERED_BY.search(lowered):
        # "Velocidade de Feitiço 3 efeitos só pode ser combatida com outro Velocidade de Feitiço
        # 3": what responds to speed N is speed N only.
        facts += [
            Fact(
                s,
                "can_respond_to" if s == subject else "cannot_respond_to",
                subject,
                node.id,
                "document",
            )
            for s in SPEEDS.values()
        ]
    if "resposta" in lowered and responds_to_nothing:
        facts += [
            Fact(subject, "cannot_respond_to", s, node.id, "document") for s in SPEEDS.values()
        ]
    for m in found:
        entry = linker.entries.get(m.entity)
        if entry is not None and entry.type == "Concept" and m.entity not in SPEEDS.values():
            facts.append(Fact(m.entity, "stated_speed_context", subject, node.id, "document"))
    return dedupe(facts)

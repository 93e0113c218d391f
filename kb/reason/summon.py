"""Summon negation: inherent vs non-inherent Special Summons × what a negation card negates.

Cyber Dragon —summoned_by→ inherent —negatable_by→ summon-negation ←has_capability— Solemn Judgment.
Works for any card whose summon kind and capabilities are known (document or curated facts).
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Fact
from kb.reading.question import Question
from kb.reading.senses import read_senses
from kb.reason import Decision, Knowledge, Step
from kb.reason.damage import DAMAGE_WORDS
from kb.reason.facts import best, label, provenance

INHERENT = concept_id("inherent-special-summon")
NON_INHERENT = concept_id("non-inherent-special-summon")
SUMMON_NEG = concept_id("summon-negation")
ACTIVATION_NEG = concept_id("activation-negation")


def _negates(q: Question) -> bool:
    """The question speaks of stopping something: negating, stopping, working against, or using
    a card on it ("use Solemn Judgment on his Summon")."""
    used = [e for _, e in q.senses.where("use")]
    on = [a for a, _ in q.senses.where("on")]
    return q.senses.has("negate", "against") or any(0 < a - e <= 60 for e in used for a in on)


def _in_response_to_summon(q: Question) -> bool:
    """ "Activate Solemn Judgment in response to the Special Summon of X": a card that negates
    Summons, used on one, negates it."""
    return any(q.senses.before(at, "in_response_to", gap=16) for at, _ in q.senses.where("summon"))


def _kind_fact(kg: KnowledgeGraph, card: str):  # type: ignore[no-untyped-def]
    return best([f for f in kg.out(card, "summoned_by") if f.object in (INHERENT, NON_INHERENT)])


def decide_summon(kb: Knowledge, q: Question) -> Decision | None:
    """Can card X negate the Special Summon of Y? / Does Y's summon start a chain?"""
    asking = {m.entity for m in q.mentions if m.start >= q.last_at}
    # "Can I Solemn Warning that summon?": a negating card's name used as the verb, after a modal
    # and its subject ("can I", "posso dar") or a modal whose form says the subject ("posso")
    as_verb = [
        m.entity
        for m in q.mentions
        if m.entity.startswith("card/")
        and kb.kg.out(m.entity, "has_capability")
        and (
            q.senses.led_by(m.start, ("permission",), ("by_name",), least=1)
            or q.senses.led_by(m.start, ("modal_self",), ("by_name",))
        )
    ]
    # "Opp Synchro Summons Stardust Dragon": what a summon verb names is summoned, whatever it
    # can negate
    after_summon = {
        m.entity for m in q.mentions if q.senses.led_by(m.start, ("summon",), ("determiner",), 1)
    }
    # "(contact fusion, sem Polymerization)": a card said not to be used takes no part
    unused = {
        m.entity for m in q.mentions if q.senses.led_by(m.start, ("without",), ("article",), 1)
    }
    entities = [e for e in q.entities if e not in unused]
    return summon_decision(kb.kg, q, entities, asking, as_verb, after_summon - set(as_verb))


def summon_decision(
    kg: KnowledgeGraph,
    q: Question,
    entities: list[str],
    asking: set[str] | None = None,
    as_verb: list[str] | None = None,
    summoned_named: set[str] | None = None,
) -> Decision | None:
    """Of the cards that negate, the one asked about is one named as the verb (`as_verb`: "can I
    Solemn it?"), else one the asking sentence names (`asking`, after a set-up: "Opp revives
    Jinzo with Premature Burial. Can I stop it with Magic Jammer?"), not one a summon verb names
    (`summoned_named`: "Opp Synchro Summons Stardust Dragon")."""
    as_verb = as_verb or []
    asking = asking or set()
    summoned_named = summoned_named or set()
    lang = q.lang
    damage = q.senses.has(*DAMAGE_WORDS)
    summon_word = q.senses.has("summon", "revive")
    cards = [e for e in entities if e.startswith("card/")]
    listed = [e for e in cards if _kind_fact(kg, e) is not None]
    # A Spell or Trap listed with a summon kind is the card that summons, never the summoned one.
    summoned = [e for e in listed if not _spell_or_trap(kg, e)]
    negators = [e for e in cards if kg.out(e, "has_capability")]
    negators.sort(key=lambda e: (e not in as_verb, e in summoned_named, e not in asking))
    summon_negators = [
        e for e in negators if any(f.object == SUMMON_NEG for f in kg.out(e, "has_capability"))
    ]
    if _in_response_to_summon(q) and summon_negators and not _negates(q):
        negators = summon_negators
        negating = True
    else:
        negating = _negates(q) or bool(as_verb)
    if negating and negators and not damage:
        # A Spell or Trap named beside a Summon is what summons (the asker says so: "the summon
        # made by Monster Reborn"); it decides the kind, whatever monster it brings back.
        named = cards if summon_word else listed
        by = [e for e in named if e not in negators and _spell_or_trap(kg, e)]
        if by:
            return _summoning_card_negation(kg, negators[0], by[0], lang)
        targets = [s for s in summoned if s not in negators[:1]] or summoned
        if targets:
            return _negation(kg, negators[0], targets[0], lang)
        # "the monster that Light and Darkness Dragon revives": a monster whose activated effect
        # summons (its effect is what a negator must stop)
        effects = [e for e in cards if e != negators[0] and _activated(kg, e)]
        if summon_word and len(effects) == 1:
            return _summoning_card_negation(kg, negators[0], effects[0], lang)
        kinds = [
            c
            for e in entities
            if not e.startswith("card/")
            for c in _classes(e)
            if _kind_fact(kg, c) is not None
        ]
        if kinds:  # "can Rai-Oh negate a Ritual Summon?": the summon class itself
            return _negation(kg, negators[0], kinds[0], lang)
    if _negates(q) and not negators and (_any_negator(q) or _passive_negated(q)) and not damage:
        # "Can you negate a Synchro Summon with a card effect?", "Can Cyber Dragon's Summon be
        # negated?": by any card that can
        kinds = [
            c
            for e in entities
            if not e.startswith("card/")
            for c in _classes(e)
            if _kind_fact(kg, c) is not None
        ]
        # the monster summoned, else the one Spell/Trap that summons ("Monster Reborn's Summon")
        alone = summoned if summoned else listed
        target = kinds[0] if kinds else (alone[0] if len(alone) == 1 else None)
        if target is not None:
            return _negatable_at_all(kg, target, lang)
    # "I summon X and no chain starts. Can I …?" asks something else: the asking clause's words
    asked = q.asking_senses
    if asked.has("chain", "chain_to") and asked.has("starts"):
        if len(listed) == 1:  # a summoned monster, or a Spell/Trap whose activation summons
            return _chain(kg, listed[0], lang)
        summoners = [e for e in entities if e.startswith("card/") and _activated(kg, e)]
        if not listed and len(summoners) == 1 and _effect_summons(q):
            return _summoner_chain(kg, summoners[0], lang)
        if not cards and concept_id("special-summon") in entities:
            named = [k for k in (INHERENT, NON_INHERENT) if k in entities]
            if not named:  # "Does Special Summoning start a chain?": it depends on the kind
                return _chain_by_kind(kg, lang)
    return None


def _any_negator(q: Question) -> bool:
    """A negator named by what it is, not which card: "with a card effect", "com um efeito"."""
    return any(
        q.senses.led_by(at, ("with_any",), ("any",), 1)
        for at, _ in q.senses.where("effect_of_card")
    )


def _passive_negated(q: Question) -> bool:
    """Negated by no one named: "can X's Summon be negated?", "a invocação dele pode ser
    negada?"."""
    said = any(q.senses.before(at, "be") for at, _ in q.senses.where("negated"))
    return (said or q.senses.has("negatable")) and q.senses.has("summon", "revive")


def _kind_step(kg: KnowledgeGraph, target: str, kind: Fact) -> Step:
    """The step stating the Special Summon kind of `target` (card or class), citing its fact."""
    inherent = kind.object == INHERENT
    return Step(
        f"{label(kg, target, 'en')} is a{'n inherent' if inherent else ' non-inherent'} Special Summon.",
        f"{label(kg, target, 'pt')} é uma Invocação-Especial {'inerente' if inherent else 'não-inerente'}.",
        kind.source,
        provenance(kind),
    )


def _negatable_at_all(kg: KnowledgeGraph, target: str, lang: str) -> Decision | None:
    """Whether some card can negate the Special Summon of `target` (a card or a summon class):
    an inherent Summon by a card that negates Summons, a non-inherent one by negating the
    activation of what summons."""
    kind = _kind_fact(kg, target)
    if kind is None:
        return None
    inherent = kind.object == INHERENT
    rule = best(kg.out(kind.object, "negatable_by"))
    if rule is None:
        return None
    how_en = (
        "a card that negates Summons" if inherent else "negating the card or effect that summons"
    )
    how_pt = "um card que nega Invocações" if inherent else "negando o card ou efeito que invoca"
    steps = [
        _kind_step(kg, target, kind),
        Step(
            f"{'Inherent' if inherent else 'Non-inherent'} Special Summons can be negated by {how_en}.",
            f"Invocações-Especiais {'inerentes' if inherent else 'não-inerentes'} podem ser negadas "
            f"por {how_pt}.",
            rule.source,
        ),
    ]
    name = label(kg, target, lang)
    en = f"Yes. {name} is a{'n inherent' if inherent else ' non-inherent'} Special Summon: {how_en} negates it."
    pt = (
        f"Sim. {name} é uma Invocação-Especial {'inerente' if inherent else 'não-inerente'}: "
        f"{how_pt} a nega."
    )
    return Decision(
        "yes", steps, en, pt, 0.85, [x.source for x in steps if x.source], "summon-negation"
    )


_ACTIVATED = tuple(concept_id(f"{t}-effect") for t in ("trigger", "ignition", "quick", "flip"))


def _effect_summons(q: Question) -> bool:
    """ "uses its effect to Special Summon", "o efeito pra invocar", "effect that Special
    Summons": a word of Summon at most 40 characters after "effect"."""
    effects = [e for _, e in q.senses.where("effect")]
    return any(0 < a - e <= 41 for e in effects for a, _ in q.senses.where("summon"))


def _activated(kg: KnowledgeGraph, card: str):  # type: ignore[no-untyped-def]
    """The card's activated effect type (Trigger, Ignition, Quick, Flip), as a fact."""
    return best([f for f in kg.out(card, "has_effect_type") if f.object in _ACTIVATED])


def _starts_chain(kg: KnowledgeGraph, kind: str):  # type: ignore[no-untyped-def]
    """The fact saying whether Special Summons of `kind` start a Chain."""
    return best(kg.out(kind, "starts_chain") + kg.out(kind, "does_not_start_chain"))


def _chain_verdict(starts: bool, steps: list[Step], en: str, pt: str) -> Decision:
    return Decision(
        "yes" if starts else "no",
        steps,
        en,
        pt,
        0.9,
        [s.source for s in steps if s.source],
        "summon-chain",
    )


def _summoner_chain(kg: KnowledgeGraph, card: str, lang: str) -> Decision | None:
    """A card's activated effect Special Summons: a Special Summon by an effect is non-inherent,
    and non-inherent Special Summons start a Chain (the effect that summons is activated)."""
    effect = _activated(kg, card)
    fact = _starts_chain(kg, NON_INHERENT)
    if effect is None or fact is None:
        return None
    starts = fact.predicate == "starts_chain"
    eff_en, eff_pt = label(kg, effect.object, "en"), label(kg, effect.object, "pt")
    steps = [
        Step(
            f"{label(kg, card, 'en')} Special Summons by its {eff_en}, an activated effect.",
            f"{label(kg, card, 'pt')} invoca por seu {eff_pt}, um efeito ativado.",
            effect.source,
            provenance(effect),
        ),
        Step(
            f"A Special Summon by an effect is non-inherent; non-inherent Special Summons "
            f"{'always start' if starts else 'do not start'} a Chain.",
            f"Uma Invocação-Especial por efeito é não-inerente; Invocações-Especiais não-inerentes "
            f"{'sempre geram' if starts else 'não geram'} Corrente.",
            fact.source,
        ),
    ]
    name = label(kg, card, lang)
    en = f"{'Yes' if starts else 'No'}. The effect of {name} that Special Summons {'starts' if starts else 'does not start'} a Chain."
    pt = f"{'Sim' if starts else 'Não'}. O efeito de {name} que invoca {'gera' if starts else 'não gera'} Corrente."
    return _chain_verdict(starts, steps, en, pt)


_SPELL_TRAP = {concept_id("spell-card"): "spell", concept_id("trap-card"): "trap"}


def _spell_or_trap(kg: KnowledgeGraph, card: str) -> str | None:
    """'spell' or 'trap' for a Spell or Trap card that is not a Trap Monster."""
    classes = {f.object for f in kg.out(card, "instance_of")}
    if concept_id("trap-monster") in classes:
        return None
    return next((kind for c, kind in _SPELL_TRAP.items() if c in classes), None)


_CARD_KIND_WORDS = {
    "spell": "spell_word",
    "trap": "trap_word",
    "monster-effect": "monster_effect_word",
}


def _speaks_of(kg: KnowledgeGraph, passage: str | None, card_kind: str) -> bool:
    """Whether a rule's sentence names the kind of card (Spell, Trap) it is about."""
    node = kg.get(passage) if passage else None
    return bool(node and read_senses(node.text or "").has(_CARD_KIND_WORDS[card_kind]))


def _negates_activation(kg: KnowledgeGraph, negator: str, of: str):  # type: ignore[no-untyped-def]
    """The fact that `negator` negates the activation of `of` ('spell', 'trap' or
    'monster-effect'): by its scope when its facts give scopes (card data, curated), else any."""
    caps = [f for f in kg.out(negator, "has_capability") if f.object == ACTIVATION_NEG]
    scoped = [f for f in caps if (f.props or {}).get("scope")]
    if scoped:
        return best([f for f in scoped if f.props["scope"] == f"{of}-activation"])
    return best(caps)


def _summoning_card_negation(
    kg: KnowledgeGraph, negator: str, summoner: str, lang: str
) -> Decision | None:
    """ "Can N negate the Summon made by Spell/Trap S?" (or by monster S's effect): a Summon by a
    card's effect is non-inherent, so only negating S's activation stops it (with N's scope
    matching S's type)."""
    card_kind = _spell_or_trap(kg, summoner) or (
        "monster-effect" if _activated(kg, summoner) else None
    )
    if card_kind is None:
        return None
    kind = _kind_fact(kg, summoner) or best(kg.out(summoner, "instance_of"))
    fitting = _negates_activation(kg, negator, card_kind)
    caps = [f for f in kg.out(negator, "has_capability") if f.object == ACTIVATION_NEG]
    yes = fitting is not None
    rules = kg.out(NON_INHERENT, "negatable_by" if yes else "not_negatable_by")
    rule = best([f for f in rules if _speaks_of(kg, f.source, card_kind)]) or best(rules)
    if rule is None:
        return None
    s_en, s_pt = label(kg, summoner, "en"), label(kg, summoner, "pt")
    steps = [
        Step(
            f"{s_en} Special Summons by its own effect: a non-inherent Special Summon.",
            f"{s_pt} invoca por seu próprio efeito: uma Invocação-Especial não-inerente.",
            kind.source if kind else None,
            provenance(kind) if kind else None,
        ),
        Step(
            "Non-inherent Special Summons are negated only by negating the card or effect that "
            "summons (its activation)."
            if yes
            else "Non-inherent Special Summons are not negated by cards that negate summons.",
            "Invocações-Especiais não-inerentes só são negadas negando o card ou efeito que invoca "
            "(a sua ativação)."
            if yes
            else "Invocações-Especiais não-inerentes não são negadas por cards que negam Invocações.",
            rule.source,
        ),
    ]
    cap = fitting or best(caps) or best(kg.out(negator, "has_capability"))
    if cap is not None:
        scope_of = str((cap.props or {}).get("scope") or "")
        steps.append(
            Step(
                f"{label(kg, negator, 'en')} negates: {scope_of or label(kg, cap.object, 'en')}.",
                f"{label(kg, negator, 'pt')} nega: {scope_of or label(kg, cap.object, 'pt')}.",
                cap.source,
                provenance(cap),
            )
        )
    n_label, name = label(kg, negator, lang), label(kg, summoner, lang)
    if yes:
        en = (
            f"Yes: {n_label} negates the activation of {name}, and so its Special Summon, which "
            "is non-inherent."
        )
        pt = (
            f"Sim: {n_label} nega a ativação de {name} e, com ela, a Invocação-Especial, que é "
            "não-inerente."
        )
    else:
        what = {
            "spell": ("a Spell Card", "um Card de Magia"),
            "trap": ("a Trap Card", "um Card de Armadilha"),
            "monster-effect": ("a monster's effect", "um efeito de monstro"),
        }[card_kind]
        en = (
            f"No. The Special Summon by {name} is non-inherent (it happens through the card's "
            f"effect), and {n_label} cannot negate the activation of {what[0]}."
        )
        pt = (
            f"Não. A Invocação-Especial feita por {name} é não-inerente (acontece pelo efeito do "
            f"card), e {n_label} não pode negar a ativação de {what[1]}."
        )
    sources = [st.source for st in steps if st.source]
    return Decision("yes" if yes else "no", steps, en, pt, 0.9, sources, "summon-negation")


def _negation(kg: KnowledgeGraph, negator: str, target: str, lang: str) -> Decision:
    kind = _kind_fact(kg, target)
    assert kind is not None
    caps = kg.out(negator, "has_capability")
    cap_objects = {f.object for f in caps}
    n_label, t_label = label(kg, negator, lang), label(kg, target, lang)
    inherent = kind.object == INHERENT
    steps = [_kind_step(kg, target, kind)]
    rule_pred = "negatable_by"
    if inherent:
        cap = SUMMON_NEG
        yes = SUMMON_NEG in cap_objects
        rule = best(kg.out(INHERENT, "negatable_by" if yes else "not_negatable_by"))
        rule_pred = "negatable_by" if yes else "not_negatable_by"
    else:
        # the Summon happens through an effect: negating that effect's activation stops it
        of = _spell_or_trap(kg, target) or "monster-effect"
        yes = ACTIVATION_NEG in cap_objects and _negates_activation(kg, negator, of) is not None
        cap = ACTIVATION_NEG if yes else SUMMON_NEG
        rules = kg.out(NON_INHERENT, "negatable_by" if yes else "not_negatable_by")
        # the rule naming the kind of card that summons ("if the summoning effect is a monster's")
        rule = best([f for f in rules if _speaks_of(kg, f.source, of)]) or best(rules)
        rule_pred = "negatable_by" if yes else "not_negatable_by"
    if rule is not None:
        steps.append(
            Step(
                f"{'Inherent' if inherent else 'Non-inherent'} Special Summons are "
                f"{'' if rule_pred == 'negatable_by' else 'not '}negated by cards that "
                f"{'negate summons' if rule.object == SUMMON_NEG else 'negate activations'}"
                + (
                    " (negate the card or effect that summons, not the monster)"
                    if not inherent and yes
                    else ""
                )
                + ".",
                f"Invocações-Especiais {'inerentes' if inherent else 'não-inerentes'} "
                f"{'podem' if rule_pred == 'negatable_by' else 'não podem'} ser negadas por cards que "
                f"{'negam Invocações' if rule.object == SUMMON_NEG else 'negam ativações'}"
                + (
                    " (negue o card ou efeito que invoca, não o monstro)"
                    if not inherent and yes
                    else ""
                )
                + ".",
                rule.source,
            )
        )
    cap_fact = best([f for f in caps if f.object == cap]) or best(caps)
    if cap_fact is not None:
        what_en = {SUMMON_NEG: "negates summons", ACTIVATION_NEG: "negates activations"}.get(
            cap_fact.object, "negates effects"
        )
        what_pt = {SUMMON_NEG: "nega Invocações", ACTIVATION_NEG: "nega ativações"}.get(
            cap_fact.object, "nega efeitos"
        )
        steps.append(
            Step(
                f"{label(kg, negator, 'en')} {what_en}.",
                f"{label(kg, negator, 'pt')} {what_pt}.",
                cap_fact.source,
                provenance(cap_fact),
            )
        )
    verdict = "yes" if yes else "no"
    if yes and not inherent:
        en = f"Yes — but {n_label} must negate the card or effect that Special Summons {t_label}, not the summon itself."
        pt = f"Sim — mas {n_label} deve negar o card ou efeito que invoca {t_label}, não a Invocação em si."
    elif yes:
        en = f"Yes. {t_label} is an inherent Special Summon, and {n_label} negates summons."
        pt = f"Sim. {t_label} é uma Invocação-Especial inerente e {n_label} nega Invocações."
    elif inherent:
        en = f"No. {t_label} is an inherent Special Summon: it does not use an activation, so {n_label} (which negates activations) cannot negate it."
        pt = f"Não. {t_label} é uma Invocação-Especial inerente: não há ativação, então {n_label} (que nega ativações) não pode negá-la."
    elif ACTIVATION_NEG in cap_objects:
        en = f"No. {t_label} is a non-inherent Special Summon: it happens through an effect, and {n_label} neither negates that Summon nor the activation of that kind of effect."
        pt = f"Não. {t_label} é uma Invocação-Especial não-inerente: acontece por um efeito, e {n_label} não nega essa Invocação nem a ativação desse tipo de efeito."
    else:
        en = f"No. {t_label} is a non-inherent Special Summon: {n_label} only negates summons, and this summon happens through an effect."
        pt = f"Não. {t_label} é uma Invocação-Especial não-inerente: {n_label} só nega Invocações, e esta acontece por um efeito."
    sources = [s.source for s in steps if s.source]
    return Decision(verdict, steps, en, pt, 0.9, sources, "summon-negation")


def _chain(kg: KnowledgeGraph, target: str, lang: str) -> Decision | None:
    kind = _kind_fact(kg, target)
    assert kind is not None
    fact = _starts_chain(kg, kind.object)
    if fact is None:
        return None
    starts = fact.predicate == "starts_chain"
    t_label = label(kg, target, lang)
    inherent = kind.object == INHERENT
    steps = [
        _kind_step(kg, target, kind),
        Step(
            f"{'Non-inherent' if not inherent else 'Inherent'} Special Summons {'always start' if starts else 'do not start'} a Chain.",
            f"Invocações-Especiais {'não-inerentes sempre geram' if starts else 'inerentes não geram'} Corrente.",
            fact.source,
        ),
    ]
    en = f"{'Yes' if starts else 'No'}. Special Summoning {t_label} {'starts' if starts else 'does not start'} a Chain."
    pt = f"{'Sim' if starts else 'Não'}. A Invocação-Especial de {t_label} {'gera' if starts else 'não gera'} Corrente."
    return _chain_verdict(starts, steps, en, pt)


def _chain_by_kind(kg: KnowledgeGraph, lang: str) -> Decision | None:
    """Whether a Special Summon starts a Chain, asked of no kind: each kind's rule, no verdict
    (an inherent Special Summon does not; the effect that makes a non-inherent one does)."""
    facts = [(k, _starts_chain(kg, k)) for k in (INHERENT, NON_INHERENT)]
    if any(f is None or f.source is None for _, f in facts):
        return None
    steps = []
    for kind, fact in facts:
        assert fact is not None
        starts = fact.predicate == "starts_chain"
        steps.append(
            Step(
                f"{label(kg, kind, 'en')}: {'the effect that summons starts' if starts else 'does not start'} a Chain.",
                f"{label(kg, kind, 'pt')}: {'o efeito que invoca gera' if starts else 'não gera'} Corrente.",
                fact.source,
                provenance(fact),
            )
        )
    en = (
        "It depends on the kind of Special Summon: an inherent Special Summon (a monster's own "
        "summoning procedure) does not start a Chain; a non-inherent one is made by an effect, and "
        "that effect's activation always starts a Chain."
    )
    pt = (
        "Depende do tipo de Invocação-Especial: uma Invocação-Especial inerente (o procedimento "
        "de invocação do próprio monstro) não gera Corrente; uma não-inerente é feita por um "
        "efeito, e a ativação desse efeito sempre gera Corrente."
    )
    del lang
    return Decision(
        None, steps, en, pt, None, [x.source for x in steps if x.source], "summon-chain"
    )


def _classes(entity: str) -> list[str]:
    """The entity and its monster-class / summon-class counterpart (fusion-summon ↔ fusion-monster)."""
    out = [entity]
    if entity.endswith("-summon") and entity != concept_id("special-summon"):
        out.append(entity.removesuffix("-summon") + "-monster")
    if entity.endswith("-monster"):
        out.append(entity.removesuffix("-monster") + "-summon")
    return out


def decide_summon_kind(kb: Knowledge, q: Question) -> Decision | None:
    """Is X's Special Summon inherent (or non-inherent)?"""
    return summon_kind_decision(kb.kg, q.entities, q.lang)


def summon_kind_decision(kg: KnowledgeGraph, entities: list[str], lang: str) -> Decision | None:
    """Is X (a card or a monster class) an inherent / non-inherent Special Summon?"""
    asked = next((e for e in entities if e in (INHERENT, NON_INHERENT)), None)
    if asked is None:
        return None
    subjects = [
        e for e in entities if e not in (INHERENT, NON_INHERENT) and not e.startswith("format/")
    ]
    for subject in subjects:
        kinds = [
            f
            for c in _classes(subject)
            for f in kg.out(c, "summoned_by")
            if f.object in (INHERENT, NON_INHERENT)
        ]
        kind = best(kinds)
        if kind is None:
            continue
        yes = kind.object == asked
        actual_en = "an inherent" if kind.object == INHERENT else "a non-inherent"
        actual_pt = "inerente" if kind.object == INHERENT else "não-inerente"
        name_en, name_pt = label(kg, subject, "en"), label(kg, subject, "pt")
        exception = bool(kind.props.get("exception"))
        step = Step(
            f"{name_en} is {actual_en} Special Summon{' (an exception the document lists)' if exception else ''}.",
            f"{name_pt} é Invocação-Especial {actual_pt}{' (exceção listada no documento)' if exception else ''}.",
            kind.source,
            provenance(kind),
        )
        en = f"{'Yes' if yes else 'No'}. {label(kg, subject, lang)} is {actual_en} Special Summon."
        pt = f"{'Sim' if yes else 'Não'}. {label(kg, subject, lang)} é Invocação-Especial {actual_pt}."
        sources = [kind.source] if kind.source else []
        context = kind.props.get("context")
        if isinstance(context, str):
            sources.append(context)
        return Decision("yes" if yes else "no", [step], en, pt, 0.85, sources, "summon-kind")
    unlisted = [
        e
        for e in subjects
        if e.startswith("concept/")
        and e not in _NOT_SPECIAL
        and any(c.endswith("-summon") and c in kg for c in _classes(e))
    ]
    if unlisted:
        return _unlisted_kind(kg, unlisted[0], lang)
    return None


# Summons that are no Special Summon, and the Special Summon itself: no kind to look up.
_NOT_SPECIAL = frozenset(
    concept_id(k) for k in ("special-summon", "normal-summon", "tribute-summon", "flip-summon")
)


def _unlisted_kind(kg: KnowledgeGraph, subject: str, lang: str) -> Decision:
    """A Summon method neither list of Special Summon kinds names ("is a Link Summon
    inherent?"): the rules say which Summons are inherent and which are not, and this one is in
    neither, so the KB cannot decide; the lists are cited."""
    listed = [
        f
        for kind in (INHERENT, NON_INHERENT)
        for f in kg.into(kind, "summoned_by")
        if f.subject.startswith("concept/") and f.source
    ]
    kinds = ", ".join(sorted({label(kg, f.subject, "en") for f in listed}))
    kinds_pt = ", ".join(sorted({label(kg, f.subject, "pt") for f in listed}))
    name_en, name_pt = label(kg, subject, "en"), label(kg, subject, "pt")
    en = (
        f"No ruling found: the rules list which Special Summons are inherent and which are not "
        f"({kinds}), and {name_en} is in neither list."
    )
    pt = (
        f"Nenhuma regra encontrada: as regras listam quais Invocações-Especiais são inerentes e "
        f"quais não são ({kinds_pt}), e {name_pt} não está em nenhuma das listas."
    )
    sources = list(dict.fromkeys(f.source for f in listed if f.source))
    step = Step(en, pt, sources[0] if sources else None)
    return Decision(None, [step], en, pt, None, sources[:3], "summon-kind")

"""Chain legality by spell speed: can B be chained to A?

B may respond to A when B's spell speed is at least A's and B is not Spell Speed 1 (Spell Speed 1
effects only share a chain when they trigger simultaneously). The spell-speed sections state which
speeds respond to which (`can_respond_to` / `cannot_respond_to`); a card's speed comes from its
class (Counter Trap 3; Quick-Play Spell, Trap, Quick Effect 2; others 1).
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.link import Mention
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import best, label, provenance, spell_speed

# Mentions whose words are the chaining itself ("chain", "resposta"): the others are names.
_CHAINING = frozenset({"concept/chain", "concept/chain-link", "concept/response"})
_CHAIN_WORDS = ("chain", "chain_to", "respond")


def verb_ends(q: Question, *names: str) -> list[int]:
    """Where each verb of the senses `names` ends, an article right after it taken in ("chain
    a …", "ativou o …"): the entity named right there is the verb's object."""
    out: list[int] = []
    for name in names:
        for _, end in q.senses.where(name):
            article = q.senses.after(end, "determiner")
            out.append(article[1] if article is not None else end)
    return sorted(out)


def _after_mark(q: Question, m: Mention) -> bool:
    """The entity is what is responded to: right after "to", "against", "em resposta a", "numa"
    (an article or possessive between)."""
    return q.senses.led_by(
        m.start, (f"target_mark_{q.lang}",), (f"mark_filler_{q.lang}",), words=3, gap=2
    )


def _only_asked(q: Question, at: int, responder: Mention) -> str | None:
    """What an "only" of the asking clause restricts: the responders when it stands right
    before the responder ("only Counter Traps can …"), else what is responded to ("can Spell Speed
    3 only respond to …"); None without one."""
    if not q.senses.has("only", start=at):
        return None
    return "responders" if q.senses.before(responder.start, "only", gap=2) else "targets"


def _excluded(q: Question, m: Mention) -> bool:
    """What is excluded from what responds: "anything other than another Counter Trap"."""
    return q.senses.led_by(m.start, ("except",), ("except_filler",), words=1)


def link_numbers(q: Question, start: int = 0) -> list[int]:
    """Chain Link numbers said from character `start` on ("Chain Link 2", "elo 3", "CL1")."""
    return [
        a.value
        for a in q.amounts
        if a.digits and a.start >= start and q.senses.before(a.start, "link_word")
    ]


def _about_set_up(q: Question) -> bool:
    """A short asking sentence about the set-up, naming nothing ("Is that legal?", "Pode isso
    aí?"): it asks about all of it."""
    about = q.senses.where("about_that", start=q.last_at)
    named = any(m.start >= q.last_at for m in q.mentions)
    return bool(about) and not named and q.length - q.last_at <= 30


def decide_chain(kb: Knowledge, q: Question) -> Decision | None:
    """Decide 'can B be chained to A' for two entities with known spell speeds."""
    return chain_decision(kb.kg, q)


def chain_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    # The asking clause must be about chaining: not an aside "(sem chain)", not a condition
    # ("if nobody responds, …"), not a card's name ("Chain Destruction").
    about = _about_set_up(q)
    at = 0 if about else q.last_at
    names = [(m.start, m.end) for m in q.mentions if m.entity not in _CHAINING]
    asked = (
        q.senses.outside([*names, *q.asides])
        if about
        else q.asked_senses(lambda m: m.entity not in _CHAINING)
    )
    if not asked.has(*_CHAIN_WORDS):
        return None
    verb = q.senses.first(*_CHAIN_WORDS, start=at)
    if verb is not None and any(
        not q.senses.before(s, "even") for s, _ in q.senses.where("conditioned", start=verb[1])
    ):
        return None  # "… if it creates a loop?", "… before they respond?": more than spell speed
    if q.senses.has("loop", start=at):
        return None  # "… even though it makes an infinite loop?": the loop rules decide
    linked = [
        a for a in q.amounts if a.digits and a.start >= at and q.senses.before(a.start, "link_word")
    ]
    if linked and not (
        q.senses.has("response_to", start=at)
        or any(q.senses.after(a.end, "response_link_word") for a in linked)
    ):
        return None  # "is X Chain Link 1?": the order of a chain, not whether X may respond
    lang = q.lang
    pair = chain_pair(kg, q)
    if pair is None:
        alone = lone_responder(kg, q)
        return _any_chain(kg, alone, lang) if alone is not None else None
    responder, target = pair
    r_speed, r_fact = spell_speed(kg, responder.entity)  # type: ignore[misc]
    t_speed, t_fact = spell_speed(kg, target.entity)  # type: ignore[misc]
    r_cls, t_cls = concept_id(f"spell-speed-{r_speed}"), concept_id(f"spell-speed-{t_speed}")
    allowed = r_speed >= 2 and r_speed >= t_speed
    pred = "can_respond_to" if allowed else "cannot_respond_to"
    stating = [f for f in kg.out(r_cls, pred) if f.object == t_cls]
    rule = best(stating) or best(kg.out(r_cls, pred))
    # Refused because of what is responded to ("Spell Speed 3 is countered only by Spell Speed
    # 3"): the rule of the target's own speed says so too.
    target_rule = (
        best([f for f in stating if _section(kg, f.source) != _section(kg, rule.source)])
        if rule is not None and not allowed
        else None
    )
    # (what is a Spell Speed itself needs no step saying so)
    steps = [
        Step(
            f"{label(kg, m.entity, 'en')} is Spell Speed {speed}.",
            f"{label(kg, m.entity, 'pt')} tem Velocidade de Magia {speed}.",
            fact.source if fact else None,
            provenance(fact),
        )
        for m, speed, fact in ((responder, r_speed, r_fact), (target, t_speed, t_fact))
        if not m.entity.startswith("concept/spell-speed-")
    ]
    steps += [
        Step(
            f"Spell Speed {r_speed} {'can' if allowed else 'cannot'} respond to Spell Speed {t_speed}.",
            f"Velocidade de Magia {r_speed} {'pode' if allowed else 'não pode'} responder a Velocidade de Magia {t_speed}.",
            rule.source if rule else None,
        ),
    ]
    if target_rule is not None and target_rule.source:
        steps.append(
            Step(
                f"Only Spell Speed {t_speed} or higher can respond to Spell Speed {t_speed}.",
                f"Somente Velocidade de Magia {t_speed} ou maior pode responder a Velocidade de "
                f"Magia {t_speed}.",
                target_rule.source,
            )
        )
    link_rule = best(kg.out(r_cls, "not_above_chain_link")) if not allowed else None
    link_source = link_rule.source if link_rule is not None else None
    if link_source is not None and link_numbers(q, at) and link_source in kg:
        # asked about a Chain Link number: the rule that puts no such effect above Chain Link 1
        text = kg.node(link_source).text
        steps.insert(
            0,
            Step(
                f"Spell Speed {r_speed} effects are not Chain Link 2 or higher: {text}",
                f"Efeitos de Velocidade de Magia {r_speed} não são Elo 2 ou superior: {text}",
                link_source,
            ),
        )
    r_l, t_l = label(kg, responder.entity, lang), label(kg, target.entity, lang)
    restricted = _only_asked(q, at, responder) if allowed else None
    if restricted is not None:
        # "Can Spell Speed 3 only respond to Spell Speed 3?": no, when it also responds to others
        if restricted == "targets":
            reach = [f for f in kg.out(r_cls, "can_respond_to") if f.object != t_cls]
        else:
            reach = [f for f in kg.into(t_cls, "can_respond_to") if f.subject != r_cls]
        if reach:
            other = min(reach, key=lambda f: (f.subject, f.object))
            a, b = other.subject[-1], other.object[-1]
            steps.append(
                Step(
                    f"Spell Speed {a} can respond to Spell Speed {b} too.",
                    f"Velocidade de Magia {a} também pode responder a Velocidade de Magia {b}.",
                    other.source,
                )
            )
            en = f"No. Spell Speed {a} can respond to Spell Speed {b} too, not only as asked."
            pt = (
                f"Não. Velocidade de Magia {a} também pode responder a Velocidade de Magia {b}, "
                "não somente como perguntado."
            )
            sources = [s.source for s in steps if s.source]
            return Decision("no", steps, en, pt, 0.85, sources, "chain-spell-speed")
    if allowed:
        en = f"Yes. {r_l} (Spell Speed {r_speed}) can be chained to {t_l} (Spell Speed {t_speed})."
        pt = f"Sim. {r_l} (Velocidade de Magia {r_speed}) pode ser ativado em corrente a {t_l} (Velocidade de Magia {t_speed})."
    else:
        en = f"No. {r_l} is Spell Speed {r_speed} and cannot be chained to {t_l} (Spell Speed {t_speed})."
        pt = f"Não. {r_l} tem Velocidade de Magia {r_speed} e não pode ser ativado em corrente a {t_l} (Velocidade de Magia {t_speed})."
    return Decision(
        "yes" if allowed else "no",
        steps,
        en,
        pt,
        0.85,
        [s.source for s in steps if s.source],
        "chain-spell-speed",
    )


def _section(kg: KnowledgeGraph, node_id: str | None) -> str | None:
    section = kg.section_of(node_id) if node_id and node_id in kg else None
    return section.id if section else None


def _any_chain(kg: KnowledgeGraph, responder: Mention, lang: str) -> Decision | None:
    """'Can X be chained?' with nothing named to chain it to: X's speed against the speeds its
    rule lets it respond to (Spell Speed 1 responds to none)."""
    speed, fact = spell_speed(kg, responder.entity)  # type: ignore[misc]
    cls = concept_id(f"spell-speed-{speed}")
    allowed = speed >= 2
    pred = "can_respond_to" if allowed else "cannot_respond_to"
    rules = kg.out(cls, pred)
    rule = best(rules)
    if rule is None:
        return None
    reach = sorted(
        {int(f.object[-1]) for f in rules if f.object.startswith("concept/spell-speed-")}
    )
    reach_en = " and ".join(f"Spell Speed {n}" for n in reach)
    reach_pt = " e ".join(f"Velocidade de Magia {n}" for n in reach)
    name = label(kg, responder.entity, lang)
    steps = [
        Step(
            f"{label(kg, responder.entity, 'en')} is Spell Speed {speed}.",
            f"{label(kg, responder.entity, 'pt')} tem Velocidade de Magia {speed}.",
            fact.source if fact else None,
            provenance(fact),
        ),
        Step(
            f"Spell Speed {speed} {'can' if allowed else 'cannot'} respond to {reach_en}.",
            f"Velocidade de Magia {speed} {'pode' if allowed else 'não pode'} responder a {reach_pt}.",
            rule.source,
        ),
    ]
    if allowed:
        en = f"Yes. {name} (Spell Speed {speed}) can be chained to {reach_en} effects."
        pt = (
            f"Sim. {name} (Velocidade de Magia {speed}) pode ser encadeado a efeitos de {reach_pt}."
        )
    else:
        en = f"No. {name} is Spell Speed {speed}: it cannot be chained in response to another effect."
        pt = f"Não. {name} tem Velocidade de Magia {speed}: não pode ser encadeado em resposta a outro efeito."
    return Decision(
        "yes" if allowed else "no",
        steps,
        en,
        pt,
        0.85,
        [x.source for x in steps if x.source],
        "chain-spell-speed",
    )


def lone_responder(kg: KnowledgeGraph, q: Question) -> Mention | None:
    """The one thing with a spell speed a question asks to chain, with nothing named to chain it
    to: "Can you chain Normal Trap Cards?" (the chain verb's object). None when it is what is
    responded to ("can I chain to X?") or when it does something besides ("X starts a chain")."""
    typed = _with_speed(kg, q)
    if len({m.entity for m in typed}) != 1:
        return None
    asked_at = q.last_at
    verbs = [v for v in verb_ends(q, "chain_verb") if v >= asked_at]
    if not verbs:
        return None
    # A set-up naming something ("I discarded X for the hand limit. Can I chain Y?") describes
    # what Y would respond to, beyond its speed.
    set_up = any(m.start < asked_at and not m.entity.startswith("format/") for m in q.mentions)
    for m in typed:
        if set_up or m.start < asked_at or _after_mark(q, m):
            continue
        if any(0 <= m.start - v <= 12 for v in verbs):
            return m
        if q.senses.after(m.end, "be_chained") is not None:
            return m  # "Can a Counter Trap be chained to anything other than …?"
    if len(typed) >= 2 and all(m.start < asked_at for m in typed):
        # "The opponent targets my Set MST with his MST. Can I chain mine in response?": one
        # card on both sides of the chain, the asking sentence naming neither.
        return typed[0]
    return None


def chain_pair(kg: KnowledgeGraph, q: Question) -> tuple[Mention, Mention] | None:
    """(responder, responded-to) of "can X be chained to Y": two mentions with known spell speeds.

    The asking sentence decides first: the entity right after the chain verb responds, the one
    after "to / a / numa / em resposta a" is responded to. A question that sets up a chain
    before asking ("A is Chain Link 1 and B chains. Can I chain C?") responds to the last link it
    described; one whose asking sentence names no card ("can I activate it in response?")
    responds to the card its set-up activates. A speed named right after a card ("X's Spell Speed 1 effect", "o efeito rápido
    do X") describes that card, not a second one.
    """
    typed = _with_speed(kg, q)
    unique = _first_of_each(typed)
    if len(unique) == 1:
        # "Can one Counter Trap respond to another Counter Trap?": the same kind, twice
        again = [
            m
            for m in typed[1:]
            if m.entity == typed[0].entity
            and q.senses.before(m.start, "other")
            and not _excluded(q, m)
        ]
        return (typed[0], again[0]) if again else None
    if len(unique) < 2:
        return None
    asked_at = q.last_at
    verbs = verb_ends(q, "chain_verb")
    asked_verbs = [v for v in verbs if v >= asked_at]

    def after_mark(m: Mention) -> bool:
        return _after_mark(q, m)

    def after_verb(m: Mention) -> bool:
        # "X chains to Y": what follows "to" is responded to, not the verb's object
        return any(0 <= m.start - v <= 12 for v in verbs) and not after_mark(m)

    def excluded(m: Mention) -> bool:
        return _excluded(q, m)

    # The asking sentence's own mentions (a card named in the set-up and again when asking
    # counts where it is asked).
    asked = _first_of_each([m for m in typed if m.start >= asked_at])
    before = [m for m in unique if m.start < asked_at]
    activations = [v for v in verb_ends(q, "setup_verb") if v <= asked_at]
    # The set-up's last activated card is the chain's newest link.
    activated = next(
        (m for m in reversed(before) if any(0 <= m.start - v <= 12 for v in activations)), None
    )
    if activated is not None and (
        not asked
        or q.senses.has("pronoun_target", start=asked_at)
        or not any(after_mark(m) for m in asked)
    ):
        # "The opponent activates A while I hold B. Can I activate it in response?", "Can I
        # chain C to it?": the card the set-up activates is the link responded to.
        asked_others = [m for m in asked if m.entity != activated.entity and not excluded(m)]
        if asked_others:
            return asked_others[0], activated
        if not asked:
            return next(m for m in reversed(before) if m is not activated), activated
    responder = next((m for m in asked if after_verb(m)), None)
    others_before = [m for m in before if not asked or m.entity != asked[0].entity]
    if len(asked) == 1 and others_before and _bare_response(q, asked_at):
        # "Opp MST's my Set Call of the Haunted. Can I flip Call in response?": what the asking
        # sentence names responds, to what the set-up names last.
        return asked[0], others_before[-1]
    if responder is None and asked_verbs:
        # "Can I chain Illusion Snatch's Spell Speed 1 effect to Divine Wrath?": the first thing
        # the asking sentence names after its verb, not one excluded ("anything other than X")
        responder = next(
            (
                m
                for m in asked
                if m.start > asked_verbs[0] and not after_mark(m) and not excluded(m)
            ),
            None,
        )
    if responder is None and not asked_verbs:
        responder = next((m for m in unique if after_verb(m)), None)
    if responder is not None:
        unique = [m for m in unique if m.entity != responder.entity] + [responder]
        unique.sort(key=lambda m: m.start)
    others = [m for m in unique if m is not responder]
    asked_targets = [m for m in asked if m is not responder and after_mark(m)]
    target = (
        (asked_targets[0] if asked_targets else None)
        or next((m for m in others if m.start >= asked_at and after_mark(m)), None)
        or (before[-1] if responder in asked and before and len(asked) == 1 else None)
        or next((m for m in others if after_mark(m)), None)
    )
    if responder is None and target is None:
        return unique[0], unique[1]  # no verb, no mark: the first named responds
    if target is None:
        target = others[0]
    if responder is None:
        responder = next(m for m in unique if m is not target)
    return responder, target


def _bare_response(q: Question, start: int) -> bool:
    """ "… in response?", "em resposta": responding, with nothing named to respond to."""
    return any(
        q.senses.after(end, "response_link_word") is None
        for _, end in q.senses.where("in_response", start=start)
    )


def _with_speed(kg: KnowledgeGraph, q: Question) -> list[Mention]:
    """The mentions with a known spell speed (a speed describing a card merged into it)."""
    return [
        m
        for m in _merged(kg, q)
        if spell_speed(kg, m.entity) is not None and not m.entity.endswith("/chain")
    ]


def _first_of_each(mentions: list[Mention]) -> list[Mention]:
    """Each entity once, where it is first named."""
    seen: set[str] = set()
    return [m for m in mentions if not (m.entity in seen or seen.add(m.entity))]  # type: ignore[func-returns-value]


def _merged(kg: KnowledgeGraph, q: Question) -> list[Mention]:
    """A spell-speed concept that describes the card next to it ("X's Spell Speed 1 effect",
    "o efeito rápido do X") is that card: dropped when the card's own speed is known, else it
    takes the card's place (the card's position, the concept's speed)."""
    kept = list(q.mentions)
    for m in q.mentions:
        if not m.entity.startswith("concept/") or spell_speed(kg, m.entity) is None:
            continue
        before = [c for c in kept if c.entity.startswith("card/") and c.end <= m.start]
        after = [c for c in kept if c.entity.startswith("card/") and c.start >= m.end]
        card = None
        of = q.senses.after(m.end, "of_word")
        if before and before[-1].end in q.possessives and m.start - before[-1].end <= 4:
            card = before[-1]  # "X's Spell Speed 1 effect"
        elif after and of is not None and 0 <= after[0].start - of[1] <= 1:
            card = after[0]  # "o efeito rápido do X"
        if card is None or m not in kept:
            continue
        kept.remove(m)
        if spell_speed(kg, card.entity) is None:
            kept[kept.index(card)] = Mention(m.entity, card.start, m.end, card.matched, m.score)
    return sorted(kept, key=lambda x: (x.start, -x.end))

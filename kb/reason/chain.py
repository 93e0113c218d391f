"""Chain legality by spell speed: can B be chained to A?

B may respond to A when B's spell speed is at least A's and B is not Spell Speed 1 (Spell Speed 1
effects only share a chain when they trigger simultaneously). The spell-speed sections state which
speeds respond to which (`can_respond_to` / `cannot_respond_to`); a card's speed comes from its
class (Counter Trap 3; Quick-Play Spell, Trap, Quick Effect 2; others 1).
"""

from __future__ import annotations

import re

from kb.graph import KnowledgeGraph
from kb.ids import concept_id, fold
from kb.link import Mention
from kb.reading.clauses import last_sentence, main_clause
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step, Value
from kb.reason.facts import best, label, provenance, spell_speed

# Chaining verbs, the players' Portuguese "chainar" (chainou, chainei…) among them.
_CHAIN_VERB = re.compile(
    r"(?i)\b(chain|chains|chained|chaining|chain(?:ar|o|a|am|ou|ei|aram|ando)|encadear|encadeio|"
    r"encadeou|encadeei|encadeia|encadearam|ativar em corrente|respond with|responder com|"
    r"responded with|respondeu com|respond(?:er|o)? (?:ativando|activating|by activating))\b"
    r"(\s+(?:an?|the|uma?|o|a|my|meu|minha)\b)?"
)
# "The opponent activates (flips, chains) X": a set-up's activation verb (X is a link of the
# chain).
_ACTIVATE_VERB = re.compile(
    r"(?i)\b(activates|activated|activate|ativa|ativou|ativam|ativaram|ativei|ativo|"
    r"flips|flipped|flip(?:a|ou|ei|aram)|chains|chained|chain(?:a|ou|ei|aram)|encadeou|"
    r"encadeia|plays|played|uses|used|usou|usa|jogou|joga|mandou|manda)\b"
    r"(\s+(?:an?|the|uma?|o|a|his|her|their|seu|sua|um|uma)\b)?"
)
_CHAIN = re.compile(r"\b(chain\w*|corrente|encade\w*|acorrent\w*|respond\w*|resposta|response)\b")
# The entity right after one of these is the one being responded to.
_TARGET_MARK = {
    "en": re.compile(
        r"(?:\bto|\bagainst|\bon|\bin response to)(?:\s+an?|\s+the)?"
        r"(?:\s+(?:my|your|his|her|their|our)(?:\s+own)?)?\s*$"
    ),
    "pt": re.compile(
        r"(?:\ba|\bao|\bà|\bcontra|\bnuma?|\bn[oa]s?|\bem uma?|\bsobre|\bem resposta (?:a|ao)"
        r"|\bem corrente (?:a|ao|com))"
        r"(?:\s+uma?|\s+o|\s+a)?(?:\s+(?:meu|minha|seu|sua)(?:\s+propri[oa])?)?\s*$"
    ),
}
_RESPONSE_TO = re.compile(r"\b(in response to|em resposta a\w*|respond\w* to)\b")
# "… in response?", "em resposta": responding, with nothing named to respond to.
_BARE_RESPONSE = re.compile(r"\b(?:in response|em resposta)\b(?!\s+(?:to|a|ao|à|as|aos|do|da)\b)")


# A short asking sentence about what the set-up describes: "Pode isso?", "Is that legal?".
_ABOUT_THAT = re.compile(
    r"(?:e\s+)?(?:pode isso|isso pode|isso e permitido|isso vale|vale isso|pode|is that "
    r"(?:legal|allowed|ok)|can (?:they|he|she|i|you) do that|is this legal)\s*\??"
)


def decide_chain(kb: Knowledge, q: Question) -> Decision | None:
    """Decide 'can B be chained to A' for two entities with known spell speeds."""
    return chain_decision(kb.kg, q.text, q.mentions, q.lang)


def chain_decision(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> Decision | None:
    # The asking clause must be about chaining: not an aside "(sem chain)", not a condition
    # ("if nobody responds, …").
    asked = fold(last_sentence(re.sub(r"\([^)]*\)", " ", question)))
    if _ABOUT_THAT.fullmatch(asked.strip()):
        asked = fold(re.sub(r"\([^)]*\)", " ", question))  # "Pode isso?": about the set-up
    if not _CHAIN.search(main_clause(_without_names(question, mentions, asked))):
        return None
    verb = _CHAIN.search(asked)
    if verb is not None and _CONDITIONED.search(asked, verb.end()):
        return None  # "… if it creates a loop?", "… before they respond?": more than spell speed
    if _LOOP.search(asked):
        return None  # "… even though it makes an infinite loop?": the loop rules decide
    if _LINK_NUMBER.search(asked) and not (_RESPONSE_TO.search(asked) or _LINK_TO.search(asked)):
        return None  # "is X Chain Link 1?": the order of a chain, not whether X may respond
    pair = chain_pair(kg, question, mentions, lang)
    if pair is None:
        alone = lone_responder(kg, question, mentions, lang)
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
    steps = [
        Step(
            f"{label(kg, responder.entity, 'en')} is Spell Speed {r_speed}.",
            f"{label(kg, responder.entity, 'pt')} tem Velocidade de Magia {r_speed}.",
            r_fact.source if r_fact else None,
            provenance(r_fact),
        ),
        Step(
            f"{label(kg, target.entity, 'en')} is Spell Speed {t_speed}.",
            f"{label(kg, target.entity, 'pt')} tem Velocidade de Magia {t_speed}.",
            t_fact.source if t_fact else None,
            provenance(t_fact),
        ),
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
    if link_source is not None and _LINK_NUMBER.search(asked) and link_source in kg:
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


# Mentions whose words are the chaining itself ("chain", "resposta"): the others are names.
_CHAINING = frozenset({"concept/chain", "concept/chain-link", "concept/response"})


def _without_names(question: str, mentions: list[Mention], asked: str) -> str:
    """`asked` (a folded part of `question`) with the names of cards and other concepts blanked:
    "Resposta" in "Armadilha de Resposta" and "Chain" in "Chain Destruction" are no verb."""
    names = [fold(m.matched) for m in mentions if m.entity not in _CHAINING]
    for name in sorted(set(names), key=len, reverse=True):
        if name:
            asked = asked.replace(name, " " * len(name))
    return asked


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


def lone_responder(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> Mention | None:
    """The one thing with a spell speed a question asks to chain, with nothing named to chain it
    to: "Can you chain Normal Trap Cards?" (the chain verb's object). None when it is what is
    responded to ("can I chain to X?") or when it does something besides ("X starts a chain")."""
    typed = _with_speed(kg, mentions, question)
    if len({m.entity for m in typed}) != 1:
        return None
    asked_at = len(question) - len(last_sentence(question))
    verbs = [v.end() for v in _CHAIN_VERB.finditer(question) if v.end() >= asked_at]
    if not verbs:
        return None
    # A set-up naming something ("I discarded X for the hand limit. Can I chain Y?") describes
    # what Y would respond to, beyond its speed.
    set_up = any(m.start < asked_at and not m.entity.startswith("format/") for m in mentions)
    for m in typed:
        if (
            set_up
            or m.start < asked_at
            or _TARGET_MARK[lang].search(fold(question[: m.start]).rstrip(' "“'))
        ):
            continue
        if any(0 <= m.start - v <= 12 for v in verbs):
            return m
        if _PASSIVE_CHAINED.match(fold(question[m.end :])):
            return m  # "Can a Counter Trap be chained to anything other than …?"
    if len(typed) >= 2 and all(m.start < asked_at for m in typed):
        # "The opponent targets my Set MST with his MST. Can I chain mine in response?": one
        # card on both sides of the chain, the asking sentence naming neither.
        return typed[0]
    return None


def chain_pair(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> tuple[Mention, Mention] | None:
    """(responder, responded-to) of "can X be chained to Y": two mentions with known spell speeds.

    The asking sentence decides first: the entity right after the chain verb responds, the one
    after "to / a / numa / em resposta a" is responded to. A question that sets up a chain
    before asking ("A is Chain Link 1 and B chains. Can I chain C?") responds to the last link it
    described; one whose asking sentence names no card ("can I activate it in response?")
    responds to the card its set-up activates. A speed named right after a card ("X's Spell Speed 1 effect", "o efeito rápido
    do X") describes that card, not a second one.
    """
    typed = _with_speed(kg, mentions, question)
    unique = _first_of_each(typed)
    if len(unique) == 1:
        # "Can one Counter Trap respond to another Counter Trap?": the same kind, twice
        again = [
            m
            for m in typed[1:]
            if m.entity == typed[0].entity
            and _ANOTHER.search(fold(question[: m.start]))
            and not _EXCEPT.search(fold(question[: m.start]))
        ]
        return (typed[0], again[0]) if again else None
    if len(unique) < 2:
        return None
    asked_at = len(question) - len(last_sentence(question))
    verbs = [v.end() for v in _CHAIN_VERB.finditer(question)]
    asked_verbs = [v for v in verbs if v >= asked_at]

    def after_mark(m: Mention) -> bool:
        return bool(_TARGET_MARK[lang].search(fold(question[: m.start]).rstrip(' "“')))

    def after_verb(m: Mention) -> bool:
        # "X chains to Y": what follows "to" is responded to, not the verb's object
        return any(0 <= m.start - v <= 12 for v in verbs) and not after_mark(m)

    def excluded(m: Mention) -> bool:
        return bool(_EXCEPT.search(fold(question[: m.start])))

    # The asking sentence's own mentions (a card named in the set-up and again when asking
    # counts where it is asked).
    asked = _first_of_each([m for m in typed if m.start >= asked_at])
    before = [m for m in unique if m.start < asked_at]
    activations = [v.end() for v in _ACTIVATE_VERB.finditer(question[:asked_at])]
    # The set-up's last activated card is the chain's newest link.
    activated = next(
        (m for m in reversed(before) if any(0 <= m.start - v <= 12 for v in activations)), None
    )
    if activated is not None and (
        not asked
        or _PRONOUN_TARGET[lang].search(fold(question[asked_at:]))
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
    if len(asked) == 1 and others_before and _BARE_RESPONSE.search(fold(question[asked_at:])):
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


def _with_speed(kg: KnowledgeGraph, mentions: list[Mention], question: str) -> list[Mention]:
    """The mentions with a known spell speed (a speed describing a card merged into it)."""
    return [
        m
        for m in _merged(kg, mentions, question)
        if spell_speed(kg, m.entity) is not None and not m.entity.endswith("/chain")
    ]


def _first_of_each(mentions: list[Mention]) -> list[Mention]:
    """Each entity once, where it is first named."""
    seen: set[str] = set()
    return [m for m in mentions if not (m.entity in seen or seen.add(m.entity))]  # type: ignore[func-returns-value]


# A second one of the same kind: "another Counter Trap", "outra Armadilha de Resposta".
_ANOTHER = re.compile(r"\b(?:another|other|outr[oa]s?)\s*$")
# What is excluded from what responds: "anything other than another Counter Trap".
_EXCEPT = re.compile(
    r"\b(?:other than|besides|except(?: for)?|apart from|alem de|exceto|fora|menos|salvo)\s+"
    r"(?:an?|another|the|outr[oa]s?|uma?|o|a|os|as)?\s*$"
)
# The asking sentence responds to "it" / "that": the set-up's activated card.
_PRONOUN_TARGET = {
    "en": re.compile(r"\b(?:to|against|on|in response to)\s+(?:it|that|this|them)\b"),
    "pt": re.compile(
        r"\b(?:a ele|a ela|ao mesmo|nele|nela|nisso|a isso|em resposta a (?:ele|ela|isso))\b"
    ),
}


# A card's possessive or "do/da" before a speed concept: "X's Spell Speed 1 effect", "efeito
# rápido do X" — the concept describes the card next to it.
_OF_CARD = re.compile(r"\s*(?:'s?|’s?)\s*")


def _merged(kg: KnowledgeGraph, mentions: list[Mention], question: str) -> list[Mention]:
    """A spell-speed concept that describes the card next to it ("X's Spell Speed 1 effect",
    "o efeito rápido do X") is that card: dropped when the card's own speed is known, else it
    takes the card's place (the card's position, the concept's speed)."""
    kept = list(mentions)
    for m in mentions:
        if not m.entity.startswith("concept/") or spell_speed(kg, m.entity) is None:
            continue
        before = [c for c in kept if c.entity.startswith("card/") and c.end <= m.start]
        after = [c for c in kept if c.entity.startswith("card/") and c.start >= m.end]
        card = None
        if before and _OF_CARD.fullmatch(fold(question[before[-1].end : m.start])):
            card = before[-1]
        elif after and re.fullmatch(
            r"\s*(?:do|da|de|of)\s*", fold(question[m.end : after[0].start])
        ):
            card = after[0]
        if card is None or m not in kept:
            continue
        kept.remove(m)
        if spell_speed(kg, card.entity) is None:
            kept[kept.index(card)] = Mention(m.entity, card.start, m.end, card.matched, m.score)
    return sorted(kept, key=lambda x: (x.start, -x.end))


_LINK_NUMBER = re.compile(r"\b(chain link|elo)\s*\d")
# "chained as Chain Link 2 to Skill Drain": a link number, then what it responds to.
_LINK_TO = re.compile(r"\b(?:chain link|elo)\s*\d+\s+(?:to|a|ao|à)\b")
_CONDITIONED = re.compile(
    r"\b(?<!even )(?<!mesmo )(se|if|unless|a menos|antes|before|depois|after|caso)\b"
)
# "X be chained (to)", "X ser encadeado": X is what responds.
_PASSIVE_CHAINED = re.compile(
    r"\s*(?:be|get|ser|sera|é|e) (?:chained|encadead[oa]s?|ativad[oa]s? em corrente|"
    r"activated in response)\b"
)
_LOOP = re.compile(r"\bloops?\b")
_SEQUENCE = re.compile(r"\b(then|depois|em seguida|after that|and then|e entao)\b")
_RESOLVE = re.compile(
    r"\b(resolv\w*|resolution|resolu\w*|destr\w*|aplica\w*|applies|apply|still|ainda|"
    r"funciona\w*|works?|negad\w*|negated|happens|acontece)\b"
)
_ACTIVATION_SCOPE = {
    "spell": "spell-activation",
    "trap": "trap-activation",
    "monster": "monster-effect-activation",
}


def _negatable_kinds(kg: KnowledgeGraph, card: str) -> set[str]:
    """Which activations a card negates, from curated `negates` and stated capabilities."""
    node = kg.get(card)
    kinds = set(node.props.get("negates", [])) if node else set()
    for f in kg.out(card, "has_capability"):
        scope = f.props.get("scope")
        if scope == "spell-trap-activation":
            kinds |= {"spell-activation", "trap-activation"}
        elif isinstance(scope, str):
            kinds.add(scope)
    return kinds


def resolution_rule(kg: KnowledgeGraph) -> str | None:
    """The passage stating that a chain resolves from the last link down: one that mentions
    chain resolution inside a Rule or Section about Chain Links, of the base rules first."""
    sections = {n.id for n in kg.rules_about(concept_id("chain-link"))}
    found = [
        f.subject
        for f in kg.into(concept_id("chain-resolution"), "mentions")
        if any(a in sections for a in kg.ancestors(f.subject))
    ]
    base = {n.id for n in kg.of_type("Format") if n.props.get("base")}
    found.sort(key=lambda s: f"format/{kg.format_of(s)}" not in base)
    return found[0] if found else None


def decide_resolution(kb: Knowledge, q: Question) -> Decision | None:
    """Does card X of a described chain resolve?"""
    return resolution_decision(kb.kg, q.text, q.mentions, q.lang)


def resolution_decision(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> Decision | None:
    """A described chain (cards in the order they were activated): does card X resolve?

    The chain resolves from the last link down; a link that is not itself negated negates the
    link below it when it negates that kind of activation (spell / trap / monster effect).
    """
    q = fold(question)
    if not _RESOLVE.search(q):
        return None
    links: list[str] = []
    for m in mentions:
        if m.entity.startswith("card/") and m.entity not in links:
            links.append(m.entity)
    if len(links) < 2 or not any(_negatable_kinds(kg, c) for c in links[1:]):
        return None
    if len(links) == 2 and not (_CHAIN.search(q) or _SEQUENCE.search(q)):
        return None  # two cards that merely meet (an attack, a flip) are no described chain
    tail = question[max(question.rfind(","), question.rfind(".", 0, len(question) - 1)) + 1 :]
    tail_start = len(question) - len(tail)
    asked = next(
        (m.entity for m in mentions if m.start >= tail_start and m.entity in links), links[0]
    )
    negated = [False] * len(links)
    steps: list[Step] = []
    rule = resolution_rule(kg)
    steps.append(
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        )
    )
    for i in range(len(links) - 1, 0, -1):
        upper, lower = links[i], links[i - 1]
        lower_node = kg.get(lower)
        kind = _ACTIVATION_SCOPE.get(
            lower_node.props.get("card_type", "") if lower_node else "", ""
        )
        if negated[i] or kind not in _negatable_kinds(kg, upper):
            continue
        negated[i - 1] = True
        cap = best(kg.out(upper, "has_capability"))
        steps.append(
            Step(
                f"Chain Link {i + 1} {label(kg, upper, 'en')} negates the activation of Chain Link {i} "
                f"{label(kg, lower, 'en')}.",
                f"Elo {i + 1} {label(kg, upper, 'pt')} nega a ativação do Elo {i} {label(kg, lower, 'pt')}.",
                cap.source if cap else None,
            )
        )
    resolves = not negated[links.index(asked)]
    name = label(kg, asked, lang)
    en = f"{'Yes' if resolves else 'No'}. {name} {'resolves' if resolves else 'is negated and does not resolve'}."
    pt = f"{'Sim' if resolves else 'Não'}. {name} {'resolve' if resolves else 'é negado e não resolve'}."
    return Decision(
        "yes" if resolves else "no",
        steps,
        en,
        pt,
        0.8,
        [s.source for s in steps if s.source],
        "chain-resolution",
    )


# "Does X resolve before Y?", "o elo 4 resolve antes do elo 3?": the order of resolution.
_RESOLVES = re.compile(r"\b(resolv\w*|resolu\w*)\b")
_BEFORE_AFTER = re.compile(r"\b(before|antes|first|primeiro|after|depois|apos)\b")
_LINK_NUMBER = re.compile(r"\b(?:chain link|link|elo|cl)\s*(\d+)\b")


def decide_order(kb: Knowledge, q: Question) -> Decision | None:
    """Does X resolve before (after) Y in a chain? Which link resolves first (last)?"""
    if not q.yes_no:
        return first_to_resolve(kb.kg, q.text, q.mentions)
    return order_decision(kb.kg, q.text, q.mentions, q.lang)


# "Which card resolves first?", "qual resolve por último?"
_WHICH_RESOLVES = re.compile(
    r"\b(?:which|what|qual|quais|que)\b[^?]*\b(?:resolv\w*|resolu\w*)\b[^?]*?"
    r"\b(?P<end>first|primeiro|1o|last|por ultimo|ultimo)\b"
)


def first_to_resolve(kg: KnowledgeGraph, question: str, mentions: list[Mention]) -> Decision | None:
    """A described chain (each card named right after the verb that activates or chains it, in
    that order) and "which resolves first / last?": the last link resolves first."""
    asked = _WHICH_RESOLVES.search(fold(last_sentence(question)))
    if asked is None:
        return None
    verbs = [v.end() for v in _ACTIVATE_VERB.finditer(question)]
    verbs += [v.end() for v in _CHAIN_VERB.finditer(question)]
    links: list[str] = []
    for m in mentions:
        if (
            m.entity.startswith("card/")
            and m.entity not in links
            and any(0 <= m.start - v <= 12 for v in verbs)
        ):
            links.append(m.entity)
    rule = resolution_rule(kg)
    if len(links) < 2 or rule is None:
        return None
    first = asked.group("end") in ("first", "primeiro", "1o")
    card = links[-1] if first else links[0]
    order_en = ", ".join(f"{i} {label(kg, c, 'en')}" for i, c in enumerate(links, 1))
    order_pt = ", ".join(f"{i} {label(kg, c, 'pt')}" for i, c in enumerate(links, 1))
    steps = [
        Step(
            f"The chain, in the order activated: {order_en}.",
            f"A corrente, na ordem de ativação: {order_pt}.",
            None,
        ),
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        ),
    ]
    n = len(links) if first else 1
    en = (
        f"{label(kg, card, 'en')} (Chain Link {n}) resolves {'first' if first else 'last'}: "
        "the chain resolves from the last link down."
    )
    pt = (
        f"{label(kg, card, 'pt')} (Elo {n}) resolve {'primeiro' if first else 'por último'}: a "
        "corrente resolve do último elo para o primeiro."
    )
    return Decision(
        None, steps, en, pt, None, [rule], "chain-order", value=Value("text", label(kg, card, "en"))
    )


def order_decision(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> Decision | None:
    """Links resolve from the last one down: a later link resolves before an earlier one. The
    links are numbered ("elo 4 … elo 3") or cards of a described chain, in the order named."""
    asking = fold(last_sentence(question))
    order = _BEFORE_AFTER.search(asking)
    if order is None or not _RESOLVES.search(asking):
        return None
    after = order.group(1) in ("after", "depois", "apos")
    numbers = [int(n) for n in _LINK_NUMBER.findall(asking)]
    if len(numbers) == 2 and numbers[0] != numbers[1]:
        first, second = numbers
        names = [(f"Chain Link {n}", f"Elo {n}") for n in numbers]
    else:
        links: list[str] = []
        for m in mentions:
            if m.entity.startswith("card/") and m.entity not in links:
                links.append(m.entity)
        # the card just before the order word and the first one after it ("o MST resolve antes
        # do Imperial Order?"), each at its link (where the question first names it)
        at = len(question) - len(last_sentence(question)) + order.start()
        cards = [m for m in mentions if m.entity.startswith("card/")]
        before = [m.entity for m in cards if m.end <= at]
        after_ = [m.entity for m in cards if m.start >= at]
        if len(links) < 2 or not before or not after_ or before[-1] == after_[0]:
            return None
        asked = [before[-1], after_[0]]
        first, second = links.index(asked[0]) + 1, links.index(asked[1]) + 1
        names = [(label(kg, e, "en"), label(kg, e, "pt")) for e in asked]
    rule = resolution_rule(kg)
    if rule is None:
        return None
    earlier = first > second  # the later link resolves first
    yes = earlier != after
    (a_en, a_pt), (b_en, b_pt) = names
    steps = [
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        ),
        Step(
            f"{a_en} is Chain Link {first} and {b_en} is Chain Link {second}: {a_en} resolves "
            f"{'before' if earlier else 'after'} {b_en}.",
            f"{a_pt} é o Elo {first} e {b_pt} é o Elo {second}: {a_pt} resolve "
            f"{'antes' if earlier else 'depois'} de {b_pt}.",
            rule,
        ),
    ]
    a, b = (a_en, b_en) if lang == "en" else (a_pt, b_pt)
    en = f"{'Yes' if yes else 'No'}. {a} resolves {'before' if earlier else 'after'} {b}: the chain resolves from the last link down."
    pt = f"{'Sim' if yes else 'Não'}. {a} resolve {'antes' if earlier else 'depois'} de {b}: a corrente resolve do último elo para o primeiro."
    return Decision("yes" if yes else "no", steps, en, pt, 0.85, [rule], "chain-order")

"""Quiz questions from typed facts: summon kind, negation and chain facts, capabilities, speeds.

Only facts a document states (authority `document`, with a source passage) become answer keys;
curated card data is used for what a card is (its type) and for distractors.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from kb.ids import fold
from kb.model import Fact, Node
from kb.presentation.quiz_checks import distinct, giveaway
from kb.presentation.quiz_lang import LANGS, say
from kb.presentation.quiz_model import (
    YES_NO,
    Option,
    Question,
    Texts,
    key_of,
    keyed,
    lettered,
    words_of,
)
from kb.presentation.quiz_sources import Sources, clean, label_in

INHERENT = "concept/inherent-special-summon"
NON_INHERENT = "concept/non-inherent-special-summon"
_SUMMON_KEYS = ("inherent", "non-inherent")
_SUMMON_OPTIONS = keyed(_SUMMON_KEYS)
# A list headed "cards that summon monsters: …" names what performs the summon, not what is
# summoned ("Monster Reborn" is no monster): its question asks of the summon it makes.
_PERFORMS = re.compile(r"\b(que|quem) (invoque|invoquem|invoca|invocam)\b")
_SPEEDS = ("concept/spell-speed-1", "concept/spell-speed-2", "concept/spell-speed-3")
# predicate -> (positive predicate it answers, question template in quiz_lang, answer)
_YES_NO_FACTS: dict[str, tuple[str, str, str]] = {
    "negatable_by": ("negatable_by", "negatable_by", "yes"),
    "not_negatable_by": ("negatable_by", "negatable_by", "no"),
    "starts_chain": ("starts_chain", "starts_chain", "yes"),
    "does_not_start_chain": ("starts_chain", "starts_chain", "no"),
    "can_respond_to": ("can_respond_to", "can_respond_to", "yes"),
    "cannot_respond_to": ("can_respond_to", "can_respond_to", "no"),
}


def source_node(src: Sources, fact: Fact) -> Node | None:
    """The passage a document fact cites; a list entry is cited through its whole list item."""
    node = src.kg.get(fact.source) if fact.source else None
    if node is not None and node.props.get("kind") == "entry" and node.parent:
        node = src.kg.node(node.parent)
    return node if node is not None and node.span is not None else None


def document_facts(src: Sources, predicate: str) -> list[Fact]:
    facts = [f for f in src.kg.facts if f.predicate == predicate and f.authority == "document"]
    return sorted(facts, key=lambda f: (f.subject, f.object, f.source or ""))


def label(src: Sources, node_id: str, lang: str = "pt") -> str:
    node = src.kg.get(node_id)
    return (label_in(node, lang) or node_id) if node else node_id


def summon_questions(src: Sources) -> Iterator[Question]:
    """ "Is X's Special Summon inherent or non-inherent?" from the rulings' summon lists."""
    kinds: dict[str, set[str]] = {}
    first: dict[str, Fact] = {}
    for f in document_facts(src, "summoned_by"):
        kinds.setdefault(f.subject, set()).add(f.object)
        first.setdefault(f.subject, f)
    for subject, f in first.items():
        source = source_node(src, f)
        if len(kinds[subject]) != 1 or source is None or f.object not in (INHERENT, NON_INHERENT):
            continue
        header = fold((source.text or "").split(":")[0])
        whose_key = "summon_made_by" if _PERFORMS.search(header) else "summon_of"
        answer = "inherent" if f.object == INHERENT else "non-inherent"
        qid = f"summon:{subject}"
        text: dict[str, tuple[str, str]] = {}
        for lang in LANGS:
            name = src.name(src.kg.node(subject), lang)
            note = say(lang, "summon_exception") if f.props.get("exception") else ""
            text[lang] = (
                say(lang, "summon", whose=say(lang, whose_key, name=name)),
                say(
                    lang,
                    "summon_explained",
                    kind=label(src, f.object, lang),
                    name=name,
                    listed=src.where(source, lang),
                    note=note,
                    text=clean(source.text or ""),
                    node=source.id,
                ),
            )
        yield Question(
            id=qid,
            kind="multiple-choice",
            family="summon",
            format=src.format_of(source),
            topics=src.topics(source, "summon"),
            prompt=text["pt"][0],
            context=None,
            statement=None,
            options=_SUMMON_OPTIONS,
            answer=answer,
            explanation=text["pt"][1],
            citation=src.citation(source),
            group=qid,
            en=Texts(text["en"][0], None, None, words_of(_SUMMON_KEYS, "en"), text["en"][1]),
        )


def fact_questions(src: Sources) -> Iterator[Question]:
    """Yes/no from negation, chain and response facts between concepts."""
    answers: dict[tuple[str, str, str], set[str]] = {}
    firsts: dict[tuple[str, str, str], tuple[Fact, str, str]] = {}
    for predicate, (positive, template, answer) in _YES_NO_FACTS.items():
        for f in document_facts(src, predicate):
            key = (f.subject, positive, f.object)
            answers.setdefault(key, set()).add(answer)
            firsts.setdefault(key, (f, template, answer))
    for key, (f, template, answer) in sorted(firsts.items()):
        source = source_node(src, f)
        if len(answers[key]) != 1 or source is None:
            continue  # the documents disagree, or nothing to cite
        qid = f"fact:{key[0]}:{key[1]}:{key[2]}"
        via = f" ({f.props['via']})" if f.props.get("via") else ""
        prompt, why = {}, {}
        for lang in LANGS:
            asked = say(lang, template, s=label(src, f.subject, lang), o=label(src, f.object, lang))
            prompt[lang] = say(lang, "according", text=asked)
            why[lang] = say(
                lang,
                "fact_explained",
                verdict=say(lang, answer),
                via=via,
                text=clean(source.text or ""),
                node=source.id,
            )
        yield Question(
            id=qid,
            kind="yes-no",
            family="fact",
            format=src.format_of(source),
            topics=src.topics(source),
            prompt=prompt["pt"],
            context=None,
            statement=None,
            options=YES_NO,
            answer=answer,
            explanation=why["pt"],
            citation=src.citation(source),
            group=qid,
            en=Texts(prompt["en"], None, None, words_of(("yes", "no"), "en"), why["en"]),
        )


def capability_questions(src: Sources) -> Iterator[Question]:
    """ "Which of these cards can negate summons?": one card the rulings name, three that cannot."""
    known: dict[str, set[str]] = {}
    for f in src.kg.facts:
        # Distractors come from the cards whose capabilities are curated or stated (a card the
        # card data was read for may have a capability its inference missed).
        if (
            f.predicate == "has_capability"
            and f.subject.startswith("card/")
            and f.authority != "inferred"
        ):
            known.setdefault(f.subject, set()).add(f.object)
    holders: dict[tuple[str, str], Fact] = {}
    for f in document_facts(src, "has_capability"):
        if f.subject.startswith("card/"):
            holders.setdefault((f.object, f.subject), f)
    for (capability, card), f in sorted(holders.items()):
        source = source_node(src, f)
        others = sorted(c for c, caps in known.items() if capability not in caps)
        if source is None or len(others) < 3:
            continue
        qid = f"capability:{capability}:{card}"
        cards = [card, *random.Random(qid).sample(others, 3)]
        names = [src.name(src.kg.node(c)) for c in cards]
        if not distinct(names) or giveaway([label(src, capability)], names, names[0]):
            continue
        options = lettered(names, qid)
        in_english = {src.name(src.kg.node(c)): src.name(src.kg.node(c), "en") for c in cards}
        quoted = {"text": clean(source.text or ""), "node": source.id}
        yield Question(
            id=qid,
            kind="multiple-choice",
            family="capability",
            format=src.format_of(source),
            topics=src.topics(source),
            prompt=say("pt", "capability", capability=label(src, capability)),
            context=None,
            statement=None,
            options=options,
            answer=key_of(options, names[0]),
            explanation=say("pt", "capability_explained", name=names[0], **quoted),
            citation=src.citation(source),
            group=qid,
            en=Texts(
                say("en", "capability", capability=label(src, capability, "en")),
                None,
                None,
                tuple(in_english[o.text] for o in options),
                say("en", "capability_explained", name=in_english[names[0]], **quoted),
            ),
        )


def speed_support(src: Sources, concept: str, speed: str) -> Node | None:
    """A passage naming `concept` where it (or its section) names `speed`: document support."""
    for f in sorted(src.kg.into(concept, "mentions"), key=lambda f: f.subject):
        node = src.kg.get(f.subject)
        if node is None or node.span is None or node.type == "Document":
            continue
        around = [node.id, *src.kg.ancestors(node.id)]
        if any(g.object == speed for nid in around for g in src.kg.out(nid, "mentions")):
            return node
    return None


def speed_questions(src: Sources) -> Iterator[Question]:
    """ "What Spell Speed is X?" for card kinds (and cards of that kind) a document places."""
    options = tuple(Option(s[-1], label(src, s)) for s in _SPEEDS)
    kind_speed = {
        f.subject: f.object
        for f in src.kg.facts
        if f.predicate == "has_spell_speed" and f.subject.startswith("concept/")
    }
    supported = {c: speed_support(src, c, s) for c, s in sorted(kind_speed.items())}
    for concept, source in supported.items():
        if source is not None and kind_speed[concept] in _SPEEDS:
            yield _speed_question(src, concept, concept, kind_speed[concept], source, options)
    for f in sorted(src.kg.facts, key=lambda f: f.subject):
        via = f.props.get("via")
        if f.predicate == "has_spell_speed" and f.subject.startswith("card/") and via in supported:
            source = supported[via]
            if source is not None and kind_speed.get(via) == f.object and f.object in _SPEEDS:
                yield _speed_question(src, f.subject, via, f.object, source, options)


def _speed_question(
    src: Sources, subject: str, kind: str, speed: str, source: Node, options: tuple[Option, ...]
) -> Question:
    qid = f"speed:{subject}"
    prompt, why = {}, {}
    for lang in LANGS:
        name = src.name(src.kg.node(subject), lang)
        what = name if subject == kind else f"{name} ({label(src, kind, lang)})"
        prompt[lang] = say(lang, "speed", what=what)
        why[lang] = say(
            lang,
            "speed_explained",
            kind=label(src, kind, lang),
            speed=label(src, speed, lang),
            text=clean(source.text or ""),
            node=source.id,
        )
    return Question(
        id=qid,
        kind="multiple-choice",
        family="spell-speed",
        format=src.format_of(source),
        topics=src.topics(source, "spell-speed"),
        prompt=prompt["pt"],
        context=None,
        statement=None,
        options=options,
        answer=speed[-1],
        explanation=why["pt"],
        citation=src.citation(source),
        group=qid,
        en=Texts(
            prompt["en"],
            None,
            None,
            tuple(label(src, s, "en") for s in _SPEEDS),
            why["en"],
        ),
    )

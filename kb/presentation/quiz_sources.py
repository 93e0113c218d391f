"""Where quiz questions come from: the graph's statements, ordered steps and typed facts.

Each generator yields only questions whose key the knowledge base supports, each citing the
passage that supports it. Everything is a pure function of the graph and the document texts, in a
fixed order, so the question bank (and every question id) is the same on every build of a corpus.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.model import Node
from kb.presentation.polarity import flip
from kb.presentation.quiz_checks import fair_options, holds_in_several, lacks_subject, words
from kb.presentation.quiz_lang import say
from kb.presentation.quiz_model import (
    TRUE_FALSE,
    Citation,
    Question,
    Texts,
    key_of,
    lettered,
    words_of,
)
from kb.search.analysis import analyse
from kb.text import Segment, sentences, trimmed

_MARKER = re.compile(r"^[•●\-–]?\s*(?:Exemplo\s+\d+(?:\s*\([^)]*\))?\s*:)?\s*")
_STEP_PREFIX = re.compile(r"^[•●\-–]?\s*(?:Passo|Sub-etapa|Etapa)\s*\d+\s*[:\-–]\s*")
_EXAMPLE_NOTE = re.compile(r"\(ex:[^)]*\)|\s+")
# Headings that name no subject (a statement under "Regras:" takes the heading above it).
_GENERIC_HEADINGS = frozenset({"regras", "regra", "rules", "exemplos", "exemplo", "examples"})
_STATEMENT_KINDS = frozenset({"bullet", "list-item", "paragraph", "example", "table-row"})
_SEMANTIC_TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("chain", ("concept/chain", "concept/chain-link", "concept/segoc", "concept/response")),
    ("spell-speed", ("concept/spell-speed",)),
    ("damage-step", ("concept/damage-step",)),
    ("summon", ("summon",)),
)


@dataclass(frozen=True)
class Sources:
    """The graph and texts questions are drawn from, with the helpers every generator shares."""

    kg: KnowledgeGraph
    documents: dict[str, str]
    doc_formats: dict[str, str]

    def citation(self, node: Node, segment: Segment | None = None) -> Citation:
        """The node's span (or a segment of it) with its exact text."""
        assert node.span is not None, node.id
        doc = node.span.document
        start, end = (segment.start, segment.end) if segment else (node.span.start, node.span.end)
        section = self.kg.section_of(node.id)
        return Citation(
            node.id,
            doc,
            section.id if section else None,
            start,
            end,
            self.documents[doc][start:end],
        )

    @cached_property
    def formats(self) -> Formats:
        return Formats.of_nodes(self.kg.of_type("Format"))

    def badge(self, format_name: str, lang: str = "pt") -> str:
        return self.formats.badge(format_name, lang) or "?"

    def format_of(self, node: Node) -> str:
        for nid in (node.id, *self.kg.ancestors(node.id)):
            for f in self.kg.out(nid, "applies_in"):
                return f.object.removeprefix("format/")
        return self.doc_formats.get(node.span.document, "general") if node.span else "general"

    def topics(self, node: Node, *extra: str) -> tuple[str, ...]:
        """The node's top-level rule or section (e.g. edison-rule-05, tag-basic-rules) and themes."""
        found = set(extra)
        chain = [node.id, *self.kg.ancestors(node.id)]
        tops = [n for n in chain if self.kg.node(n).type != "Document"]
        if tops:
            found.add(tops[-1].replace("/", "-"))
        mentioned = {f.object for nid in chain[:3] for f in self.kg.out(nid, "mentions")}
        mentioned |= {f.object for nid in chain for f in self.kg.out(nid, "about")}
        for topic, needles in _SEMANTIC_TOPICS:
            if any(any(n in m for n in needles) for m in mentioned):
                found.add(topic)
        return tuple(sorted(found))

    def declared_topics(self) -> set[str]:
        """Every topic a quiz may ask for: each document's top-level rules and sections, themes."""
        tops = {
            n.id.replace("/", "-")
            for n in self.kg.of_type("Rule", "Section")
            if n.parent is not None and self.kg.node(n.parent).type == "Document"
        }
        return tops | {topic for topic, _ in _SEMANTIC_TOPICS}

    def where(self, node: Node, lang: str = "pt") -> str:
        """ "Edison · Regra #5 — …": the format and the rules/sections above (and at) a node."""
        chain = [self.kg.node(a) for a in reversed(self.kg.ancestors(node.id))] + [node]
        names = [title(n, lang) for n in chain if n.type in ("Rule", "Section")]
        return " › ".join([self.badge(self.format_of(node), lang), *names])

    def name(self, node: Node, lang: str = "pt") -> str:
        """A card's or concept's name: in Portuguese with the English one after it; in English."""
        if lang == "en":
            return node.label_en or node.label_pt or node.id
        pt, en = node.label_pt or node.label_en or node.id, node.label_en
        return f"{pt} ({en})" if en and en != pt else pt


def label_in(node: Node, lang: str) -> str | None:
    """The node's label in `lang` (the other language's when it has none)."""
    return (node.label_en or node.label_pt) if lang == "en" else (node.label_pt or node.label_en)


def title(node: Node, lang: str = "pt") -> str:
    name = (node.label_pt if lang == "pt" else label_in(node, lang)) or node.text or node.id
    number = node.props.get("number")
    if node.type == "Rule" and number is not None:
        return say(lang, "rule_title", number=number, name=name)
    return name


def clean(text: str) -> str:
    return " ".join(text.split())


# --- true/false from statements ---------------------------------------------------------------
def statement_segments(src: Sources, node: Node) -> Iterator[tuple[int, Segment, list[Segment]]]:
    """Usable sentences of a node (index, sentence without its bullet, the sentences before it)."""
    assert node.span is not None
    text = src.documents[node.span.document]
    sents = sentences(text, node.span.start, node.span.end)
    for i, sent in enumerate(sents):
        if node.type == "Example" and len(sents) > 1 and i == 0:
            continue  # an example's first sentence sets the scene; the ruling follows
        marker = _MARKER.match(sent.text)
        seg = trimmed(text, sent.start + (marker.end() if marker else 0), sent.end)
        if seg is None or not 30 <= len(seg.text) <= 320:
            continue
        if seg.text.endswith((":", "?")) or seg.text.startswith("(") or "http" in seg.text:
            continue
        yield i, seg, sents[:i]


def statement_questions(src: Sources) -> Iterator[Question]:
    seen: set[str] = set()
    nodes = [
        n
        for n in src.kg.nodes
        if n.span is not None
        and (
            n.type == "Example" or (n.type == "Passage" and n.props.get("kind") in _STATEMENT_KINDS)
        )
    ]
    for node in sorted(
        nodes,
        key=lambda n: (
            list(src.doc_formats).index(n.span.document)
            if n.span and n.span.document in src.doc_formats
            else 99,
            n.span.start if n.span else 0,
        ),
    ):
        for i, seg, before in statement_segments(src, node):
            flipped = flip(seg.text)
            if flipped is None or fold(seg.text) in seen:
                continue
            seen.add(fold(seg.text))
            context = clean(" ".join(_MARKER.sub("", s.text, count=1) for s in before)) or None
            if lacks_subject(seg.text):
                heading = subject_heading(src, node)
                if heading is None:
                    continue  # neither the sentence nor a heading says what it is about
                context = f"{heading}: {context}" if context else heading
            group = f"tf:{node.id}:s{i}"
            changed = "statement_false_removed" if flipped.removed else "statement_false_added"
            for truth, statement in ((True, seg.text), (False, flipped.text)):
                why = {
                    lang: say(lang, "statement_true", node=node.id)
                    if truth
                    else say(lang, changed, node=node.id, text=seg.text)
                    for lang in ("pt", "en")
                }
                yield Question(
                    id=f"{group}:{'true' if truth else 'false'}",
                    kind="true-false",
                    family="statement",
                    format=src.format_of(node),
                    topics=src.topics(node),
                    prompt=say("pt", "true_or_false", where=src.where(node)),
                    context=context,
                    statement=statement,
                    options=TRUE_FALSE,
                    answer="true" if truth else "false",
                    explanation=why["pt"],
                    citation=src.citation(node, seg),
                    group=group,
                    en=Texts(
                        say("en", "true_or_false", where=src.where(node, "en")),
                        context,
                        statement,
                        words_of(("true", "false"), "en"),
                        why["en"],
                    ),
                )


def subject_heading(src: Sources, node: Node) -> str | None:
    """The title of the nearest section or rule above a node that names a subject."""
    for nid in src.kg.ancestors(node.id):
        above = src.kg.node(nid)
        if above.type not in ("Rule", "Section"):
            continue
        name = clean(above.label_pt or "").rstrip(":")
        if len(name) >= 4 and fold(name) not in _GENERIC_HEADINGS:
            return name
    return None


# --- true/false from the curated rule claims -------------------------------------------------
def claim_questions(src: Sources) -> Iterator[Question]:
    """Each rule claim as a true/false statement in Portuguese: its `holds` is the key, the
    sentence stating it is the citation (a refuted belief is a ready-made 'false')."""
    for claim in sorted(src.kg.of_type("Claim"), key=lambda n: n.id):
        stated = src.kg.out(claim.id, "stated_in")
        if not stated or claim.span is None or not claim.label_pt:
            continue
        passage = src.kg.node(stated[0].object)
        holds = bool(claim.props["holds"])
        fmt = str(claim.props["format"])
        sentence = clean(claim.text or "")
        section = src.kg.section_of(passage.id)
        doc, start, end = claim.span.document, claim.span.start, claim.span.end
        citation = Citation(
            claim.id,
            doc,
            section.id if section else None,
            start,
            end,
            src.documents[doc][start:end],
        )
        verdict = "true" if holds else "false"

        def where(lang: str) -> str:
            return f"{src.badge(fmt, lang)} · {src.where(passage, lang)}"  # noqa: B023

        yield Question(
            id=f"claim:{claim.id}:{'true' if holds else 'false'}",
            kind="true-false",
            family="claim",
            format=fmt,
            topics=src.topics(passage),
            prompt=say("pt", "true_or_false", where=where("pt")),
            context=None,
            statement=claim.label_pt,
            options=TRUE_FALSE,
            answer=verdict,
            explanation=say(
                "pt",
                "claim_explained",
                verdict=say("pt", verdict),
                sentence=sentence,
                node=passage.id,
            ),
            citation=citation,
            group=f"claim:{claim.id}",
            en=Texts(
                say("en", "true_or_false", where=where("en")),
                None,
                claim.label_en or claim.label_pt,
                words_of(("true", "false"), "en"),
                say(
                    "en",
                    "claim_explained",
                    verdict=say("en", verdict),
                    sentence=sentence,
                    node=passage.id,
                ),
            ),
        )


# --- multiple choice from ordered steps ------------------------------------------------------
def step_text(step: Node) -> str:
    """A step without its number or bullet (the number would give the answer away)."""
    text = _STEP_PREFIX.sub("", step.props.get("title") or step.text or step.id)
    return clean(_MARKER.sub("", text, count=1))


def step_sequences(src: Sources) -> list[tuple[Node, list[Node]]]:
    """Ordered steps under each parent (SEGOC, Damage Step sub-steps, Tag turn order)."""
    by_parent: dict[str, list[Node]] = {}
    for step in src.kg.of_type("Step"):
        if step.parent is not None and step.span is not None:
            by_parent.setdefault(step.parent, []).append(step)
    return [
        (src.kg.node(p), sorted(steps, key=lambda s: s.span.start if s.span else 0))
        for p, steps in sorted(by_parent.items())
        if len(steps) >= 3
    ]


def order_questions(src: Sources) -> Iterator[Question]:
    for parent, steps in step_sequences(src):
        texts = [step_text(s) for s in steps]
        where = src.where(parent)
        where_en = src.where(parent, "en")
        for i, step in enumerate(steps):
            qid = f"order:{step.id}"
            if i == 0:
                prompt, pool = say("pt", "order_first", where=where), texts[1:]
                prompt_en = say("en", "order_first", where=where_en)
                why = {
                    lang: say(lang, "order_first_why", total=len(steps), node=step.id)
                    for lang in ("pt", "en")
                }
            else:
                prompt = say("pt", "order_next", where=where, previous=texts[i - 1])
                prompt_en = say("en", "order_next", where=where_en, previous=texts[i - 1])
                pool = [t for t in texts if t not in (texts[i], texts[i - 1])]
                why = {
                    lang: say(
                        lang,
                        "order_next_why",
                        number=i + 1,
                        total=len(steps),
                        previous=texts[i - 1],
                        node=step.id,
                    )
                    for lang in ("pt", "en")
                }
            shown = [where] if i == 0 else [where, texts[i - 1]]
            chosen = fair_options(texts[i], pool, shown, qid)
            if chosen is None:
                continue
            options = lettered(chosen, qid)
            yield Question(
                id=qid,
                kind="multiple-choice",
                family="order",
                format=src.format_of(step),
                topics=src.topics(step),
                prompt=prompt,
                context=None,
                statement=None,
                options=options,
                answer=key_of(options, texts[i]),
                explanation=why["pt"],
                citation=src.citation(step),
                group=qid,
                # The steps are the document's words: quoted as it wrote them.
                en=Texts(prompt_en, None, None, tuple(o.text for o in options), why["en"]),
            )


def _core(text: str) -> set[str]:
    return set(analyse(_EXAMPLE_NOTE.sub(" ", text)))


def damage_step_questions(src: Sources) -> Iterator[Question]:
    """ "In which Damage Step sub-step does X happen?" for passages that hold in one sub-step only
    (not negated, not repeated by another sub-step) and whose text does not name the key."""
    substeps = [s for s in src.kg.of_type("Step") if s.props.get("kind") == "damage-substep"]
    substeps.sort(key=lambda s: s.span.start if s.span else 0)
    names = {
        s.id: say("pt", "substep", number=i, text=step_text(s)) for i, s in enumerate(substeps, 1)
    }
    names_en = {
        names[s.id]: say("en", "substep", number=i, text=step_text(s))
        for i, s in enumerate(substeps, 1)
    }
    rows = [(s, src.kg.node(c)) for s in substeps for c in src.kg.children(s.id)]
    # Words in the texts of three or more sub-steps ("efeitos", "ativam") point at none of them.
    spread: dict[str, set[str]] = {}
    for sub, passage in rows:
        for word in words(passage.text or ""):
            spread.setdefault(word, set()).add(sub.id)
    common = {w for w, subs in spread.items() if len(subs) >= 3}
    for sub, passage in rows:
        core = _core(passage.text or "")
        if len(core) < 3 or passage.span is None:
            continue
        elsewhere = [other.text or "" for other_sub, other in rows if other_sub.id != sub.id]
        if any(_similar(core, _core(text)) for text in elsewhere):
            continue
        if holds_in_several(passage.text or "", elsewhere):
            continue
        qid = f"damage-step:{passage.id}"
        others = [names[s.id] for s in substeps if s.id != sub.id]
        statement = clean(_MARKER.sub("", passage.text or "", count=1))
        chosen = fair_options(names[sub.id], others, [statement], qid, common=common)
        if chosen is None:
            continue
        options = lettered(chosen, qid)
        above = (sub.parent and src.kg.node(sub.parent)) or sub
        quoted = f"({sub.id}): «{clean(passage.text or '')}»"
        yield Question(
            id=qid,
            kind="multiple-choice",
            family="damage-step",
            format=src.format_of(passage),
            topics=src.topics(passage, "damage-step"),
            prompt=say("pt", "damage_step", where=src.where(above)),
            context=None,
            statement=statement,
            options=options,
            answer=key_of(options, names[sub.id]),
            explanation=f"{names[sub.id]} {quoted}",
            citation=src.citation(passage),
            group=qid,
            en=Texts(
                say("en", "damage_step", where=src.where(above, "en")),
                None,
                statement,
                tuple(names_en[o.text] for o in options),
                f"{names_en[names[sub.id]]} {quoted}",
            ),
        )


def _similar(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= 0.6

"""The quiz's topics as a list a client can offer: each topic's names in pt and en, how many
questions it has (in a format, or in all) and the formats that have some.

A topic is a theme (`chain`, `damage-step`, `spell-speed`, `summon`) or a document's top-level
rule or section, whose id is the node's with `-` for `/` (`edison/rule-08` → `edison-rule-08`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.presentation.quiz_model import Question
    from kb.presentation.quiz_sources import Sources

# The themes' names (the page says the same in its own words).
THEME_NAMES: dict[str, tuple[str, str]] = {
    "chain": ("Corrente", "Chain"),
    "damage-step": ("Etapa de Dano", "Damage Step"),
    "spell-speed": ("Velocidade de Magia", "Spell Speed"),
    "summon": ("Invocações", "Summons"),
}


@dataclass(frozen=True)
class TopicLabel:
    """A topic's node (None for a theme) and its names in Portuguese and English."""

    node: str | None
    pt: str
    en: str


def topic_labels(src: Sources) -> dict[str, TopicLabel]:
    """Every declared topic's names: a theme's from THEME_NAMES, a rule's or section's as the
    quiz's prompts place it ("Edison › Regra #8 — …", "Edison › Rule #8 — …")."""
    labels: dict[str, TopicLabel] = {}
    for n in src.kg.of_type("Rule", "Section"):
        if n.parent is not None and src.kg.node(n.parent).type == "Document":
            labels[n.id.replace("/", "-")] = TopicLabel(
                n.id, src.where(n, "pt"), src.where(n, "en")
            )
    for topic in src.declared_topics():
        if topic not in labels:
            pt, en = THEME_NAMES.get(topic, (topic, topic))
            labels[topic] = TopicLabel(None, pt, en)
    return labels


def topic_list(
    questions: Iterable[Question], labels: dict[str, TopicLabel], format: str | None
) -> dict[str, Any]:
    """The topics with questions in `format` (in any format when None), themes first: each with
    its names, the distinct questions a quiz can draw from it there (`GET /quiz`'s `available`)
    and every format that has questions on it."""
    groups: dict[str, set[str]] = {}
    formats: dict[str, set[str]] = {}
    for q in questions:
        for topic in q.topics:
            formats.setdefault(topic, set()).add(q.format)
            if format is None or q.format == format:
                groups.setdefault(topic, set()).add(q.group)

    def label(topic: str) -> TopicLabel:
        return labels.get(topic) or TopicLabel(None, topic, topic)

    ordered = sorted(groups, key=lambda t: (label(t).node is not None, t))
    return {
        "format": format,
        "topics": [
            {
                "id": topic,
                "kind": "theme" if label(topic).node is None else "section",
                "node": label(topic).node,
                "label_pt": label(topic).pt,
                "label_en": label(topic).en,
                "questions": len(groups[topic]),
                "formats": sorted(formats[topic]),
            }
            for topic in ordered
        ],
    }

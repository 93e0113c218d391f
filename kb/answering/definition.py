""" "What is X?": the passage of a document that defines the concept X.

A defining passage names the concept within its first words and goes on with a copula or a
"refers to" ("Os inerentes são aqueles que …", "A "Prioridade" se refere ao direito …"). It is
found through the graph (passages that mention the concept), so any document's definitions answer.
"""

from __future__ import annotations

import re

from kb.graph import KnowledgeGraph
from kb.link import Linker
from kb.model import Node
from kb.reading.question import Question
from kb.reason import Decision, Step

# "What is X", "what's X", "what are X", "what does X mean", "o que é X", "o que são", "o que
# significa X", "define X", "qual a definição de X".
_ASKS_DEFINITION = re.compile(
    r"\b(what(?:'s| is| are)|what does\b.*\bmean|o que (?:e|sao|significa)|oque e|"
    r"define|defina|definic\w+ de|definition of|meaning of|significado de)\b"
)
# Within the first words of the passage, the concept, then what it is.
_LEAD = 30
_DEFINES = re.compile(
    r"^\W{0,3}(?:são|é|se refere|refere-se|significa|consiste|is|are|refers|means)(?!\w)"
)


def asks_definition(q: Question) -> bool:
    return not q.yes_no and bool(_ASKS_DEFINITION.search(q.folded))


def defining_passage(
    kg: KnowledgeGraph, linker: Linker, concept: str, formats: list[str] | None
) -> Node | None:
    """The passage defining `concept`: of a document in one of `formats` (None: any, in that
    order of preference), first in text order."""
    found: list[tuple[int, Node]] = []
    for fact in kg.into(concept, "mentions"):
        node = kg.get(fact.subject)
        if node is None or node.type != "Passage" or node.span is None or not node.text:
            continue
        fmt = kg.format_of(node.id)
        if formats is not None and fmt not in formats:
            continue
        first = next((m for m in linker.link(node.text[: _LEAD + 40]) if m.start <= _LEAD), None)
        if first is None or first.entity != concept:
            continue
        if _DEFINES.search(node.text[first.end :].lower().lstrip(' "”’')):
            rank = formats.index(fmt) if formats is not None and fmt in formats else 0
            found.append((rank, node))
    found.sort(key=lambda t: (t[0], t[1].span.document, t[1].span.start) if t[1].span else t[:1])
    return found[0][1] if found else None


def definition_decision(
    kg: KnowledgeGraph, linker: Linker, q: Question, base: str | None
) -> Decision | None:
    """A "what is X?" question about one concept: its defining passage, cited (no verdict)."""
    if not asks_definition(q):
        return None
    concepts = list(dict.fromkeys(m.entity for m in q.mentions if m.entity.startswith("concept/")))
    # "an "inherent" special summon": the narrower concept is the one asked about
    broader = {f.object for c in concepts for f in kg.out(c, "broader")}
    concepts = [c for c in concepts if c not in broader]
    if len(concepts) != 1:
        return None
    # A format asked: its definition, else today's; none asked: any document's.
    asked = (
        [f for f in (q.format, base) if f is not None]
        if q.format is not None and q.format != base
        else None
    )
    passage = defining_passage(kg, linker, concepts[0], asked)
    if passage is None or not passage.text:
        return None
    return Decision(
        verdict=None,
        steps=[Step(f"Definition: {passage.text}", f"Definição: {passage.text}", passage.id)],
        summary_en=passage.text,
        summary_pt=passage.text,
        confidence=None,
        sources=[passage.id],
        reasoner="definition",
    )

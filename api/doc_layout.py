"""A document's reading layout: headings and paragraphs of sentences, as spans of its exact text.

The page shows a document as readable blocks without changing a character of it: the blocks are
offsets into the source text (what citations index), taken from the graph's own segmentation.

- a Section or Rule's span (its heading text) is a `heading` block at its depth;
- the text leaves (Passage, Example, Step; not the entries inside a list passage) are sentences;
  consecutive sentences of one parent form a `paragraph` unless a line break separates them
  (a paragraph that reached PARAGRAPH_CHARS ends at its sentence: source walls read as several);
  a sentence that opens with a bullet ("-", "•", "1.") is an `item` of its own;
- text no node covers (rare) is a `paragraph` without sentences.

Whitespace between blocks belongs to no block, so joining every block's text with the text
between them gives the document back exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kb.graph import KnowledgeGraph
from kb.model import Node

HEADINGS = ("Section", "Rule")
LEAVES = ("Passage", "Example", "Step")
PARAGRAPH_CHARS = 480
_BULLET = re.compile(r"\s*(?:[-•*–—]|\d{1,3}[.)]\s)")


@dataclass
class Piece:
    start: int
    end: int
    node: Node


def heading_depth(kg: KnowledgeGraph, node: Node) -> int:
    """How many Sections or Rules hold this one (0 for a document's top sections)."""
    return sum(1 for a in kg.ancestors(node.id) if kg.node(a).type in HEADINGS)


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without its leading and trailing whitespace (empty spans stay empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def pieces_of(kg: KnowledgeGraph, doc: str, text: str) -> list[Piece]:
    """Headings and top-level text leaves of the document, in order, without overlaps."""
    found: list[Piece] = []
    for n in kg.nodes:
        if n.span is None or n.span.document != doc or n.type not in (*HEADINGS, *LEAVES):
            continue
        parent = kg.get(n.parent) if n.parent else None
        if n.type in LEAVES and parent is not None and parent.type in LEAVES:
            continue  # an entry inside a list passage: its passage is the sentence
        start, end = trimmed(text, max(0, n.span.start), min(len(text), n.span.end))
        if end > start:
            found.append(Piece(start, end, n))
    found.sort(key=lambda p: (p.start, -p.end))
    pieces: list[Piece] = []
    for p in found:
        if pieces and p.start < pieces[-1].end:
            continue  # nested or overlapping: the outer span already shows this text
        pieces.append(p)
    return pieces


def document_layout(kg: KnowledgeGraph, doc: str, text: str) -> list[dict[str, Any]]:
    """The blocks of `text` (see the module doc), each `{kind, depth, start, end, sentences}`."""
    blocks: list[dict[str, Any]] = []
    open_para: dict[str, Any] | None = None
    parent_of_open: str | None = None
    at = 0

    def loose(start: int, end: int) -> None:
        """Uncovered text between pieces: its own paragraph when it is more than whitespace."""
        s, e = trimmed(text, start, end)
        if e > s:
            blocks.append({"kind": "paragraph", "depth": 0, "start": s, "end": e, "sentences": []})

    for p in pieces_of(kg, doc, text):
        gap = text[at : p.start]
        sentence = {"start": p.start, "end": p.end, "node": p.node.id}
        if p.node.type in HEADINGS:
            loose(at, p.start)
            open_para = None
            depth = heading_depth(kg, p.node)
            blocks.append(
                {
                    "kind": "heading",
                    "depth": depth,
                    "start": p.start,
                    "end": p.end,
                    "sentences": [sentence],
                }
            )
        elif _BULLET.match(text, p.start):
            loose(at, p.start)
            open_para = None
            blocks.append(
                {
                    "kind": "item",
                    "depth": 0,
                    "start": p.start,
                    "end": p.end,
                    "sentences": [sentence],
                }
            )
        elif (
            open_para is not None
            and parent_of_open == p.node.parent
            and "\n" not in gap
            and open_para["end"] - open_para["start"] < PARAGRAPH_CHARS
        ):
            open_para["end"] = p.end
            open_para["sentences"].append(sentence)
        else:
            loose(at, p.start)
            open_para = {
                "kind": "paragraph",
                "depth": 0,
                "start": p.start,
                "end": p.end,
                "sentences": [sentence],
            }
            parent_of_open = p.node.parent
            blocks.append(open_para)
        at = p.end
    loose(at, len(text))
    return blocks

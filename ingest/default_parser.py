"""The default parser: any Portuguese rules text → Document > Section/Rule > Passage/Example.

It reads the blocks `ingest.layout` finds and nests them:
- headings open Sections, or Rules when numbered in a list of rules (`Regra #3`, or `3)` / `3.` where
  the heading, an enclosing heading or the document's title speaks of rules); each heading style
  has a fixed nesting rank (`style_rank`), and a short line standing alone nests under the
  innermost explicit heading; a short line with nothing under it before the next heading is read
  as a paragraph instead;
- paragraphs, bullets and table rows become Passages; a paragraph that ran together (very long, or
  words glued at a lost line break such as `Não-inerentesOs` or `efeito.O`) is cut into sentences and
  inline `-item` list items, always with spans into the original text;
- an item opening "Passo N:" / "Step N:" / "Etapa N:" becomes a Step in order N (a procedure's
  steps, such as the order of a Chain of simultaneous effects);
- examples ("Exemplo:", "Exemplo 2 (…):", "Ex.:", "Por exemplo, …", the items after an "Exemplos"
  label or heading) become Example nodes, `example_of` the enclosing Rule or Section.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.builder import DocumentBuilder
from ingest.layout import Block, Heading, blocks
from ingest.segment import Segment, sentences, split_at
from kb.errors import IngestError
from kb.ids import fold, numbered, slugify
from kb.model import Node, NodeType, ParsedDocument, Span

# A paragraph this long, or with this many sentences, lost its line breaks: cut it into sentences.
RUN_TOGETHER_CHARS = 1000
RUN_TOGETHER_SENTENCES = 8
# Inline "-item" markers inside a run-together paragraph, once there are at least this many.
INLINE_ITEMS_MIN = 3
SLUG_CHARS = 40

_EXAMPLE_OPENER = re.compile(
    r"(?:[-•●*▪◦–·►➢✓]\s*)?"
    r"(?:Por exemplo\b|Exemplos?\s*(?:#?\d+)?\s*(?:\([^)]{0,80}\))?\s*[:–-]|Ex\.?:|Ex\.\s)",
    re.IGNORECASE,
)
# An example opening after a sentence end that the sentence splitter kept ("… a. Exemplo: …").
_EXAMPLE_INSIDE = re.compile(
    r"(?<=[.!?)]\s)(?=Por exemplo\b|Exemplos?\s*(?:#?\d+)?\s*:|Ex\.?:)", re.IGNORECASE
)
_FOR_EXAMPLE = re.compile(r"Por exemplo\b", re.IGNORECASE)
_EXAMPLE_HEADING = re.compile(r"exemplos?(?: de \w+)?", re.IGNORECASE)
_RULES_WORD = re.compile(r"\b(?:regras?|rules?)\b")
# Sentence ends glued to the next sentence at a lost line break: "efeito.O", "Trigger.Alguns".
_GLUED_STOP = re.compile(r"(?<=[a-zà-ÿ0-9)\]\"”][.!?])(?=[A-ZÀ-Ý])")
# A word glued to the capitalised opener of the next sentence: "Não-inerentesOs não-inerentes".
_GLUED_WORD = re.compile(
    r"(?<=[a-zà-ÿ]{2})(?=(?:Os|As|O|A|Um|Uma|Se|Em|No|Na|Nos|Nas|Este|Esta|Esse|Essa|Isso|Isto"
    r"|Quando|Para|Cada|Você|Ele|Ela|Eles|Elas|Não|Caso|Durante|Depois|Antes|Apenas|Somente"
    r"|Todos|Todas|Qualquer|Exemplo|Exemplos)\s)"
)
_INLINE_ITEM = re.compile(r"(?<=\s)-(?=[A-Za-zÀ-ÿ])")
# An item of an ordered procedure: "• Passo 1: …", "Step 2 - …", "Etapa 3: …".
_STEP_ITEM = re.compile(
    r"(?:[-•●*▪◦–·►➢✓]\s*)?(?:Passo|Step|Etapa)\s+(\d{1,2})\s*[:.–-]", re.IGNORECASE
)


# Heading styles nest in this order, whatever order they appear in: Markdown levels, then
# all-caps lines and table-of-contents titles, then numbered rules and sections (deeper for each
# dotted level), then bold lines. A short line standing alone nests under the innermost of
# those; with none open it is a top-level heading that any other heading closes.
WEAK_TOP_LEVEL = 100.0


def style_rank(style: str) -> float:
    """The nesting level of a heading style (smaller is outer)."""
    if style.startswith("md"):
        return float(style[2:])
    if style in ("caps", "toc"):
        return 7.0
    if style == "regra":
        return 9.0
    numbered_ = re.match(r"num(\d+)", style)
    if numbered_:
        return 8.0 + int(numbered_.group(1))
    return 20.0


@dataclass
class _Open:
    """A heading whose section is still open."""

    level: float
    node: str
    examples: bool  # an "Exemplos" heading: its items are examples


@dataclass
class _State:
    builder: DocumentBuilder
    document: str
    rules_context: bool
    stack: list[_Open] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # node id -> heading title
    weak: set[str] = field(default_factory=set)  # sections opened by a short line standing alone
    example_block: str | None = None  # after an "Exemplos" label: "" or the kind of its items

    @property
    def parent(self) -> str:
        return self.stack[-1].node if self.stack else self.document

    def owner(self) -> str:
        """The Rule or Section an example illustrates: the innermost non-"Exemplos" heading."""
        for entry in reversed(self.stack):
            if not entry.examples:
                return entry.node
        return self.document


def parse_document(document_id: str, text: str, title_pt: str, title_en: str) -> ParsedDocument:
    """Parse any rules text into nodes whose spans index `text` exactly."""
    if not text.strip():
        raise IngestError(document_id, "document text is empty or whitespace only")
    b = DocumentBuilder(document_id, text, title_pt, title_en)
    found = _demote_empty_headings(blocks(text))
    first = found[0].seg.text if found and found[0].kind == "title" else ""
    rules_context = bool(_RULES_WORD.search(fold(f"{title_pt} {title_en} {first}")))
    state = _State(b, document_id, rules_context)
    for block in found:
        _add_block(state, text, block)
    return b.build()


def _demote_empty_headings(found: list[Block]) -> list[Block]:
    """A short line taken for a heading with nothing under it is a paragraph after all."""
    out = list(found)
    for i, block in enumerate(found):
        if block.kind != "heading" or block.heading is None or block.heading.strong:
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is None or nxt.kind == "heading":
            out[i] = Block("paragraph", block.seg)
    return out


def _add_block(state: _State, text: str, block: Block) -> None:
    b = state.builder
    if block.kind == "title":
        b.add(
            Node(
                id=f"{state.document}/title",
                type="Passage",
                text=block.seg.text,
                span=Span(state.document, block.seg.start, block.seg.end),
                parent=state.document,
                order=0,
                props={"kind": "title"},
            )
        )
        return
    if block.kind == "heading":
        assert block.heading is not None
        _open_heading(state, block.heading)
        return
    if block.kind == "label":
        state.example_block = ""
        return
    if block.kind == "toc":
        b.child(state.parent, "Passage", block.seg, prefix="toc", kind="toc")
        return
    kind = block.kind if block.kind != "header" else "row"
    if state.example_block is not None and state.example_block not in ("", kind):
        state.example_block = None
    in_block = state.example_block is not None
    if state.example_block == "":
        state.example_block = kind
    examples = in_block or (bool(state.stack) and state.stack[-1].examples)
    if block.kind in ("row", "header"):
        props: dict[str, Any] = {
            "kind": "header" if block.kind == "header" else "row",
            "cells": [c.text for c in block.cells],
            "header": list(block.header),
        }
        _leaf(state, block.seg, examples and block.kind == "row", props, prefix="row")
        return
    step = _STEP_ITEM.match(block.seg.text) if block.kind in ("bullet", "paragraph") else None
    if step is not None and not examples:
        # an ordered procedure's item: a Step in its order (a SEGOC's steps, a phase's steps)
        b.child(state.parent, "Step", block.seg, prefix="step", number=int(step.group(1)))
        return
    for piece, piece_kind, is_example in _pieces(text, block):
        props_: dict[str, Any] = {"kind": piece_kind}
        if block.number is not None and piece.start == block.seg.start:
            props_["item_number"] = block.number  # (`number` is the id number)
        _leaf(state, piece, examples or is_example, props_)
    if kind == "paragraph" and in_block:
        state.example_block = None  # an example given as prose is one paragraph


def _leaf(
    state: _State, seg: Segment, example: bool, props: dict[str, Any], prefix: str = "p"
) -> None:
    b = state.builder
    if example:
        owner = state.owner()
        node = b.child(state.parent, "Example", seg, prefix="example", **props)
        b.fact(node.id, "example_of", owner, node.id)
    else:
        b.child(state.parent, "Passage", seg, prefix=prefix, **props)


def _open_heading(state: _State, heading: Heading) -> None:
    state.example_block = None
    explicit = [e.level for e in state.stack if e.node not in state.weak]
    if heading.strong:
        level = style_rank(heading.style)
    else:
        level = explicit[-1] + 0.5 if explicit else WEAK_TOP_LEVEL
    while state.stack and state.stack[-1].level >= level:
        state.stack.pop()
    parent = state.parent
    ancestors = " ".join(state.titles.get(e.node, "") for e in state.stack)
    is_rule = heading.rule or (
        heading.number is not None
        and "." not in heading.number
        and (state.rules_context or bool(_RULES_WORD.search(fold(f"{ancestors} {heading.title}"))))
    )
    node_id = (
        _rule_node(state, parent, heading) if is_rule else _section_node(state, parent, heading)
    )
    if not heading.strong:
        state.weak.add(node_id)
    state.titles[node_id] = heading.title
    examples = bool(_EXAMPLE_HEADING.fullmatch(fold(heading.title))) and not is_rule
    state.stack.append(_Open(level, node_id, examples))
    if heading.rest is not None:
        _leaf(state, heading.rest, False, {"kind": "paragraph"})


def _rule_node(state: _State, parent: str, heading: Heading) -> str:
    assert heading.number is not None
    number = int(heading.number)
    node_id = _unique(state, f"{parent}/{numbered('rule', number)}")
    props: dict[str, object] = {"number": number, "title": heading.title}
    _add_heading(state, node_id, "Rule", parent, heading, number, props)
    return node_id


def _section_node(state: _State, parent: str, heading: Heading) -> str:
    try:
        slug = _short_slug(heading.title)
    except ValueError:
        slug = "section"
    node_id = _unique(state, f"{parent}/{slug}")
    props: dict[str, object] = {"style": heading.style}
    if heading.number is not None:
        props["number"] = heading.number
    _add_heading(state, node_id, "Section", parent, heading, None, props)
    return node_id


def _add_heading(
    state: _State,
    node_id: str,
    type_: NodeType,
    parent: str,
    heading: Heading,
    order: int | None,
    props: dict[str, object],
) -> None:
    state.builder.add(
        Node(
            id=node_id,
            type=type_,
            label_pt=heading.title or heading.span.text,
            text=heading.span.text,
            span=Span(state.document, heading.span.start, heading.span.end),
            parent=parent,
            order=order,
            props=props,
        )
    )


def _unique(state: _State, node_id: str) -> str:
    if not state.builder.has(node_id):
        return node_id
    n = 2
    while state.builder.has(f"{node_id}-{n}"):
        n += 1
    return f"{node_id}-{n}"


def _short_slug(title: str) -> str:
    """A slug of the heading's first words, at most SLUG_CHARS long (cut at a word)."""
    slug = slugify(title)
    if len(slug) <= SLUG_CHARS:
        return slug
    cut = slug[: SLUG_CHARS + 1].rsplit("-", 1)[0]
    return cut or slug[:SLUG_CHARS]


# --- paragraphs --------------------------------------------------------------------------------


def _pieces(text: str, block: Block) -> list[tuple[Segment, str, bool]]:
    """A paragraph or bullet as (segment, kind, is example) pieces: one piece unless it ran
    together (then sentences and inline list items) or an example starts inside it."""
    seg = block.seg
    sents = sentences(text, seg.start, seg.end)
    run_together = len(seg.text) > RUN_TOGETHER_CHARS or len(sents) > RUN_TOGETHER_SENTENCES
    cuts = [seg.start + m.start() for m in _GLUED_STOP.finditer(seg.text)]
    cuts += [seg.start + m.start() for m in _GLUED_WORD.finditer(seg.text)]
    starts = {s.start for s in sents}
    cuts += [s for s in starts if _EXAMPLE_OPENER.match(text, s) and s != seg.start]
    cuts += [seg.start + m.start() for m in _EXAMPLE_INSIDE.finditer(seg.text)]
    # "Por exemplo, …" illustrates in one sentence; the next sentence is the text again.
    cuts += [
        nxt.start for sent, nxt in itertools.pairwise(sents) if _FOR_EXAMPLE.match(text, sent.start)
    ]
    items: list[int] = []
    if run_together:
        cuts += list(starts)
        items = [seg.start + m.start() for m in _INLINE_ITEM.finditer(seg.text)]
        if len(items) >= INLINE_ITEMS_MIN:
            cuts += items
    out: list[tuple[Segment, str, bool]] = []
    example = False
    previous = ""
    for piece in split_at(text, seg.start, seg.end, cuts):
        opener = bool(_EXAMPLE_OPENER.match(piece.text))
        # Without sentence cuts, an "Exemplo:" runs to the end of its paragraph.
        example = opener or (example and not run_together and not _FOR_EXAMPLE.match(previous))
        previous = piece.text
        if piece.start in items and len(items) >= INLINE_ITEMS_MIN:
            kind = "list-item"
        elif run_together:
            kind = "sentence"
        else:
            kind = block.kind
        out.append((piece, kind, example))
    return out

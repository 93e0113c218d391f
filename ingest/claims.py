"""Loading the curated rule claims: corpus/claims/<document>.yaml → Claim nodes and their facts.

A claim is one atomic rule proposition written in plain English and Portuguese, with whether it
holds, anchored to the verbatim text of the document that states it. The anchor must occur exactly
once in the document; the claim's span is the sentence (or sentences) around it, and the claim is
`stated_in` the smallest passage, example, step or heading containing that span. Every malformed claim is an
IngestError naming the file, the claim and its line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ingest.corpus import SourceDocument
from ingest.curated import _items, _need, _read
from kb.errors import IngestError
from kb.ids import format_id
from kb.link import Linker
from kb.model import TEXT_TYPES, Fact, Node, Span
from kb.text import sentences

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_QUOTE = 300


def claim_id(document: str, slug: str) -> str:
    return f"claim/{document}/{slug}"


def load_claims(
    claims_dir: Path,
    docs: list[SourceDocument],
    nodes: list[Node],
    linker: Linker,
    formats: tuple[str, ...],
) -> tuple[list[Node], list[Fact]]:
    """Claim nodes and facts for every document that has a claims file (files are optional)."""
    out_nodes: list[Node] = []
    out_facts: list[Fact] = []
    known = {d.id: d for d in docs}
    if not claims_dir.is_dir():
        return out_nodes, out_facts
    for path in sorted(claims_dir.glob("*.yaml")):
        doc = known.get(path.stem)
        if doc is None:
            raise IngestError(
                str(path), f"no document {path.stem!r} in the manifest (known: {sorted(known)})"
            )
        units = [
            n
            for n in nodes
            if n.type in TEXT_TYPES and n.span is not None and n.span.document == doc.id
        ]
        n, f = _load_file(path, doc, units, linker, formats)
        out_nodes += n
        out_facts += f
    return out_nodes, out_facts


def _load_file(
    path: Path, doc: SourceDocument, units: list[Node], linker: Linker, formats: tuple[str, ...]
) -> tuple[list[Node], list[Fact]]:
    text = _read(path)
    nodes: list[Node] = []
    facts: list[Fact] = []
    seen: dict[str, int] = {}
    for line, item in _items(path, text, "claims"):
        slug = str(_need(path, line, item, "id"))
        if not _SLUG.match(slug):
            raise IngestError(str(path), f"claim id {slug!r} is not kebab-case", line)
        if slug in seen:
            raise IngestError(
                str(path), f"duplicate claim id {slug!r} (first at line {seen[slug]})", line
            )
        seen[slug] = line
        quote = str(_need(path, line, item, "quote"))
        en = str(_need(path, line, item, "en")).strip()
        pt = str(_need(path, line, item, "pt")).strip()
        holds = item.get("holds")
        if not isinstance(holds, bool):
            raise IngestError(str(path), f"claim {slug!r}: 'holds' must be true or false", line)
        fmt = str(item.get("format") or doc.format)
        if fmt not in formats:
            raise IngestError(
                str(path),
                f"claim {slug!r}: unknown format {fmt!r} (allowed: {list(formats)})",
                line,
            )
        occurrence = item.get("occurrence")
        if occurrence is not None and (not isinstance(occurrence, int) or occurrence < 1):
            raise IngestError(
                str(path), f"claim {slug!r}: 'occurrence' must be a positive integer", line
            )
        start = _locate(path, line, slug, quote, doc.text, occurrence)
        end = start + len(quote)
        unit = _container(units, start, end)
        if unit is None or unit.span is None:
            raise IngestError(
                str(path), f"claim {slug!r}: quote is not inside any passage of {doc.id!r}", line
            )
        s_start, s_end = _sentence_span(doc.text, units, start, end)
        cid = claim_id(doc.id, slug)
        props: dict[str, Any] = {
            "holds": holds,
            "format": fmt,
            "contrast": fmt != doc.format,  # the document's word on another format
            "quote": [start, end],
            "line": line,
        }
        nodes.append(
            Node(
                id=cid,
                type="Claim",
                label_pt=pt,
                label_en=en,
                text=doc.text[s_start:s_end],
                span=Span(doc.id, s_start, s_end),
                props=props,
            )
        )
        meta = {"file": f"claims/{path.name}", "line": line}
        facts.append(Fact(cid, "stated_in", unit.id, unit.id, "curated", meta))
        facts.append(Fact(cid, "applies_in", format_id(fmt), unit.id, "curated", meta))
        entities = {m.entity for t in (en, pt) for m in linker.link(t)}
        for entity in sorted(e for e in entities if not e.startswith("format/")):
            facts.append(Fact(cid, "concerns", entity, unit.id, "curated", meta))
    return nodes, facts


def _locate(path: Path, line: int, slug: str, quote: str, text: str, occurrence: int | None) -> int:
    """Where the quote is: its only occurrence, or the given (1-based) one of a repeated line."""
    if "\n" in quote or len(quote) > MAX_QUOTE:
        raise IngestError(
            str(path), f"claim {slug!r}: quote must be one line of ≤ {MAX_QUOTE} characters", line
        )
    found = [m.start() for m in re.finditer(re.escape(quote), text)]
    if not found:
        raise IngestError(str(path), f"claim {slug!r}: quote not found in the document", line)
    if occurrence is None:
        if len(found) > 1:
            raise IngestError(
                str(path),
                f"claim {slug!r}: quote occurs {len(found)} times; lengthen it or give 'occurrence'",
                line,
            )
        return found[0]
    if occurrence > len(found):
        raise IngestError(
            str(path), f"claim {slug!r}: quote occurs only {len(found)} time(s)", line
        )
    return found[occurrence - 1]


def _size(n: Node) -> int:
    return (n.span.end - n.span.start) if n.span else 0


def _container(units: list[Node], start: int, end: int) -> Node | None:
    """The smallest text node whose span contains [start, end); for a quote running over
    several (a list's lead-in and its items), the smallest one containing its start, else the
    smallest one it overlaps."""
    spans = [n for n in units if n.span is not None]
    inside = [n for n in spans if n.span and n.span.start <= start and end <= n.span.end]
    if not inside:
        inside = [n for n in spans if n.span and n.span.start <= start < n.span.end]
    if not inside:  # the quote starts in a heading and runs into the passage under it
        inside = [n for n in spans if n.span and n.span.start < end and start < n.span.end]
    return min(inside, key=_size, default=None)


def _sentence_span(text: str, units: list[Node], start: int, end: int) -> tuple[int, int]:
    """The quote widened to the whole sentences it touches (what is cited)."""
    touched = [
        s
        for n in units
        if n.span is not None and n.span.start < end and start < n.span.end
        for s in sentences(text, n.span.start, n.span.end)
        if s.start < end and start < s.end
    ]
    if not touched:
        return start, end
    return min(start, *(s.start for s in touched)), max(end, *(s.end for s in touched))

"""Layout of a rules text pasted from a web page, wiki or PDF: what each line is, then blocks.

A line is one of: a heading (Markdown `#`, numbered `1)` / `1.` / `1.2`, `Regra #3`, an all-caps or
`**bold**` line, a table-of-contents entry repeated as a line, or a short line standing alone), a
bullet or numbered list item, a table row (pipes, tabs, or columns aligned by 2+ spaces), a table
separator, an example label ("Exemplos:"), a PDF page header/footer ("Página 2 de 4"), or text.
Consecutive text lines that a page width wrapped are joined back into one paragraph block. Every
offset indexes the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from ingest.segment import Segment, trimmed
from ingest.tables import aligned_cells, is_separator, pipe_cells, row_span, same_columns
from kb.ids import fold

LineKind = Literal["text", "bullet", "heading", "row", "separator", "label", "page"]

_MD = re.compile(r"#{1,6}(?=\s|$)")
_BOLD = re.compile(r"\*\*([^*].*?)\*\*:?")
_REGRA = re.compile(
    r"(?:REGRA|Regra|RULE|Rule)\b[^\d#\n]{0,40}?\s*(?:#|n[º°o]\.?|N[º°O]\.?)?\s*(\d+)"
    r"\s*(?:[-–—:.)]\s*(.*))?"
)
_NUMBERED = re.compile(r"(\d{1,3}(?:\.\d{1,3})*)(?:([.)])|\s*[-–—])?\s+(?=\S)")
_BULLET = re.compile(r"[-•●*▪◦–·►➢✓](?![-*])|(?:[a-z]|i{1,3}|iv|vi{0,3}|ix|x)[.)]\s")
_BULLET_MARK = re.compile(r"[-•●*▪◦–·►➢✓]")
# A page header/footer left by a PDF: "Página 2 de 4", "Pág. 3", "- 12 -", "3/10".
PAGE_MARKER = re.compile(
    r"(?:p[áa]gina|p[áa]g\.?|page)\s*\d+(?:\s*(?:de|/|of)\s*\d+)?|[-–]?\s*\d+\s*[-–]?|\d+\s*/\s*\d+",
    re.IGNORECASE,
)
_LABEL = re.compile(r"(?:exemplos?|ex\.?|por exemplo)\s*:?", re.IGNORECASE)
_TERMINAL = ".;,!"
_SENTENCE_END = ".!?:;…"
_CLOSERS = ")]\"'”’»*"
# A line wrapped at a page width is at most this long; longer lines are whole paragraphs.
WRAP_WIDTH = 160
_URL_END = re.compile(r"https?://\S+$")


def _ends_sentence(s: str) -> bool:
    """The line ends a sentence (closing brackets and quotes aside) or with a link."""
    core = s.rstrip(_CLOSERS)
    return not core or core[-1] in _SENTENCE_END or bool(_URL_END.search(s))


@dataclass(frozen=True)
class Heading:
    """A heading line: its style (levels are assigned per style), title and number."""

    style: str
    strong: bool  # an explicit heading mark; weak headings are short lines standing alone
    span: Segment  # what the heading node spans (a rule marker alone when a statement follows)
    title: str
    number: str | None = None
    rule: bool = False  # "Regra N": always a Rule node
    rest: Segment | None = None  # a statement following a rule marker on the same line


@dataclass(frozen=True)
class Line:
    """One non-blank line of the text, trimmed, with what it looks like."""

    seg: Segment
    kind: LineKind
    blank_before: bool
    indent: int
    heading: Heading | None = None
    cells: tuple[Segment, ...] = ()
    number: str | None = None  # a numbered list item's number
    aligned: bool = False  # a row of a tab/space-aligned table
    toc: bool = False  # a bullet of a table of contents


@dataclass(frozen=True)
class Block:
    """A unit the parser turns into nodes: a heading, a paragraph or bullet (possibly several
    wrapped lines), a table row (with the table's header cells), a label, or the title."""

    kind: Literal["title", "heading", "paragraph", "bullet", "row", "header", "label", "toc"]
    seg: Segment
    heading: Heading | None = None
    cells: tuple[Segment, ...] = ()
    header: tuple[str, ...] = ()
    number: str | None = None


# --- single lines ------------------------------------------------------------------------------


def raw_lines(text: str) -> list[Line]:
    """Every non-blank line (str.splitlines breaks), classified on its own."""
    out: list[Line] = []
    pos = 0
    blank = True
    for raw in text.splitlines(keepends=True):
        seg = trimmed(text, pos, pos + len(raw))
        if seg is None:
            blank = True
        else:
            indent = seg.start - pos
            out.append(_classify(text, seg, blank, indent))
            blank = False
        pos += len(raw)
    return out


def _classify(text: str, seg: Segment, blank_before: bool, indent: int) -> Line:
    s = seg.text
    base = Line(seg, "text", blank_before, indent)
    if is_separator(s):
        return replace(base, kind="separator")
    if PAGE_MARKER.fullmatch(s):
        return replace(base, kind="page")
    if s.startswith("|") or s.count("|") >= 2:
        return replace(base, kind="row", cells=pipe_cells(text, seg))
    if _LABEL.fullmatch(s):
        return replace(base, kind="label")
    heading = _strong_heading(text, seg)
    if heading is not None:
        return replace(base, kind="heading", heading=heading)
    numbered = _NUMBERED.match(s)
    if numbered and (numbered.group(2) or "." in numbered.group(1)):
        return replace(base, kind="bullet", number=numbered.group(1))
    if len(s) > 1 and _BULLET.match(s):
        return replace(base, kind="bullet")
    return base


def _strong_heading(text: str, seg: Segment) -> Heading | None:
    s = seg.text
    md = _MD.match(s)
    if md:
        title = s[md.end() :].strip().rstrip("#").strip()
        return Heading(f"md{len(md.group())}", True, seg, title)
    bold = _BOLD.fullmatch(s)
    if bold:
        return Heading("bold", True, seg, bold.group(1).strip())
    regra = _REGRA.fullmatch(s)
    if regra:
        return _rule_heading(text, seg, regra)
    numbered = _NUMBERED.match(s)
    if numbered:
        title = s[numbered.end() :]
        dotted = "." in numbered.group(1)
        if (numbered.group(2) or dotted) and _looks_like_title(title):
            depth = numbered.group(1).count(".") + 1
            style = f"num{depth}{numbered.group(2) or ''}"
            return Heading(style, True, seg, title.rstrip(":").strip(), numbered.group(1))
        return None
    if _is_caps(s):
        return Heading("caps", True, seg, s.rstrip(":").strip())
    return None


def _rule_heading(text: str, seg: Segment, m: re.Match[str]) -> Heading:
    """`Regra #3`, `Regra 3: Título` or `Regra 3: a statement.` (marker heading + passage)."""
    title = (m.group(2) or "").strip()
    if title and not _looks_like_title(title):
        head = trimmed(text, seg.start, seg.start + m.start(2))
        rest = trimmed(text, seg.start + m.start(2), seg.end)
        assert head is not None
        return Heading("regra", True, head, "", m.group(1), True, rest)
    return Heading("regra", True, seg, title, m.group(1), True)


def _looks_like_title(s: str) -> bool:
    """Short, starts like a name, and does not end like a sentence."""
    s = s.strip()
    if not s or len(s) > 80 or len(s.split()) > 12:
        return False
    return s[-1] not in _TERMINAL and not s[0].islower()


def _is_caps(s: str) -> bool:
    letters = [c for c in s if c.isalpha()]
    if len(letters) < 3 or len(s) > 100 or s[-1] in ",;":
        return False
    if _BULLET_MARK.match(s):
        return False
    return sum(c.isupper() for c in letters) >= 0.8 * len(letters) and len(s.split()) <= 14


# --- lines in context --------------------------------------------------------------------------


def classify_lines(text: str) -> list[Line]:
    """Every non-blank line classified with its neighbours: aligned tables, table-of-contents
    headings and short lines standing alone as headings."""
    lines = _aligned_tables(text, raw_lines(text))
    toc = _toc_titles(lines)
    out: list[Line] = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        prev = out[-1] if out else None
        if line.kind == "text" and i > 0:
            weak = _weak_heading(line, prev, nxt, toc)
            if weak is not None:
                line = replace(line, kind="heading", heading=weak)
        if line.kind == "bullet" and fold(_bullet_body(line.seg.text)) in toc:
            line = replace(line, toc=True)
        out.append(line)
    return out


def _aligned_tables(text: str, lines: list[Line]) -> list[Line]:
    """Runs of 2+ adjacent text lines split by tabs or 2+ spaces into the same number (≥2) of
    cells at the same columns become table rows."""
    cells = [aligned_cells(text, ln.seg) if ln.kind == "text" else () for ln in lines]
    out = list(lines)
    i = 0
    while i < len(lines):
        j = i
        while (
            j + 1 < len(lines)
            and len(cells[i]) >= 2
            and not lines[j + 1].blank_before
            and same_columns(
                (lines[i].seg, lines[i].indent, cells[i]),
                (lines[j + 1].seg, lines[j + 1].indent, cells[j + 1]),
            )
        ):
            j += 1
        if j > i:
            for k in range(i, j + 1):
                out[k] = replace(lines[k], kind="row", cells=cells[k], aligned=True)
        i = j + 1
    return out


def _bullet_body(s: str) -> str:
    return re.sub(r"^(?:[-•●*▪◦–·►➢✓]|\d+[.)]|[a-z][.)])\s*", "", s).rstrip(":").strip()


def _toc_titles(lines: list[Line]) -> set[str]:
    """Folded texts of bullets that reappear later as standalone lines (a table of contents),
    provided at least two entries of the list do."""
    standalone: dict[str, int] = {}
    for i, ln in enumerate(lines):
        if ln.kind in ("text", "heading"):
            standalone.setdefault(fold(ln.seg.text.rstrip(":").strip()), i)
    found: set[str] = set()
    for i, ln in enumerate(lines):
        if ln.kind != "bullet" or len(ln.seg.text) > 80:
            continue
        body = fold(_bullet_body(ln.seg.text))
        if body and standalone.get(body, -1) > i:
            found.add(body)
    return found if len(found) >= 2 else set()


def _weak_heading(line: Line, prev: Line | None, nxt: Line | None, toc: set[str]) -> Heading | None:
    s = line.seg.text
    if fold(s.rstrip(":").strip()) in toc:
        return Heading("toc", True, line.seg, s.rstrip(":").strip())
    if not _looks_like_title(s) or s.endswith("!"):
        return None
    if (
        nxt is not None
        and not nxt.blank_before
        and nxt.kind == "text"
        and nxt.seg.text[:1].islower()
    ):
        return None  # a wrapped paragraph continues on the next line
    prev_closed = (
        line.blank_before or prev is None or prev.kind != "text" or _ends_sentence(prev.seg.text)
    )
    if not prev_closed:
        return None
    alone = nxt is None or nxt.blank_before
    if s.endswith(":") and len(s.split()) > 6:
        return None  # a sentence introducing what follows
    if alone or s.endswith(":"):
        return Heading("short", False, line.seg, s.rstrip(":").strip())
    # A few words without punctuation right over a table or a list name it.
    few_words = len(s) <= 50 and len(s.split()) <= 6 and s[-1] not in _SENTENCE_END
    if nxt is not None and not nxt.blank_before and nxt.kind in ("row", "bullet") and few_words:
        return Heading("short", False, line.seg, s)
    # No blank lines at all (a pasted web page): a few words without punctuation over a paragraph.
    if (
        nxt is not None
        and nxt.kind == "text"
        and few_words
        and len(nxt.seg.text) >= 80
        and _ends_sentence(nxt.seg.text)
    ):
        return Heading("short", False, line.seg, s)
    return None


# --- blocks ------------------------------------------------------------------------------------


def blocks(text: str) -> list[Block]:
    """The text as blocks in document order: the title, headings, paragraphs (wrapped lines
    joined), bullets, table rows with their header, and labels."""
    lines = classify_lines(text)
    out: list[Block] = []
    header: tuple[str, ...] = ()
    for i, line in enumerate(lines):
        if i == 0 and _is_title(line):
            out.append(Block("title", line.seg))
            continue
        if line.kind in ("separator", "page"):
            continue
        if line.kind == "row":
            prev_row = i > 0 and lines[i - 1].kind in ("row", "separator") and not line.blank_before
            is_header = _is_header_row(lines, i)
            if not prev_row and not is_header:
                header = ()
            if is_header:
                header = tuple(c.text for c in line.cells)
            seg = row_span(text, line.seg, line.cells)
            out.append(
                Block("header" if is_header else "row", seg, cells=line.cells, header=header)
            )
            continue
        if line.kind == "heading":
            out.append(Block("heading", line.seg, heading=line.heading))
            continue
        if line.kind == "label":
            out.append(Block("label", line.seg))
            continue
        if line.kind == "bullet" and line.toc:
            out.append(Block("toc", line.seg))
            continue
        prev = out[-1] if out else None
        if line.kind == "text" and prev is not None and _continues(lines[i - 1], line, prev):
            out[-1] = replace(
                prev, seg=Segment(prev.seg.start, line.seg.end, text[prev.seg.start : line.seg.end])
            )
            continue
        kind: Literal["paragraph", "bullet"] = "bullet" if line.kind == "bullet" else "paragraph"
        out.append(Block(kind, line.seg, number=line.number))
    return out


def _is_title(line: Line) -> bool:
    if line.kind == "heading":
        assert line.heading is not None
        return not line.heading.rule and line.heading.number is None
    s = line.seg.text
    return line.kind == "text" and len(s) <= 120 and s[-1] not in _TERMINAL


def _is_header_row(lines: list[Line], i: int) -> bool:
    """A pipe row followed by a separator, or the first row of a tab/space-aligned table."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    if (
        nxt is not None
        and nxt.kind == "separator"
        and not nxt.blank_before
        and len(line.cells) >= 2
    ):
        return True
    first = i == 0 or lines[i - 1].kind != "row" or line.blank_before
    return line.aligned and first


def _continues(prev_line: Line, line: Line, block: Block) -> bool:
    """A text line wrapped from the block above it (no blank line between)."""
    if line.blank_before or block.kind not in ("paragraph", "bullet"):
        return False
    if prev_line.kind not in ("text", "bullet"):
        return False
    s = line.seg.text
    if s[0].islower():
        return True
    if block.kind == "bullet" and line.indent > prev_line.indent:
        return True
    last = prev_line.seg.text
    return 40 <= len(last) <= WRAP_WIDTH and not _ends_sentence(last)

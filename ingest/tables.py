"""Table rows in a pasted text: `| a | b |` rows, separator rows, and columns aligned by tabs or
runs of 2+ spaces. Cells are trimmed segments with offsets into the original text."""

from __future__ import annotations

import itertools
import re

from ingest.segment import Segment, trimmed

_SEPARATOR = re.compile(r"[|:+=\-\s]*[-=]{3,}[|:+=\-\s]*")
_ALIGNED_GAP = re.compile(r"\t+| {2,}")
# Columns of an aligned table start at the same place on every row, give or take this much.
COLUMN_TOLERANCE = 2

# A row of an aligned table: its trimmed line, the line's indentation and its cells.
AlignedRow = tuple[Segment, int, tuple[Segment, ...]]


def is_separator(line: str) -> bool:
    """`|---|:--|`, `-----` or `=====`: a rule under a header or between blocks."""
    return bool(_SEPARATOR.fullmatch(line))


def pipe_cells(text: str, seg: Segment) -> tuple[Segment, ...]:
    """Cells of a `| a | b |` row (outer pipes optional), each trimmed; empty cells dropped."""
    s = seg.text
    bounds = [i for i, ch in enumerate(s) if ch == "|"]
    edges = [-1, *bounds, len(s)]
    cells = []
    for a, b in itertools.pairwise(edges):
        cell = trimmed(text, seg.start + a + 1, seg.start + b)
        if cell is not None:
            cells.append(cell)
    return tuple(cells)


def aligned_cells(text: str, seg: Segment) -> tuple[Segment, ...]:
    """Cells of a line split at tabs or runs of 2+ spaces."""
    cells = []
    pos = seg.start
    for gap in _ALIGNED_GAP.finditer(seg.text):
        cell = trimmed(text, pos, seg.start + gap.start())
        if cell is not None:
            cells.append(cell)
        pos = seg.start + gap.end()
    last = trimmed(text, pos, seg.end)
    if last is not None:
        cells.append(last)
    return tuple(cells)


def same_columns(a: AlignedRow, b: AlignedRow) -> bool:
    """Two rows of one aligned table: as many cells, tab-separated or starting at the same columns."""
    (seg_a, indent_a, cells_a), (seg_b, indent_b, cells_b) = a, b
    if len(cells_a) != len(cells_b):
        return False
    if "\t" in seg_a.text and "\t" in seg_b.text:
        return True
    cols_a = [c.start - seg_a.start + indent_a for c in cells_a]
    cols_b = [c.start - seg_b.start + indent_b for c in cells_b]
    return all(abs(x - y) <= COLUMN_TOLERANCE for x, y in zip(cols_a, cols_b, strict=True))


def row_span(text: str, seg: Segment, cells: tuple[Segment, ...]) -> Segment:
    """A row spans its cells: from the first cell to the last, outer pipes left out."""
    if not cells:
        return seg
    span = trimmed(text, cells[0].start, cells[-1].end)
    assert span is not None
    return span

"""The tokenizer's piece table: the file the export writes, read back mapped, gives every piece
its id and score, nothing else an id, and a damaged file is refused with its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.adapters.unigram_tokenizer import PieceTable

PIECES = ["▁a", "a", "b", "▁corrente", "ção", "é", "漢字", "", "<unk>", "▁Elo"]
SCORES = [-1.5, -2.0, -3.25, -7.0, -4.0, -5.5, -9.0, 0.0, 0.0, -6.0]


def table_at(tmp_path: Path, pieces: list[str], scores: list[float]) -> PieceTable:
    path = tmp_path / "pieces.bin"
    path.write_bytes(PieceTable.encode(pieces, scores))
    return PieceTable.open(path)


def test_every_piece_reads_back_with_its_id_and_score(tmp_path: Path) -> None:
    table = table_at(tmp_path, PIECES, SCORES)
    assert len(table) == len(PIECES)
    for index, piece in enumerate(PIECES):
        assert table.get(piece) == index
        assert table.scores[index] == SCORES[index]
    assert table.longest == len("▁corrente") and table.min_score == -9.0
    for other in ("c", "▁A", "corrente", "ção ", "漢", "▁Elo▁"):
        assert table.get(other) is None


def test_many_pieces_with_colliding_filter_bits_still_read_exactly(tmp_path: Path) -> None:
    pieces = [f"p{n}" for n in range(60_000)]
    table = table_at(tmp_path, pieces, [-float(n) for n in range(60_000)])
    assert all(table.get(p) == n for n, p in enumerate(pieces))
    assert sum(table.get(f"q{n}") is not None for n in range(60_000)) == 0


@pytest.mark.parametrize("cut", [0, 7, 40, 41, -1])
def test_a_damaged_file_is_refused_naming_it(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "pieces.bin"
    raw = PieceTable.encode(PIECES, SCORES)
    path.write_bytes(raw[:cut] if cut >= 0 else raw[:-3])
    with pytest.raises(ValueError, match=r"pieces\.bin"):
        PieceTable.open(path)

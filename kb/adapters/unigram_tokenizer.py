"""A lean unigram (SentencePiece-style) tokenizer giving the same ids as ``tokenizers``.

``tokenizers`` holds multilingual-e5-small's 250,002-piece unigram model as a trie of ~280 MB
in memory. This tokenizer keeps the whole vocabulary in a ``PieceTable``: one ~9 MB file the
export writes, mapped read-only (a dict of the pieces took ~41 MB of Python objects in every
worker, and parsing them from JSON a fifth of a second of every start), and runs the same Viterbi
search per word in Python, with the words it has seen cached. The normaliser and the
pre-tokeniser are still ``tokenizers``' own (read from the export's ``normalizer.json``, a
tokenizer without its model), so the text it segments is the one ``tokenizers`` segments;
special tokens in the text are split out first, as ``tokenizers`` does with its added tokens.

Same ids, piece for piece, as ``Tokenizer.encode(text).ids`` with truncation to
``max_length`` (a tested invariant over the corpus, the evaluation questions and odd strings).
"""

from __future__ import annotations

import json
import mmap
import re
import struct
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Any
from zlib import crc32

import numpy as np

UNK_PENALTY = 10.0  # tokenizers' kUnkPenalty: an unknown character scores min_score - 10
WORD_CACHE = 50_000
FILTER_BITS = 1 << 22  # the piece table's bit filter: ~1.5 % of the bits set by 250k pieces
PIECES_MAGIC = b"YGOPT\x00\x00\x01"
# magic, piece count, longest piece (characters), joined bytes, lowest score
_HEADER = struct.Struct("<8sQQQd")


class PieceTable:
    """Piece → id and score over a whole vocabulary, in one file mapped read-only.

    The file (``PieceTable.encode`` writes it when the model is exported) holds the pieces'
    hashes (CRC-32 of their UTF-8 bytes) sorted, each one's id, the pieces' bytes joined with
    their offsets, the pieces' scores, and a bit filter over the hashes. A lookup turns away most
    texts that are no piece (most of the substrings the Viterbi search tries) at the filter, then
    finds the hash by bisection and confirms the piece against its bytes, so a hash collision
    never gives a wrong id. Opening it is a few views over the mapping (no parsing, no Python
    object per piece), and processes mapping the same file share its pages.
    """

    def __init__(self, data: memoryview) -> None:
        """The table over ``data`` (a file's content as ``encode`` wrote it); ValueError if not."""
        if len(data) < _HEADER.size or bytes(data[: len(PIECES_MAGIC)]) != PIECES_MAGIC:
            raise ValueError("not a piece table (bad magic)")
        _, count, longest, blob, min_score = _HEADER.unpack_from(data)
        sizes = [count * 4, count * 4, (count + 1) * 8, count * 8]  # hashes, ids, starts, scores
        bounds = list(accumulate((_padded(n) for n in sizes), initial=_HEADER.size))
        if len(data) != bounds[-1] + FILTER_BITS // 8 + blob:
            raise ValueError("not a piece table (truncated or padded)")
        hashes, ids, starts, scores = (
            data[at : at + n] for at, n in zip(bounds, sizes, strict=False)
        )
        self._hashes = hashes.cast("I")
        self._ids = ids.cast("i")
        self._starts = starts.cast("Q")
        self.scores = scores.cast("d")
        self._filter = data[bounds[-1] : bounds[-1] + FILTER_BITS // 8]
        self._blob = data[bounds[-1] + FILTER_BITS // 8 :]
        if self._starts[count] != blob:
            raise ValueError("not a piece table (bad offsets)")
        self.longest = int(longest)
        self.min_score = float(min_score)

    @classmethod
    def open(cls, path: Path) -> PieceTable:
        """The table in the file at ``path``, mapped read-only; ValueError naming it if damaged."""
        try:
            with open(path, "rb") as file:
                mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            return cls(memoryview(mapped))
        except ValueError as exc:  # an empty file cannot be mapped either
            raise ValueError(f"{path}: {exc}") from exc

    @staticmethod
    def encode(pieces: Sequence[str], scores: Sequence[float]) -> bytes:
        """The file content of the table of ``pieces`` (in id order) and their ``scores``."""
        raw = [piece.encode("utf-8") for piece in pieces]
        hashes = np.fromiter((crc32(r) for r in raw), dtype=np.uint32, count=len(raw))
        order = np.argsort(hashes, kind="stable")
        starts = np.fromiter(accumulate((len(r) for r in raw), initial=0), dtype=np.uint64)
        bits = hashes.astype(np.int64) & (FILTER_BITS - 1)
        mask = np.zeros(FILTER_BITS // 8, dtype=np.uint8)
        np.bitwise_or.at(mask, bits >> 3, (1 << (bits & 7)).astype(np.uint8))
        blob = b"".join(raw)
        values = np.asarray(scores, dtype=np.float64)
        header = _HEADER.pack(
            PIECES_MAGIC,
            len(raw),
            max((len(p) for p in pieces), default=0),
            len(blob),
            float(values.min()) if len(values) else 0.0,
        )
        sections = [
            hashes[order].astype("<u4").tobytes(),
            order.astype("<i4").tobytes(),
            starts.astype("<u8").tobytes(),
            values.astype("<f8").tobytes(),
        ]
        padded = [s + bytes(_padded(len(s)) - len(s)) for s in sections]
        return header + b"".join(padded) + mask.tobytes() + blob

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, text: str) -> int | None:
        """The id of the piece ``text``, or None."""
        raw = text.encode("utf-8")
        value = crc32(raw)
        bit = value & (FILTER_BITS - 1)
        if not self._filter[bit >> 3] >> (bit & 7) & 1:
            return None
        hashes = self._hashes
        at = bisect_left(hashes, value)
        while at < len(hashes) and hashes[at] == value:
            index = self._ids[at]
            if self._blob[self._starts[index] : self._starts[index + 1]] == raw:
                return index
            at += 1
        return None


def _padded(size: int) -> int:
    return -(-size // 8) * 8


class UnigramTokenizer:
    """Text → token ids with ``<s> … </s>``, for one unigram vocabulary."""

    def __init__(
        self, vocab_file: Path, pieces_file: Path, normalizer_file: Path, max_length: int
    ) -> None:
        """Read ``vocab.json``, ``pieces.bin`` and ``normalizer.json`` (written by
        ``onnx_export``)."""
        from tokenizers import Tokenizer

        data = json.loads(Path(vocab_file).read_text(encoding="utf-8"))
        self._pieces = PieceTable.open(Path(pieces_file))
        self._scores = self._pieces.scores
        self.unk_id = int(data["unk_id"])
        self.bos_id = int(data["bos_id"])
        self.eos_id = int(data["eos_id"])
        self._unk_score = self._pieces.min_score - UNK_PENALTY
        self.max_length = max_length
        self._added = _added_token_pattern(data["added_tokens"])
        shell = Tokenizer.from_file(str(normalizer_file))
        if shell.normalizer is None or shell.pre_tokenizer is None:
            raise ValueError(f"{normalizer_file}: no normaliser or pre-tokeniser")
        self._normalize: Callable[[str], str] = shell.normalizer.normalize_str
        self._pre_tokenize: Callable[[str], list[tuple[str, Any]]] = (
            shell.pre_tokenizer.pre_tokenize_str
        )
        self._word: Callable[[str], tuple[int, ...]] = lru_cache(maxsize=WORD_CACHE)(self._segment)

    def encode(self, text: str) -> list[int]:
        """The ids of ``<s> text </s>``, the text's own truncated to ``max_length - 2``."""
        ids: list[int] = []
        for segment, special in self._split_added(text):
            if special is not None:
                ids.append(special)
                continue
            for word, _ in self._pre_tokenize(self._normalize(segment)):
                ids.extend(self._word(word))
        return [self.bos_id, *ids[: max(self.max_length - 2, 0)], self.eos_id]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [self.encode(text) for text in texts]

    def _split_added(self, text: str) -> list[tuple[str, int | None]]:
        """``text`` cut around its special tokens: (segment, None) or (token, its id)."""
        if self._added is None:
            return [(text, None)] if text else []
        parts: list[tuple[str, int | None]] = []
        start = 0
        for match in self._added.finditer(text):
            if match.start() > start:
                parts.append((text[start : match.start()], None))
            group = match.lastgroup
            assert group is not None  # every alternative is one named group
            parts.append((match.group(group), int(group[1:])))
            start = match.end()
        if start < len(text):
            parts.append((text[start:], None))
        return parts

    def _segment(self, word: str) -> tuple[int, ...]:
        """The best-scoring segmentation of one pre-tokenised word, as ``tokenizers`` finds it.

        Positions are visited left to right and pieces from each position shortest first; a
        later candidate replaces an earlier one only when it scores strictly higher. A
        character no piece starts with is an unknown token, and runs of unknowns fuse into one.
        """
        size = len(word)
        best = [0.0] + [float("-inf")] * size
        back: list[tuple[int, int] | None] = [None] * (size + 1)
        for start in range(size):
            if start and back[start] is None:
                continue
            single = False
            for end in range(start + 1, min(size, start + self._pieces.longest) + 1):
                index = self._pieces.get(word[start:end])
                if index is None:
                    continue
                single = single or end == start + 1
                self._relax(best, back, start, end, index, self._scores[index])
            if not single:
                self._relax(best, back, start, start + 1, self.unk_id, self._unk_score)
        return tuple(self._backtrack(back, size))

    @staticmethod
    def _relax(
        best: list[float],
        back: list[tuple[int, int] | None],
        start: int,
        end: int,
        index: int,
        score: float,
    ) -> None:
        candidate = best[start] + score
        if back[end] is None or candidate > best[end]:
            best[end] = candidate
            back[end] = (start, index)

    def _backtrack(self, back: list[tuple[int, int] | None], end: int) -> list[int]:
        ids: list[int] = []
        while end > 0:
            step = back[end]
            assert step is not None  # every position is reachable through unknown tokens
            start, index = step
            if not (index == self.unk_id and ids and ids[-1] == self.unk_id):
                ids.append(index)
            end = start
        ids.reverse()
        return ids


def _added_token_pattern(tokens: Sequence[dict[str, Any]]) -> re.Pattern[str] | None:
    """One regex matching any special token, longest first, with its lstrip/rstrip spaces.

    Each token's text is the named group ``t<id>``, so ``match.lastgroup`` names its id.
    """
    if not tokens:
        return None
    alternatives = []
    for token in sorted(tokens, key=lambda t: -len(t["content"])):
        left = r"\s*" if token.get("lstrip") else ""
        right = r"\s*" if token.get("rstrip") else ""
        alternatives.append(f"{left}(?P<t{int(token['id'])}>{re.escape(token['content'])}){right}")
    return re.compile("|".join(alternatives))

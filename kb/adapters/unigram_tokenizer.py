"""A lean unigram (SentencePiece-style) tokenizer giving the same ids as ``tokenizers``.

``tokenizers`` holds multilingual-e5-small's 250,002-piece unigram model as a trie of ~280 MB
in memory. This tokenizer keeps the whole vocabulary in a ``PieceTable`` (~12 MB of flat arrays,
where a dict of the pieces took ~41 MB of Python objects in every worker) and runs the same
Viterbi search per word in Python, with the words it has seen cached. The normaliser and the
pre-tokeniser are still ``tokenizers``' own (read from the export's ``normalizer.json``, a
tokenizer without its model), so the text it segments is the one ``tokenizers`` segments; special tokens in the text are split out first, as
``tokenizers`` does with its added tokens.

Same ids, piece for piece, as ``Tokenizer.encode(text).ids`` with truncation to
``max_length`` (a tested invariant over the corpus, the evaluation questions and odd strings).
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

UNK_PENALTY = 10.0  # tokenizers' kUnkPenalty: an unknown character scores min_score - 10
WORD_CACHE = 50_000
FILTER_BITS = 1 << 22  # the piece table's bit filter: ~1.5 % of the bits set by 250k pieces


class PieceTable:
    """Piece → id over a whole vocabulary, in flat arrays instead of a dict of Python objects.

    The pieces' hashes are kept sorted (with each one's id); a lookup finds the text's hash by
    bisection and confirms the piece against the pieces' text, joined into one string, so a hash
    collision never gives a wrong id. A bit filter over the hashes first turns away most texts
    that are no piece (most of the substrings the Viterbi search tries) without a bisection.
    Hashes are this process's own (``hash``), so the table is built where it is used.
    """

    def __init__(self, pieces: Sequence[str]) -> None:
        hashes = np.fromiter((hash(piece) for piece in pieces), dtype=np.int64, count=len(pieces))
        order = np.argsort(hashes, kind="stable")
        self._hashes = array("q", hashes[order].tobytes())
        self._ids = array("i", order.astype(np.int32).tobytes())
        self._text = "".join(pieces)
        self._starts = array("q", accumulate((len(p) for p in pieces), initial=0))
        bits = hashes & (FILTER_BITS - 1)
        mask = np.zeros(FILTER_BITS // 8, dtype=np.uint8)
        np.bitwise_or.at(mask, bits >> 3, (1 << (bits & 7)).astype(np.uint8))
        self._filter = mask.tobytes()
        self.longest = max((len(p) for p in pieces), default=0)

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, text: str) -> int | None:
        """The id of the piece ``text``, or None."""
        value = hash(text)
        bit = value & (FILTER_BITS - 1)
        if not self._filter[bit >> 3] >> (bit & 7) & 1:
            return None
        hashes = self._hashes
        at = bisect_left(hashes, value)
        while at < len(hashes) and hashes[at] == value:
            index = self._ids[at]
            if self._text[self._starts[index] : self._starts[index + 1]] == text:
                return index
            at += 1
        return None


class UnigramTokenizer:
    """Text → token ids with ``<s> … </s>``, for one unigram vocabulary."""

    def __init__(self, vocab_file: Path, normalizer_file: Path, max_length: int) -> None:
        """Read ``vocab.json`` and ``normalizer.json`` (written by ``onnx_export``)."""
        from tokenizers import Tokenizer

        data = json.loads(Path(vocab_file).read_text(encoding="utf-8"))
        self._pieces = PieceTable(data["pieces"])
        self._scores = array("d", (float(s) for s in data["scores"]))
        self.unk_id = int(data["unk_id"])
        self.bos_id = int(data["bos_id"])
        self.eos_id = int(data["eos_id"])
        self._unk_score = min(self._scores) - UNK_PENALTY
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

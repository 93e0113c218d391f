"""Entity linking: find cards, concepts and formats named in a text (pt or en).

Matching is on a folded form (lowercase, accents removed, curly quotes straightened) and whole
words, longest surface form first. For queries, a fuzzy pass (rapidfuzz) catches typos such as
"Dragao Negro Armdo" in the words no exact match covered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from kb.ids import fold
from kb.model import Mention

_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
_WORD = re.compile(r"[a-z0-9]+(?:['\-.][a-z0-9]+)*")


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the offset of its source character."""
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        folded = fold(ch.translate(_QUOTES))
        out.append(folded)
        offsets.extend([i] * len(folded))
    return "".join(out), offsets


def normalise(surface: str) -> str:
    """The matching key of a surface form: folded, quotes straightened, spaces collapsed."""
    return " ".join(fold(surface.translate(_QUOTES)).split())


@dataclass(frozen=True)
class Entry:
    """One linkable entity: its id, type, display label and every surface form."""

    id: str
    type: str
    label: str
    surfaces: tuple[str, ...]


class Linker:
    """Finds mentions of known entities in text; built once from the lexicon's entries."""

    def __init__(self, entries: Iterable[Entry], *, min_fuzzy_len: int = 6) -> None:
        self.entries: dict[str, Entry] = {}
        self._by_surface: dict[str, str] = {}
        for entry in entries:
            self.entries[entry.id] = entry
            for surface in entry.surfaces:
                key = normalise(surface)
                if key and key not in self._by_surface:
                    self._by_surface[key] = entry.id
        keys = sorted(self._by_surface, key=lambda k: (-len(k), k))
        # "Semi-Limitado" also matches "semi limitado" and "semilimitado".
        self._joined = {_joined(k): e for k, e in reversed(list(self._by_surface.items()))}
        body = "|".join(re.escape(k).replace(r"\ ", r"\s+").replace(r"\-", r"[\s-]?") for k in keys)
        self._pattern = re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])") if keys else None
        self._fuzzy_keys = [k for k in keys if len(k) >= min_fuzzy_len]
        self.min_fuzzy_len = min_fuzzy_len

    def surfaces_of(self, entity: str) -> list[str]:
        return [s for s, e in self._by_surface.items() if e == entity]

    def link(
        self, text: str, *, fuzzy: bool = False, types: frozenset[str] | None = None
    ) -> list[Mention]:
        """Mentions in `text` (offsets into `text`), in order; fuzzy adds typo-tolerant matches."""
        folded, offsets = fold_with_offsets(text)
        mentions: list[Mention] = []
        covered: list[tuple[int, int]] = []
        if self._pattern is not None:
            for m in self._pattern.finditer(folded):
                found = " ".join(m.group(0).split())
                entity = self._by_surface.get(found) or self._joined[_joined(found)]
                if types is not None and self.entries[entity].type not in types:
                    continue
                start, end = offsets[m.start()], offsets[m.end() - 1] + 1
                mentions.append(Mention(entity, start, end, text[start:end], 1.0))
                covered.append((m.start(), m.end()))
        if fuzzy:
            mentions += self._fuzzy(text, folded, offsets, covered, types)
        return sorted(mentions, key=lambda m: (m.start, -m.end))

    def _fuzzy(
        self,
        text: str,
        folded: str,
        offsets: list[int],
        covered: list[tuple[int, int]],
        types: frozenset[str] | None,
    ) -> list[Mention]:
        words = [w for w in _WORD.finditer(folded) if not _inside(w.start(), w.end(), covered)]
        found: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for size in (6, 5, 4, 3, 2, 1):
            for i in range(len(words) - size + 1):
                first, last = words[i], words[i + size - 1]
                if any(words[j + 1].start() - words[j].end() > 2 for j in range(i, i + size - 1)):
                    continue
                if _overlaps(first.start(), last.end(), taken):
                    continue
                window = folded[first.start() : last.end()]
                if len(window) < self.min_fuzzy_len:
                    continue
                best = process.extractOne(
                    window, self._fuzzy_keys, scorer=fuzz.ratio, score_cutoff=_cutoff(window)
                )
                if best is None:
                    continue
                entity = self._by_surface[best[0]]
                if types is not None and self.entries[entity].type not in types:
                    continue
                start, end = offsets[first.start()], offsets[last.end() - 1] + 1
                found.append(Mention(entity, start, end, text[start:end], round(best[1] / 100, 3)))
                taken.append((first.start(), last.end()))
        return found


def _joined(key: str) -> str:
    """A surface key without its spaces and hyphens."""
    return re.sub(r"[\s-]", "", key)


def _cutoff(window: str) -> float:
    """Longer windows tolerate more edits: ~1 edit per 8 characters, never below 84%."""
    return max(84.0, 100.0 - 100.0 * (1 + len(window) // 12) / max(len(window), 1))


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in spans)

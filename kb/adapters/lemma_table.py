"""simplemma's lemma dictionaries as memory-mapped sorted tables in the data folder's cache.

simplemma ships each language's dictionary compressed; its default factory decodes the whole of
it into a Python dict on the first lookup: 1.7 s and ~117 MB for Portuguese and English on a
2-core machine, in every process (a CLI call, each server worker). A table here holds the same
pairs sorted by word, written once per simplemma version and language
(`<cache>/lemmas-<version>-<lang>.bin`, to a temporary name then renamed) and then only mapped:
opening it costs nothing, a lookup is a binary search over the mapped pages, and the processes
of a server share them through the page cache.

Layout: MAGIC, the number of pairs n (uint64), n + 1 offsets (uint64, into the blob), then the
blob: each pair as `word \\t lemma` in UTF-8, in byte order of the words.
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import simplemma
from simplemma.strategies.dictionaries.dictionary_factory import (
    CachingDictionaryFactory,
    DecodedStrMapping,
    DefaultDictionaryFactory,
)

log = logging.getLogger(__name__)

MAGIC = b"YGOLEMM1"
_HEAD = len(MAGIC) + 8
_SEP = b"\t"


def table_path(folder: Path, lang: str) -> Path:
    return folder / f"lemmas-{simplemma.__version__}-{lang}.bin"


def write_table(path: Path, pairs: Mapping[str, str]) -> Path:
    """Write the (word, lemma) pairs as a table at `path` (temporary name, then renamed); a pair
    with a tab or a newline in it is left out."""
    rows = sorted(
        (w.encode(), v.encode())
        for w, v in pairs.items()
        if not any(c in w or c in v for c in "\t\n")
    )
    blob = [w + _SEP + v for w, v in rows]
    offsets = np.zeros(len(blob) + 1, dtype="<u8")
    np.cumsum([len(b) for b in blob], out=offsets[1:])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + struct.pack("<Q", len(blob)))
            out.write(offsets.tobytes())
            out.write(b"".join(blob))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


class LemmaTable(DecodedStrMapping):
    """A table written by `write_table`, mapped read-only: ValueError when it is not one."""

    __slots__ = ("_blob", "_count", "_map", "_offsets")

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        size = len(self._map)
        if size < _HEAD or self._map[: len(MAGIC)] != MAGIC:
            raise ValueError(f"{path.name} is not a lemma table")
        (self._count,) = struct.unpack("<Q", self._map[len(MAGIC) : _HEAD])
        blob = _HEAD + 8 * (self._count + 1)
        if blob > size:
            raise ValueError(f"{path.name} is cut short")
        self._offsets = np.frombuffer(self._map, dtype="<u8", count=self._count + 1, offset=_HEAD)
        if int(self._offsets[-1]) != size - blob:
            raise ValueError(f"{path.name} does not hold what its offsets say")
        self._blob = blob

    def _pair(self, i: int) -> tuple[bytes, bytes]:
        start, end = int(self._offsets[i]), int(self._offsets[i + 1])
        word, _, lemma = self._map[self._blob + start : self._blob + end].partition(_SEP)
        return word, lemma

    def _lookup(self, key: str) -> str | None:
        target = key.encode()
        lo, hi = 0, self._count
        while lo < hi:
            mid = (lo + hi) // 2
            word, lemma = self._pair(mid)
            if word == target:
                return lemma.decode()
            if word < target:
                lo = mid + 1
            else:
                hi = mid
        return None

    def __iter__(self) -> Iterator[str]:
        for i in range(self._count):
            yield self._pair(i)[0].decode()

    def __len__(self) -> int:
        return self._count


class LemmaTables(CachingDictionaryFactory):
    """simplemma's dictionaries read from tables in `folder`, each written there on first use
    from simplemma's own; where the folder cannot be written, simplemma's dictionary in memory
    (with a warning)."""

    __slots__ = ("folder",)

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def _get_dictionary_uncached(self, lang: str) -> Mapping[str, str]:
        path = table_path(self.folder, lang)
        try:
            return LemmaTable(path)
        except (OSError, ValueError) as exc:
            if path.exists():
                log.warning("rewriting the lemma table %s: %s", path.name, exc)
        source = DefaultDictionaryFactory(cache_max_size=0).get_dictionary(lang)
        try:
            return LemmaTable(write_table(path, source))
        except OSError as exc:
            log.warning("cannot write the lemma table %s (%s): in memory", path.name, exc)
            return source

"""Snapshots of a service's built parts: a process that finds one reads them instead of building.

Building the linker, the search index, the reasoners, the card index and the question bank from a
loaded artifact takes a few seconds (most of a server's start, most of a CLI answer); reading them
back from one file takes a fraction of that. A snapshot holds the artifact's graph, documents and
manifest, the passage vectors (the head) and every part the service had built when it was
written, each part in a section of its own: a process reads the head, then only the parts it
uses, when it first uses them (``ask`` never reads the card index or the question bank).

A snapshot is only ever read by the code that wrote it: its name is a digest of the build id, the
embedder's name (which names the model, the runner and the quantisation), the settings the parts
read, every file of the ``kb`` package, the snapshot format, Python's version and the versions of
the libraries whose objects it holds. Anything else serves a fresh build. The file starts with a
table of its sections, each with a BLAKE2b digest (and the table's own digest), and is written
whole (a temporary file, then renamed), so a damaged or half-written section is never read: the
file is removed and the part is built again.

The embedder and the service itself are not in the file: the parts point at them by name
(pickle's persistent ids) and are given the live ones when read. A part points the same way at
the head's values and at the parts written before it, which are read first. Remembered results
(``functools.lru_cache`` over a method) are written as empty memories of the same size.

A snapshot is a pickle, read from the data folder as the rest of the build is: whoever can write
that folder can already change what the service answers. Never point the data folder at files
from elsewhere.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import io
import json
import logging
import mmap
import os
import pickle
import struct
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

SNAPSHOT_VERSION = 2  # 2: the head and each part in a section of its own
MAGIC = b"YGOSNAP\x02"
HEAD = "head"
PREFIX = "snap-"
SUFFIX = ".pickle"
KEEP = 2  # snapshots kept in the folder, newest first (the current build's and one other)
_DIGEST_BYTES = 32
# Libraries whose objects a snapshot holds (numpy arrays; the BM25 scores bm25s computed).
_LIBRARIES = ("numpy", "bm25s")
_TABLE = struct.Struct("<8sI")  # magic, the table's length; then the table and its digest
_PACKAGE = Path(__file__).resolve().parent


@contextmanager
def collector_paused() -> Iterator[None]:
    """Loading allocates a whole KB (every card's nodes and facts) or a part of it in one go,
    which the cyclic garbage collector would rescan again and again (~1.5 s of a 5 s start).
    Pause it, then freeze what was loaded: those objects live as long as the process, and later
    collections skip them."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


@functools.cache
def code_digest(package: Path = _PACKAGE) -> str:
    """A digest of every file of the package (its code and its language data)."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def snapshot_key(build_id: str, embedder: str, settings: str) -> str:
    """The name part that ties a snapshot to what wrote it (see the module's docstring)."""
    versions = []
    for name in _LIBRARIES:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=-")
    parts = (SNAPSHOT_VERSION, sys.version, build_id, embedder, settings, code_digest(), versions)
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def snapshot_path(folder: Path, key: str) -> Path:
    return folder / f"{PREFIX}{key}{SUFFIX}"


def _remembering(method: Callable[..., Any], maxsize: int | None) -> Callable[..., Any]:
    return functools.lru_cache(maxsize=maxsize)(method)


class _Writer(pickle.Pickler):
    def __init__(self, file: IO[bytes], external: Mapping[str, object]) -> None:
        super().__init__(file, protocol=5)
        self._names = {id(obj): name for name, obj in external.items()}
        self.used: set[str] = set()

    def persistent_id(self, obj: Any) -> str | None:
        name = self._names.get(id(obj))
        if name is not None:
            self.used.add(name)
        return name

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, functools._lru_cache_wrapper):
            return _remembering, (obj.__wrapped__, obj.cache_parameters()["maxsize"])
        return NotImplemented


class _Reader(pickle.Unpickler):
    def __init__(self, file: IO[bytes], external: Mapping[str, object]) -> None:
        super().__init__(file)
        self.external = external

    def persistent_load(self, pid: Any) -> Any:
        try:
            return self.external[pid]
        except KeyError:
            raise pickle.UnpicklingError(f"no live object named {pid!r}") from None


def _digest(data: bytes | memoryview) -> str:
    return hashlib.blake2b(data, digest_size=_DIGEST_BYTES).hexdigest()


def _head_names(head: object) -> dict[str, object]:
    """The names a part may point at the head's objects by: each value of a dict head
    (``head.<key>``) and each item of a tuple value (``head.<key>.<i>``)."""
    if not isinstance(head, dict):
        return {}
    names: dict[str, object] = {}
    for key, value in head.items():
        names[f"{HEAD}.{key}"] = value
        if isinstance(value, tuple):
            names.update({f"{HEAD}.{key}.{i}": item for i, item in enumerate(value)})
    # a name stands for one object: never for None, a number or a string any part may hold too
    return {
        k: v for k, v in names.items() if not isinstance(v, (type(None), bool, int, float, str))
    }


def _pickled(obj: object, names: Mapping[str, object]) -> tuple[bytes, set[str]]:
    buffer = io.BytesIO()
    writer = _Writer(buffer, names)
    writer.dump(obj)
    return buffer.getvalue(), writer.used


def write(
    path: Path,
    head: object,
    parts: Mapping[str, object],
    external: Mapping[str, object],
    keep: int = KEEP,
) -> None:
    """Write ``head``, then each of ``parts`` in order, each in its own section, pointing at
    ``external``'s objects by name (and a part at the head's values and the earlier parts); then
    drop all but the newest ``keep`` snapshots."""
    names = dict(external)
    sections: list[tuple[dict[str, Any], bytes]] = []
    data, _ = _pickled(head, names)
    sections.append(({"name": HEAD, "uses": []}, data))
    names.update(_head_names(head))
    for name, part in parts.items():
        data, used = _pickled(part, names)
        uses = sorted(u.removeprefix("part.") for u in used if u.startswith("part."))
        sections.append(({"name": name, "uses": uses}, data))
        names[f"part.{name}"] = part
    offset = 0
    for entry, data in sections:
        entry.update(offset=offset, length=len(data), digest=_digest(data))
        offset += len(data)
    table = json.dumps([entry for entry, _ in sections]).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".snap-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_TABLE.pack(MAGIC, len(table)))
            out.write(table)
            out.write(hashlib.blake2b(table, digest_size=_DIGEST_BYTES).digest())
            for _, data in sections:
                out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _prune(path, keep)


def _prune(written: Path, keep: int) -> None:
    """Remove all but ``written`` and the newest ``keep - 1`` other snapshots beside it."""
    others = [p for p in written.parent.glob(f"{PREFIX}*{SUFFIX}") if p != written]
    others.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in others[max(keep - 1, 0) :]:
        old.unlink(missing_ok=True)


class Damaged(ValueError):
    """A snapshot's table or section does not read back as written."""


@dataclass(frozen=True)
class _Section:
    name: str
    offset: int
    length: int
    digest: str
    uses: tuple[str, ...]


class Snapshot:
    """A snapshot's head, and its parts read on first ``part(name)`` (the parts it points at
    first). A part that does not read back is None: the file is removed, and the caller builds
    it. Safe to use from several threads."""

    def __init__(
        self, path: Path, mapped: mmap.mmap, start: int, sections: dict[str, _Section]
    ) -> None:
        self.path = path
        self._mapped: mmap.mmap | None = mapped
        self._start = start
        self._sections = sections
        self._names: dict[str, object] = {}
        self._lock = threading.Lock()
        self._damaged = False
        self.head: Any = None

    @property
    def parts(self) -> tuple[str, ...]:
        """The parts the snapshot holds, in the order written."""
        return tuple(name for name in self._sections if name != HEAD)

    def _open(self, external: Mapping[str, object]) -> Any:
        self._names = dict(external)
        self.head = self._load(self._sections[HEAD])
        return self.head

    def _name_head(self, more: Mapping[str, object]) -> None:
        self._names.update(more)
        self._names.update(_head_names(self.head))

    def _load(self, section: _Section) -> Any:
        mapped = self._mapped
        if mapped is None:
            raise Damaged("closed")
        start = self._start + section.offset
        data = mapped[start : start + section.length]
        if len(data) != section.length or _digest(data) != section.digest:
            raise Damaged(f"section {section.name!r}: digest")
        return _Reader(io.BytesIO(data), self._names).load()

    def part(self, name: str) -> Any | None:
        """The part ``name``, read now if not read yet; None when the snapshot has none or it
        does not read back (the snapshot file is then removed)."""
        with self._lock:
            return self._part(name)

    def _part(self, name: str) -> Any | None:
        key = f"part.{name}"
        if key in self._names:
            return self._names[key]
        section = self._sections.get(name)
        if section is None or section.name == HEAD or self._damaged:
            return None
        for used in section.uses:
            if self._part(used) is None:
                return None
        try:
            with collector_paused():
                value = self._load(section)
        except Exception as exc:  # an unreadable pickle raises any of a dozen exception types
            self._discard(f"part {name!r} cannot be read ({exc})")
            return None
        self._names[key] = value
        if all(f"part.{n}" in self._names for n in self.parts):
            self.close()  # every part read: the mapping is no longer needed
        return value

    def _discard(self, reason: str) -> None:
        log.warning("snapshot %s: %s; removing it", self.path.name, reason)
        self._damaged = True
        self.path.unlink(missing_ok=True)
        self.close()

    def close(self) -> None:
        mapped, self._mapped = self._mapped, None
        if mapped is not None:
            mapped.close()


def _table(mapped: mmap.mmap) -> tuple[int, dict[str, _Section]]:
    """Where the sections start and the table of them; Damaged if it does not read back."""
    if len(mapped) < _TABLE.size:
        raise Damaged("too short")
    magic, size = _TABLE.unpack_from(mapped)
    if magic != MAGIC:
        raise Damaged("not a snapshot of this format")
    end = _TABLE.size + size
    table, digest = mapped[_TABLE.size : end], mapped[end : end + _DIGEST_BYTES]
    if hashlib.blake2b(table, digest_size=_DIGEST_BYTES).digest() != digest:
        raise Damaged("table digest")
    sections: dict[str, _Section] = {}
    start = end + _DIGEST_BYTES
    for entry in json.loads(table):
        section = _Section(
            str(entry["name"]),
            int(entry["offset"]),
            int(entry["length"]),
            str(entry["digest"]),
            tuple(str(u) for u in entry["uses"]),
        )
        sections[section.name] = section
    last = max((s.offset + s.length for s in sections.values()), default=0)
    if HEAD not in sections or start + last != len(mapped):
        raise Damaged("truncated or padded")
    return start, sections


def read(
    path: Path, external: dict[str, object], between: Callable[[Any], Mapping[str, object]]
) -> Snapshot | None:
    """The snapshot at ``path`` with its head read, or None when there is none or it is damaged
    (then removed). ``between(head)`` runs after the head is read and names more live objects
    for the parts (the service made from the head)."""
    try:
        with open(path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        log.warning("snapshot %s unreadable (%s); removing it", path.name, exc)
        path.unlink(missing_ok=True)
        return None
    try:
        start, sections = _table(mapped)
        found = Snapshot(path, mapped, start, sections)
        head = found._open(external)
        found._name_head(between(head))
    except Exception as exc:  # an unreadable pickle raises any of a dozen exception types
        log.warning("snapshot %s cannot be read (%s); removing it", path.name, exc)
        mapped.close()
        path.unlink(missing_ok=True)
        return None
    return found

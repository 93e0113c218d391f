"""Snapshots of a service's built parts: a process that finds one reads them instead of building.

Building the linker, the search index, the reasoners, the card index and the question bank from a
loaded artifact takes a few seconds (most of a server's start, most of a CLI answer); reading them
back from one file takes a fraction of that. A snapshot holds the artifact's graph, documents and
manifest, the passage vectors and every part the service had built when it was written.

A snapshot is only ever read by the code that wrote it: its name is a digest of the build id, the
embedder's name (which names the model, the runner and the quantisation), the settings the parts
read, every file of the ``kb`` package, the snapshot format, Python's version and the versions of
the libraries whose objects it holds. Anything else serves a fresh build. The file starts with a
BLAKE2b digest of the rest and is written whole (a temporary file, then renamed), so a damaged
or half-written snapshot is never read: it is removed and the parts are built again.

The embedder and the service itself are not in the file: the parts point at them by name
(pickle's persistent ids) and are given the live ones when read. Remembered results
(``functools.lru_cache`` over a method) are written as empty memories of the same size.

A snapshot is a pickle, read from the data folder as the rest of the build is: whoever can write
that folder can already change what the service answers. Never point the data folder at files
from elsewhere.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

SNAPSHOT_VERSION = 1
PREFIX = "snap-"
SUFFIX = ".pickle"
KEEP = 2  # snapshots kept in the folder, newest first (the current build's and one other)
_DIGEST_BYTES = 32
# Libraries whose objects a snapshot holds (numpy arrays, the BM25 index).
_LIBRARIES = ("numpy", "scipy", "bm25s")
_PACKAGE = Path(__file__).resolve().parent


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

    def persistent_id(self, obj: Any) -> str | None:
        return self._names.get(id(obj))

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, functools._lru_cache_wrapper):
            return _remembering, (obj.__wrapped__, obj.cache_parameters()["maxsize"])
        return NotImplemented


class _Reader(pickle.Unpickler):
    def __init__(self, file: IO[bytes], external: dict[str, object]) -> None:
        super().__init__(file)
        self.external = external

    def persistent_load(self, pid: Any) -> Any:
        try:
            return self.external[pid]
        except KeyError:
            raise pickle.UnpicklingError(f"no live object named {pid!r}") from None


def write(
    path: Path, head: object, body: object, external: Mapping[str, object], keep: int = KEEP
) -> None:
    """Write ``head`` then ``body`` (one memo: the body may share the head's objects), pointing
    at ``external``'s objects by name; then drop all but the newest ``keep`` snapshots."""
    buffer = io.BytesIO()
    writer = _Writer(buffer, external)
    writer.dump(head)
    writer.dump(body)
    payload = buffer.getbuffer()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".snap-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(hashlib.blake2b(payload, digest_size=_DIGEST_BYTES).digest())
            out.write(payload)
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


def read(
    path: Path, external: dict[str, object], between: Callable[[Any], Mapping[str, object]]
) -> tuple[Any, Any] | None:
    """``(head, body)`` of the snapshot at ``path``, or None when there is none or it is damaged
    (then removed). ``between(head)`` runs after the head is read and names more live objects
    for the body (the service made from the head)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("snapshot %s unreadable (%s); building the parts", path.name, exc)
        return None
    digest, payload = raw[:_DIGEST_BYTES], memoryview(raw)[_DIGEST_BYTES:]
    if hashlib.blake2b(payload, digest_size=_DIGEST_BYTES).digest() != digest:
        log.warning("snapshot %s is damaged (digest); removing it", path.name)
        path.unlink(missing_ok=True)
        return None
    reader = _Reader(io.BytesIO(payload), dict(external))
    try:
        head = reader.load()
        reader.external.update(between(head))
        body = reader.load()
    except Exception as exc:  # an unreadable pickle raises any of a dozen exception types
        log.warning("snapshot %s cannot be read (%s); removing it", path.name, exc)
        path.unlink(missing_ok=True)
        return None
    return head, body

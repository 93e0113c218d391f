"""On-disk cache of passage embeddings keyed by (model, text hash): rebuilds embed only changes.

Beside the per-text store (`emb-<model>.npz`) the rows for one exact list of texts are kept as a
plain matrix (`mat-<model>-<texts>.npy`) that is memory-mapped read-only: several server processes
over the same build then share its pages, and a start with nothing to embed reads no vectors.

Each file has its SHA-256 beside it (`<file>.sha256`, written with it) and is checked against it
on every start: a matrix overwritten in place, even with one of the same shape, is rebuilt from
the per-text store (a warning), never used; a per-text store that fails its checksum is dropped
and its vectors embedded again. (A per-text store written before the checksums is trusted once,
its zip members carry their own CRC, and sealed.)
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kb.search.embedding import Embedder
from kb.store import file_digest

log = logging.getLogger(__name__)


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _file(cache_dir: Path, model: str) -> Path:
    safe = hashlib.sha256(model.encode()).hexdigest()[:16]
    return cache_dir / f"emb-{safe}.npz"


# What a damaged cache file raises: empty (EOFError), truncated or not a zip (BadZipFile), a
# damaged member (zlib.error, ValueError, KeyError), not an .npz at all (ValueError: pickled data).
DAMAGED = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error)


def read_cache(path: Path, dim: int) -> dict[str, np.ndarray]:
    """The vectors of a cache file; a damaged file (or entry) is dropped with a warning, so its
    vectors are recomputed and the file rewritten, never a failed start."""
    try:
        with np.load(path, allow_pickle=False) as data:
            store = {k: data[k] for k in data.files}
    except DAMAGED as exc:
        log.warning(
            "the embedding cache %s is damaged (%s); recomputing it", path.name, type(exc).__name__
        )
        return {}
    sound = {k: v for k, v in store.items() if v.shape == (dim,) and v.dtype == np.float32}
    if len(sound) < len(store):
        log.warning(
            "the embedding cache %s holds %d malformed vectors; recomputing them",
            path.name,
            len(store) - len(sound),
        )
    return sound


def _seal_file(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _seal(path: Path, digest: str) -> None:
    """Write `path`'s checksum beside it (atomically)."""
    fd, tmp = tempfile.mkstemp(prefix=".seal-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(digest + "\n")
    os.replace(tmp, _seal_file(path))


def _seal_matches(path: Path) -> bool | None:
    """Whether `path` still has the checksum written beside it; None without one."""
    try:
        expected = _seal_file(path).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return file_digest(path) == expected
    except OSError:
        return False


def _matrix_file(cache_dir: Path, model: str, keys: Sequence[str]) -> Path:
    safe = hashlib.sha256(model.encode()).hexdigest()[:16]
    rows = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]
    return cache_dir / f"mat-{safe}-{rows}.npy"


def _mapped(path: Path, rows: int, problems: list[str] | None = None) -> np.ndarray | None:
    """The matrix at `path`, memory-mapped read-only, if it is whole (its checksum) and has
    `rows` rows; a damaged one is named in `problems`."""
    if not path.exists():
        return None
    sealed = _seal_matches(path)
    if not sealed:
        if sealed is False:
            log.warning("the embedding matrix %s is damaged (checksum); rebuilding it", path.name)
            if problems is not None:
                problems.append(f"embedding matrix {path.name} is damaged (checksum mismatch)")
        return None
    try:
        matrix = np.load(path, mmap_mode="r")
    except (OSError, ValueError, EOFError):
        return None
    if matrix.ndim != 2 or matrix.shape[0] != rows or matrix.dtype != np.float32:
        return None
    return matrix


def _save_matrix(path: Path, matrix: np.ndarray) -> None:
    """Write the matrix atomically and drop the model's matrices for other lists of texts."""
    for old in path.parent.glob(path.name.rsplit("-", 1)[0] + "-*.npy"):
        if old != path:
            old.unlink(missing_ok=True)
            _seal_file(old).unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".mat-", suffix=".npy", dir=path.parent)
    os.close(fd)
    try:
        np.save(tmp, matrix)
        _seal(path, file_digest(Path(tmp)))  # a seal without its matrix yet only rebuilds it
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def cached_embeddings(
    embedder: Embedder,
    texts: Sequence[str],
    cache_dir: Path | None,
    problems: list[str] | None = None,
) -> tuple[np.ndarray, int]:
    """Embeddings of `texts` (rows in order) and how many had to be computed now (with a cache
    directory, a read-only memory map). A cache file found damaged is rebuilt and named in
    `problems`."""
    if cache_dir is not None and texts:
        matrix_path = _matrix_file(cache_dir, embedder.name, [_key(t) for t in texts])
        mapped = _mapped(matrix_path, len(texts), problems)
        if mapped is not None:
            return mapped, 0
        matrix, fresh = _embeddings(embedder, texts, cache_dir, problems)
        _save_matrix(matrix_path, matrix)
        mapped = _mapped(matrix_path, len(texts), problems)
        return (matrix if mapped is None else mapped), fresh
    return _embeddings(embedder, texts, cache_dir, problems)


def _read_sealed(path: Path, dim: int, problems: list[str] | None) -> dict[str, np.ndarray]:
    """The per-text store at `path`, unless it fails its checksum."""
    if _seal_matches(path) is False:
        log.warning("the embedding cache %s is damaged (checksum); recomputing it", path.name)
        if problems is not None:
            problems.append(f"embedding cache {path.name} is damaged (checksum mismatch)")
        return {}
    store = read_cache(path, dim)
    if store and _seal_matches(path) is None:  # written before the checksums: seal it
        with contextlib.suppress(OSError):
            _seal(path, file_digest(path))
    return store


def _embeddings(
    embedder: Embedder,
    texts: Sequence[str],
    cache_dir: Path | None,
    problems: list[str] | None = None,
) -> tuple[np.ndarray, int]:
    store: dict[str, np.ndarray] = {}
    path = _file(cache_dir, embedder.name) if cache_dir is not None else None
    if path is not None and path.exists():
        store = _read_sealed(path, embedder.dim, problems)
    keys = [_key(t) for t in texts]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in store}.items())
    if missing:
        vectors = embedder.embed_passages([t for _, t in missing])
        for (k, _), v in zip(missing, vectors, strict=True):
            store[k] = np.asarray(v, dtype=np.float32)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".emb-", suffix=".npz", dir=path.parent)
            os.close(fd)
            try:
                np.savez(tmp, **store)  # type: ignore[arg-type]
                _seal(path, file_digest(Path(tmp)))
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
    if not keys:
        return np.zeros((0, embedder.dim), dtype=np.float32), 0
    return np.stack([store[k] for k in keys]), len(missing)

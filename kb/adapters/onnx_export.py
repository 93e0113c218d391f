"""Export a prepared BERT sentence-transformers folder to ONNX, for ``OnnxEmbedder``.

``export_onnx`` writes ``<folder>/onnx/``:

* ``model-int8.onnx``: the encoder with its Linear layers as ONNX Runtime's
  ``DynamicQuantizeMatMul`` (weights symmetric int8, one scale per output channel, stored as
  uint8 on CPUs without VNNI: ``onnx_graph.weight_codes`` says why; each input
  quantised to 8 bits per call) after SmoothQuant-style rescaling calibrated on a fixed sample,
  except the feed-forward output projection, whose input is quantised per token
  (``mixed_int8_linear`` says why);
* ``model-float.onnx``: the same graph with every matmul in float32;
* ``word_embeddings.f32``: the word table as raw little-endian float32 ``[vocabulary, hidden]``.
  The graphs take the looked-up rows (``inputs_embeds``), not ids: the runner maps the file with
  random-access advice, so only the rows the queries use become resident (inside ONNX Runtime
  the mapping's read-ahead made most of the 384 MB file resident after 148 questions);
* ``pieces.bin``, ``vocab.json`` and ``normalizer.json``: the unigram vocabulary (the pieces and
  their scores as ``unigram_tokenizer.PieceTable``'s file; the special ids and tokens) and the
  tokenizer without its model, for the lean tokenizer (``unigram_tokenizer``), when the folder's
  tokenizer is unigram;
* ``export.json``: what was exported, and how the graphs agree with the float32 torch runner.

The graphs take ``inputs_embeds`` (float32, ``[batch, tokens, hidden]``, no padding: every
text runs alone) and return the mean-pooled, not yet normalised ``embedding``
(``[batch, hidden]``). Everything is built from the folder's numpy weights with the ``onnx``
helpers; torch is used only to check the result against ``BertEncoder``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kb.adapters.bert_encoder import EncoderSpec, read_spec
from kb.adapters.model_prepare import file_sha256
from kb.adapters.onnx_graph import (
    INPUT,
    OPSET,
    Floats,
    Weights,
    build_graph,
    float_linear,
    mixed_int8_linear,
)
from kb.adapters.unigram_tokenizer import PieceTable

EXPORT_VERSION = 2  # 2: the vocabulary's pieces in pieces.bin
EXPORT_DIR = "onnx"
EXPORT_RECORD = "export.json"
INT8_MODEL = "model-int8.onnx"
FLOAT_MODEL = "model-float.onnx"
WORD_TABLE = "word_embeddings.f32"
VOCAB_FILE = "vocab.json"
PIECES_FILE = "pieces.bin"
NORMALIZER_FILE = "normalizer.json"

# Questions like the users' (pt and en), none of them calibration texts.
AGREEMENT_TEXTS: tuple[str, ...] = (
    "query: Posso ativar uma Armadilha durante a Damage Step?",
    "query: Can I chain a Quick-Play Spell to my opponent's Counter Trap?",
    "query: Um monstro Invocado por Invocação-Especial pode ser Invocado-Normal de novo?",
    "query: Does Cyber Dragon's summon start a chain?",
    "query: quantas cartas posso ter no Extra Deck?",
    "query: What happens if the target leaves the field before resolution?",
    "query: Efeitos de Velocidade 1 podem ser encadeados a efeitos de Velocidade 2?",
    "query: Is Mirror Force a Normal Trap or a Counter Trap?",
    "passage: Durante a Damage Step só podem ser ativadas cartas que modificam ATK/DEF.",
    "passage: Two teams of two players share one field and one Life Point total.",
)
MIN_FLOAT_COSINE = 0.9999
MIN_INT8_COSINE = 0.999


@dataclass(frozen=True)
class OnnxExport:
    """An exported ``onnx/`` folder and its agreement with the torch runner."""

    path: Path
    float_min_cosine: float
    int8_min_cosine: float
    lean_tokenizer: bool
    reused: bool


def read_weights(folder: Path) -> dict[str, Floats]:
    """The folder's ``model.safetensors`` as float32 numpy arrays (``bert.`` prefix dropped)."""
    from safetensors.numpy import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    return {
        name.removeprefix("bert."): np.asarray(value, dtype=np.float32)
        for name, value in tensors.items()
    }


# ------------------------------------------------------------------ lean tokenizer files


def lean_tokenizer_files(tokenizer_json: Mapping[str, Any]) -> dict[str, Any] | None:
    """``pieces.bin`` (bytes), ``vocab.json`` and ``normalizer.json`` contents for a unigram
    tokenizer, else None.

    The vocabulary is kept whole (every piece with its score, the special ids); the normaliser
    file is the tokenizer with an empty model, read only for its normaliser and pre-tokeniser.
    """
    model = tokenizer_json.get("model") or {}
    if model.get("type") != "Unigram" or model.get("byte_fallback"):
        return None
    pieces = [piece for piece, _ in model["vocab"]]
    scores = [float(score) for _, score in model["vocab"]]
    added = [
        {key: token[key] for key in ("id", "content", "lstrip", "rstrip", "special")}
        for token in tokenizer_json.get("added_tokens", [])
    ]
    if any(not token["special"] for token in added):
        return None
    special = {
        p["id"]: p["ids"][0] for p in tokenizer_json["post_processor"]["special_tokens"].values()
    }
    single = tokenizer_json["post_processor"]["single"]
    bos, eos = (special[single[i]["SpecialToken"]["id"]] for i in (0, -1))
    vocab = {
        "unk_id": int(model["unk_id"]),
        "bos_id": int(bos),
        "eos_id": int(eos),
        "added_tokens": added,
    }
    normalizer = {
        **tokenizer_json,
        "added_tokens": [],
        "post_processor": None,
        "model": {"type": "WordLevel", "vocab": {"<unk>": 0}, "unk_token": "<unk>"},
    }
    return {
        PIECES_FILE: PieceTable.encode(pieces, scores),
        VOCAB_FILE: vocab,
        NORMALIZER_FILE: normalizer,
    }


# ------------------------------------------------------------------------- export


def calibrate(
    weights: Weights, spec: EncoderSpec, out: Path, tokenizer: Path, texts: Sequence[str]
) -> dict[str, Floats]:
    """Each Linear layer's largest input magnitude per channel over ``texts`` (float32 graph).

    The tapped graph is written to ``out`` and removed after.
    """
    import onnx

    from kb.adapters.onnx_embedder import open_session, tokenizer_ids

    path = out / "calibration.onnx"
    onnx.save_model(build_graph(weights, spec, float_linear, taps=True), str(path))
    try:
        session = open_session(path)
        names = [o.name for o in session.get_outputs()][1:]
        maxima: dict[str, Floats] = {}
        table = weights["embeddings.word_embeddings.weight"]
        for ids in tokenizer_ids(tokenizer, texts, spec.max_length):
            outputs = session.run(names, {INPUT: table[np.asarray([ids])]})
            for name, value in zip(names, outputs, strict=True):
                peak = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
                maxima[name] = np.maximum(maxima.get(name, peak), peak)
    finally:
        path.unlink(missing_ok=True)
    return maxima


def unsigned_weights() -> bool:
    """Whether this CPU's int8 graph stores its weights as uint8 (no VNNI: see ``weight_codes``)."""
    from kb.adapters.bert_encoder import full_range_activations

    return not full_range_activations()


def _write_graphs(folder: Path, out: Path, spec: EncoderSpec, unsigned: bool) -> None:
    """The word table, the float32 graph, then the int8 graph calibrated on the float32 one."""
    import onnx

    from kb.adapters.model_prepare import PASSAGE_PREFIX, QUERY_PREFIX, VERIFY_TEXTS

    weights = read_weights(folder)
    weights["embeddings.word_embeddings.weight"].astype("<f4").tofile(out / WORD_TABLE)
    onnx.save_model(build_graph(weights, spec, float_linear), str(out / FLOAT_MODEL))
    texts = [QUERY_PREFIX + t for t in VERIFY_TEXTS] + [PASSAGE_PREFIX + t for t in VERIFY_TEXTS]
    maxima = calibrate(weights, spec, out, folder / "tokenizer.json", texts)
    int8 = mixed_int8_linear(maxima, unsigned=unsigned)
    onnx.save_model(build_graph(weights, spec, int8), str(out / INT8_MODEL))


def _write_tokenizer_files(folder: Path, out: Path) -> bool:
    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    files = lean_tokenizer_files(tokenizer)
    if files is None:
        return False
    for name, content in files.items():
        if isinstance(content, bytes):
            (out / name).write_bytes(content)
        else:
            (out / name).write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return True


def _agreement(folder: Path, out: Path) -> tuple[float, float]:
    """Minimum cosines of the float32 and int8 graphs to float32 ``BertEncoder``.

    Over the evaluation questions' sample (``AGREEMENT_TEXTS``), not the calibration texts.
    """
    from kb.adapters.bert_encoder import BertEncoder
    from kb.adapters.onnx_embedder import OnnxEncoder

    want = BertEncoder(folder).encode(AGREEMENT_TEXTS)
    lows = []
    for quantize in ("none", "int8"):
        got = OnnxEncoder(folder, export_dir=out, quantize=quantize).encode(AGREEMENT_TEXTS)
        lows.append(float(np.sum(got.astype(np.float64) * want, axis=1).min()))
    return lows[0], lows[1]


def _reusable(folder: Path) -> OnnxExport | None:
    try:
        record = json.loads((folder / EXPORT_DIR / EXPORT_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("export_version") != EXPORT_VERSION:
        return None
    if record.get("int8_weights", "int8") != _weight_type(unsigned_weights()):
        return None  # written on a CPU of the other kind
    return OnnxExport(
        folder / EXPORT_DIR,
        float(record["float_min_cosine"]),
        float(record["int8_min_cosine"]),
        bool(record["lean_tokenizer"]),
        reused=True,
    )


def export_onnx(folder: Path, *, force: bool = False) -> OnnxExport:
    """Write ``<folder>/onnx/`` (see the module) and check it against the torch runner.

    Raises ``UnsupportedModel`` for a folder ``BertEncoder`` cannot run and ValueError when a
    graph disagrees with it (float32 below ``MIN_FLOAT_COSINE``, int8 below
    ``MIN_INT8_COSINE``); ``<folder>/onnx`` is then left as it was.
    """
    folder = Path(folder)
    existing = None if force else _reusable(folder)
    if existing is not None:
        return existing
    spec = read_spec(folder)
    unsigned = unsigned_weights()
    tmp = Path(tempfile.mkdtemp(prefix=f".{EXPORT_DIR}.tmp-", dir=folder))
    try:
        _write_graphs(folder, tmp, spec, unsigned)
        lean = _write_tokenizer_files(folder, tmp)
        float_cos, int8_cos = _agreement(folder, tmp)
        if float_cos < MIN_FLOAT_COSINE or int8_cos < MIN_INT8_COSINE:
            raise ValueError(
                f"{folder}: the ONNX export disagrees with the torch runner: min cosine "
                f"float32 {float_cos:.5f} (need {MIN_FLOAT_COSINE}), int8 {int8_cos:.5f} "
                f"(need {MIN_INT8_COSINE})"
            )
        record = {
            "export_version": EXPORT_VERSION,
            "opset": OPSET,
            "onnxruntime": _version("onnxruntime"),
            "onnx": _version("onnx"),
            "float_min_cosine": float_cos,
            "int8_min_cosine": int8_cos,
            "int8_weights": _weight_type(unsigned),
            "reference": "kb.adapters.bert_encoder.BertEncoder in float32",
            "lean_tokenizer": lean,
            "sha256": {
                name: file_sha256(tmp / name) for name in (INT8_MODEL, FLOAT_MODEL, WORD_TABLE)
            },
        }
        (tmp / EXPORT_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        _install(tmp, folder / EXPORT_DIR)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return OnnxExport(folder / EXPORT_DIR, float_cos, int8_cos, lean, reused=False)


def _weight_type(unsigned: bool) -> str:
    return "uint8" if unsigned else "int8"


def _version(package: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(package)


def _install(tmp: Path, target: Path) -> None:
    """Replace ``target`` by ``tmp`` (a sibling), keeping the old one until the move is done."""
    tmp.chmod(0o755)
    for path in tmp.iterdir():
        path.chmod(0o644)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        os.replace(target, old)
    try:
        os.replace(tmp, target)
    except OSError:
        if old is not None:
            os.replace(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

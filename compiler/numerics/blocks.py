"""ggml block formats: byte layouts and dequantization, byte-compatible with ggml.

Layouts (little-endian, as ggml writes them on every platform it runs on):

* ``q8_0`` — ``block_q8_0`` (ggml ``src/ggml-common.h``): 32 values in 34 bytes,
  fp16 ``d`` then ``int8 qs[32]``. value_i = qs_i * d.
* ``q4_0`` — ``block_q4_0``: 32 values in 18 bytes, fp16 ``d`` then ``uint8 qs[16]``:
  byte ``qs[j]`` holds value j in its low nibble and value j + 16 in its high nibble,
  each the code c (0..15) of value (c - 8) * d (``dequantize_row_q4_0``). Its fields are
  ``Q8Fields`` with ``q = c - 8`` (-8..7), so its dequantization is q8_0's.
* ``q5_0`` — ``block_q5_0``: 32 values in 22 bytes, fp16 ``d``, ``uint8 qh[4]``, ``uint8 qs[16]``.
  Each 5-bit code c has its low four bits in ``qs`` as q4_0's nibbles and its top bit in bit j of
  ``qh`` read as a little-endian uint32, for value j; value (c - 16) * d (``dequantize_row_q5_0``).
  Its fields are ``Q8Fields`` with ``q = c - 16`` (-16..15), as q4_0's.
* ``q4_1`` — ``block_q4_1``: 32 values in 20 bytes, fp16 ``d``, fp16 ``m``, ``uint8 qs[16]`` (q4_0's
  nibbles); value c * d + m (``dequantize_row_q4_1``). ``Q41Fields``.
* ``q5_1`` — ``block_q5_1``: 32 values in 24 bytes, fp16 ``d``, fp16 ``m``, then q5_0's ``qh[4]``
  and ``qs[16]``; value c * d + m (``dequantize_row_q5_1``). ``Q51Fields``.
* ``mxfp4`` — ``block_mxfp4``: 32 values in 17 bytes (no padding), ``uint8 e`` (an E8M0 exponent)
  then ``uint8 qs[16]`` (q4_0's nibbles); code c (0..15) means ``kvalues_mxfp4[c] * 2^(e - 128)``
  (``dequantize_row_mxfp4``: the kvalue, twice c's e2m1 value, times ``ggml_e8m0_to_fp32_half(e)``,
  half the E8M0 scale 2^(e - 127)). Its fields are ``Q8Fields`` with ``d = 2^(e - 128)`` (subnormal
  for e < 2) and ``q`` = the kvalue (-12..12; codes 0 and 8 are both 0, packed as code 0).
* ``q8_1`` — ``block_q8_1``: 32 values in 36 bytes, fp16 ``d``, fp16 ``s``, ``int8
  qs[32]``. value_i = qs_i * d; ``s`` is a stored sum used by dot kernels for the
  q4_K min term (what it sums depends on the quantizer, see ``quantize.py``).
* ``q8_1_mmq`` — ``block_q8_1_mmq`` of ``src/ggml-cuda/mmq.cuh`` in its DS4 layout
  (the one MMQ uses for q4_K): 128 values in 144 bytes, ``half2 ds4[4]`` = (d_0, s_0,
  d_1, s_1, d_2, s_2, d_3, s_3), one (d, s) per 32 values, then ``int8 qs[128]``.
  Here blocks follow each other along K; llama.cpp additionally interleaves the
  blocks of different rows in memory, which is not part of the block format.
* ``q4_K`` — ``block_q4_K``: 256 values in 144 bytes, fp16 ``d``, fp16 ``dmin``,
  ``uint8 scales[12]`` (eight 6-bit scales and eight 6-bit mins, unpacked by
  ``get_scale_min_k4``), ``uint8 qs[128]``. For 64-value chunk c (0..3), byte
  ``qs[32c + l]`` holds value 64c + l in its low nibble (sub-block 2c) and value
  64c + 32 + l in its high nibble (sub-block 2c + 1). ggml-quants.c
  ``dequantize_row_q4_K``: ``d1 = d * sc; m1 = dmin * m; y = d1 * q - m1`` in float32.
* ``q5_K`` — ``block_q5_K``: 256 values in 176 bytes, fp16 ``d``, fp16 ``dmin``, ``uint8
  scales[12]`` (packed as q4_K's), ``uint8 qh[32]``, ``uint8 qs[128]``. Each 5-bit code's low
  four bits lie in ``qs`` as q4_K's nibbles; its top bit is bit i of ``qh[l]`` for value 32i + l.
  ``dequantize_row_q5_K``: q4_K's ``y = d1 * q - m1`` with the 5-bit q.
* ``q6_K`` — ``block_q6_K``: 256 values in 210 bytes, ``uint8 ql[128]``, ``uint8 qh[64]``,
  ``int8 scales[16]`` (one per 16 values), fp16 ``d`` last; ``y = d * sc * (code - 32)``.
* ``q2_K`` — ``block_q2_K``: 256 values in 84 bytes, ``uint8 scales[16]`` (per 16 values: the 4-bit
  scale in the low nibble, the 4-bit min in the high one), ``uint8 qs[64]``, fp16 ``d``, fp16 ``dmin``.
  For 128-value half h, byte ``qs[32h + l]`` holds value 128h + 32i + l in bits 2i..2i+1 (i = 0..3).
  ``dequantize_row_q2_K``: ``dl = d * (sc & 0xF); ml = dmin * (sc >> 4); y = dl * q - ml``.
* ``q3_K`` — ``block_q3_K``: 256 values in 110 bytes, ``uint8 hmask[32]``, ``uint8 qs[64]``, ``uint8
  scales[12]``, fp16 ``d``. Each 3-bit code has its low two bits in ``qs`` as q2_K's and its top bit in
  bit i of ``hmask[l]`` for value 32i + l; sixteen 6-bit scale codes (one per 16 values) lie in
  ``scales``: the low nibbles of codes j and j + 8 in byte j (j < 8), the top two bits of codes k, k + 4,
  k + 8, k + 12 in bits 0-1, 2-3, 4-5, 6-7 of byte 8 + k. ``dequantize_row_q3_K``: ``dl = d * (sc -
  32); y = dl * (low - (top ? 0 : 4))``.
* ``iq4_nl`` — ``block_iq4_nl``: 32 values in 18 bytes, q4_0's layout (fp16 ``d``, ``uint8 qs[16]``,
  value j in the low nibble of byte j, j + 16 in the high one), but code c means ``kvalues_iq4nl[c]``
  (``IQ4NL_KVALUES``, a non-linear int8 grid from -127 to 113): ``y = d * kvalue``
  (``dequantize_row_iq4_nl``). Its fields are ``Q8Fields`` with ``q`` = the kvalue.
* ``iq4_xs`` — ``block_iq4_xs``: 256 values in 136 bytes, fp16 ``d``, ``uint16 scales_h``, ``uint8
  scales_l[4]``, ``uint8 qs[128]``. Sub-block ib (32 values) has the 6-bit scale code ls with its low
  four bits in nibble ib % 2 of ``scales_l[ib / 2]`` and its top two in bits 2ib..2ib+1 of ``scales_h``
  (little-endian), and its codes in ``qs[16ib .. 16ib + 15]`` as one iq4_nl block's.
  ``dequantize_row_iq4_xs``: ``dl = d * (ls - 32); y = dl * kvalue``. ``IQ4XSFields``.

Every product in these dequantizations is exact in float32 (fp16 * 6-bit * 4-bit
needs 21 significand bits, q5_K's fp16 * 6-bit * 5-bit 22, q6_K's fp16 * int8 * 6-bit 23, q2_K's fp16 *
4-bit * 2-bit 17, q3_K's fp16 * 6-bit * 3-bit 20, iq4_nl's fp16 * int8 18, iq4_xs's fp16 * 6-bit * int8 24,
q4_1's and q5_1's fp16 * 5-bit at most 16, mxfp4's kvalue * power of two 4), so only the final subtraction of
q4_K, q5_K and q2_K, and the final addition of q4_1's and q5_1's m, rounds, once, whether or not a compiler
fuses it into an FMA. mxfp4's product overflows to ±Inf where ggml's does: kvalue * 2^(e - 128) >= 2^128
(e >= 253 with |kvalue| >= 8, e = 254 with |kvalue| >= 4, e = 255 with |kvalue| >= 2).

Each format's byte positions are stated once, in ``BLOCK_LAYOUTS``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from compiler.format_table import IQ4NL_KVALUES, MXFP4_KVALUES, Q8_GROUP
from compiler.numerics.arrays import as_array
from compiler.numerics.f32ops import fp16_bits, fp16_value
from compiler.numerics.formats import FormatInfo, block_format

Q4K_SUBBLOCKS = 8
"""Sub-blocks of 32 values in a q4_K super-block, each with a 6-bit scale and min."""

Q6K_SUBBLOCKS = 16
"""Sub-blocks of 16 values in a q6_K super-block, each with an int8 scale."""

Q2K_SUBBLOCKS = 16
"""Sub-blocks of 16 values in a q2_K super-block, each with a 4-bit scale and a 4-bit min."""

Q3K_SUBBLOCKS = 16
"""Sub-blocks of 16 values in a q3_K super-block, each with a 6-bit scale."""

IQ4XS_SUBBLOCKS = 8
"""Sub-blocks of 32 values in an iq4_xs super-block, each with a 6-bit scale."""


@dataclass(frozen=True)
class BlockField:
    """One named field of a ggml block: ``count`` values of ``kind`` from byte ``byte`` on.

    ``kind`` is ``"f16"`` (little-endian fp16, read as its float32 value), ``"u8"`` or ``"i8"``.
    """

    name: str
    byte: int
    count: int
    kind: str

    @property
    def nbytes(self) -> int:
        return self.count * (2 if self.kind == "f16" else 1)


def _layout(*fields: tuple[str, int, int, str]) -> tuple[BlockField, ...]:
    return tuple(BlockField(*f) for f in fields)


BLOCK_LAYOUTS: dict[str, tuple[BlockField, ...]] = {
    "q4_K": _layout(("d", 0, 1, "f16"), ("dmin", 2, 1, "f16"), ("scales", 4, 12, "u8"), ("qs", 16, 128, "u8")),
    "q4_0": _layout(("d", 0, 1, "f16"), ("qs", 2, 16, "u8")),
    "q4_1": _layout(("d", 0, 1, "f16"), ("m", 2, 1, "f16"), ("qs", 4, 16, "u8")),
    "q5_0": _layout(("d", 0, 1, "f16"), ("qh", 2, 4, "u8"), ("qs", 6, 16, "u8")),
    "q5_1": _layout(("d", 0, 1, "f16"), ("m", 2, 1, "f16"), ("qh", 4, 4, "u8"), ("qs", 8, 16, "u8")),
    "mxfp4": _layout(("e", 0, 1, "u8"), ("qs", 1, 16, "u8")),
    "q8_0": _layout(("d", 0, 1, "f16"), ("qs", 2, 32, "i8")),
    "q8_1": _layout(("d", 0, 1, "f16"), ("s", 2, 1, "f16"), ("qs", 4, 32, "i8")),
    "q8_1_mmq": _layout(("ds4", 0, 8, "f16"), ("qs", 16, 128, "i8")),
    "q6_K": _layout(("ql", 0, 128, "u8"), ("qh", 128, 64, "u8"), ("scales", 192, 16, "i8"), ("d", 208, 1, "f16")),
    "q5_K": _layout(("d", 0, 1, "f16"), ("dmin", 2, 1, "f16"), ("scales", 4, 12, "u8"), ("qh", 16, 32, "u8"),
                    ("qs", 48, 128, "u8")),
    "q2_K": _layout(("scales", 0, 16, "u8"), ("qs", 16, 64, "u8"), ("d", 80, 1, "f16"), ("dmin", 82, 1, "f16")),
    "q3_K": _layout(("hmask", 0, 32, "u8"), ("qs", 32, 64, "u8"), ("scales", 96, 12, "u8"), ("d", 108, 1, "f16")),
    "iq4_nl": _layout(("d", 0, 1, "f16"), ("qs", 2, 16, "u8")),
    "iq4_xs": _layout(("d", 0, 1, "f16"), ("scales_h", 2, 2, "u8"), ("scales_l", 4, 4, "u8"), ("qs", 8, 128, "u8")),
}
"""The byte layout of each block format, field by field in memory order, named as ggml names the
fields (ggml-common.h; mmq.cuh for block_q8_1_mmq's ``half2 ds4[4]``; iq4_xs's ``uint16 scales_h`` as its
two little-endian bytes): the one statement of where
each field lies, read by :func:`block_fields`, written by :func:`pack_blocks` and by the benchmarks'
random blocks (:func:`fp16_fields`). The lowering's own reading of the same layouts
(``PartSpec`` in dialects/qgpu/block_parts.py) is checked against this one by tests."""


def block_layout(fmt: str) -> tuple[BlockField, ...]:
    return BLOCK_LAYOUTS[block_format(fmt).name]


def fp16_fields(fmt: str) -> tuple[BlockField, ...]:
    """The fp16 fields of ``fmt``'s blocks (d, dmin, m, s, ds4): where a random byte pattern can be a
    NaN or Inf; every other byte of these formats may take any value. mxfp4 has none (its exponent byte
    decodes to a finite power of two for all 256 values, though e >= 253 makes the larger codes' values
    overflow to ±Inf, see the module docstring)."""
    return tuple(f for f in block_layout(fmt) if f.kind == "f16")


@dataclass(frozen=True)
class Q8Fields:
    """Decoded fields of q8_0 / q8_1 / q8_1_mmq blocks, of q4_0 and q5_0 (``q`` = their code - 8,
    code - 16), of mxfp4 (``q`` = the code's kvalue, ``d`` = 2^(e - 128): a power of two, not fp16) and of
    iq4_nl (``q`` = the code's kvalue, -127..113).

    ``d`` (and ``s``) have one entry per 32 values: shape ``(..., nblocks)`` for
    q8_0/q8_1 and ``(..., nblocks, 4)`` for q8_1_mmq. They hold the float32 values of
    the stored fp16 numbers when read, and are rounded to fp16 (nearest even) when
    packed. ``q`` is ``(..., nblocks, block_values)`` int8. ``s`` is None for q8_0.
    """

    d: NDArray[np.float32]
    q: NDArray[np.int8]
    s: NDArray[np.float32] | None = None


@dataclass(frozen=True)
class Q4KFields:
    """Decoded fields of q4_K super-blocks.

    ``d``, ``dmin``: ``(..., nblocks)`` float32 values of the fp16 fields.
    ``scales``, ``mins``: ``(..., nblocks, 8)`` uint8 6-bit codes, sub-block order.
    ``q``: ``(..., nblocks, 256)`` uint8 nibbles 0..15 in value order.
    """

    d: NDArray[np.float32]
    dmin: NDArray[np.float32]
    scales: NDArray[np.uint8]
    mins: NDArray[np.uint8]
    q: NDArray[np.uint8]


@dataclass(frozen=True)
class Q6KFields:
    """Decoded fields of q6_K super-blocks.

    ``d``: ``(..., nblocks)`` float32 value of the fp16 super-block scale.
    ``scales``: ``(..., nblocks, 16)`` int8, the scale of values 16i..16i+15.
    ``q``: ``(..., nblocks, 256)`` int8 in value order, the 6-bit code - 32 (-32..31).
    """

    d: NDArray[np.float32]
    scales: NDArray[np.int8]
    q: NDArray[np.int8]


@dataclass(frozen=True)
class Q5KFields:
    """Decoded fields of q5_K super-blocks: q4_K's, with 5-bit codes.

    ``d``, ``dmin``: ``(..., nblocks)`` float32 values of the fp16 fields.
    ``scales``, ``mins``: ``(..., nblocks, 8)`` uint8 6-bit codes, sub-block order.
    ``q``: ``(..., nblocks, 256)`` uint8 codes 0..31 in value order.
    """

    d: NDArray[np.float32]
    dmin: NDArray[np.float32]
    scales: NDArray[np.uint8]
    mins: NDArray[np.uint8]
    q: NDArray[np.uint8]


@dataclass(frozen=True)
class Q2KFields:
    """Decoded fields of q2_K super-blocks: value = d * scale * q - dmin * min, per 16 values.

    ``d``, ``dmin``: ``(..., nblocks)`` float32 values of the fp16 fields.
    ``scales``, ``mins``: ``(..., nblocks, 16)`` uint8 4-bit codes (the low and high nibbles of
    ``scales[16]``), the scale and min of values 16i..16i+15.
    ``q``: ``(..., nblocks, 256)`` uint8 codes 0..3 in value order.
    """

    d: NDArray[np.float32]
    dmin: NDArray[np.float32]
    scales: NDArray[np.uint8]
    mins: NDArray[np.uint8]
    q: NDArray[np.uint8]


@dataclass(frozen=True)
class Q3KFields:
    """Decoded fields of q3_K super-blocks: value = d * scale * q, per 16 values.

    ``d``: ``(..., nblocks)`` float32 value of the fp16 super-block scale.
    ``scales``: ``(..., nblocks, 16)`` int8, the 6-bit scale code - 32 (-32..31) of values 16i..16i+15.
    ``q``: ``(..., nblocks, 256)`` int8 in value order, the 3-bit code - 4 (-4..3): the two bits of
    ``qs`` less 4 where the ``hmask`` bit is clear.
    """

    d: NDArray[np.float32]
    scales: NDArray[np.int8]
    q: NDArray[np.int8]


@dataclass(frozen=True)
class IQ4XSFields:
    """Decoded fields of iq4_xs super-blocks: value = d * scale * q, per 32 values.

    ``d``: ``(..., nblocks)`` float32 value of the fp16 super-block scale.
    ``scales``: ``(..., nblocks, 8)`` int8, the 6-bit scale code - 32 (-32..31) of values 32i..32i+31.
    ``q``: ``(..., nblocks, 256)`` int8 in value order, each code's ``kvalues_iq4nl`` entry (-127..113).
    """

    d: NDArray[np.float32]
    scales: NDArray[np.int8]
    q: NDArray[np.int8]


@dataclass(frozen=True)
class Q41Fields:
    """Decoded fields of q4_1 blocks: value = d * q + m.

    ``d``, ``m``: ``(..., nblocks)`` float32 values of the fp16 fields.
    ``q``: ``(..., nblocks, 32)`` uint8 codes 0..15 in value order.
    """

    d: NDArray[np.float32]
    m: NDArray[np.float32]
    q: NDArray[np.uint8]


@dataclass(frozen=True)
class Q51Fields:
    """Decoded fields of q5_1 blocks: q4_1's, with 5-bit codes.

    ``d``, ``m``: ``(..., nblocks)`` float32 values of the fp16 fields.
    ``q``: ``(..., nblocks, 32)`` uint8 codes 0..31 in value order.
    """

    d: NDArray[np.float32]
    m: NDArray[np.float32]
    q: NDArray[np.uint8]


BlockFields = Q8Fields | Q4KFields | Q5KFields | Q6KFields | Q2KFields | Q3KFields | IQ4XSFields | Q41Fields | Q51Fields


def _as_blocks(info: FormatInfo, raw: ArrayLike) -> NDArray[np.uint8]:
    arr = as_array(raw, f"{info.name} data")
    if arr.dtype != np.uint8:
        raise ValueError(f"{info.name} data must be a uint8 byte array, got dtype {arr.dtype}")
    assert info.block_bytes is not None
    if arr.ndim == 0 or arr.shape[-1] % info.block_bytes:
        last = arr.shape[-1] if arr.ndim else "a scalar"
        raise ValueError(
            f"{info.name} data must have a last axis of nblocks * {info.block_bytes} bytes, got {last}"
        )
    nblocks = arr.shape[-1] // info.block_bytes
    return arr.reshape(arr.shape[:-1] + (nblocks, info.block_bytes))


def _read_fp16(byte_pairs: NDArray[np.uint8]) -> NDArray[np.float32]:
    """float32 values of little-endian fp16 numbers in the last axis (pairs of bytes)."""
    lo = byte_pairs[..., 0::2].astype(np.uint16)
    hi = byte_pairs[..., 1::2].astype(np.uint16)
    return fp16_value(lo | (hi << 8))


def _write_fp16(values: NDArray[np.float32]) -> NDArray[np.uint8]:
    """Little-endian fp16 bytes of ``values``: last axis n -> 2n bytes."""
    bits = fp16_bits(values)
    out = np.empty(bits.shape[:-1] + (2 * bits.shape[-1],), dtype=np.uint8)
    out[..., 0::2] = bits & 0xFF
    out[..., 1::2] = bits >> 8
    return out


def _read_fields(fmt: str, blocks: NDArray[np.uint8]) -> dict[str, NDArray]:
    """Each field of ``(..., nblocks, block_bytes)`` as ``(..., nblocks, count)``: fp16 fields as
    float32 values, byte fields as uint8 / int8."""
    out: dict[str, NDArray] = {}
    for f in block_layout(fmt):
        raw = blocks[..., f.byte:f.byte + f.nbytes]
        out[f.name] = _read_fp16(raw) if f.kind == "f16" else raw.view(np.int8) if f.kind == "i8" else raw
    return out


def _write_fields(fmt: str, values: dict[str, ArrayLike]) -> NDArray[np.uint8]:
    """Bytes ``(..., nblocks * block_bytes)`` of fields ``(..., [nblocks,] count)`` (fp16 fields rounded
    to nearest even); leading axes broadcast against each other."""
    info = block_format(fmt)
    parts = []
    for f in block_layout(fmt):
        v = np.asarray(values[f.name])
        part = _write_fp16(v.astype(np.float32)) if f.kind == "f16" else v.astype(np.int8 if f.kind == "i8" else np.uint8).view(np.uint8)
        if part.shape[-1] != f.nbytes:
            raise ValueError(f"{info.name} field {f.name} needs {f.count} values per block, got {v.shape[-1]}")
        parts.append(part)
    lead = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
    blocks = np.concatenate([np.broadcast_to(p, lead + p.shape[-1:]) for p in parts], axis=-1)
    assert blocks.shape[-1] == info.block_bytes
    if blocks.ndim < 2:  # one block, no block axis: its bytes as they are
        return np.ascontiguousarray(blocks)
    # the byte count spelled out, not -1: numpy cannot infer it when a leading axis is 0 (no rows)
    return np.ascontiguousarray(blocks.reshape(blocks.shape[:-2] + (blocks.shape[-2] * blocks.shape[-1],)))


def scale_min_k4(scales: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """ggml-quants.c ``get_scale_min_k4`` for all j: 12 packed bytes -> (sc[8], m[8]).

    j < 4: sc = q[j] & 63, m = q[j+4] & 63.
    j >= 4: sc = (q[j+4] & 0xF) | ((q[j-4] >> 6) << 4), m = (q[j+4] >> 4) | ((q[j] >> 6) << 4).
    """
    q = scales
    low = q[..., 0:4]
    mid = q[..., 4:8]
    high = q[..., 8:12]
    sc = np.concatenate([low & 63, (high & 0xF) | ((low >> 6) << 4)], axis=-1)
    m = np.concatenate([mid & 63, (high >> 4) | ((mid >> 6) << 4)], axis=-1)
    return sc.astype(np.uint8), m.astype(np.uint8)


def pack_scale_min_k4(sc: NDArray[np.uint8], m: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`scale_min_k4`, as ``quantize_row_q4_K_ref`` (and ``_q5_K_ref``) pack 6-bit codes."""
    sc = sc.astype(np.uint8)
    m = m.astype(np.uint8)
    if (sc > 63).any() or (m > 63).any():
        raise ValueError("q4_K and q5_K scales and mins are 6-bit codes (0..63)")
    low = sc[..., 0:4] | ((sc[..., 4:8] >> 4) << 6)
    mid = m[..., 0:4] | ((m[..., 4:8] >> 4) << 6)
    high = (sc[..., 4:8] & 0xF) | ((m[..., 4:8] & 0xF) << 4)
    return np.concatenate([low, mid, high], axis=-1).astype(np.uint8)


def _k_nibbles(qs: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The 256 low nibbles of q4_K / q5_K ``qs[128]`` in value order: for 64-value chunk c, byte
    ``qs[32c + l]`` holds value 64c + l in its low nibble and value 64c + 32 + l in its high one."""
    chunks = qs.reshape(qs.shape[:-1] + (4, 1, 32))
    nibbles = np.concatenate([chunks & 0xF, chunks >> 4], axis=-2)  # (..., chunk, half, 32)
    return nibbles.reshape(qs.shape[:-1] + (256,)).astype(np.uint8)


def _k_qs(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_k_nibbles`: ``qs[128]`` of the low four bits of 256 codes."""
    chunks = (codes & 0xF).reshape(codes.shape[:-1] + (4, 2, 32))
    return (chunks[..., 0, :] | (chunks[..., 1, :] << 4)).reshape(codes.shape[:-1] + (128,)).astype(np.uint8)


def _q5_K_top_bits(qh: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The top (fifth) bit of each of q5_K's 256 codes in value order: bit i of ``qh[l]`` for value
    32i + l (``dequantize_row_q5_K``'s masks ``u1``, ``u2`` = 1, 2 shifted left 2 per 64 values)."""
    bits = (qh[..., None, :] >> np.arange(8, dtype=np.uint8)[:, None]) & 1  # (..., i, l)
    return bits.reshape(qh.shape[:-1] + (256,)).astype(np.uint8)


def _q5_K_qh(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_q5_K_top_bits`: ``qh[32]`` of 256 codes, as ``quantize_row_q5_K_ref`` sets it."""
    top = ((codes >> 4) & 1).reshape(codes.shape[:-1] + (8, 32)).astype(np.uint8)
    return np.bitwise_or.reduce(top << np.arange(8, dtype=np.uint8)[:, None], axis=-2).astype(np.uint8)


def _legacy_nibbles(qs: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The 32 low nibbles of q4_0 / q4_1 / q5_0 / q5_1 ``qs[16]`` in value order: byte ``qs[j]`` holds
    value j in its low nibble and value j + 16 in its high one."""
    return np.concatenate([qs & 0xF, qs >> 4], axis=-1).astype(np.uint8)


def _legacy_qs(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_legacy_nibbles`: ``qs[16]`` of the low four bits of 32 codes."""
    low = codes & 0xF
    return (low[..., :16] | (low[..., 16:] << 4)).astype(np.uint8)


def _q5_top_bits(qh: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The top (fifth) bit of each of q5_0's / q5_1's 32 codes in value order: bit j of ``qh[4]`` read as
    a little-endian uint32 (``dequantize_row_q5_0``'s ``(qh >> j) << 4 & 0x10``), bit j % 8 of byte j / 8."""
    bits = (qh[..., :, None] >> np.arange(8, dtype=np.uint8)) & 1  # (..., byte, bit)
    return bits.reshape(qh.shape[:-1] + (32,)).astype(np.uint8)


def _q5_qh(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_q5_top_bits`: ``qh[4]`` of 32 codes, as ``quantize_row_q5_0_ref`` sets it."""
    top = ((codes >> 4) & 1).reshape(codes.shape[:-1] + (4, 8)).astype(np.uint8)
    return np.bitwise_or.reduce(top << np.arange(8, dtype=np.uint8), axis=-1).astype(np.uint8)


MXFP4_KVALUE_ARRAY: NDArray[np.int8] = np.array(MXFP4_KVALUES, dtype=np.int8)
"""``MXFP4_KVALUES`` (compiler/format_table.py, ggml's ``kvalues_mxfp4``) as int8, indexed by code."""
MXFP4_KVALUE_ARRAY.flags.writeable = False

_MXFP4_CODE_OF = {v: MXFP4_KVALUES.index(v) for v in MXFP4_KVALUES}
"""kvalue -> its code; 0 -> code 0, the one ggml's quantizer picks (``best_index_mxfp4`` keeps the
first of equal errors, and code 8 comes after code 0)."""


def e8m0_half(e: ArrayLike) -> NDArray[np.float32]:
    """ggml-impl.h ``ggml_e8m0_to_fp32_half`` (``GGML_E8M0_TO_FP32_HALF``) of uint8 exponents: the float32
    2^(e - 128), half the E8M0 value 2^(e - 127). Built from its bits as ggml does: ``0x00200000 << e``
    for e < 2 (the subnormals 2^-128, 2^-127), else ``(e - 1) << 23``. No NaN: e = 255 is 2^127."""
    codes = as_array(e, "E8M0 exponents")
    if codes.dtype != np.uint8:
        raise ValueError(f"E8M0 exponents must be uint8, got dtype {codes.dtype}")
    wide = codes.astype(np.uint32)
    bits = np.where(wide < 2, np.uint32(0x00200000) << wide, (wide - np.uint32(1)) << np.uint32(23))
    return bits.astype(np.uint32).view(np.float32)


def _e8m0_half_exponent(name: str, d: ArrayLike) -> NDArray[np.uint8]:
    """The exponent byte e of each ``d = 2^(e - 128)`` (inverse of :func:`e8m0_half`); ``ValueError`` naming
    the first d that is not such a power of two (e in 0..255: 2^-128 .. 2^127)."""
    d32 = np.asarray(d, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        mantissa, exponent = np.frexp(d32)  # d = mantissa * 2^exponent, mantissa in [0.5, 1)
    e = exponent.astype(np.int64) - 1 + 128
    ok = (mantissa == 0.5) & (e >= 0) & (e <= 255)
    if not ok.all():
        bad = float(d32[~ok].flat[0]) if d32.ndim else float(d32)
        raise ValueError(f"{name} d must be a power of two 2^(e - 128) with e in 0..255 (2^-128 .. 2^127), got {bad!r}")
    return e.astype(np.uint8)


def _mxfp4_codes(name: str, q: ArrayLike) -> NDArray[np.uint8]:
    """The code of each kvalue in ``q`` (``ValueError`` for any other value), 0 as code 0."""
    values = np.asarray(q).astype(np.int16)
    table = np.full(25, -1, dtype=np.int16)  # kvalue + 12 -> code
    for value, code in _MXFP4_CODE_OF.items():
        table[value + 12] = code
    inside = (values >= -12) & (values <= 12)
    codes = np.where(inside, table[np.clip(values, -12, 12) + 12], -1)
    if values.shape[-1:] != (Q8_GROUP,) or (codes < 0).any():
        kv = ", ".join(str(v) for v in sorted(_MXFP4_CODE_OF))
        raise ValueError(f"{name} quants are 32 kvalues per block, each one of {kv}")
    return codes.astype(np.uint8)


def _q6_K_codes(ql: NDArray[np.uint8], qh: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The 256 6-bit codes of q6_K blocks in value order, as ``dequantize_row_q6_K`` assembles them.

    For half h (values 128h..128h+127) and l < 32, with L = ql[64h..], H = qh[32h..]: value
    128h + 32i + l (i = 0..3) has low bits ``L[l] & 0xF``, ``L[l + 32] & 0xF``, ``L[l] >> 4``,
    ``L[l + 32] >> 4`` and high bits ``(H[l] >> 2i) & 3``.
    """
    lead = ql.shape[:-1]
    low = ql.reshape(lead + (2, 2, 32))  # (half, byte group of 32, l)
    nibbles = np.stack([low & 0xF, low >> 4], axis=-3)  # (half, nibble, group, l): i = 2 * nibble + group
    high = qh.reshape(lead + (2, 1, 32))
    two_bits = np.stack([(high >> (2 * i)) & 3 for i in range(4)], axis=-3)[..., 0, :]  # (half, i, l)
    codes = nibbles.reshape(lead + (2, 4, 32)) | (two_bits << 4)
    return codes.reshape(lead + (256,)).astype(np.uint8)


def _q6_K_bytes(codes: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Inverse of :func:`_q6_K_codes`: (ql[128], qh[64]) of 256 codes, as ``quantize_row_q6_K_ref`` packs."""
    lead = codes.shape[:-1]
    c = codes.reshape(lead + (2, 4, 32))  # (half, i, l)
    low = c & 0xF
    ql = np.concatenate([low[..., 0, :] | (low[..., 2, :] << 4), low[..., 1, :] | (low[..., 3, :] << 4)], axis=-1)
    top = c >> 4
    qh = top[..., 0, :] | (top[..., 1, :] << 2) | (top[..., 2, :] << 4) | (top[..., 3, :] << 6)
    return ql.reshape(lead + (128,)).astype(np.uint8), qh.reshape(lead + (64,)).astype(np.uint8)


def _crumbs(qs: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The 256 two-bit fields of q2_K / q3_K ``qs[64]`` in value order: for 128-value half h, bits 2i..2i+1
    of byte ``qs[32h + l]`` hold value 128h + 32i + l (``dequantize_row_q2_K``'s ``shift``, 2 per 32)."""
    halves = qs.reshape(qs.shape[:-1] + (2, 1, 32))
    fields = (halves >> (2 * np.arange(4, dtype=np.uint8))[:, None]) & 3  # (..., h, i, l)
    return fields.reshape(qs.shape[:-1] + (256,)).astype(np.uint8)


def _crumb_qs(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_crumbs`: ``qs[64]`` of the low two bits of 256 codes, as ``quantize_row_q2_K_ref``
    and ``quantize_row_q3_K_ref`` pack them."""
    parts = (codes & 3).reshape(codes.shape[:-1] + (2, 4, 32)).astype(np.uint8)
    qs = parts[..., 0, :] | (parts[..., 1, :] << 2) | (parts[..., 2, :] << 4) | (parts[..., 3, :] << 6)
    return qs.reshape(codes.shape[:-1] + (64,)).astype(np.uint8)


def _q3_K_top_bits(hmask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The top (third) bit of each of q3_K's 256 codes in value order: bit i of ``hmask[l]`` for value
    32i + l (``dequantize_row_q3_K``'s mask ``m``, shifted left once per 32 values)."""
    bits = (hmask[..., None, :] >> np.arange(8, dtype=np.uint8)[:, None]) & 1  # (..., i, l)
    return bits.reshape(hmask.shape[:-1] + (256,)).astype(np.uint8)


def _q3_K_hmask(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_q3_K_top_bits`: ``hmask[32]`` of 256 3-bit codes, as ``quantize_row_q3_K_ref`` sets it."""
    top = ((codes >> 2) & 1).reshape(codes.shape[:-1] + (8, 32)).astype(np.uint8)
    return np.bitwise_or.reduce(top << np.arange(8, dtype=np.uint8)[:, None], axis=-2).astype(np.uint8)


def q3_K_scale_codes(scales: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The sixteen 6-bit scale codes of q3_K ``scales[12]``, as ``dequantize_row_q3_K``'s ``kmask1`` /
    ``kmask2`` shuffle unpacks them: code j has the low nibble of byte j (j < 8) or the high nibble of
    byte j - 8, and bits 2(j / 4)..2(j / 4) + 1 of byte 8 + j % 4 on top."""
    low = np.concatenate([scales[..., 0:8] & 0xF, scales[..., 0:8] >> 4], axis=-1)  # (..., 16)
    tops = scales[..., 8:12]
    high = np.concatenate([(tops >> (2 * g)) & 3 for g in range(4)], axis=-1)  # j = 4g + k: byte 8 + k, bits 2g
    return (low | (high << 4)).astype(np.uint8)


def _q3_K_scale_bytes(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`q3_K_scale_codes`: ``scales[12]`` of sixteen 6-bit codes, as
    ``quantize_row_q3_K_ref`` packs them."""
    low = codes & 0xF
    nibbles = low[..., 0:8] | (low[..., 8:16] << 4)
    top = (codes >> 4).reshape(codes.shape[:-1] + (4, 4))  # (..., g, k): code 4g + k
    tops = top[..., 0, :] | (top[..., 1, :] << 2) | (top[..., 2, :] << 4) | (top[..., 3, :] << 6)
    return np.concatenate([nibbles, tops], axis=-1).astype(np.uint8)


IQ4NL_KVALUE_ARRAY: NDArray[np.int8] = np.array(IQ4NL_KVALUES, dtype=np.int8)
"""``IQ4NL_KVALUES`` (compiler/format_table.py, ggml's ``kvalues_iq4nl``) as int8, indexed by code."""
IQ4NL_KVALUE_ARRAY.flags.writeable = False


def _iq4nl_codes(name: str, q: ArrayLike, count: int) -> NDArray[np.uint8]:
    """The code of each kvalue in ``q`` (``count`` per block; ``ValueError`` for any other value). The 16
    kvalues are distinct, so unlike mxfp4's every code comes back as it was read."""
    values = np.asarray(q).astype(np.int16)
    table = np.full(256, -1, dtype=np.int16)  # kvalue + 128 -> code
    table[IQ4NL_KVALUE_ARRAY.astype(np.int16) + 128] = np.arange(16)
    inside = (values >= -128) & (values <= 127)
    codes = np.where(inside, table[np.clip(values, -128, 127) + 128], -1)
    if values.shape[-1:] != (count,) or (codes < 0).any():
        kv = ", ".join(map(str, IQ4NL_KVALUES))
        raise ValueError(f"{name} quants are {count} kvalues per block, each one of {kv}")
    return codes.astype(np.uint8)


def iq4_xs_scale_codes(scales_h: NDArray[np.uint8], scales_l: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The eight 6-bit scale codes ls of iq4_xs blocks, as ``dequantize_row_iq4_xs`` reads them:
    ``((scales_l[ib/2] >> 4*(ib%2)) & 0xf) | (((scales_h >> 2*ib) & 3) << 4)``."""
    low = np.stack([scales_l & 0xF, scales_l >> 4], axis=-1).reshape(scales_l.shape[:-1] + (IQ4XS_SUBBLOCKS,))
    word = scales_h[..., 0].astype(np.uint16) | (scales_h[..., 1].astype(np.uint16) << 8)
    high = (word[..., None] >> (2 * np.arange(IQ4XS_SUBBLOCKS, dtype=np.uint16))) & 3
    return (low | (high << 4)).astype(np.uint8)


def _iq4_xs_scale_bytes(codes: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Inverse of :func:`iq4_xs_scale_codes`: (``scales_h`` as two little-endian bytes, ``scales_l[4]``),
    as ``quantize_row_iq4_nl_impl`` packs them."""
    low = (codes & 0xF).reshape(codes.shape[:-1] + (4, 2))
    scales_l = low[..., 0] | (low[..., 1] << 4)
    high = (codes >> 4).astype(np.uint16) << (2 * np.arange(IQ4XS_SUBBLOCKS, dtype=np.uint16))
    word = np.bitwise_or.reduce(high, axis=-1)
    scales_h = np.stack([word & 0xFF, word >> 8], axis=-1)
    return scales_h.astype(np.uint8), scales_l.astype(np.uint8)


def _iq4_nibbles(qs: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The codes of iq4_nl ``qs[16]`` or iq4_xs ``qs[128]`` in value order: each 16 bytes are one 32-value
    block with q4_0's nibbles (value j low in byte j, j + 16 high)."""
    per_block = qs.reshape(qs.shape[:-1] + (qs.shape[-1] // 16, 16))
    return _legacy_nibbles(per_block).reshape(qs.shape[:-1] + (2 * qs.shape[-1],))


def _iq4_qs(codes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Inverse of :func:`_iq4_nibbles` (``quantize_row_iq4_nl_impl``'s ``q4[16*i + j] = L[32*i + j] |
    L[32*i + 16 + j] << 4``)."""
    per_block = codes.reshape(codes.shape[:-1] + (codes.shape[-1] // Q8_GROUP, Q8_GROUP))
    return _legacy_qs(per_block).reshape(codes.shape[:-1] + (codes.shape[-1] // 2,))


LEGACY_FORMATS = ("q4_0", "q4_1", "q5_0", "q5_1")
"""ggml's legacy 32-value blocks with 4- and 5-bit codes: one nibble layout (:func:`_legacy_nibbles`),
the fifth bits in ``qh`` (:func:`_q5_top_bits`); the ``_1`` ones add ``m``, the ``_0`` ones centre the
code (``code - 2^(bits - 1)``)."""


def block_fields(fmt: str, raw: ArrayLike) -> BlockFields:
    """Split ``(..., nblocks * block_bytes)`` bytes into the format's named fields."""
    info = block_format(fmt)
    f = _read_fields(info.name, _as_blocks(info, raw))
    if info.name in ("q4_K", "q5_K"):
        sc, m = scale_min_k4(f["scales"])
        q = _k_nibbles(f["qs"])
        if info.name == "q4_K":
            return Q4KFields(d=f["d"][..., 0], dmin=f["dmin"][..., 0], scales=sc, mins=m, q=q)
        return Q5KFields(d=f["d"][..., 0], dmin=f["dmin"][..., 0], scales=sc, mins=m,
                         q=q | (_q5_K_top_bits(f["qh"]) << 4))
    if info.name == "q6_K":
        codes = _q6_K_codes(f["ql"], f["qh"])
        return Q6KFields(d=f["d"][..., 0], scales=f["scales"], q=(codes.astype(np.int8) - 32).astype(np.int8))
    if info.name == "q2_K":
        return Q2KFields(d=f["d"][..., 0], dmin=f["dmin"][..., 0], scales=f["scales"] & 0xF, mins=f["scales"] >> 4,
                         q=_crumbs(f["qs"]))
    if info.name == "q3_K":
        codes = _crumbs(f["qs"]) | (_q3_K_top_bits(f["hmask"]) << 2)
        scales = (q3_K_scale_codes(f["scales"]).astype(np.int8) - 32).astype(np.int8)
        return Q3KFields(d=f["d"][..., 0], scales=scales, q=(codes.astype(np.int8) - 4).astype(np.int8))
    if info.name in LEGACY_FORMATS:
        codes = _legacy_nibbles(f["qs"])
        if "qh" in f:
            codes |= _q5_top_bits(f["qh"]) << 4
        if info.name == "q4_1":
            return Q41Fields(d=f["d"][..., 0], m=f["m"][..., 0], q=codes)
        if info.name == "q5_1":
            return Q51Fields(d=f["d"][..., 0], m=f["m"][..., 0], q=codes)
        centre = 1 << (info.bits - 1)  # q4_0: code - 8, q5_0: code - 16
        return Q8Fields(d=f["d"][..., 0], q=(codes.astype(np.int8) - centre).astype(np.int8))
    if info.name == "mxfp4":
        codes = _legacy_nibbles(f["qs"])
        return Q8Fields(d=e8m0_half(f["e"][..., 0]), q=MXFP4_KVALUE_ARRAY[codes])
    if info.name == "iq4_nl":
        return Q8Fields(d=f["d"][..., 0], q=IQ4NL_KVALUE_ARRAY[_iq4_nibbles(f["qs"])])
    if info.name == "iq4_xs":
        scales = (iq4_xs_scale_codes(f["scales_h"], f["scales_l"]).astype(np.int8) - 32).astype(np.int8)
        return IQ4XSFields(d=f["d"][..., 0], scales=scales, q=IQ4NL_KVALUE_ARRAY[_iq4_nibbles(f["qs"])])
    if info.name == "q8_0":
        return Q8Fields(d=f["d"][..., 0], q=f["qs"])
    if info.name == "q8_1":
        return Q8Fields(d=f["d"][..., 0], s=f["s"][..., 0], q=f["qs"])
    ds = f["ds4"]  # q8_1_mmq: d0 s0 d1 s1 d2 s2 d3 s3
    return Q8Fields(d=ds[..., 0::2], s=ds[..., 1::2], q=f["qs"])


def _expect(info: FormatInfo, fields: BlockFields, kind: type) -> None:
    if not isinstance(fields, kind):
        raise ValueError(f"{info.name} blocks are packed from {kind.__name__}")


def _pack_legacy(info: FormatInfo, fields: BlockFields) -> NDArray[np.uint8]:
    """:func:`pack_blocks` of q4_0 / q5_0 (``Q8Fields``, centred codes) and q4_1 / q5_1 (``Q41Fields`` /
    ``Q51Fields``, codes 0..2^bits - 1)."""
    name, top = info.name, (1 << info.bits) - 1
    kind = {"q4_1": Q41Fields, "q5_1": Q51Fields}.get(name, Q8Fields)
    _expect(info, fields, kind)
    assert isinstance(fields, Q8Fields | Q41Fields | Q51Fields)
    centre = 0 if isinstance(fields, Q41Fields | Q51Fields) else 1 << (info.bits - 1)
    codes = np.asarray(fields.q).astype(np.int16) + centre
    if codes.shape[-1] != info.block_values or (codes < 0).any() or (codes > top).any():
        if centre == 0:
            raise ValueError(f"{name} quants are 32 codes 0..{top} per block")
        raise ValueError(f"{name} quants are 32 values of {-centre}..{top - centre} per block (code - {centre})")
    codes = codes.astype(np.uint8)
    values: dict[str, ArrayLike] = {"d": np.asarray(fields.d, np.float32)[..., None], "qs": _legacy_qs(codes)}
    if isinstance(fields, Q41Fields | Q51Fields):
        values["m"] = np.asarray(fields.m, np.float32)[..., None]
    if info.bits == 5:
        values["qh"] = _q5_qh(codes)
    return _write_fields(name, values)


def _pack_q2_K(info: FormatInfo, fields: BlockFields) -> NDArray[np.uint8]:
    """:func:`pack_blocks` of q2_K (``Q2KFields``: 4-bit scales and mins, codes 0..3)."""
    _expect(info, fields, Q2KFields)
    assert isinstance(fields, Q2KFields)
    q = np.asarray(fields.q)
    if q.shape[-1] != 256 or (q < 0).any() or (q > 3).any():
        raise ValueError("q2_K quants are 256 2-bit codes (0..3) per block")
    sc, m = np.asarray(fields.scales), np.asarray(fields.mins)
    if sc.shape[-1] != 16 or m.shape[-1] != 16 or not ((0 <= sc) & (sc <= 15) & (0 <= m) & (m <= 15)).all():
        raise ValueError("q2_K scales and mins are 16 4-bit codes (0..15) per block")
    return _write_fields(info.name, {"scales": sc.astype(np.uint8) | (m.astype(np.uint8) << 4),
                                     "qs": _crumb_qs(q.astype(np.uint8)),
                                     "d": np.asarray(fields.d, np.float32)[..., None],
                                     "dmin": np.asarray(fields.dmin, np.float32)[..., None]})


def _pack_q3_K(info: FormatInfo, fields: BlockFields) -> NDArray[np.uint8]:
    """:func:`pack_blocks` of q3_K (``Q3KFields``: scales code - 32, quants code - 4)."""
    _expect(info, fields, Q3KFields)
    assert isinstance(fields, Q3KFields)
    q = np.asarray(fields.q).astype(np.int16)
    if q.shape[-1] != 256 or (q < -4).any() or (q > 3).any():
        raise ValueError("q3_K quants are 256 values of -4..3 per block (code - 4)")
    sc = np.asarray(fields.scales).astype(np.int16)
    if sc.shape[-1] != 16 or (sc < -32).any() or (sc > 31).any():
        raise ValueError("q3_K scales are 16 values of -32..31 per block (6-bit code - 32)")
    codes = (q + 4).astype(np.uint8)
    return _write_fields(info.name, {"hmask": _q3_K_hmask(codes), "qs": _crumb_qs(codes),
                                     "scales": _q3_K_scale_bytes((sc + 32).astype(np.uint8)),
                                     "d": np.asarray(fields.d, np.float32)[..., None]})


def _pack_iq4_xs(info: FormatInfo, fields: BlockFields) -> NDArray[np.uint8]:
    """:func:`pack_blocks` of iq4_xs (``IQ4XSFields``: scales code - 32, quants kvalues)."""
    _expect(info, fields, IQ4XSFields)
    assert isinstance(fields, IQ4XSFields)
    sc = np.asarray(fields.scales).astype(np.int16)
    if sc.shape[-1] != IQ4XS_SUBBLOCKS or (sc < -32).any() or (sc > 31).any():
        raise ValueError("iq4_xs scales are 8 values of -32..31 per block (6-bit code - 32)")
    scales_h, scales_l = _iq4_xs_scale_bytes((sc + 32).astype(np.uint8))
    return _write_fields(info.name, {"d": np.asarray(fields.d, np.float32)[..., None], "scales_h": scales_h,
                                     "scales_l": scales_l, "qs": _iq4_qs(_iq4nl_codes(info.name, fields.q, 256))})


def pack_blocks(fmt: str, fields: BlockFields) -> NDArray[np.uint8]:
    """Bytes ``(..., nblocks * block_bytes)`` of ``fields``; inverse of :func:`block_fields`.

    Float fields are rounded to fp16 (nearest even), as ggml stores them; mxfp4's ``d`` must be a power
    of two 2^(e - 128) and its ``q`` kvalues, iq4_nl's and iq4_xs's ``q`` entries of ``kvalues_iq4nl``
    (``ValueError`` otherwise).
    """
    info = block_format(fmt)
    name = info.name
    values: dict[str, ArrayLike]
    if name in ("q4_K", "q5_K"):
        kind, bits = (Q4KFields, 4) if name == "q4_K" else (Q5KFields, 5)
        _expect(info, fields, kind)
        assert isinstance(fields, Q4KFields | Q5KFields)
        q = np.asarray(fields.q)
        if q.shape[-1] != 256 or (q < 0).any() or (q >= 1 << bits).any():
            raise ValueError(f"{name} quants are 256 {bits}-bit codes (0..{(1 << bits) - 1}) per block")
        q = q.astype(np.uint8)
        values = {"d": np.asarray(fields.d, np.float32)[..., None], "dmin": np.asarray(fields.dmin, np.float32)[..., None],
                  "scales": pack_scale_min_k4(fields.scales, fields.mins), "qs": _k_qs(q)}
        if name == "q5_K":
            values["qh"] = _q5_K_qh(q)
        return _write_fields(name, values)
    if name == "q6_K":
        _expect(info, fields, Q6KFields)
        assert isinstance(fields, Q6KFields)
        q = np.asarray(fields.q).astype(np.int16)
        if q.shape[-1] != 256 or (q < -32).any() or (q > 31).any():
            raise ValueError("q6_K quants are 256 values of -32..31 per block (code - 32)")
        ql, qh = _q6_K_bytes((q + 32).astype(np.uint8))
        return _write_fields(name, {"ql": ql, "qh": qh, "scales": np.asarray(fields.scales).astype(np.int8),
                                    "d": np.asarray(fields.d, np.float32)[..., None]})
    if name == "q2_K":
        return _pack_q2_K(info, fields)
    if name == "q3_K":
        return _pack_q3_K(info, fields)
    if name == "iq4_xs":
        return _pack_iq4_xs(info, fields)
    if name in LEGACY_FORMATS:
        return _pack_legacy(info, fields)
    _expect(info, fields, Q8Fields)
    assert isinstance(fields, Q8Fields)
    if name == "mxfp4":
        e = _e8m0_half_exponent(name, fields.d)
        return _write_fields(name, {"e": e[..., None], "qs": _legacy_qs(_mxfp4_codes(name, fields.q))})
    if name == "iq4_nl":
        codes = _iq4nl_codes(name, fields.q, Q8_GROUP)
        return _write_fields(name, {"d": np.asarray(fields.d, np.float32)[..., None], "qs": _legacy_qs(codes)})
    qs = fields.q.astype(np.int8)
    d = np.asarray(fields.d, dtype=np.float32)
    if name == "q8_0":
        return _write_fields(name, {"d": d[..., None], "qs": qs})
    if fields.s is None:
        raise ValueError(f"{name} blocks need the sums s")
    ds = np.stack([d, np.asarray(fields.s, dtype=np.float32)], axis=-1)
    if name == "q8_1_mmq":
        return _write_fields(name, {"ds4": ds.reshape(ds.shape[:-2] + (8,)), "qs": qs})
    return _write_fields(name, {"d": ds[..., 0:1], "s": ds[..., 1:2], "qs": qs})


def dequantize(fmt: str, raw: ArrayLike) -> NDArray[np.float32]:
    """float32 values ``(..., nblocks * block_values)`` of ``(..., nblocks * block_bytes)`` bytes.

    Computed as ggml's ``dequantize_row_*`` in float32 (see the module docstring). No blocks, or a
    leading axis of 0, give an empty result of the matching shape.
    """
    info = block_format(fmt)
    fields = block_fields(fmt, raw)
    if isinstance(fields, Q4KFields | Q5KFields):
        d1 = fields.d[..., None] * fields.scales.astype(np.float32)  # (..., nb, 8), exact
        m1 = fields.dmin[..., None] * fields.mins.astype(np.float32)  # exact
        q = fields.q.reshape(fields.q.shape[:-1] + (Q4K_SUBBLOCKS, 32)).astype(np.float32)
        values = d1[..., None] * q - m1[..., None]
    elif isinstance(fields, Q6KFields):
        d16 = fields.d[..., None] * fields.scales.astype(np.float32)  # (..., nb, 16), exact
        q = fields.q.reshape(fields.q.shape[:-1] + (Q6K_SUBBLOCKS, 16)).astype(np.float32)
        values = d16[..., None] * q  # exact: 11 + 7 + 5 significant bits
    elif isinstance(fields, Q2KFields):
        dl = fields.d[..., None] * fields.scales.astype(np.float32)  # (..., nb, 16), exact
        ml = fields.dmin[..., None] * fields.mins.astype(np.float32)  # exact
        q = fields.q.reshape(fields.q.shape[:-1] + (Q2K_SUBBLOCKS, 16)).astype(np.float32)
        values = dl[..., None] * q - ml[..., None]
    elif isinstance(fields, Q3KFields):
        dl = fields.d[..., None] * fields.scales.astype(np.float32)  # (..., nb, 16), exact
        q = fields.q.reshape(fields.q.shape[:-1] + (Q3K_SUBBLOCKS, 16)).astype(np.float32)
        values = dl[..., None] * q  # exact: 11 + 6 + 3 significant bits
    elif isinstance(fields, IQ4XSFields):
        dl = fields.d[..., None] * fields.scales.astype(np.float32)  # (..., nb, 8), exact
        q = fields.q.reshape(fields.q.shape[:-1] + (IQ4XS_SUBBLOCKS, 32)).astype(np.float32)
        values = dl[..., None] * q  # exact: 11 + 6 + 7 significant bits
    elif isinstance(fields, Q41Fields | Q51Fields):
        values = fields.q.astype(np.float32) * fields.d[..., None] + fields.m[..., None]  # x0*d exact, + m rounds
    else:
        d = fields.d if info.name != "q8_1_mmq" else np.repeat(fields.d, Q8_GROUP, axis=-1)
        if info.name != "q8_1_mmq":
            d = d[..., None]
        with np.errstate(over="ignore"):  # mxfp4 with e >= 253: ±Inf, as in ggml's float32 product
            values = fields.q.astype(np.float32) * d
    lead = values.shape[: fields.q.ndim - 2]
    count = fields.q.shape[-2] * fields.q.shape[-1]  # not -1: numpy cannot infer it when a leading axis is 0
    return np.ascontiguousarray(values, dtype=np.float32).reshape(lead + (count,))

"""ggml block layouts and dequantization against blocks built byte by byte.

The expected values are computed here from the formulas of ggml-quants.c
(``dequantize_row_q4_K``, ``dequantize_row_q5_K``, ``dequantize_row_q6_K``, ``dequantize_row_q2_K``,
``dequantize_row_q3_K``, ``dequantize_row_q8_0``,
``dequantize_row_q4_1``, ``dequantize_row_q5_0``, ``dequantize_row_q5_1``, ``dequantize_row_mxfp4``,
``dequantize_row_iq4_nl``, ``dequantize_row_iq4_xs``) with
plain Python loops; every product is exact, and so is q4_1's and q5_1's float64 sum x0*d + m (fp16 operands
span at most 41 bits), so float32(exact float64 result) is the one correct rounding (for mxfp4 also where
it overflows float32: ±Inf, as ggml's float32 product).
"""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from compiler.format_table import FORMATS
from compiler.numerics import (
    IQ4XSFields,
    Q2KFields,
    Q3KFields,
    Q4KFields,
    Q5KFields,
    Q6KFields,
    Q8Fields,
    Q41Fields,
    Q51Fields,
    block_fields,
    decode,
    dequantize,
    e8m0_half,
    pack_blocks,
)
from compiler.numerics.blocks import BLOCK_LAYOUTS, BlockFields, fp16_fields


def _fp16(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint16).view(np.float16)[0])


def _le16(bits: int) -> list[int]:
    return [bits & 0xFF, bits >> 8]


# The 12 scale bytes and, worked out by hand with get_scale_min_k4, the codes they hold.
SCALE_BYTES = [0x41, 0x82, 0xC3, 0x04, 0x05, 0x46, 0x87, 0xC8, 0x9A, 0xBC, 0x0D, 0xFE]
#   j < 4:  sc = q[j] & 63             m = q[j+4] & 63
#   j >= 4: sc = (q[j+4] & 0xF) | (q[j-4] >> 6) << 4   m = (q[j+4] >> 4) | (q[j] >> 6) << 4
#   j=4: sc = 0xA | 1<<4 = 26   m = 0x9 | 0<<4 = 9
#   j=5: sc = 0xC | 2<<4 = 44   m = 0xB | 1<<4 = 27
#   j=6: sc = 0xD | 3<<4 = 61   m = 0x0 | 2<<4 = 32
#   j=7: sc = 0xE | 0<<4 = 14   m = 0xF | 3<<4 = 63
SCALES = [1, 2, 3, 4, 26, 44, 61, 14]
MINS = [5, 6, 7, 8, 9, 27, 32, 63]


def _q4_K_block(d_bits: int, dmin_bits: int, qs: list[int]) -> list[int]:
    return _le16(d_bits) + _le16(dmin_bits) + SCALE_BYTES + qs


def _q4_K_expected(d_bits: int, dmin_bits: int, qs: list[int]) -> list[float]:
    d, dmin = _fp16(d_bits), _fp16(dmin_bits)
    out = [0.0] * 256
    for chunk in range(4):
        for lane in range(32):
            byte = qs[32 * chunk + lane]
            low_j, high_j = 2 * chunk, 2 * chunk + 1
            out[64 * chunk + lane] = d * SCALES[low_j] * (byte & 0xF) - dmin * MINS[low_j]
            out[64 * chunk + 32 + lane] = d * SCALES[high_j] * (byte >> 4) - dmin * MINS[high_j]
    return out


def test_q4_K_dequantize_hand_built_blocks() -> None:
    qs_a = [(7 * i + 3) & 0xFF for i in range(128)]
    qs_b = [(i * 37) & 0xFF for i in range(128)]
    blocks = [(0x3800, 0x3400, qs_a), (0x1E3B, 0x2C51, qs_b), (0x0001, 0x8000 | 0x3C00, qs_a)]
    raw = np.array(sum((_q4_K_block(*b) for b in blocks), []), dtype=np.uint8)
    assert raw.size == 3 * 144
    want = np.array(sum((_q4_K_expected(*b) for b in blocks), []), dtype=np.float64).astype(np.float32)
    got = dequantize("q4_K", raw)
    assert got.dtype == np.float32 and got.shape == (768,)
    np.testing.assert_array_equal(got, want)


def test_q4_K_fields_of_hand_built_block() -> None:
    qs = [(7 * i + 3) & 0xFF for i in range(128)]
    raw = np.array(_q4_K_block(0x1E3B, 0x2C51, qs), dtype=np.uint8)
    fields = block_fields("q4_K", raw)
    assert isinstance(fields, Q4KFields)
    assert fields.scales.tolist() == [SCALES] and fields.mins.tolist() == [MINS]
    assert fields.d.tolist() == [_fp16(0x1E3B)] and fields.dmin.tolist() == [_fp16(0x2C51)]
    assert fields.q[0, 0] == qs[0] & 0xF and fields.q[0, 32] == qs[0] >> 4
    assert fields.q[0, 64 + 5] == qs[32 + 5] & 0xF and fields.q[0, 255] == qs[127] >> 4
    # packing the fields back gives the very same bytes
    np.testing.assert_array_equal(pack_blocks("q4_K", fields), raw)


def test_q8_0_dequantize_hand_built() -> None:
    qs = [127, -128, -1, 0, 1, 64, -64, 3] * 4
    d_bits = [0x2E66, 0xB400, 0x0000]  # a value with a long mantissa, -0.25, zero
    raw = np.array(sum((_le16(b) + [q & 0xFF for q in qs] for b in d_bits), []), dtype=np.uint8)
    want = np.array([q * _fp16(b) for b in d_bits for q in qs], dtype=np.float32)
    np.testing.assert_array_equal(dequantize("q8_0", raw), want)


def test_q8_1_dequantize_ignores_s_and_exposes_it() -> None:
    qs = [(5 * i - 80) for i in range(32)]
    raw = np.array(_le16(0x3555) + _le16(0xC900) + [q & 0xFF for q in qs], dtype=np.uint8)
    np.testing.assert_array_equal(dequantize("q8_1", raw), np.array([q * _fp16(0x3555) for q in qs], dtype=np.float32))
    fields = block_fields("q8_1", raw)
    assert isinstance(fields, Q8Fields) and fields.s is not None
    assert fields.s.tolist() == [_fp16(0xC900)] == [-10.0]
    assert fields.q.tolist() == [qs]


def test_q8_1_mmq_ds4_layout() -> None:
    d_bits = [0x3C00, 0x3800, 0xBC00, 0x2E66]
    s_bits = [0x4000, 0x0000, 0xC200, 0x3C00]
    qs = [((i * 11) % 255) - 127 for i in range(128)]
    header = sum((_le16(d) + _le16(s) for d, s in zip(d_bits, s_bits, strict=True)), [])
    raw = np.array(header + [q & 0xFF for q in qs], dtype=np.uint8)
    assert raw.size == 144
    want = np.array([qs[i] * _fp16(d_bits[i // 32]) for i in range(128)], dtype=np.float32)
    np.testing.assert_array_equal(dequantize("q8_1_mmq", raw), want)
    fields = block_fields("q8_1_mmq", raw)
    assert fields.d.tolist() == [[_fp16(b) for b in d_bits]]
    assert fields.s is not None and fields.s.tolist() == [[_fp16(b) for b in s_bits]]
    np.testing.assert_array_equal(pack_blocks("q8_1_mmq", fields), raw)


def test_leading_axes_are_kept() -> None:
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, (2, 3, 4 * 34), dtype=np.uint8)
    raw[..., 1::34] &= 0x3F  # keep d finite (exponent below 0x1F)
    out = dequantize("q8_0", raw)
    assert out.shape == (2, 3, 128)
    np.testing.assert_array_equal(out[1, 2], dequantize("q8_0", raw[1, 2]))


def _q5_K_block(d_bits: int, dmin_bits: int, codes: list[int]) -> list[int]:
    """A block_q5_K written byte by byte from ggml-common.h (d, dmin, scales[12], qh[32], qs[128]) and
    ``quantize_row_q5_K_ref``'s packing loop (masks m1, m2 = 1, 2, shifted left 2 per 64 values)."""
    qh, ql = [0] * 32, [0] * 128
    m1, m2 = 1, 2
    for n in range(0, 256, 64):
        for j in range(32):
            l1, l2 = codes[n + j], codes[n + j + 32]
            if l1 > 15:
                l1 -= 16
                qh[j] |= m1
            if l2 > 15:
                l2 -= 16
                qh[j] |= m2
            ql[n // 2 + j] = l1 | (l2 << 4)
        m1, m2 = m1 << 2, m2 << 2
    return _le16(d_bits) + _le16(dmin_bits) + SCALE_BYTES + qh + ql


def _q5_K_expected(d_bits: int, dmin_bits: int, codes: list[int]) -> list[float]:
    """``dequantize_row_q5_K``'s loop over the bytes of :func:`_q5_K_block`: per 64 values, d1 * ((ql[l] &
    0xF) + (qh[l] & u1 ? 16 : 0)) - m1, then the high nibbles with u2, u1 and u2 shifted left 2."""
    raw = _q5_K_block(d_bits, dmin_bits, codes)
    qh, ql = raw[16:48], raw[48:176]
    d, dmin = _fp16(d_bits), _fp16(dmin_bits)
    out: list[float] = []
    u1, u2 = 1, 2
    for chunk in range(4):
        lo, hi = 2 * chunk, 2 * chunk + 1
        q = ql[32 * chunk : 32 * chunk + 32]
        out += [d * SCALES[lo] * ((q[l] & 0xF) + (16 if qh[l] & u1 else 0)) - dmin * MINS[lo] for l in range(32)]
        out += [d * SCALES[hi] * ((q[l] >> 4) + (16 if qh[l] & u2 else 0)) - dmin * MINS[hi] for l in range(32)]
        u1, u2 = u1 << 2, u2 << 2
    return out


def test_q5_K_dequantize_hand_built_blocks() -> None:
    codes_a = [(7 * i + 3) % 32 for i in range(256)]
    codes_b = [(i * 37) % 32 for i in range(256)]
    codes_c = [31 if i % 3 else 16 for i in range(256)]  # every top bit set: qh all ones
    blocks = [(0x3800, 0x3400, codes_a), (0x1E3B, 0x2C51, codes_b), (0x0001, 0x8000 | 0x3C00, codes_c)]
    raw = np.array(sum((_q5_K_block(*b) for b in blocks), []), dtype=np.uint8)
    assert raw.size == 3 * 176 and raw[2 * 176 + 16 : 2 * 176 + 48].tolist() == [0xFF] * 32
    want = np.array(sum((_q5_K_expected(*b) for b in blocks), []), dtype=np.float64).astype(np.float32)
    # the C loop's value order is the codes' order: the expected values decode codes_a/b/c back
    assert _q5_K_expected(0x3C00, 0, codes_a)[37] == SCALES[1] * codes_a[37]
    got = dequantize("q5_K", raw)
    assert got.dtype == np.float32 and got.shape == (768,)
    np.testing.assert_array_equal(got, want)
    fields = block_fields("q5_K", raw)
    assert isinstance(fields, Q5KFields)
    assert fields.q.tolist() == [codes_a, codes_b, codes_c]
    assert fields.scales.tolist() == [SCALES] * 3 and fields.mins.tolist() == [MINS] * 3
    assert fields.d.tolist() == [_fp16(b[0]) for b in blocks] and fields.dmin.tolist() == [_fp16(b[1]) for b in blocks]
    np.testing.assert_array_equal(pack_blocks("q5_K", fields), raw)


def _q6_K_block(d_bits: int, scales: list[int], codes: list[int]) -> list[int]:
    """A block_q6_K written byte by byte from ggml-common.h and ``quantize_row_q6_K_ref``'s packing loop."""
    ql, qh = [0] * 128, [0] * 64
    for half in range(2):
        for l in range(32):
            c = [codes[128 * half + 32 * i + l] for i in range(4)]
            ql[64 * half + l] = (c[0] & 0xF) | ((c[2] & 0xF) << 4)
            ql[64 * half + 32 + l] = (c[1] & 0xF) | ((c[3] & 0xF) << 4)
            qh[32 * half + l] = (c[0] >> 4) | ((c[1] >> 4) << 2) | ((c[2] >> 4) << 4) | ((c[3] >> 4) << 6)
    return ql + qh + [s & 0xFF for s in scales] + _le16(d_bits)


def _q6_K_expected(d_bits: int, scales: list[int], codes: list[int]) -> list[float]:
    """``dequantize_row_q6_K``'s loop: y[l + 32i] = d * sc[is + 2i] * q_i, is = l / 16, per 128-value half."""
    d, out = _fp16(d_bits), [0.0] * 256
    for half in range(2):
        for l in range(32):
            for i in range(4):
                value = 128 * half + 32 * i + l
                out[value] = d * scales[8 * half + l // 16 + 2 * i] * (codes[value] - 32)
    return out


def test_q6_K_dequantize_hand_built_blocks() -> None:
    scales_a = [-128, 127, -1, 0, 1, 64, -64, 3, 17, -17, 100, -100, 5, 6, 7, 8]
    scales_b = [(37 * i) % 256 - 128 for i in range(16)]
    codes_a = [(7 * i + 3) % 64 for i in range(256)]
    codes_b = [(i * 37) % 64 for i in range(256)]
    blocks = [(0x3800, scales_a, codes_a), (0x1E3B, scales_b, codes_b), (0x0001, scales_a, codes_b)]
    raw = np.array(sum((_q6_K_block(*b) for b in blocks), []), dtype=np.uint8)
    assert raw.size == 3 * 210
    want = np.array(sum((_q6_K_expected(*b) for b in blocks), []), dtype=np.float64).astype(np.float32)
    np.testing.assert_array_equal(dequantize("q6_K", raw), want)
    fields = block_fields("q6_K", raw)
    assert isinstance(fields, Q6KFields)
    assert fields.scales.tolist() == [scales_a, scales_b, scales_a]
    assert fields.q[1].tolist() == [c - 32 for c in codes_b] and fields.d.tolist()[0] == _fp16(0x3800)
    np.testing.assert_array_equal(pack_blocks("q6_K", fields), raw)


def _q2_K_block(scale_bytes: list[int], codes: list[int], d_bits: int, dmin_bits: int) -> list[int]:
    """A block_q2_K written byte by byte from ggml-common.h (scales[16], qs[64], d, dmin) and
    ``quantize_row_q2_K_ref``'s packing loop."""
    qs = [0] * 64
    for j in range(0, 256, 128):
        for l in range(32):
            c = [codes[j + l + 32 * i] for i in range(4)]
            qs[j // 4 + l] = c[0] | (c[1] << 2) | (c[2] << 4) | (c[3] << 6)
    return scale_bytes + qs + _le16(d_bits) + _le16(dmin_bits)


def _q2_K_expected(raw: list[int]) -> list[float]:
    """``dequantize_row_q2_K``'s loop over the bytes of a block: per 128 values and shift 0, 2, 4, 6, two
    scale bytes, 16 values each from ``q[l]`` and ``q[l + 16]``."""
    scales, q, d, dmin = raw[:16], raw[16:80], _fp16(raw[80] | raw[81] << 8), _fp16(raw[82] | raw[83] << 8)
    out: list[float] = []
    is_ = 0
    for n in range(2):
        for shift in range(0, 8, 2):
            for half in range(2):
                sc = scales[is_]
                is_ += 1
                dl, ml = d * (sc & 0xF), dmin * (sc >> 4)
                out += [dl * ((q[32 * n + 16 * half + l] >> shift) & 3) - ml for l in range(16)]
    return out


def test_q2_K_dequantize_hand_built_blocks() -> None:
    scales_a = [(i * 0x37 + 5) & 0xFF for i in range(16)]
    scales_b = [0xF0, 0x0F, 0xFF, 0x00] * 4
    codes_a = [(7 * i + 3) % 4 for i in range(256)]
    codes_b = [(i * i) % 4 for i in range(256)]
    blocks = [(scales_a, codes_a, 0x3800, 0x3400), (scales_b, codes_b, 0x1E3B, 0x2C51),
              (scales_a, codes_b, 0x0001, 0x8000 | 0x3C00)]
    raw = sum((_q2_K_block(*b) for b in blocks), [])
    want = np.array(sum((_q2_K_expected(raw[84 * i : 84 * i + 84]) for i in range(3)), []), dtype=np.float64)
    raw_array = np.array(raw, dtype=np.uint8)
    np.testing.assert_array_equal(dequantize("q2_K", raw_array), want.astype(np.float32))
    fields = block_fields("q2_K", raw_array)
    assert isinstance(fields, Q2KFields)
    assert fields.q.tolist() == [codes_a, codes_b, codes_b]
    assert fields.scales[0].tolist() == [b & 0xF for b in scales_a]
    assert fields.mins[1].tolist() == [b >> 4 for b in scales_b]
    assert fields.d.tolist()[1] == _fp16(0x1E3B) and fields.dmin.tolist()[2] == _fp16(0xBC00)
    np.testing.assert_array_equal(pack_blocks("q2_K", fields), raw_array)


def _q3_K_block(sc_codes: list[int], codes: list[int], d_bits: int) -> list[int]:
    """A block_q3_K written byte by byte from ggml-common.h (hmask[32], qs[64], scales[12], d) and
    ``quantize_row_q3_K_ref``'s packing loops (6-bit scale codes 0..63, 3-bit codes 0..7)."""
    scales = [0] * 12
    for j, code in enumerate(sc_codes):
        if j < 8:
            scales[j] = code & 0xF
        else:
            scales[j - 8] |= (code & 0xF) << 4
        scales[j % 4 + 8] |= (code >> 4) << (2 * (j // 4))
    hmask, low = [0] * 32, list(codes)
    m, hm = 0, 1
    for j in range(256):
        if low[j] > 3:
            hmask[m] |= hm
            low[j] -= 4
        m += 1
        if m == 32:
            m, hm = 0, hm << 1
    qs = [0] * 64
    for j in range(0, 256, 128):
        for l in range(32):
            qs[j // 4 + l] = low[j + l] | (low[j + l + 32] << 2) | (low[j + l + 64] << 4) | (low[j + l + 96] << 6)
    return hmask + qs + scales + _le16(d_bits)


def _q3_K_expected(raw: list[int]) -> list[float]:
    """``dequantize_row_q3_K``'s loop: the kmask1 / kmask2 shuffle of the 12 scale bytes as four uint32
    words, then per 128 values and shift 0, 2, 4, 6 two scales of 16 values, ``hm`` bit m shifted left per 32."""
    hmask, q, sb, d = raw[:32], raw[32:96], raw[96:108], _fp16(raw[108] | raw[109] << 8)
    aux = list(struct.unpack("<3I", bytes(sb))) + [0]
    tmp, kmask1, kmask2 = aux[2], 0x03030303, 0x0F0F0F0F
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4)
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4)
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4)
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4)
    scales = list(struct.unpack("<16b", struct.pack("<4I", *aux)))
    out: list[float] = []
    is_, m = 0, 1
    for n in range(2):
        for shift in range(0, 8, 2):
            for half in range(2):
                dl = d * (scales[is_] - 32)
                is_ += 1
                base = 32 * n + 16 * half
                out += [dl * (((q[base + l] >> shift) & 3) - (0 if hmask[16 * half + l] & m else 4)) for l in range(16)]
            m <<= 1
    return out


def test_q3_K_dequantize_hand_built_blocks() -> None:
    sc_a = [(i * 37 + 11) % 64 for i in range(16)]
    sc_b = [0, 63, 32, 31, 33, 1, 62, 16, 48, 15, 47, 0, 63, 5, 58, 32]
    codes_a = [(7 * i + 3) % 8 for i in range(256)]
    codes_b = [(i * i + i // 3) % 8 for i in range(256)]
    blocks = [(sc_a, codes_a, 0x3800), (sc_b, codes_b, 0x1E3B), (sc_b, codes_a, 0x8001)]
    raw = sum((_q3_K_block(*b) for b in blocks), [])
    want = np.array(sum((_q3_K_expected(raw[110 * i : 110 * i + 110]) for i in range(3)), []), dtype=np.float64)
    raw_array = np.array(raw, dtype=np.uint8)
    np.testing.assert_array_equal(dequantize("q3_K", raw_array), want.astype(np.float32))
    fields = block_fields("q3_K", raw_array)
    assert isinstance(fields, Q3KFields)
    assert fields.q.tolist() == [[c - 4 for c in codes] for codes in (codes_a, codes_b, codes_a)]
    assert fields.scales.tolist() == [[c - 32 for c in sc] for sc in (sc_a, sc_b, sc_b)]
    assert fields.d.tolist() == [_fp16(0x3800), _fp16(0x1E3B), _fp16(0x8001)]
    np.testing.assert_array_equal(pack_blocks("q3_K", fields), raw_array)


def _legacy_block(fmt: str, d_bits: int, m_bits: int, codes: list[int]) -> list[int]:
    """A block_q4_1 / block_q5_0 / block_q5_1 written byte by byte from ggml-common.h (d, [m,] [qh[4],]
    qs[16]) and the packing loop of ``quantize_row_<fmt>_ref``: ``qs[j] = (xi0 & 0x0F) | (xi1 & 0x0F) << 4``,
    ``qh |= ((xi0 & 0x10) >> 4) << j`` and ``<< (j + 16)`` for xi1, stored by ``memcpy`` (little-endian)."""
    qs, qh = [0] * 16, 0
    for j in range(16):
        xi0, xi1 = codes[j], codes[j + 16]
        qs[j] = (xi0 & 0x0F) | ((xi1 & 0x0F) << 4)
        qh |= ((xi0 & 0x10) >> 4) << j
        qh |= ((xi1 & 0x10) >> 4) << (j + 16)
    head = _le16(d_bits) + (_le16(m_bits) if fmt != "q5_0" else [])
    return head + (list(qh.to_bytes(4, "little")) if fmt != "q4_1" else []) + qs


def _legacy_expected(fmt: str, raw: list[int]) -> list[float]:
    """The loop of ``dequantize_row_<fmt>`` over the bytes of :func:`_legacy_block`: ``xh_0 = ((qh >> j)
    << 4) & 0x10``, ``xh_1 = (qh >> (j + 12)) & 0x10``; q5_0 ``y = (x - 16) * d``, q4_1 / q5_1 ``y = x * d
    + m``."""
    d = _fp16(raw[0] | raw[1] << 8)
    m = _fp16(raw[2] | raw[3] << 8) if fmt != "q5_0" else 0.0
    qh = int.from_bytes(bytes(raw[-20:-16]), "little") if fmt != "q4_1" else 0
    qs = raw[-16:]
    out = [0.0] * 32
    for j in range(16):
        x0 = (qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10)
        x1 = (qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)
        if fmt == "q5_0":
            out[j], out[j + 16] = (x0 - 16) * d, (x1 - 16) * d
        else:
            out[j], out[j + 16] = x0 * d + m, x1 * d + m
    return out


@pytest.mark.parametrize("fmt", ["q4_1", "q5_0", "q5_1"])
def test_legacy_dequantize_hand_built_blocks(fmt: str) -> None:
    top = 15 if fmt == "q4_1" else 31
    codes_a = [(7 * i + 3) % (top + 1) for i in range(32)]
    codes_b = [(i * 37) % (top + 1) for i in range(32)]
    codes_c = [top if i % 3 else 16 % (top + 1) for i in range(32)]  # q5: every top bit set, qh all ones
    # d: 0.5, a long mantissa, the least subnormal, negative twice; m: 0.25, -10, -0.0, 1000, -0.0
    blocks = [(0x3800, 0x3400, codes_a), (0x1E3B, 0xC900, codes_b), (0x0001, 0x8000, codes_c),
              (0xB400, 0x63D0, codes_a), (0xB400, 0x8000, codes_b)]
    raw = [_legacy_block(fmt, *b) for b in blocks]
    size = FORMATS[fmt].block_bytes
    assert all(len(r) == size for r in raw)
    if fmt != "q4_1":
        assert raw[2][-20:-16] == [0xFF] * 4
    want = np.array(sum((_legacy_expected(fmt, r) for r in raw), []), dtype=np.float64).astype(np.float32)
    got = dequantize(fmt, np.array(sum(raw, []), dtype=np.uint8))
    assert got.dtype == np.float32 and got.shape == (160,)
    np.testing.assert_array_equal(got, want)
    # signed zeros too: q5_0's (16 - 16) * -0.25 and q4_1's / q5_1's 0 * -0.25 + -0.0 are -0.0
    assert (np.signbit(want) & (want == 0)).any()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # the C loop's value order is the codes' order (d = 1, m = 0)
    centre = 16 if fmt == "q5_0" else 0
    assert _legacy_expected(fmt, _legacy_block(fmt, 0x3C00, 0, codes_b))[21] == codes_b[21] - centre
    fields = block_fields(fmt, np.array(sum(raw, []), dtype=np.uint8))
    if fmt == "q5_0":
        assert isinstance(fields, Q8Fields) and fields.s is None
        assert fields.q.tolist() == [[c - 16 for c in b[2]] for b in blocks]
    else:
        assert isinstance(fields, Q41Fields if fmt == "q4_1" else Q51Fields)
        assert fields.q.tolist() == [b[2] for b in blocks]
        assert fields.m.tolist() == [_fp16(b[1]) for b in blocks]
    assert fields.d.tolist() == [_fp16(b[0]) for b in blocks]
    np.testing.assert_array_equal(pack_blocks(fmt, fields), np.array(sum(raw, []), dtype=np.uint8))


# ggml-common.h kvalues_mxfp4, written out again here (not read from the code under test)
KVALUES_MXFP4 = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]


def _e8m0_half_c(e: int) -> float:
    """ggml-impl.h ``ggml_e8m0_to_fp32_half``: the float with bits ``0x00200000 << e`` for e < 2, else
    ``(e - 1) << 23``."""
    bits = 0x00200000 << e if e < 2 else (e - 1) << 23
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _mxfp4_block(e: int, codes: list[int]) -> list[int]:
    """A block_mxfp4 byte by byte (ggml-common.h: uint8 e, then qs[16]; no padding) with
    ``quantize_row_mxfp4_ref``'s packing ``qs[j] = x0 | x1 << 4`` of codes j and j + 16."""
    return [e] + [codes[j] | (codes[j + 16] << 4) for j in range(16)]


def _mxfp4_expected(raw: list[int]) -> list[float]:
    """The loop of ``dequantize_row_mxfp4``: ``y[j] = kvalues[qs[j] & 0x0F] * d``, ``y[j + 16] =
    kvalues[qs[j] >> 4] * d``, d = ``GGML_E8M0_TO_FP32_HALF(e)``; each product in float64, exact."""
    d = _e8m0_half_c(raw[0])
    out = [0.0] * 32
    for j in range(16):
        out[j] = KVALUES_MXFP4[raw[1 + j] & 0x0F] * d
        out[j + 16] = KVALUES_MXFP4[raw[1 + j] >> 4] * d
    return out


def test_e8m0_half_is_ggml_bit_pattern() -> None:
    e = np.arange(256, dtype=np.uint8)
    got = e8m0_half(e)
    assert got.dtype == np.float32
    assert got.tolist() == [_e8m0_half_c(int(i)) for i in e] == [2.0 ** (int(i) - 128) for i in e]
    # half the ue8m0 value of the same byte (which has a NaN at 0xFF, where ggml's half decode has 2^127)
    np.testing.assert_array_equal(got[:255], decode("ue8m0", e[:255]) / 2)
    assert got[255] == 2.0**127 and np.isnan(decode("ue8m0", e[255:])).all()
    with pytest.raises(ValueError, match="E8M0 exponents must be uint8, got dtype int64"):
        e8m0_half(np.arange(3))


def test_mxfp4_dequantize_hand_built_blocks() -> None:
    all_codes = list(range(16)) * 2
    mixed = [(5 * i + 3) % 16 for i in range(32)]
    # e: subnormal d (0, 1), the least normal (2), d = 1 (128), the largest the quantizer writes (252, 253),
    # and 254 / 255, where ggml's half decode is 2^126 / 2^127 and the larger kvalues overflow to ±Inf
    blocks = [(0, all_codes), (1, mixed), (2, all_codes), (128, mixed), (128, all_codes), (200, mixed),
              (252, all_codes), (253, all_codes), (254, mixed), (255, all_codes)]
    raw = [_mxfp4_block(e, codes) for e, codes in blocks]
    assert all(len(r) == FORMATS["mxfp4"].block_bytes == 17 for r in raw)
    with np.errstate(over="ignore"):
        want = np.array(sum((_mxfp4_expected(r) for r in raw), []), dtype=np.float64).astype(np.float32)
    got = dequantize("mxfp4", np.array(sum(raw, []), dtype=np.uint8))
    assert got.dtype == np.float32 and got.shape == (320,)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # codes 0 and 8 are both +0
    assert np.isinf(got).sum() == np.isinf(want).sum() > 0 and not np.isinf(got[:224]).any()
    assert np.isinf(got[224:256]).sum() == 8  # e = 253: 8 * 2^125 = 2^128 and 12 * 2^125, both signs, twice
    # the C loop's value order: value 21 is the high nibble of qs[5] (d = 1)
    assert _mxfp4_expected(_mxfp4_block(128, mixed))[21] == KVALUES_MXFP4[mixed[21]]
    fields = block_fields("mxfp4", np.array(sum(raw, []), dtype=np.uint8))
    assert isinstance(fields, Q8Fields) and fields.s is None
    assert fields.d.dtype == np.float32 and fields.d.tolist() == [2.0 ** (e - 128) for e, _ in blocks]
    assert fields.q.dtype == np.int8 and fields.q.tolist() == [[KVALUES_MXFP4[c] for c in codes] for _, codes in blocks]
    # packing writes kvalue 0 as code 0: the bytes come back with every code 8 (ggml's -0) as code 0
    canonical = [_mxfp4_block(e, [0 if c == 8 else c for c in codes]) for e, codes in blocks]
    np.testing.assert_array_equal(pack_blocks("mxfp4", fields), np.array(sum(canonical, []), dtype=np.uint8))


KVALUES_IQ4NL = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]
"""ggml-common.h ``kvalues_iq4nl``, restated here from the header."""


def _iq4_nl_block(d_bits: int, codes: list[int]) -> list[int]:
    """A block_iq4_nl (fp16 d, qs[16]) from ``quantize_row_iq4_nl_impl``'s packing loop:
    ``q4[j] = L[j] | (L[16 + j] << 4)``."""
    return _le16(d_bits) + [codes[j] | (codes[16 + j] << 4) for j in range(16)]


def _iq4_nl_expected(raw: list[int]) -> list[float]:
    """``dequantize_row_iq4_nl``: ``y[j] = d * kvalues_iq4nl[qs[j] & 0xf]``, ``y[j + 16]`` the high nibble."""
    d, qs = _fp16(raw[0] | raw[1] << 8), raw[2:18]
    return [d * KVALUES_IQ4NL[b & 0xF] for b in qs] + [d * KVALUES_IQ4NL[b >> 4] for b in qs]


def test_iq4_nl_dequantize_hand_built_blocks() -> None:
    codes_a = [(5 * i + 3) % 16 for i in range(32)]
    codes_b = list(range(16)) + list(range(15, -1, -1))
    blocks = [(0x3C00, codes_a), (0xB555, codes_b), (0x0001, codes_a), (0x7BFF, codes_b), (0x8000, codes_b)]
    raw = [_iq4_nl_block(*b) for b in blocks]
    want = np.array(sum((_iq4_nl_expected(r) for r in raw), []), dtype=np.float64)
    raw_array = np.array(sum(raw, []), dtype=np.uint8)
    got = dequantize("iq4_nl", raw_array)
    np.testing.assert_array_equal(got, want.astype(np.float32))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # d = -0: -0 for positive kvalues
    assert got[2 * 32 + 1] == 2.0**-24 * KVALUES_IQ4NL[codes_a[1]]  # fp16-subnormal d: exact
    fields = block_fields("iq4_nl", raw_array)
    assert isinstance(fields, Q8Fields) and fields.s is None
    assert fields.q.tolist() == [[KVALUES_IQ4NL[c] for c in codes] for _, codes in blocks]
    assert fields.d.tolist() == [_fp16(bits) for bits, _ in blocks]
    np.testing.assert_array_equal(pack_blocks("iq4_nl", fields), raw_array)  # 16 distinct kvalues: bijective


def _iq4_xs_block(d_bits: int, ls: list[int], codes: list[int]) -> list[int]:
    """A block_iq4_xs (fp16 d, uint16 scales_h, scales_l[4], qs[128]) as ``quantize_row_iq4_nl_impl`` packs
    it: ``scales_l[ib/2]`` low nibble for even ib, high for odd; ``scales_h |= (l >> 4) << 2*ib``."""
    scales_h, scales_l = 0, [0] * 4
    for ib, l in enumerate(ls):
        scales_l[ib // 2] |= (l & 0xF) << (4 * (ib % 2))
        scales_h |= (l >> 4) << (2 * ib)
    qs = [codes[32 * i + j] | (codes[32 * i + 16 + j] << 4) for i in range(8) for j in range(16)]
    return _le16(d_bits) + _le16(scales_h) + scales_l + qs


def _iq4_xs_expected(raw: list[int]) -> list[float]:
    """``dequantize_row_iq4_xs``'s loop over the bytes of a block."""
    d, scales_h, scales_l, qs = _fp16(raw[0] | raw[1] << 8), raw[2] | raw[3] << 8, raw[4:8], raw[8:136]
    out: list[float] = []
    for ib in range(8):
        ls = ((scales_l[ib // 2] >> 4 * (ib % 2)) & 0xF) | (((scales_h >> 2 * ib) & 3) << 4)
        dl = d * (ls - 32)
        sub = qs[16 * ib : 16 * ib + 16]
        out += [dl * KVALUES_IQ4NL[b & 0xF] for b in sub] + [dl * KVALUES_IQ4NL[b >> 4] for b in sub]
    return out


def test_iq4_xs_dequantize_hand_built_blocks() -> None:
    ls_a = [0, 63, 32, 31, 33, 1, 47, 16]
    ls_b = [(7 * i + 5) % 64 for i in range(8)]
    codes_a = [(5 * i + 3) % 16 for i in range(256)]
    codes_b = [(i * i + i // 7) % 16 for i in range(256)]
    blocks = [(0x3800, ls_a, codes_a), (0x1E3B, ls_b, codes_b), (0x8001, ls_a, codes_b), (0x7BFF, ls_b, codes_a)]
    raw = [_iq4_xs_block(*b) for b in blocks]
    want = np.array(sum((_iq4_xs_expected(r) for r in raw), []), dtype=np.float64)
    raw_array = np.array(sum(raw, []), dtype=np.uint8)
    np.testing.assert_array_equal(dequantize("iq4_xs", raw_array), want.astype(np.float32))
    fields = block_fields("iq4_xs", raw_array)
    assert isinstance(fields, IQ4XSFields)
    assert fields.scales.tolist() == [[l - 32 for l in ls] for _, ls, _ in blocks]
    assert fields.q.tolist() == [[KVALUES_IQ4NL[c] for c in codes] for _, _, codes in blocks]
    assert fields.d.tolist() == [_fp16(bits) for bits, _, _ in blocks]
    # ls_a by hand: top bit pairs 0 3 2 1 2 0 2 1 -> scales_h 0x626C; low nibbles 0 F 0 F 1 1 F 0
    assert raw[0][2:8] == [0x6C, 0x62, 0xF0, 0xF0, 0x11, 0x0F]
    np.testing.assert_array_equal(pack_blocks("iq4_xs", fields), raw_array)


@pytest.mark.parametrize("fmt", sorted(BLOCK_LAYOUTS))
def test_block_layouts_tile_each_block(fmt: str) -> None:
    """Fields in memory order, back to back, fill the format table's block size exactly."""
    end = 0
    for field in BLOCK_LAYOUTS[fmt]:
        assert field.byte == end, f"{fmt} field {field.name} starts at {field.byte}, after a field ending at {end}"
        end += field.nbytes
    assert end == FORMATS[fmt].block_bytes
    assert set(BLOCK_LAYOUTS) == {name for name, info in FORMATS.items() if info.is_block}
    assert all(f.kind == "f16" for f in fp16_fields(fmt))
    assert bool(fp16_fields(fmt)) == (fmt != "mxfp4")  # mxfp4's scale is a byte exponent, never NaN


@pytest.mark.parametrize(
    "fmt",
    ["q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "q8_0", "q8_1", "q8_1_mmq", "q4_0", "q4_1", "q5_0", "q5_1", "mxfp4",
     "iq4_nl", "iq4_xs"],
)
def test_pack_and_read_fields_round_trip(fmt: str) -> None:
    rng = np.random.default_rng(len(fmt))
    nb = 5
    fields: BlockFields
    if fmt == "q6_K":
        fields = Q6KFields(
            d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            scales=rng.integers(-128, 128, (2, nb, 16), dtype=np.int16).astype(np.int8),
            q=rng.integers(-32, 32, (2, nb, 256), dtype=np.int16).astype(np.int8),
        )
    elif fmt == "q2_K":
        fields = Q2KFields(
            d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            dmin=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            scales=rng.integers(0, 16, (2, nb, 16), dtype=np.uint8),
            mins=rng.integers(0, 16, (2, nb, 16), dtype=np.uint8),
            q=rng.integers(0, 4, (2, nb, 256), dtype=np.uint8),
        )
    elif fmt == "q3_K":
        fields = Q3KFields(
            d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            scales=rng.integers(-32, 32, (2, nb, 16), dtype=np.int16).astype(np.int8),
            q=rng.integers(-4, 4, (2, nb, 256), dtype=np.int16).astype(np.int8),
        )
    elif fmt in ("q4_K", "q5_K"):
        fields = (Q4KFields if fmt == "q4_K" else Q5KFields)(
            d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            dmin=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            scales=rng.integers(0, 64, (2, nb, 8), dtype=np.uint8),
            mins=rng.integers(0, 64, (2, nb, 8), dtype=np.uint8),
            q=rng.integers(0, 16 if fmt == "q4_K" else 32, (2, nb, 256), dtype=np.uint8),
        )
    elif fmt in ("q4_1", "q5_1"):
        fields = (Q41Fields if fmt == "q4_1" else Q51Fields)(
            d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            m=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
            q=rng.integers(0, 16 if fmt == "q4_1" else 32, (2, nb, 32), dtype=np.uint8),
        )
    elif fmt == "mxfp4":
        e = rng.integers(0, 256, (2, nb))
        e[0, :3] = [0, 1, 255]
        fields = Q8Fields(d=np.ldexp(np.float32(1), e - 128).astype(np.float32),
                          q=np.array(KVALUES_MXFP4, np.int8)[rng.integers(0, 16, (2, nb, 32))])
    elif fmt == "iq4_nl":
        fields = Q8Fields(d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
                          q=np.array(KVALUES_IQ4NL, np.int8)[rng.integers(0, 16, (2, nb, 32))])
    elif fmt == "iq4_xs":
        fields = IQ4XSFields(d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
                             scales=rng.integers(-32, 32, (2, nb, 8), dtype=np.int16).astype(np.int8),
                             q=np.array(KVALUES_IQ4NL, np.int8)[rng.integers(0, 16, (2, nb, 256))])
    elif fmt in ("q4_0", "q5_0"):
        centre = 8 if fmt == "q4_0" else 16
        fields = Q8Fields(d=rng.standard_normal((2, nb)).astype(np.float16).astype(np.float32),
                          q=rng.integers(-centre, centre, (2, nb, 32), dtype=np.int16).astype(np.int8))
    else:
        per = 4 if fmt == "q8_1_mmq" else 1
        shape = (2, nb, per) if per > 1 else (2, nb)
        fields = Q8Fields(
            d=rng.standard_normal(shape).astype(np.float16).astype(np.float32),
            s=None if fmt == "q8_0" else rng.standard_normal(shape).astype(np.float16).astype(np.float32),
            q=rng.integers(-128, 128, (2, nb, 32 * per), dtype=np.int16).astype(np.int8),
        )
    raw = pack_blocks(fmt, fields)
    assert raw.shape == (2, nb * FORMATS[fmt].block_bytes)
    back = block_fields(fmt, raw)
    assert type(back) is type(fields)
    for name in fields.__dataclass_fields__:
        want = getattr(fields, name)
        if want is None:
            assert getattr(back, name) is None
        else:
            np.testing.assert_array_equal(getattr(back, name), want)


def test_pack_rounds_d_to_fp16_nearest_even() -> None:
    # 1 + 2^-11 is the midpoint between fp16 1.0 and 1 + 2^-10: ties to even -> 1.0
    fields = Q8Fields(d=np.float32([1 + 2.0**-11]), q=np.zeros((1, 32), dtype=np.int8))
    assert pack_blocks("q8_0", fields)[:2].tolist() == [0x00, 0x3C]
    fields = Q8Fields(d=np.float32([1 + 3 * 2.0**-11]), q=np.zeros((1, 32), dtype=np.int8))
    assert pack_blocks("q8_0", fields)[:2].tolist() == [0x02, 0x3C]  # ties up to the even 1 + 2^-9


def test_errors() -> None:
    with pytest.raises(ValueError, match="last axis of nblocks \\* 144 bytes, got 143"):
        dequantize("q4_K", np.zeros(143, dtype=np.uint8))
    with pytest.raises(ValueError, match="uint8 byte array"):
        dequantize("q8_0", np.zeros(34, dtype=np.int8))
    with pytest.raises(ValueError, match="not a block format"):
        dequantize("e4m3", np.zeros(34, dtype=np.uint8))
    bad = Q4KFields(d=np.zeros(1, np.float32), dmin=np.zeros(1, np.float32), scales=np.full((1, 8), 64, np.uint8),
                    mins=np.zeros((1, 8), np.uint8), q=np.zeros((1, 256), np.uint8))
    with pytest.raises(ValueError, match="6-bit"):
        pack_blocks("q4_K", bad)
    wide = Q6KFields(d=np.zeros(1, np.float32), scales=np.zeros((1, 16), np.int8), q=np.full((1, 256), 32, np.int8))
    with pytest.raises(ValueError, match="-32..31"):
        pack_blocks("q6_K", wide)
    with pytest.raises(ValueError, match="packed from Q6KFields"):
        pack_blocks("q6_K", Q8Fields(d=np.zeros(1, np.float32), q=np.zeros((1, 32), np.int8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 210 bytes, got 144"):
        dequantize("q6_K", np.zeros(144, dtype=np.uint8))
    five = Q5KFields(d=np.zeros(1, np.float32), dmin=np.zeros(1, np.float32), scales=np.zeros((1, 8), np.uint8),
                     mins=np.zeros((1, 8), np.uint8), q=np.full((1, 256), 32, np.uint8))
    with pytest.raises(ValueError, match="q5_K quants are 256 5-bit codes"):
        pack_blocks("q5_K", five)
    with pytest.raises(ValueError, match="q4_K quants are 256 4-bit codes"):
        pack_blocks("q4_K", Q4KFields(d=five.d, dmin=five.dmin, scales=five.scales, mins=five.mins,
                                      q=np.full((1, 256), 16, np.uint8)))
    with pytest.raises(ValueError, match="q5_K blocks are packed from Q5KFields"):
        pack_blocks("q5_K", Q4KFields(d=five.d, dmin=five.dmin, scales=five.scales, mins=five.mins,
                                      q=np.zeros((1, 256), np.uint8)))
    with pytest.raises(ValueError, match="6-bit"):
        pack_blocks("q5_K", Q5KFields(d=five.d, dmin=five.dmin, scales=five.scales,
                                      mins=np.full((1, 8), 64, np.uint8), q=np.zeros((1, 256), np.uint8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 176 bytes, got 144"):
        dequantize("q5_K", np.zeros(144, dtype=np.uint8))
    two = Q2KFields(d=five.d, dmin=five.dmin, scales=np.zeros((1, 16), np.uint8), mins=np.zeros((1, 16), np.uint8),
                    q=np.full((1, 256), 4, np.uint8))
    with pytest.raises(ValueError, match=r"q2_K quants are 256 2-bit codes \(0..3\)"):
        pack_blocks("q2_K", two)
    with pytest.raises(ValueError, match=r"q2_K scales and mins are 16 4-bit codes \(0..15\)"):
        pack_blocks("q2_K", Q2KFields(d=five.d, dmin=five.dmin, scales=np.full((1, 16), 16, np.uint8),
                                      mins=two.mins, q=np.zeros((1, 256), np.uint8)))
    with pytest.raises(ValueError, match="q2_K blocks are packed from Q2KFields"):
        pack_blocks("q2_K", five)
    with pytest.raises(ValueError, match=r"q3_K quants are 256 values of -4..3 per block \(code - 4\)"):
        pack_blocks("q3_K", Q3KFields(d=five.d, scales=np.zeros((1, 16), np.int8), q=np.full((1, 256), 4, np.int8)))
    with pytest.raises(ValueError, match=r"q3_K scales are 16 values of -32..31"):
        pack_blocks("q3_K", Q3KFields(d=five.d, scales=np.full((1, 16), 32, np.int8), q=np.zeros((1, 256), np.int8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 110 bytes, got 84"):
        dequantize("q3_K", np.zeros(84, dtype=np.uint8))
    zero = np.zeros(1, np.float32)
    with pytest.raises(ValueError, match="q4_1 quants are 32 codes 0..15 per block"):
        pack_blocks("q4_1", Q41Fields(d=zero, m=zero, q=np.full((1, 32), 16, np.uint8)))
    with pytest.raises(ValueError, match="q5_1 quants are 32 codes 0..31 per block"):
        pack_blocks("q5_1", Q51Fields(d=zero, m=zero, q=np.full((1, 32), 32, np.uint8)))
    with pytest.raises(ValueError, match=r"q5_0 quants are 32 values of -16..15 per block \(code - 16\)"):
        pack_blocks("q5_0", Q8Fields(d=zero, q=np.full((1, 32), 16, np.int8)))
    with pytest.raises(ValueError, match=r"q4_0 quants are 32 values of -8..7 per block \(code - 8\)"):
        pack_blocks("q4_0", Q8Fields(d=zero, q=np.full((1, 32), -9, np.int8)))
    with pytest.raises(ValueError, match="q5_1 blocks are packed from Q51Fields"):
        pack_blocks("q5_1", Q41Fields(d=zero, m=zero, q=np.zeros((1, 32), np.uint8)))
    with pytest.raises(ValueError, match="q5_0 blocks are packed from Q8Fields"):
        pack_blocks("q5_0", Q51Fields(d=zero, m=zero, q=np.zeros((1, 32), np.uint8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 24 bytes, got 22"):
        dequantize("q5_1", np.zeros(22, dtype=np.uint8))
    kv = np.zeros((1, 32), np.int8)
    power = r"mxfp4 d must be a power of two 2\^\(e - 128\) with e in 0..255 \(2\^-128 .. 2\^127\), got"
    for d in (3.0, 0.0, -1.0, 2.0**-129, 2.0**128, np.inf, np.nan):
        with pytest.raises(ValueError, match=f"{power} {re.escape(repr(d))}" if np.isfinite(d) else power):
            pack_blocks("mxfp4", Q8Fields(d=np.array([1.0, d]), q=np.zeros((2, 32), np.int8)))
    for bad_q in (5, 7, 13, -5, 24):
        kv[0, 3] = bad_q
        with pytest.raises(ValueError, match="mxfp4 quants are 32 kvalues per block, each one of -12, -8, .*, 8, 12"):
            pack_blocks("mxfp4", Q8Fields(d=np.float32([1.0]), q=kv))
    with pytest.raises(ValueError, match="mxfp4 quants are 32 kvalues per block"):
        pack_blocks("mxfp4", Q8Fields(d=np.float32([1.0]), q=np.zeros((1, 16), np.int8)))
    with pytest.raises(ValueError, match="mxfp4 blocks are packed from Q8Fields"):
        pack_blocks("mxfp4", Q41Fields(d=zero, m=zero, q=np.zeros((1, 32), np.uint8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 17 bytes, got 18"):
        dequantize("mxfp4", np.zeros(18, dtype=np.uint8))
    for bad_q in (0, -128, 127, 2, 112):
        kv[0, 3] = bad_q
        with pytest.raises(ValueError, match="iq4_nl quants are 32 kvalues per block, each one of -127, -104, .*, 113"):
            pack_blocks("iq4_nl", Q8Fields(d=np.float32([1.0]), q=kv))
    with pytest.raises(ValueError, match="iq4_xs quants are 256 kvalues per block"):
        pack_blocks("iq4_xs", IQ4XSFields(d=zero, scales=np.zeros((1, 8), np.int8), q=np.ones((1, 32), np.int8)))
    with pytest.raises(ValueError, match=r"iq4_xs scales are 8 values of -32..31 per block \(6-bit code - 32\)"):
        pack_blocks("iq4_xs", IQ4XSFields(d=zero, scales=np.full((1, 8), 32, np.int8), q=np.ones((1, 256), np.int8)))
    with pytest.raises(ValueError, match="iq4_xs blocks are packed from IQ4XSFields"):
        pack_blocks("iq4_xs", Q8Fields(d=zero, q=np.ones((1, 256), np.int8)))
    with pytest.raises(ValueError, match="last axis of nblocks \\* 136 bytes, got 144"):
        dequantize("iq4_xs", np.zeros(144, dtype=np.uint8))

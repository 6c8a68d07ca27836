"""The byte positions of ``qgpu.block_part`` (dialects/qgpu/block_parts.py) against ggml's layouts.

``compiler.numerics`` packs and splits ggml blocks on the value side (its own reading of
ggml-common.h and mmq.cuh); here each part's ``PartSpec`` is read, as the lowering of
``qgpu.local_load`` reads it (passes/support/block_fields.py), from blocks that
``pack_blocks`` built with distinct field values, so a wrong byte or pitch picks a wrong value.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import i32

from compiler.format_table import IQ4NL_KVALUES
from compiler.numerics import (MXFP4_KVALUES, IQ4XSFields, Q2KFields, Q3KFields, Q4KFields, Q5KFields, Q6KFields, Q8Fields, Q41Fields,
                               Q51Fields, e8m0_half, pack_blocks)
from compiler.numerics.blocks import iq4_xs_scale_codes, q3_K_scale_codes, scale_min_k4
from dialects.qdot.formats import Format, format_info
from dialects.qgpu.block_parts import Q3K_D32, Q4_0_D16, Q4K_SCALE16, Q5_0_D8, SPECS, padded_sub_block

_SC = np.array([3, 17, 33, 50, 5, 21, 40, 63], dtype=np.uint8)
_M = np.array([7, 19, 35, 60, 2, 30, 45, 61], dtype=np.uint8)
_RNG = np.random.default_rng(7)


_SC6 = np.array([-128, 127, -1, 0, 1, 64, -64, 3, 17, -17, 100, -100, 5, 6, 7, 8], dtype=np.int8)
_SC3 = np.array([-32, 31, -1, 0, 1, 16, -16, 3, 17, -17, 30, -30, 5, 6, 7, 8], dtype=np.int8)
"""q3_K's sixteen scales (6-bit code − 32), distinct and at both ends."""
_SC2 = np.array([0, 15, 1, 14, 2, 13, 3, 12, 4, 11, 5, 10, 6, 9, 7, 8], dtype=np.uint8)
_M2 = np.array([15, 0, 7, 8, 1, 14, 2, 13, 9, 6, 3, 12, 5, 10, 4, 11], dtype=np.uint8)
"""q2_K's sixteen 4-bit scales and mins, each at both ends, no scale equal to its min."""
_SCXS = np.array([-32, 31, -1, 0, 1, 16, -17, 5], dtype=np.int8)
"""iq4_xs's eight scales (6-bit ls − 32), distinct, at both ends and across the top bits' boundaries."""


def _fields(fmt: Format) -> Q8Fields | Q4KFields | Q5KFields | Q6KFields | Q41Fields | Q51Fields:
    q8 = _RNG.integers(-127, 128, size=format_info(fmt).values_per_element).astype(np.int8)
    if fmt is Format.Q6_K:
        return Q6KFields(d=np.float32(1.5), scales=_SC6, q=_RNG.integers(-32, 32, size=256).astype(np.int8))
    if fmt is Format.Q2_K:
        return Q2KFields(d=np.float32(1.5), dmin=np.float32(0.75), scales=_SC2, mins=_M2,
                         q=_RNG.integers(0, 4, size=256).astype(np.uint8))
    if fmt is Format.Q3_K:
        return Q3KFields(d=np.float32(1.5), scales=_SC3, q=_RNG.integers(-4, 4, size=256).astype(np.int8))
    if fmt is Format.Q4_K:
        q4 = _RNG.integers(0, 16, size=256).astype(np.uint8)
        return Q4KFields(d=np.float32(1.5), dmin=np.float32(0.75), scales=_SC, mins=_M, q=q4)
    if fmt is Format.Q5_K:
        q5 = _RNG.integers(0, 32, size=256).astype(np.uint8)
        return Q5KFields(d=np.float32(1.5), dmin=np.float32(0.75), scales=_SC, mins=_M, q=q5)
    if fmt is Format.Q4_1:
        return Q41Fields(d=np.float32(1.5), m=np.float32(-0.625), q=_RNG.integers(0, 16, size=32).astype(np.uint8))
    if fmt is Format.Q5_1:
        return Q51Fields(d=np.float32(1.5), m=np.float32(-0.625), q=_RNG.integers(0, 32, size=32).astype(np.uint8))
    if fmt is Format.Q5_0:  # q: code − 16
        return Q8Fields(d=np.float32(1.5), q=_RNG.integers(-16, 16, size=32).astype(np.int8))
    if fmt is Format.Q8_0:
        return Q8Fields(d=np.float32(1.5), q=q8)
    if fmt is Format.Q4_0:
        return Q8Fields(d=np.float32(1.5), q=_RNG.integers(-8, 8, size=32).astype(np.int8))
    if fmt is Format.IQ4_XS:  # q: kvalues_iq4nl entries
        return IQ4XSFields(d=np.float32(1.5), scales=_SCXS, q=_RNG.choice(np.array(IQ4NL_KVALUES, np.int8), size=256))
    if fmt is Format.IQ4_NL:  # q: kvalues_iq4nl entries
        return Q8Fields(d=np.float32(1.5), q=_RNG.choice(np.array(IQ4NL_KVALUES, np.int8), size=32))
    if fmt is Format.MXFP4:  # d = 2^(e − 128) for e = 125; q: ggml's kvalues
        return Q8Fields(d=np.float32(0.125), q=_RNG.choice(np.array(MXFP4_KVALUES, np.int8), size=32))
    if fmt is Format.Q8_1:
        return Q8Fields(d=np.float32(1.5), s=np.float32(-2.25), q=q8)
    return Q8Fields(d=np.array([1.0, 2.0, 3.0, 4.0], np.float32), s=np.array([5.0, 6.0, 7.0, 8.0], np.float32), q=q8)


def _half(block: np.ndarray, byte: int) -> float:
    return float(block[byte:byte + 2].view("<f2")[0])


def _read(fmt: Format, part: str, block: np.ndarray, index: int) -> float:
    """Value ``index`` of a derived part, read from the bytes the spec names."""
    spec = SPECS[(fmt, part)]
    codes = None
    if spec.split_codes:  # iq4_xs's scale: d · (ls − 32), ls's low four bits in scales_l, top two in scales_h
        assert spec.codes_byte is not None and spec.first_byte is not None
        codes = iq4_xs_scale_codes(block[spec.codes_byte:spec.codes_byte + 2],
                                   block[spec.codes_byte + 2:spec.codes_byte + 6])
        return _half(block, spec.first_byte) * float(int(codes[index]) - 32)
    if spec.codes_byte is not None and spec.element == i32:  # q3_K's sc: its 6-bit code − 32
        return float(q3_K_scale_codes(block[spec.codes_byte:spec.codes_byte + 12])[index]) - 32
    if spec.codes_byte is not None:
        sc, m = scale_min_k4(block[spec.codes_byte:spec.codes_byte + 12])
        codes = m if part in ("min", "m_pad") else sc
    if part in ("m_pad", "s_pair") and spec.codes_byte is None:  # q4_1's (−m, 0), q8_1_mmq's (s, 0) pairs
        if index % 2:
            return 0.0
        index //= 2
    elif part in ("m_pad", "s_pad"):
        position = padded_sub_block(index)
        if position is None:
            return 0.0
        if part == "m_pad":
            assert codes is not None
            return float(codes[position])
        index = position
    assert spec.first_byte is not None
    if spec.e8m0_half:  # mxfp4's exponent byte e: 2^(e − 128)
        return float(e8m0_half(block[spec.first_byte:spec.first_byte + 1])[0])
    if spec.element == i32 and spec.field_bytes == 4:  # a little-endian word (q5_0's / q5_1's qh)
        return float(block[spec.first_byte:spec.first_byte + 4].view("<u4")[0])
    if spec.nibble is not None:  # q2_K's 4-bit scale (low nibble) or min (high), one byte each
        return float(block[spec.first_byte + spec.pitch * index] >> (4 * spec.nibble) & 0xF)
    if spec.element == i32:  # an int8 field (q6_K's sc)
        return float(block[spec.first_byte + spec.pitch * index:][:1].view(np.int8)[0])
    half = _half(block, spec.first_byte + spec.pitch * index)
    if codes is None:
        return half / spec.divisor
    value = half * float(codes[index])
    return value / 16 if part == Q4K_SCALE16 and index % 2 else value


def _expected(fmt: Format, part: str, fields: Q8Fields | Q4KFields | Q5KFields | Q6KFields | Q41Fields | Q51Fields,
              index: int) -> float:
    """The same value from ``compiler.numerics``' fields."""
    if part == "qh":  # bit j: the fifth bit of value j's code
        codes = fields.q.astype(np.int64) + (16 if fmt is Format.Q5_0 else 0)
        return float(sum(int(c >> 4 & 1) << j for j, c in enumerate(codes)))
    if part == Q5_0_D8:
        return float(fields.d) / 8
    if isinstance(fields, Q41Fields | Q51Fields):  # value = d · code + m; the fold subtracts its min parts: −m
        return {"d": float(fields.d), "min": -float(fields.m), "m_pad": 0.0 if index % 2 else -float(fields.m)}[part]
    if isinstance(fields, Q6KFields):
        return {"d4": float(fields.d) / 4, "sc": float(fields.scales[index])}[part]
    if isinstance(fields, Q2KFields):
        return {"d": float(fields.d), "dmin": float(fields.dmin), "sc": float(fields.scales[index]),
                "mn": float(fields.mins[index])}[part]
    if isinstance(fields, IQ4XSFields):
        return {"scale": float(fields.d) * float(fields.scales[index])}[part]
    if isinstance(fields, Q3KFields):
        return {Q3K_D32: float(fields.d) / 32, "sc": float(fields.scales[index])}[part]
    if isinstance(fields, Q4KFields | Q5KFields):
        scale = float(fields.d) * float(fields.scales[index % 8])
        position = padded_sub_block(index)
        return {
            "scale": scale,
            Q4K_SCALE16: scale / 16 if index % 2 else scale,
            "min": float(fields.dmin) * float(fields.mins[index % 8]),
            "dmin": float(fields.dmin),
            "m_pad": 0.0 if position is None else float(fields.mins[position]),
        }[part]
    if part == Q4_0_D16:
        return float(fields.d) / 16
    assert fields.s is not None or part == "d"
    if part == "s_pair":
        return 0.0 if index % 2 else float(np.atleast_1d(fields.s)[index // 2])
    if part == "s_pad":
        position = padded_sub_block(index)
        return 0.0 if position is None else float(np.atleast_1d(fields.s)[position])
    return float(np.atleast_1d(fields.d if part == "d" else fields.s)[index])


@pytest.mark.parametrize(("fmt", "part"), sorted(k for k, spec in SPECS.items() if not spec.raw))
def test_derived_part_bytes_match_ggml(fmt: Format, part: str) -> None:
    fields = _fields(fmt)
    block = pack_blocks(str(fmt), fields)
    for index in range(SPECS[(fmt, part)].values_per_block):
        assert _read(fmt, part, block, index) == _expected(fmt, part, fields, index), (fmt, part, index)


def test_q6_K_raw_parts_hold_the_codes_where_numerics_puts_them() -> None:
    """ql's byte p of half h: value 128h + p (low nibble), + 64 (high); qh's byte l of half h: the top
    two bits of values 128h + 32i + l in bit pair i — read here from the spec's bytes, against the
    codes ``pack_blocks`` wrote."""
    fields = _fields(Format.Q6_K)
    assert isinstance(fields, Q6KFields)
    block = pack_blocks("q6_K", fields)
    ql_spec, qh_spec = SPECS[(Format.Q6_K, "ql")], SPECS[(Format.Q6_K, "qh")]
    assert ql_spec.first_byte is not None and qh_spec.first_byte is not None
    ql = block[ql_spec.first_byte:ql_spec.first_byte + ql_spec.values_per_block]
    qh = block[qh_spec.first_byte:qh_spec.first_byte + qh_spec.values_per_block]
    codes = fields.q.astype(np.int16) + 32
    for v in range(256):
        half, within = divmod(v, 128)
        low = ql[64 * half + within % 64] >> (4 * (within // 64)) & 0xF
        top = qh[32 * half + within % 32] >> (2 * (within // 32)) & 3
        assert low | top << 4 == codes[v], v


def test_q5_K_raw_parts_hold_the_codes_where_numerics_puts_them() -> None:
    """qs as q4_K's (byte 32c + l: value 64c + l low, 64c + 32 + l high nibble); qh's byte l: the top
    bit of values 32i + l in bit i — read here from the spec's bytes, against the codes ``pack_blocks``
    wrote."""
    fields = _fields(Format.Q5_K)
    assert isinstance(fields, Q5KFields)
    block = pack_blocks("q5_K", fields)
    qs_spec, qh_spec = SPECS[(Format.Q5_K, "qs")], SPECS[(Format.Q5_K, "qh")]
    assert qs_spec.first_byte is not None and qh_spec.first_byte is not None
    qs = block[qs_spec.first_byte:qs_spec.first_byte + qs_spec.values_per_block]
    qh = block[qh_spec.first_byte:qh_spec.first_byte + qh_spec.values_per_block]
    for v in range(256):
        chunk, within = divmod(v, 64)
        low = qs[32 * chunk + within % 32] >> (4 * (within // 32)) & 0xF
        top = qh[v % 32] >> (v // 32) & 1
        assert low | top << 4 == fields.q[v], v


def test_q3_K_raw_parts_hold_the_codes_where_numerics_puts_them() -> None:
    """qs's byte 32h + l: the low two bits of values 128h + 32i + l in bit pair i; hmask's byte l: the top
    bit of values 32i + l in bit i (as q5_K's qh) — read here from the spec's bytes, against the codes
    ``pack_blocks`` wrote (code = q + 4)."""
    fields = _fields(Format.Q3_K)
    assert isinstance(fields, Q3KFields)
    block = pack_blocks("q3_K", fields)
    qs_spec, hm_spec = SPECS[(Format.Q3_K, "qs")], SPECS[(Format.Q3_K, "hmask")]
    assert qs_spec.first_byte is not None and hm_spec.first_byte is not None
    qs = block[qs_spec.first_byte:qs_spec.first_byte + qs_spec.values_per_block]
    hmask = block[hm_spec.first_byte:hm_spec.first_byte + hm_spec.values_per_block]
    codes = fields.q.astype(np.int16) + 4
    for v in range(256):
        half, within = divmod(v, 128)
        low = qs[32 * half + within % 32] >> (2 * (within // 32)) & 3
        top = hmask[v % 32] >> (v // 32) & 1
        assert low | top << 2 == codes[v], v


def test_q2_K_raw_quants_hold_the_codes_where_numerics_puts_them() -> None:
    """qs's byte 32h + l: the codes of values 128h + 32i + l in bit pair i (q3_K's low bits, here whole
    codes), read from the spec's bytes against the codes ``pack_blocks`` wrote; d and dmin follow them."""
    fields = _fields(Format.Q2_K)
    assert isinstance(fields, Q2KFields)
    block = pack_blocks("q2_K", fields)
    spec = SPECS[(Format.Q2_K, "qs")]
    assert spec.first_byte is not None
    qs = block[spec.first_byte:spec.first_byte + spec.values_per_block]
    for v in range(256):
        half, within = divmod(v, 128)
        assert qs[32 * half + within % 32] >> (2 * (within // 32)) & 3 == fields.q[v], v
    assert spec.first_byte + spec.values_per_block == SPECS[(Format.Q2_K, "d")].first_byte


@pytest.mark.parametrize("fmt", [f for f in Format if format_info(f).is_block
                                 and f not in (Format.Q6_K, Format.Q3_K, Format.Q2_K)])
def test_raw_quants_fill_the_block_to_its_end(fmt: Format) -> None:
    spec = SPECS[(fmt, "qs")]
    assert spec.raw and spec.first_byte is not None
    assert spec.first_byte + spec.values_per_block == format_info(fmt).element_bytes
    fields = _fields(fmt)
    block = pack_blocks(str(fmt), fields)
    qs = block[spec.first_byte:spec.first_byte + spec.values_per_block]
    if isinstance(fields, Q4KFields | Q5KFields):  # byte 32c + l: value 64c + l low, 64c + 32 + l high
        chunks = qs.reshape(4, 32)
        assert np.array_equal(np.stack([chunks & 0xF, chunks >> 4], axis=1).ravel(), fields.q & 0xF)
    elif fmt is Format.Q4_0:  # byte p: value p low, p + 16 high, each as its code q + 8
        assert np.array_equal(np.concatenate([qs & 0xF, qs >> 4]).astype(np.int8) - 8, fields.q)
    elif isinstance(fields, Q41Fields):  # as q4_0's, each its code
        assert np.array_equal(np.concatenate([qs & 0xF, qs >> 4]), fields.q)
    elif isinstance(fields, Q51Fields) or fmt is Format.Q5_0:  # as q4_0's, the low four bits of each code
        codes = fields.q.astype(np.int64) + (16 if fmt is Format.Q5_0 else 0)
        assert np.array_equal(np.concatenate([qs & 0xF, qs >> 4]), codes & 0xF)
    elif fmt is Format.MXFP4:  # as q4_0's, each the e2m1 code of its kvalue
        assert np.array_equal(np.array(MXFP4_KVALUES, np.int8)[np.concatenate([qs & 0xF, qs >> 4])], fields.q)
    elif fmt is Format.IQ4_NL:  # as q4_0's, each the index of its kvalue in kvalues_iq4nl
        assert np.array_equal(np.array(IQ4NL_KVALUES, np.int8)[np.concatenate([qs & 0xF, qs >> 4])], fields.q)
    elif fmt is Format.IQ4_XS:  # iq4_nl's 16 bytes per 32 values, eight times
        spans = qs.reshape(8, 16)
        codes = np.concatenate([spans & 0xF, spans >> 4], axis=1).ravel()
        assert np.array_equal(np.array(IQ4NL_KVALUES, np.int8)[codes], fields.q)
    else:
        assert np.array_equal(qs.view(np.int8), fields.q)


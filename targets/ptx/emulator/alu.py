"""Register instructions as the PTX ISA defines them: prmt, lop3, shfl.sync, cvt, bf16x2.

Every function takes and returns numpy arrays over threads (uint32 for .b32, uint16 bit
patterns for bf16, float16/float32 for f16/f32). Sources: PTX ISA 9.0 §9.7.8.7 (prmt),
§9.7.8.6 (lop3), §9.7.9.6 (shfl.sync), §9.7.9.21 (cvt), §9.7.4.3/§9.7.4.5 (bf16x2 mul/fma),
summarised in shared/reference/ptx.md §6.
"""

from __future__ import annotations

import numpy as np

from compiler import numerics
from dialects.ptx.attrs import CvtKind, ShflMode
from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.numbers import (
    F16_CANONICAL_NAN,
    bf16_bits_to_f32,
    f64_to_bf16_bits,
    f64_to_f16,
    fma_to_bf16_bits,
)


def prmt(a: np.ndarray, b: np.ndarray, selector: np.ndarray) -> np.ndarray:
    """Default mode: byte j of d = byte ``s & 7`` of {b, a} (a = bytes 0-3), s = nibble j of the
    selector; bit 3 of s replaces the byte by its sign bit replicated. Only selector[15:0] counts."""
    source = a.astype(np.uint64) | (b.astype(np.uint64) << np.uint64(32))
    sel = selector.astype(np.uint64)
    out = np.zeros(a.shape, dtype=np.uint64)
    for j in range(4):
        s = (sel >> np.uint64(4 * j)) & np.uint64(0xF)
        byte = (source >> ((s & np.uint64(7)) << np.uint64(3))) & np.uint64(0xFF)
        sign = ((byte >> np.uint64(7)) * np.uint64(0xFF))
        byte = np.where(s & np.uint64(8), sign, byte)
        out |= byte << np.uint64(8 * j)
    return out.astype(np.uint32)


def lop3(a: np.ndarray, b: np.ndarray, c: np.ndarray, lut: int) -> np.ndarray:
    """Bit i of d = bit (a_i b_i c_i read as a 3-bit number, a the MSB) of `lut`."""
    out = np.zeros(a.shape, dtype=np.uint32)
    for minterm in range(8):
        if lut >> minterm & 1:
            term = np.full(a.shape, 0xFFFFFFFF, dtype=np.uint32)
            for bit, x in ((4, a), (2, b), (1, c)):
                term &= x if minterm & bit else ~x
            out |= term
    return out


def shfl(mode: ShflMode, value: np.ndarray, b: np.ndarray, c: np.ndarray, member_mask: np.ndarray) -> np.ndarray:
    """shfl.sync over warps of 32 consecutive threads ([ISA] pseudo-code, all lanes active)."""
    if (member_mask.astype(np.uint32) != np.uint32(0xFFFFFFFF)).any():
        raise EmulationError(f"shfl.sync membermask {int(member_mask[0]):#x}: every lane of the warp executes "
                             "it, so the mask must be 0xffffffff")
    threads = value.shape[0]
    lane = np.arange(threads) % 32
    bval = (b & np.uint32(0x1F)).astype(np.int64)
    cval = (c & np.uint32(0x1F)).astype(np.int64)
    segmask = ((c >> np.uint32(8)) & np.uint32(0x1F)).astype(np.int64)
    max_lane = (lane & segmask) | (cval & ~segmask)
    min_lane = lane & segmask
    if mode is ShflMode.UP:
        j = lane - bval
        ok = j >= max_lane
    elif mode is ShflMode.DOWN:
        j = lane + bval
        ok = j <= max_lane
    elif mode is ShflMode.BFLY:
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask)
        ok = j <= max_lane
    j = np.where(ok, j, lane)
    source = np.arange(threads) - lane + j
    return value[source]


# ---- conversions --------------------------------------------------------------------------


def _relu_f64(x: np.ndarray) -> np.ndarray:
    """.relu: negative results (incl. -0) become +0, NaN stays NaN."""
    return np.where(np.isnan(x), x, np.maximum(x, 0.0) + 0.0)


def _fp8x2_to_f16x2(pair: np.ndarray, fmt: str, bits: int, relu: bool) -> np.ndarray:
    """i16 holding two codes (low byte = element 0) -> [n, 2] float16, low half = element 0."""
    mask = (1 << bits) - 1
    codes = np.stack([pair & np.uint16(0xFF), pair >> np.uint16(8)], axis=-1) & np.uint16(mask)
    values = numerics.decode(fmt, codes)
    if relu:
        values = _relu_f64(values)
    out = f64_to_f16(values)
    return np.where(np.isnan(values), np.uint16(F16_CANONICAL_NAN).view(np.float16), out)


def _e2m1x2_to_f16x2(pair: np.ndarray, relu: bool) -> np.ndarray:
    codes = np.stack([pair & np.uint8(0xF), pair >> np.uint8(4)], axis=-1)
    values = numerics.decode("e2m1", codes)
    return f64_to_f16(_relu_f64(values) if relu else values)


def _to_fp8(x: np.ndarray, fmt: str, relu: bool) -> np.ndarray:
    """rn.satfinite: nearest even, finite overflow and ±Inf clamp to ±max, NaN -> the NaN code
    (formats without NaN: +max, as cvt.rn.satfinite does). e4m3 and e5m2 take any NaN, of either sign, to 0x7F,
    as CUDA's cuda_fp8.hpp converts one (its model of the instruction), not to the sign-kept code of
    ``numerics.encode``."""
    x = np.asarray(x, dtype=np.float64)
    if relu:
        x = _relu_f64(x)
    info = numerics.format_info(fmt)
    top = info.coding.max_finite if info.coding is not None else None
    if top is not None:
        x = np.where(np.isinf(x), np.sign(x) * top, x)
    codes = numerics.encode(fmt, x, saturate=True).astype(np.uint32)
    return np.where(np.isnan(x), np.uint32(0x7F), codes) if fmt in ("e4m3", "e5m2") else codes


def cvt(kind: CvtKind, operands: list[np.ndarray], relu: bool) -> np.ndarray:
    """One cvt form; operand order as in the op (``a`` before ``b`` for the x2-from-f32 forms,
    ``a`` going to the upper half / byte)."""
    k = CvtKind
    if kind in (k.F16X2_E4M3X2, k.F16X2_E5M2X2, k.F16X2_E2M3X2, k.F16X2_E3M2X2):
        fmt = kind.value.split(".")[1][:-2]
        bits = 6 if fmt in ("e2m3", "e3m2") else 8
        return _fp8x2_to_f16x2(operands[0], fmt, bits, relu)
    if kind is k.F16X2_E2M1X2:
        return _e2m1x2_to_f16x2(operands[0], relu)
    if kind in (k.E4M3X2_F32, k.E5M2X2_F32):
        fmt = kind.value[:4]
        with np.errstate(invalid="ignore"):  # a signalling NaN widens quietly, as the GPU reads it
            hi, lo = (_to_fp8(x.astype(np.float64), fmt, relu) for x in operands)
        return ((hi << np.uint32(8)) | lo).astype(np.uint16)
    if kind is k.E4M3X2_F16X2:
        halves = operands[0].astype(np.float64)
        lo, hi = (_to_fp8(halves[:, i], "e4m3", relu) for i in (0, 1))
        return ((hi << np.uint32(8)) | lo).astype(np.uint16)
    if kind is k.E2M1X2_F32:
        hi, lo = (_to_fp8(x.astype(np.float64), "e2m1", relu) for x in operands)
        return ((hi << np.uint32(4)) | lo).astype(np.uint8)
    if kind is k.BF16X2_F32:
        hi, lo = (x.astype(np.float64) for x in operands)
        if relu:
            hi, lo = _relu_f64(hi), _relu_f64(lo)
        return np.stack([f64_to_bf16_bits(lo), f64_to_bf16_bits(hi)], axis=-1)
    if kind is k.F16X2_F32:
        hi, lo = (x.astype(np.float64) for x in operands)
        if relu:
            hi, lo = _relu_f64(hi), _relu_f64(lo)
        out = np.stack([f64_to_f16(lo), f64_to_f16(hi)], axis=-1)
        nan = np.isnan(np.stack([lo, hi], axis=-1))
        return np.where(nan, np.uint16(F16_CANONICAL_NAN).view(np.float16), out)
    if kind is k.F32_F16:  # a NaN as the GPU's other f32 results: canonical, not the f16 payload widened
        wide = operands[0].astype(np.float32)
        return np.where(np.isnan(wide), np.uint32(0x7FFF_FFFF).view(np.float32), wide)
    if kind is k.F32_BF16:
        return bf16_bits_to_f32(operands[0])
    raise EmulationError(f"cvt {kind} is not emulated")


def fma_bf16x2(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma.rn.bf16x2 on bit patterns [n, 2]: per half, a*b+c rounded once (nearest even)."""
    va, vb, vc = (bf16_bits_to_f32(x).astype(np.float64) for x in (a, b, c))
    return fma_to_bf16_bits(va, vb, vc)


def mul_bf16x2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mul.rn.bf16x2: the product of two bf16 is exact in float64, so one rounding suffices."""
    va, vb = (bf16_bits_to_f32(x).astype(np.float64) for x in (a, b))
    with np.errstate(invalid="ignore", over="ignore"):
        return f64_to_bf16_bits(va * vb)

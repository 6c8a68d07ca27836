"""Rounding helpers the float instructions share: bf16 bit patterns, one-rounding fma.

numpy has IEEE f16/f32/f64 but no bf16, and no fused multiply-add. Both are built here
from exact float64 arithmetic: a product of two bf16 (or f16) values is exact in float64,
and a sum is made exact enough by rounding it to odd (TwoSum residual), after which one
round-to-nearest-even to the narrow format gives the correctly rounded result
(Boldo & Melquiond, "Emulation of FMA and correctly rounded sums", 2008: round-to-odd
in p bits followed by rounding to q <= p - 2 bits is a correct rounding).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler import numerics

BF16_CANONICAL_NAN = 0x7FFF
"""The NaN PTX's bf16 / f16 arithmetic produces ([ISA] 9.7.4: canonical NaN)."""
F16_CANONICAL_NAN = 0x7FFF


def bf16_bits_to_f32(bits: NDArray[np.uint16]) -> NDArray[np.float32]:
    """Exact: a bf16 is the upper half of the float32 with the same value."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def f64_to_bf16_bits(x: NDArray[np.float64]) -> NDArray[np.uint16]:
    """Round float64 values to bf16 (nearest even, IEEE overflow to Inf) in one step."""
    x = np.asarray(x, dtype=np.float64)
    bits = numerics.encode("bf16", x, saturate=False).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(BF16_CANONICAL_NAN), bits).astype(np.uint16)


def f64_to_f16(x: NDArray[np.float64]) -> NDArray[np.float16]:
    """Round float64 to f16 in one step (numpy's double->half conversion is correctly rounded)."""
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float16)


def round_to_odd_sum(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a + b rounded to odd in float64 (a, b finite or not; Inf/NaN pass through IEEE rules)."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)  # TwoSum: s + err == a + b exactly (finite case)
        finite = np.isfinite(s) & np.isfinite(err)
        inexact = finite & (err != 0)
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        toward = np.where(err > 0, np.inf, -np.inf)
        return np.where(inexact & even, np.nextafter(s, toward), s)


def fma_to_bf16_bits(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> NDArray[np.uint16]:
    """bf16(a * b + c) with one rounding, for bf16-valued float64 inputs (a*b is exact)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return f64_to_bf16_bits(round_to_odd_sum(a * b, c))

"""float32 arithmetic exactly as ggml's C and CUDA sources perform it.

Bit-exact block quantization depends on a few operations whose numpy spelling is
not obvious: C's ``roundf`` (half away from zero, unlike ``np.round``), ggml's
``nearest_int`` (half to even, through a magic constant), left-to-right float32
sums (``np.sum`` is pairwise), CUDA's xor-shuffle warp reduction, and fp16 storage
(``GGML_FP32_TO_FP16`` and ``__float2half_rn`` both round to nearest even).
Each lives here once. All of them take and return float32 arrays; numpy's float32
``+ - * /`` and ``sqrt`` are correctly rounded IEEE operations, as in C on x86-64
(SSE, no excess precision) and in CUDA without ``-use_fast_math``. One libm function is
reproduced too: ``floorf(log2f(x))`` (mxfp4's exponent), as glibc computes it.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

F32 = np.float32


def roundf(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """C ``roundf``: nearest integer, halves away from zero (2.5 -> 3, -2.5 -> -3).

    ``x - trunc(x)`` is exact in float32, so the comparison with 0.5 is exact.
    """
    truncated = np.trunc(x)
    fraction = np.abs(x - truncated)
    return (truncated + np.where(fraction >= F32(0.5), np.sign(x), F32(0))).astype(np.float32)


def nearest_int(x: NDArray[np.float32]) -> NDArray[np.int64]:
    """ggml-quants.c ``nearest_int``: round half to even (via ``x + 12582912.f``).

    The magic-constant trick equals ``rint`` for |x| <= 4194303, the range ggml
    asserts; outside it ggml's result is meaningless and so is this one.
    """
    return np.rint(x).astype(np.int64)


def cuda_float_to_int8(x: NDArray[np.float32]) -> NDArray[np.int8]:
    """CUDA C++ ``int8_t q = (float)v`` as nvcc compiles it: saturating int32, low byte.

    Only non-finite values can fall outside int8 in the quantizers, so this matters
    for them alone: +Inf -> -1 (0x7FFFFFFF & 0xFF), -Inf -> 0, NaN -> 0 (seen on an
    H200 with llama.cpp's quantize kernels at amax below 127 / FLT_MAX).
    """
    wide = np.where(np.isnan(x), 0.0, np.clip(x.astype(np.float64), -(2.0**31), 2.0**31 - 1))
    return (wide.astype(np.int64) & 0xFF).astype(np.uint8).view(np.int8)


def sequential_sum(terms: NDArray[np.float32], start: float = 0.0) -> NDArray[np.float32]:
    """``acc = start; for t in terms: acc += t`` in float32, over axis 0 of ``terms``.

    This is the order of a plain C loop; axis 0 is the loop, the other axes are
    independent accumulators (vectorised over blocks).
    """
    acc = np.full(terms.shape[1:], start, dtype=np.float32)
    for term in terms:
        acc = acc + term
    return acc


def first_of_largest(values: NDArray[np.float32], axis: int = -1) -> NDArray[np.float32]:
    """The first entry of largest magnitude along ``axis``, sign kept: what ggml's ``if (ax > amax)
    { amax = ax; max = x[i]; }`` loops keep (the first of equal magnitudes, as ``argmax`` picks)."""
    first = np.expand_dims(np.argmax(np.abs(values), axis=axis), axis)
    return np.take_along_axis(values, first, axis=axis).squeeze(axis)


def first_min_max(values: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The first smallest and the first largest entry along the last axis: what ggml's ``if (v < min)
    min = v; if (v > max) max = v;`` loops keep. Which zero they keep, -0.0 or +0.0, is stored:
    ``fp16(min)`` is q4_1's and q5_1's ``m``, and ``max - min`` of a constant block is +0 only when both
    are the same entry (``np.min``/``np.max`` may return either zero)."""
    lowest = np.take_along_axis(values, np.argmin(values, axis=-1)[..., None], axis=-1)[..., 0]
    highest = np.take_along_axis(values, np.argmax(values, axis=-1)[..., None], axis=-1)[..., 0]
    return lowest, highest


def _log2f_floor_starts() -> NDArray[np.float32]:
    """For k = -149 .. 128, the smallest float32 x with ``floorf(log2f(x)) == k``.

    A correctly rounded ``log2f`` returns the integer k for every x whose log2 lies within half a
    float32 spacing below k (the spacing of the floats just below k): x >= 2^(k - h_k), h_k that half
    spacing. That bound is computed in float64 (``2^-h`` to 1 ulp; the nearest float32 lies at least
    0.8% of a float32 ulp from it) and rounded up to float32. For k <= 2 no float32 below 2^k is that
    close; for k = 128 the 44 largest finite floats round up (to 128).
    """
    starts = []
    for k in range(-149, 129):
        below = np.nextafter(np.float32(k), np.float32(-np.inf))
        half_gap = (float(k) - float(below)) / 2.0
        bound = math.ldexp(math.exp2(-half_gap), k)
        start = np.float32(bound)
        if float(start) < bound:
            start = np.nextafter(start, np.float32(np.inf))
        starts.append(start)
    out = np.array(starts, dtype=np.float32)
    out.flags.writeable = False
    return out


_LOG2F_FLOOR_STARTS = _log2f_floor_starts()


def floor_log2f(x: NDArray[np.float32]) -> NDArray[np.int64]:
    """C ``floorf(log2f(x))`` for positive finite float32 x, as glibc's ``log2f`` (2.36, x86-64) gives it.

    That ``log2f`` is correctly rounded wherever it decides the floor: for x a few ulps below a power of
    two 2^k it returns k itself, not the float below k, so the floor is k, one more than log2's. This
    happens for 7456 float32s, those in ``[2^(k - h_k), 2^k)`` (:func:`_log2f_floor_starts`): none below
    2^1, 2^2 or 2^-1, one below 2^3, 2^4, 2^-2 and 2^-3, then doubling with |k| up to 44 floats below
    each 2^k for 64 < |k| <= 128 (fewer again below 2^-126, where the floats are subnormal). Checked on
    every positive finite float32 against ``floorf(log2f(x))`` compiled by gcc 12.2 -O2 with glibc 2.36.
    """
    values = np.asarray(x, dtype=np.float32)
    return np.searchsorted(_LOG2F_FLOOR_STARTS, values, side="right").astype(np.int64) - 150


def butterfly_sum(x: NDArray[np.float32], width: int) -> NDArray[np.float32]:
    """CUDA ``warp_reduce_sum<width>`` over the last axis (its length must be ``width``).

    ggml-cuda/common.cuh: ``for (offset = width/2; offset > 0; offset >>= 1)
    x += __shfl_xor_sync(0xffffffff, x, offset, width)``. After the step with offset
    o, lane l holds ``v[l] + v[l ^ o]``; float addition is commutative, so lane l and
    lane l ^ o agree, and keeping the lanes below o is the whole state.
    """
    if x.shape[-1] != width or width & (width - 1):
        raise ValueError(f"butterfly_sum needs a power-of-two last axis of {width}, got {x.shape[-1]}")
    v = x.astype(np.float32)
    offset = width // 2
    while offset:
        v = v[..., :offset] + v[..., offset : 2 * offset]
        offset //= 2
    return v[..., 0]


def fp16_bits(x: ArrayLike) -> NDArray[np.uint16]:
    """IEEE binary16 bits of float32 ``x``, rounded to nearest even (overflow -> Inf).

    Same as ggml's ``GGML_FP32_TO_FP16`` (``ggml_compute_fp32_to_fp16`` or F16C's
    ``_cvtss_sh(x, 0)``) and CUDA's ``__float2half_rn`` / ``make_half2``.
    """
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float32).astype("<f2").view(np.uint16)


def fp16_value(bits: ArrayLike) -> NDArray[np.float32]:
    """float32 value of binary16 ``bits`` (exact), as ``GGML_FP16_TO_FP32``."""
    return np.asarray(bits, dtype=np.uint16).view("<f2").astype(np.float32)

"""A float32 port of ggml's ``quantize_row_q6_K_ref`` (ggml ``src/ggml-quants.c``).

Like ``q4k.py``, the C code's per-super-block loop runs here on all super-blocks at once,
keeping every float32 operation and its order:

1. For each 16-value sub-block i: ``scale_i = make_qx_quants(16, 32, x, L, 1, NULL)`` — ``max``
   is the first value of largest magnitude (sign kept; ``amax < 1e-15`` gives scale 0 and L 0),
   ``iscale = -32 / max``, ``l = clamp(nearest_int(iscale * x), -32, 31)`` and the fit ``sumlx /
   suml2`` with weights ``w = x * x`` (sums left to right); then 18 more inverse scales
   ``-(32 + 0.1 * is) / max`` (is = -9..9, not 0), each kept when ``sumlx² > best · suml2``.
2. ``max_scale``: the first scale of largest magnitude. Below 1e-15 the block is all zero
   bytes (d = 0). Else ``iscale = -128 / max_scale``, ``d = fp16(1 / iscale)``, the int8
   scales ``MIN(127, nearest_int(iscale * scale_i))``.
3. For each sub-block with ``d_i = fp16tof32(d) * scales[i] != 0``: ``L = clamp(nearest_int(x /
   d_i), -32, 31) + 32``; a sub-block with ``d_i == 0`` keeps the L of step 1.

Bit-exactness: as for q4_K, this reproduces the C function built without FMA contraction
(``-ffp-contract=off``). Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2
-ffp-contract=off``, x86-64); ``tests/numerics/test_ggml_vectors.py`` keeps vectors of it.
Blocks where ``x / d_i`` leaves ggml's ``nearest_int`` range (|v| > 4194303: an fp16 ``d`` that
underflowed) are outside the C function's contract (an assertion); their bytes are unspecified.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.blocks import Q6K_SUBBLOCKS, Q6KFields
from compiler.numerics.f32ops import F32, first_of_largest, fp16_bits, fp16_value, sequential_sum

QK_K = 256
NMAX = 32
SUB = QK_K // Q6K_SUBBLOCKS
GROUP_MAX_EPS = F32(1e-15)


def _levels(iscale: NDArray[np.float32], x: NDArray[np.float32]) -> NDArray[np.float32]:
    """``MAX(-32, MIN(31, nearest_int(iscale * x)))`` kept in float32 (exact integers)."""
    return np.clip(np.rint(iscale * x), F32(-NMAX), F32(NMAX - 1))


def _fit(w: NDArray[np.float32], x: NDArray[np.float32], levels: NDArray[np.float32]) -> tuple[NDArray, NDArray]:
    """``sumlx += w*x[i]*l; suml2 += w*l*l`` left to right."""
    return sequential_sum((w * x) * levels), sequential_sum((w * levels) * levels)


def make_qx_quants(x: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``make_qx_quants(16, 32, x, L, 1, NULL)`` on (16, S) float32 (the loop axis first).

    Returns (scale (S,), L (16, S) as float32 codes 0..63).
    """
    peak = first_of_largest(x, axis=0)
    amax = np.abs(peak)
    zero = amax < GROUP_MAX_EPS
    w = x * x
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        iscale = F32(-NMAX) / peak
        levels = _levels(iscale, x)
        sumlx, suml2 = _fit(w, x, levels)
        scale = np.where(suml2 != 0, sumlx / suml2, F32(0)).astype(np.float32)
        best = scale * sumlx
        for step in range(-9, 10):
            if step == 0:
                continue
            iscale = -(F32(NMAX) + F32(0.1) * F32(step)) / peak
            aux = _levels(iscale, x)
            sumlx, suml2 = _fit(w, x, aux)
            better = (suml2 > 0) & (sumlx * sumlx > best * suml2)
            np.copyto(levels, aux, where=better)
            scale = np.where(better, sumlx / suml2, scale).astype(np.float32)
            best = np.where(better, scale * sumlx, best).astype(np.float32)
    levels = np.where(zero, F32(-NMAX), levels)
    scale = np.where(zero, F32(0), scale).astype(np.float32)
    return scale, levels + F32(NMAX)


def quantize_q6_K_ref(x: NDArray[np.float32]) -> Q6KFields:
    """Fields of ``quantize_row_q6_K_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0."""
    with np.errstate(all="ignore"):
        return _quantize(x)


def _quantize(x: NDArray[np.float32]) -> Q6KFields:
    lead = x.shape[:-1]
    nb = x.shape[-1] // QK_K
    blocks = x.reshape(-1, Q6K_SUBBLOCKS, SUB)  # (B, 16, 16)
    sub = np.ascontiguousarray(blocks.reshape(-1, SUB).T, dtype=np.float32)  # (16, S): loop axis first
    scales, codes = make_qx_quants(sub)
    scales = scales.reshape(-1, Q6K_SUBBLOCKS)  # (B, 16)
    max_scale = first_of_largest(scales, axis=1)
    max_abs = np.abs(max_scale)
    empty = max_abs < GROUP_MAX_EPS
    iscale = (F32(-128) / max_scale).astype(np.float32)
    d = fp16_value(fp16_bits(F32(1) / iscale))
    # MIN(127, nearest_int(...)) lies in -128..127 (|scale_i| <= |max_scale|): an int8 as it is
    ints = np.minimum(np.rint(iscale[:, None] * scales), F32(127))
    ints = np.where(empty[:, None], F32(0), ints)
    d = np.where(empty, F32(0), d).astype(np.float32)

    d_sub = (d[:, None] * ints).reshape(-1)  # (S,) float32: exact
    requant = np.clip(np.rint(sub / d_sub), F32(-NMAX), F32(NMAX - 1)) + F32(NMAX)
    codes = np.where(d_sub != 0, requant, codes)
    codes = np.where(np.repeat(empty, Q6K_SUBBLOCKS), F32(0), codes)  # memset: codes 0

    q = np.ascontiguousarray(codes.T).reshape(lead + (nb, QK_K)).astype(np.int16) - NMAX
    return Q6KFields(
        d=d.reshape(lead + (nb,)),
        scales=ints.astype(np.int8).reshape(lead + (nb, Q6K_SUBBLOCKS)),
        q=q.astype(np.int8),
    )

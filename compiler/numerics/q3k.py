"""A float32 port of ggml's ``quantize_row_q3_K_ref`` (ggml ``src/ggml-quants.c``).

Like ``q4k.py``, the C code's per-super-block loop runs here on all super-blocks at once, keeping every
float32 operation and its order:

1. For each 16-value sub-block j: ``scale_j = make_q3_quants(16, 4, x, L, true)`` —
   ``max`` is the first value of largest magnitude (sign kept; ``amax < 1e-15`` gives scale 0 and L 0,
   not the centre 4), ``iscale = -4.f / max``, ``l = clamp(nearest_int(iscale * x), -4, 3)``, the sums
   ``sumlx = Σ w*x*l``, ``suml2 = Σ w*l*l`` with ``w = x*x`` (left to right); then up to five passes
   over i = 0..15, each trying ``new_l = clamp(nearest_int(x*sl2/slx), -4, 3)`` with value i's terms
   taken out of the sums (``slx > 0`` only), kept when ``slx'² · suml2 > sumlx² · sl2'``, the sums
   updated at once; a pass that keeps nothing ends the search (the next would repeat it, so every pass
   runs here). ``scale_j = suml2 > 0 ? sumlx/suml2 : 0``, ``L = l + 4``.
2. ``max_scale``: the first scale of largest magnitude. If it is nonzero, ``iscale = -32.f/max_scale``,
   the 6-bit scale codes ``clamp(nearest_int(iscale * scale_j), -32, 31) + 32`` and ``d = fp16(1/iscale)``;
   else every code 0 (``memset``) and ``d = fp16(0.f)``.
3. For each sub-block with ``d_j = fp16tof32(d) * (code_j - 32) != 0``: ``L = clamp(nearest_int(x /
   d_j), -4, 3) + 4``; a sub-block with ``d_j == 0`` keeps the L of step 1.
4. Packing (``pack_blocks``): bit 2 of each L in ``hmask`` (bit i of ``hmask[l]`` for value 32i + l),
   its low two bits in ``qs`` as q2_K's, the 6-bit codes in ``scales[12]`` (low nibbles of codes j and
   j + 8 in byte j, the top two bits of codes k, k + 4, k + 8, k + 12 in byte 8 + k, from bit 0 up).

Bit-exactness: as for q4_K, this reproduces the C function built without FMA contraction
(``-ffp-contract=off``). Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2
-ffp-contract=off``, x86-64, assertions on); ``tests/numerics/test_ggml_vectors.py`` keeps vectors of it
(``data/ggml_cpu_q3_K.txt``). Blocks whose arithmetic trips ggml's ``nearest_int`` assertion (|v| >
4194303 or NaN: a ``max_scale`` below ~32 / FLT_MAX, or float32 overflow of ``w*x*l`` for |x| beyond
~1e12, far past fp16's d) are outside the C function's contract; their bytes are unspecified.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.blocks import Q3K_SUBBLOCKS, Q3KFields
from compiler.numerics.f32ops import F32, first_of_largest, fp16_bits, fp16_value, sequential_sum
from compiler.numerics.q4k import by_chunks

QK_K = 256
SUB = QK_K // Q3K_SUBBLOCKS
NMAX = 4
NTRY = 5
GROUP_MAX_EPS = F32(1e-15)

def _levels(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """``MAX(-4, MIN(3, nearest_int(v)))`` kept in float32 (exact integers)."""
    return np.clip(np.rint(values), F32(-NMAX), F32(NMAX - 1))


def make_q3_quants(x: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``make_q3_quants(16, 4, x, L, true)`` on (16, S) float32 (the loop axis first).

    Returns (scale (S,), L (16, S) as float32 codes 0..7; 0 for a sub-block below 1e-15).
    """
    peak = first_of_largest(x, axis=0)
    zero = np.abs(peak) < GROUP_MAX_EPS
    iscale = F32(-NMAX) / peak
    levels = _levels(iscale * x)  # (16, S)
    w = x * x
    wx = w * x
    sumlx = sequential_sum(wx * levels)
    suml2 = sequential_sum((w * levels) * levels)
    for _ in range(NTRY):
        for i in range(x.shape[0]):
            old = levels[i]
            slx_without = sumlx - wx[i] * old
            sl2_without = suml2 - (w[i] * old) * old
            new = _levels((x[i] * sl2_without) / slx_without)
            slx = slx_without + wx[i] * new
            sl2 = sl2_without + (w[i] * new) * new
            keep = (slx_without > 0) & (new != old) & (sl2 > 0) & ((slx * slx) * suml2 > (sumlx * sumlx) * sl2)
            levels[i] = np.where(keep, new, old)
            sumlx = np.where(keep, slx, sumlx)
            suml2 = np.where(keep, sl2, suml2)
    scale = np.where(suml2 > 0, sumlx / suml2, F32(0)).astype(np.float32)
    scale = np.where(zero, F32(0), scale).astype(np.float32)
    codes = np.where(zero, F32(0), levels + F32(NMAX))
    return scale, codes


def quantize_q3_K_ref(x: NDArray[np.float32]) -> Q3KFields:
    """Fields of ``quantize_row_q3_K_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0."""
    d, scales, q = by_chunks(x, _quantize_chunk)
    per_block = x.shape[:-1] + (x.shape[-1] // QK_K,)
    return Q3KFields(d=d.reshape(per_block), scales=scales.reshape(per_block + (Q3K_SUBBLOCKS,)),
                     q=q.reshape(per_block + (QK_K,)))


def _quantize_chunk(x: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.int8], NDArray[np.int8]]:
    """Steps 1-3 on (B, 256) float32 -> (d, the scales code - 32, the codes L - 4), leading axis B."""
    sub = np.ascontiguousarray(x.reshape(-1, SUB).T, dtype=np.float32)  # (16, S): loop axis first
    scales, codes = make_q3_quants(sub)
    scales = scales.reshape(-1, Q3K_SUBBLOCKS)  # (B, 16)
    max_scale = first_of_largest(scales, axis=1)
    nonzero = max_scale != 0
    iscale = (F32(-32) / max_scale).astype(np.float32)
    sc = np.clip(np.rint(iscale[:, None] * scales), F32(-32), F32(31))
    sc = np.where(nonzero[:, None], sc, F32(-32))  # memset(scales, 0): code 0, scale -32
    d = np.where(nonzero, fp16_value(fp16_bits(F32(1) / iscale)), F32(0)).astype(np.float32)

    d_sub = (d[:, None] * sc).reshape(-1)  # (S,) float32: exact
    requant = _levels(sub / d_sub) + F32(NMAX)
    codes = np.where(d_sub != 0, requant, codes)

    q = np.ascontiguousarray(codes.T).reshape(-1, QK_K) - F32(NMAX)
    return d, sc.astype(np.int8), q.astype(np.int8)

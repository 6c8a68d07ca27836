"""A float32 port of ggml's ``quantize_row_q2_K_ref`` (ggml ``src/ggml-quants.c``).

Like ``q4k.py``, the C code's per-super-block loop runs here on all super-blocks at once, keeping every
float32 operation and its order:

1. For each 16-value sub-block j: ``weights = |x|``, then ``make_qkx2_quants(16, 3, x, weights, L,
   &mins[j], Laux, -0.5f, 0.1f, 15, true)`` -> scale_j, min_j: q4_K's weighted search
   (:func:`compiler.numerics.q4k.make_qkx2_quants`) with codes 0..3, 16 candidate inverse scales ``(-0.5
   + 0.1 * is + 3) / (max - min)`` and ``use_mad`` true, so the error is Σ w * |diff|.
2. ``max_scale``, ``max_min``: the largest scale and min, from 0 (``if (v > max) max = v``). The scale
   byte of sub-block j is ``nearest_int(15.f/max_scale * scale_j)`` (0 when ``max_scale`` is not
   positive) or-ed with ``nearest_int(15.f/max_min * min_j) << 4``, both stored into a ``uint8_t``
   without a clamp: the low nibble is the 4-bit scale, the high one the 4-bit min.
   ``d = fp16(max_scale/15.f)``, ``dmin = fp16(max_min/15.f)`` (fp16 +0 when not positive).
3. For each sub-block with ``d_j = fp16tof32(d) * (byte & 0xF) != 0``: ``L = clamp(nearest_int((x +
   dm_j)/d_j), 0, 3)`` with ``dm_j = fp16tof32(dmin) * (byte >> 4)``; a sub-block with ``d_j == 0``
   keeps the L of step 1 (so a super-block whose scales are all 0 stores step 1's codes beside d = 0).
4. Packing: byte ``qs[32h + l]`` holds value 128h + 32i + l in bits 2i..2i+1 (i = 0..3).

Bit-exactness: as for q4_K, this reproduces the C function built without FMA contraction
(``-ffp-contract=off``). Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2
-ffp-contract=off``, x86-64, assertions on); ``tests/numerics/test_ggml_vectors.py`` keeps vectors of it
(``data/ggml_cpu_q2_K.txt``). Scales are never negative in practice (the fits of step 1 have positive
slope), but a negative one would be stored as C stores it: the int's low byte, its high nibble or-ed
with the min's, which the byte arithmetic here reproduces. As for q4_K, blocks whose arithmetic trips
ggml's ``nearest_int`` assertion (|v| > 4194303 or NaN: a ``max_scale`` or ``max_min`` below ~15 /
FLT_MAX, or ``(x + dm_j) / d_j`` of a sub-block whose 4-bit scale is far below its fit, as when dmin is
large and d tiny) are outside the C function's contract; their bytes are unspecified.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.blocks import Q2K_SUBBLOCKS, Q2KFields
from compiler.numerics.f32ops import F32, fp16_bits, fp16_value, nearest_int
from compiler.numerics.q4k import by_chunks, make_qkx2_quants

QK_K = 256
SUB = QK_K // Q2K_SUBBLOCKS
NMAX = 3
RMIN = F32(-0.5)
RDELTA = F32(0.1)
NSTEP = 15
Q4SCALE = F32(15)
"""q2_K's ``make_qkx2_quants(16, 3, ..., -0.5f, 0.1f, 15, true)`` and its ``q4scale = 15.f``."""

def quantize_q2_K_ref(x: NDArray[np.float32]) -> Q2KFields:
    """Fields of ``quantize_row_q2_K_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0."""
    d, dmin, scale_bytes, q = by_chunks(x, _quantize_chunk)
    per_block = x.shape[:-1] + (x.shape[-1] // QK_K,)
    scale_bytes = scale_bytes.reshape(per_block + (Q2K_SUBBLOCKS,))
    return Q2KFields(d=d.reshape(per_block), dmin=dmin.reshape(per_block), scales=scale_bytes & 0xF,
                     mins=scale_bytes >> 4, q=q.reshape(per_block + (QK_K,)))


def _quantize_chunk(
    x: NDArray[np.float32],
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.uint8], NDArray[np.uint8]]:
    """Steps 1-3 on (B, 256) float32 -> (d, dmin, the 16 scale bytes, the 256 codes), leading axis B."""
    sub = np.ascontiguousarray(x.reshape(-1, SUB).T, dtype=np.float32)  # (16, S): loop axis first
    scales, mins, levels = make_qkx2_quants(sub, np.abs(sub), NMAX, RMIN, RDELTA, NSTEP, use_mad=True)

    scales = scales.reshape(-1, Q2K_SUBBLOCKS)  # (B, 16)
    mins = mins.reshape(-1, Q2K_SUBBLOCKS)
    max_scale = np.maximum(np.max(scales, axis=1), F32(0))
    max_min = np.maximum(np.max(mins, axis=1), F32(0))
    has_scale = max_scale > 0
    has_min = max_min > 0
    inv_scale = np.where(has_scale, Q4SCALE / max_scale, F32(0)).astype(np.float32)
    inv_min = np.where(has_min, Q4SCALE / max_min, F32(0)).astype(np.float32)
    # y.scales[j] = l (a uint8_t: the int's low byte), then |= l << 4 for the min (again the low byte)
    low = np.where(has_scale[:, None], nearest_int(inv_scale[:, None] * scales), 0)
    high = np.where(has_min[:, None], nearest_int(inv_min[:, None] * mins), 0)
    scale_bytes = ((low & 0xFF) | (high << 4)) & 0xFF
    d = np.where(has_scale, fp16_value(fp16_bits(max_scale / Q4SCALE)), F32(0)).astype(np.float32)
    dmin = np.where(has_min, fp16_value(fp16_bits(max_min / Q4SCALE)), F32(0)).astype(np.float32)

    d_sub = (d[:, None] * (scale_bytes & 0xF).astype(np.float32)).reshape(-1)  # (S,): exact
    dm_sub = (dmin[:, None] * (scale_bytes >> 4).astype(np.float32)).reshape(-1)
    requant = np.clip(np.rint((sub + dm_sub) / d_sub), F32(0), F32(NMAX))
    codes = np.where(d_sub != 0, requant, levels.astype(np.float32))

    q = np.ascontiguousarray(codes.T).reshape(-1, QK_K).astype(np.uint8)
    return d, dmin, scale_bytes.astype(np.uint8), q

"""A float32 port of ggml's ``quantize_row_q5_K_ref`` (ggml ``src/ggml-quants.c``).

``quantize_row_q5_K_ref`` is ``quantize_row_q4_K_ref`` (``q4k.py``, whose steps it shares, one
definition: :func:`compiler.numerics.q4k.quantize_k_ref`) with 5-bit codes:

1. For each 32-value sub-block j: ``sum_x2 = Σ x*x`` (left to right), ``av_x = sqrtf(sum_x2/32)``,
   ``weights = av_x + |x|``, then ``make_qkx2_quants(32, 31, x, weights, L, &mins[j], Laux, -0.5f,
   0.1f, 15, false)`` -> scale_j, min_j: 16 candidate inverse scales ``(-0.5 + 0.1 * is + 31) /
   (max - min)``, is = 0..15 (q4_K: 21 around 15, from -1).
2. As q4_K: ``ls``, ``lm`` = ``MIN(63, (uint8_t)nearest_int(63.f/max * v))``, packed by
   ``get_scale_min_k4``'s inverse; ``d = fp16(max_scale/63.f)``, ``dmin = fp16(max_min/63.f)``.
3. For each sub-block with ``d_j = fp16tof32(d) * ls != 0``: ``L = clamp(nearest_int((x +
   dmin*lm)/d_j), 0, 31)``; a sub-block with ``d_j == 0`` keeps the L of step 1.
4. Packing (``pack_blocks``): ``qs`` holds each code's low four bits as q4_K's nibbles, ``qh[l]``
   bit i the top bit of value 32i + l.

Bit-exactness: as for q4_K, this reproduces the C function built without FMA contraction
(``-ffp-contract=off``). Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2
-ffp-contract=off``, x86-64, assertions on); ``tests/numerics/test_ggml_vectors.py`` keeps
vectors of it (``data/ggml_cpu_q5_K.txt``). As for q4_K, blocks whose arithmetic trips ggml's
``nearest_int`` assertion (|v| > 4194303 or NaN: scales below ~63 / FLT_MAX, i.e. blocks with
|x| below ~3e-36, or a ``d`` / ``dmin`` that overflows fp16, |x| from ~4e6 up) are outside the C
function's contract; their bytes are unspecified.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.blocks import Q5KFields
from compiler.numerics.f32ops import F32
from compiler.numerics.q4k import quantize_k_ref

NMAX = 31
RMIN = F32(-0.5)
RDELTA = F32(0.1)
NSTEP = 15
"""q5_K's ``make_qkx2_quants(32, 31, ..., -0.5f, 0.1f, 15, false)``."""


def quantize_q5_K_ref(x: NDArray[np.float32]) -> Q5KFields:
    """Fields of ``quantize_row_q5_K_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0."""
    return Q5KFields(*quantize_k_ref(x, NMAX, RMIN, RDELTA, NSTEP))

"""A float32 port of ggml's ``quantize_row_iq4_nl_impl`` (ggml ``src/ggml-quants.c``) and its three callers.

iq4_nl and iq4_xs share one search: each 32 values get the scale d whose codes, each value's nearest entry
of ``kvalues_iq4nl`` (``best_index_int8``), best fit the values in the weighted least-squares sense. As in
``q4k.py``, the C code's per-block loop runs here on all blocks at once (loop axis first), keeping every
float32 operation and its order. Per 32-value block, with ``quant_weights`` NULL (no importance matrix):

1. ``w = x*x``; ``max`` = the first value of largest magnitude (sign kept). A block with ``amax < 1e-15``
   gets scale 0 and leaves the codes array ``L`` untouched (``continue``).
2. ``d = ntry > 0 ? -max/values[0] : max/values[0]`` (values[0] = -127), ``id = 1/d``, ``L =
   best_index_int8(id*x)``, ``sumqx = Σ (w*q)*x``, ``sumq2 = Σ (w*q)*q`` left to right (q = the kvalue);
   ``d = sumq2 > 0 ? sumqx/sumq2 : 0``, ``best = d*sumqx``.
3. For itry = -ntry..ntry: ``id = (itry + values[0])/max``, the same sums over ``best_index_int8(id*x)``;
   where ``sumq2 > 0 && sumqx*sumqx > best*sumq2``: ``d = sumqx/sumq2``, ``best = d*sumqx``.

``best_index_int8(x)``: 0 for x <= -127, 15 for x >= 113, else the bisection ends at the neighbours
``values[mu-1] <= x < values[mu]`` and returns ``mu-1`` when ``x - values[mu-1] < values[mu] - x`` in
float32, else ``mu`` (a tie goes up); a NaN x fails every comparison and gets 15. Near each midpoint both
differences are exact in float32, so that test is ``x < (values[mu-1] + values[mu]) / 2``: the index is
the number of the 15 midpoints (all multiples of 1/2) at or below x, one table lookup by ``floor(2x)``
(:func:`best_index_int8`; tests compare it with the bisection on the floats around every midpoint).

The callers (``quantize_iq4_nl``, ``quantize_row_iq4_nl_ref``, ``quantize_iq4_xs``):

* :func:`quantize_iq4_nl` with ``search=True`` is ``quantize_iq4_nl(..., quant_weights = NULL)``, ntry 7:
  what ``ggml_quantize_chunk`` (llama-quantize without an imatrix) writes. ``dh = fp16(d)``; then every
  code is requantized: ``id = d ? 1/d : 0``, ``L = best_index_int8(id*x)`` (a block below 1e-15: d = 0,
  every code 8, whose kvalue 1 times d = 0 gives +0).
* :func:`quantize_iq4_nl` with ``search=False`` is ``quantize_row_iq4_nl_ref``, ntry -1: ggml's
  ``from_float_ref`` and its CPU backend's ``from_float`` (an f32 -> iq4_nl copy, an iq4_nl KV cache).
  There is no search: d is the least-squares fit of step 2, stored as fp16, and the codes stay those of
  ``id = 1/(max/-127)``, not requantized with d. A block below 1e-15 stores d = 0 beside the codes left
  in ``L`` by the row's previous block (its ``uint8_t L[32]`` lives across the row's loop); before a
  row's first block above 1e-15 ``L`` is uninitialized stack memory in C, and here every code 8. The
  codes matter to the dequantization only through the sign of 0 (d = 0 times a negative kvalue is -0).
* :func:`quantize_iq4_xs` is ``quantize_row_iq4_xs_ref`` = ``quantize_iq4_xs(..., NULL)``, ntry 7, per
  256 values: steps 1-3 per 32 give ``scales[ib]``; ``max_scale`` is the first of largest magnitude (0 if
  every scale is 0); ``d = -max_scale/32`` (float32, so ``dh = fp16(d)`` is -0 for an all-zero
  super-block); ``id = d ? 1/d : 0``; per sub-block ``l = clamp(nearest_int(id*scales[ib]), -32, 31)``,
  ``dl = d*l`` with the float32 d, not its fp16, ``idl = dl ? 1/dl : 0``, ``L = best_index_int8(idl*x)``,
  and ``l + 32`` is stored (its low nibble in ``scales_l``, its top two bits in ``scales_h``).

Bit-exactness: like the K-quant ports, this reproduces the C functions built without FMA contraction
(``-ffp-contract=off``). Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2
-ffp-contract=off``, x86-64, assertions on); ``tests/numerics/test_ggml_vectors.py`` keeps vectors of it
(``data/ggml_cpu_iq4_nl.txt``, ``ggml_cpu_iq4_nl_ref.txt``, ``ggml_cpu_iq4_xs.txt``). Inputs whose sums
overflow float32 (|x| beyond ~1e12) or whose iq4_xs d makes ``id*scales[ib]`` trip ``nearest_int``'s
assertion are outside the C functions' contract; their bytes are unspecified.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.format_table import IQ4NL_KVALUES
from compiler.numerics.blocks import IQ4NL_KVALUE_ARRAY, IQ4XS_SUBBLOCKS, IQ4XSFields, Q8Fields
from compiler.numerics.f32ops import F32, first_of_largest, fp16_bits, fp16_value, sequential_sum

BLOCK = 32
QK_K = 256
NTRY = 7
"""``quantize_iq4_nl`` and ``quantize_iq4_xs`` pass ntry 7; ``quantize_row_iq4_nl_ref`` passes -1."""
GROUP_MAX_EPS = F32(1e-15)
CODE_OF_ZERO = 8
"""``best_index_int8(0)``: kvalue 1 is nearer 0 than -10."""

_KVALUES = IQ4NL_KVALUE_ARRAY.astype(np.float32)
_MIDPOINTS = (_KVALUES[:-1] + _KVALUES[1:]) / F32(2)
_HALVES = (-256, 230)
"""x is clipped to half this range: below -127 (2x <= -254) the index is 0, from 113 (2x >= 226) it is 15."""
_INDEX_OF_HALF = np.searchsorted(_MIDPOINTS, np.arange(_HALVES[0], _HALVES[1] + 1) / 2, side="right")
"""For j in _HALVES, the number of midpoints at or below j / 2: the index of every x in [j/2, (j+1)/2)."""
_CHUNK = 8192
"""32-value blocks per vectorised step (1 MiB per (32, S) float32 work array)."""


def best_index_int8(x: NDArray[np.float32]) -> NDArray[np.intp]:
    """ggml-quants.c ``best_index_int8(16, kvalues_iq4nl, x)`` of every entry of float32 ``x``: the number
    of midpoints between neighbouring kvalues at or below x (module docstring), 15 for NaN."""
    halves = np.floor(F32(2) * np.clip(x, F32(_HALVES[0] / 2), F32(_HALVES[1] / 2)))
    nan = np.isnan(halves)
    if nan.any():
        halves = np.where(nan, F32(_HALVES[1]), halves)
    return _INDEX_OF_HALF[halves.astype(np.intp) - _HALVES[0]]


def _sums(x: NDArray[np.float32], w: NDArray[np.float32], codes: NDArray[np.intp]) -> tuple[NDArray, NDArray]:
    """(Σ (w*q)*x, Σ (w*q)*q) left to right over axis 0, q the codes' kvalues."""
    q = _KVALUES[codes]
    wq = w * q
    return sequential_sum(wq * x), sequential_sum(wq * q)


def fit_blocks(x: NDArray[np.float32], ntry: int) -> tuple[NDArray[np.float32], NDArray[np.intp], NDArray[np.bool_]]:
    """Steps 1-3 on (32, S) float32 blocks, the loop axis first.

    Returns (scale (S,), the codes of step 2 (32, S), the blocks below 1e-15 (S,), whose scale is 0).
    """
    w = x * x
    peak = first_of_largest(x, axis=0)
    small = np.abs(peak) < GROUP_MAX_EPS
    first = (-peak if ntry > 0 else peak) / F32(IQ4NL_KVALUES[0])
    codes = best_index_int8((F32(1) / first) * x)
    sumqx, sumq2 = _sums(x, w, codes)
    scale = np.where(sumq2 > 0, sumqx / sumq2, F32(0)).astype(np.float32)
    best = scale * sumqx
    for itry in range(-ntry, ntry + 1):
        inverse = F32(itry + IQ4NL_KVALUES[0]) / peak
        sumqx, sumq2 = _sums(x, w, best_index_int8(inverse * x))
        better = (sumq2 > 0) & (sumqx * sumqx > best * sumq2)
        scale = np.where(better, sumqx / sumq2, scale).astype(np.float32)
        best = np.where(better, scale * sumqx, best).astype(np.float32)
    return np.where(small, F32(0), scale).astype(np.float32), codes, small


def _columns(flat: NDArray[np.float32]) -> NDArray[np.float32]:
    """(B, 32) -> (32, B), the loop axis first."""
    return np.ascontiguousarray(flat.T, dtype=np.float32)


def _nl_chunk(x: NDArray[np.float32], search: bool) -> tuple[NDArray, NDArray, NDArray]:
    """(B, 32) float32 -> (fp16 d as float32 (B,), codes (B, 32), below 1e-15 (B,))."""
    sub = _columns(x)
    scale, codes, small = fit_blocks(sub, NTRY if search else -1)
    d = fp16_value(fp16_bits(scale))
    if search:
        inverse = np.where(scale != 0, F32(1) / scale, F32(0)).astype(np.float32)
        codes = best_index_int8(inverse * sub)
    return d, codes.T, small


def quantize_iq4_nl(x: NDArray[np.float32], search: bool = True) -> Q8Fields:
    """Fields of ``quantize_iq4_nl(x, ..., NULL)`` (``search``) or of ``quantize_row_iq4_nl_ref`` called
    once per row (not ``search``) for float32 ``x`` of shape (..., K), K % 32 == 0."""
    lead = x.shape[:-1]
    nb = x.shape[-1] // BLOCK
    flat = x.reshape(-1, BLOCK)
    with np.errstate(all="ignore"):
        parts = [_nl_chunk(flat[i : i + _CHUNK], search) for i in range(0, max(flat.shape[0], 1), _CHUNK)]
    d, codes, small = (np.concatenate([p[i] for p in parts]) for i in range(3))
    if not search:
        rows = int(np.prod(lead, dtype=np.int64))
        codes = _stale_codes(codes.reshape(rows, nb, BLOCK), small.reshape(rows, nb))
    return Q8Fields(d=d.reshape(lead + (nb,)), q=IQ4NL_KVALUE_ARRAY[codes].reshape(lead + (nb, BLOCK)))


def _stale_codes(codes: NDArray[np.intp], small: NDArray[np.bool_]) -> NDArray[np.intp]:
    """``quantize_row_iq4_nl_ref``'s codes of (rows, nb) blocks: a block below 1e-15 keeps the codes of the
    row's last block above it (code 8 before the first: uninitialized in C)."""
    nb = codes.shape[1]
    source = np.maximum.accumulate(np.where(small, -1, np.arange(nb)), axis=1)  # (rows, nb)
    kept = np.take_along_axis(codes, np.maximum(source, 0)[..., None], axis=1)
    return np.where((source < 0)[..., None], CODE_OF_ZERO, kept)


def _xs_chunk(x: NDArray[np.float32]) -> tuple[NDArray, NDArray, NDArray]:
    """(B, 256) float32 -> (fp16 d as float32 (B,), scale codes l (B, 8), codes (B, 256))."""
    sub = _columns(x.reshape(-1, BLOCK))
    scales, _, _ = fit_blocks(sub, NTRY)
    scales = scales.reshape(-1, IQ4XS_SUBBLOCKS)
    max_scale = first_of_largest(scales, axis=1)
    max_scale = np.where(np.abs(max_scale) > 0, max_scale, F32(0))
    d = (-max_scale / F32(32)).astype(np.float32)
    inverse = np.where(d != 0, F32(1) / d, F32(0)).astype(np.float32)
    l = np.clip(np.rint(inverse[:, None] * scales), F32(-32), F32(31))  # nearest_int: half to even
    dl = (d[:, None] * l).reshape(-1)
    inverse_l = np.where(dl != 0, F32(1) / dl, F32(0)).astype(np.float32)
    codes = best_index_int8(inverse_l * sub)
    return fp16_value(fp16_bits(d)), l.astype(np.int8), codes.T.reshape(-1, QK_K)


def quantize_iq4_xs(x: NDArray[np.float32]) -> IQ4XSFields:
    """Fields of ``quantize_row_iq4_xs_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0."""
    lead = x.shape[:-1]
    nb = x.shape[-1] // QK_K
    flat = x.reshape(-1, QK_K)
    step = _CHUNK // IQ4XS_SUBBLOCKS
    with np.errstate(all="ignore"):
        parts = [_xs_chunk(flat[i : i + step]) for i in range(0, max(flat.shape[0], 1), step)]
    d, scales, codes = (np.concatenate([p[i] for p in parts]) for i in range(3))
    per_block = lead + (nb,)
    return IQ4XSFields(d=d.reshape(per_block), scales=scales.reshape(per_block + (IQ4XS_SUBBLOCKS,)),
                       q=IQ4NL_KVALUE_ARRAY[codes].reshape(per_block + (QK_K,)))

"""A float32 port of ggml's ``quantize_row_q4_K_ref`` (ggml ``src/ggml-quants.c``).

The C code runs per 256-value super-block; this port runs the same steps on all
super-blocks at once (numpy arrays over blocks), keeping every float32 operation
and its order:

1. For each 32-value sub-block j: ``sum_x2 = Σ x*x`` (left to right), ``av_x =
   sqrtf(sum_x2/32)``, ``weights = av_x + |x|``, then ``make_qkx2_quants(32, 15, x,
   weights, L, &mins[j], Laux, -1.f, 0.1f, 20, false)`` -> scale_j, min_j (a weighted
   least-squares search over 21 candidate inverse scales; ``use_mad`` false, so the
   error is Σ w * diff²).
2. ``inv_scale = max_scale > 0 ? 63.f/max_scale : 0``, same for the mins;
   ``ls = MIN(63, (uint8_t)nearest_int(inv_scale*scale_j))`` and likewise ``lm``.
3. ``d = fp16(max_scale/63.f)``, ``dmin = fp16(max_min/63.f)``.
4. For each sub-block with ``d_j = fp16tof32(d) * ls != 0``: ``L = clamp(nearest_int((x
   + dmin*lm)/d_j), 0, 15)``; a sub-block with ``d_j == 0`` keeps the L of step 1.

Bit-exactness: this reproduces the C function built without FMA contraction
(``-ffp-contract=off``, or any x86-64 build without ``-mfma``). A build that lets
the compiler fuse ``a*b + c`` (e.g. ``-march=native`` with GCC's default
``-ffp-contract=fast``) rounds differently in the weighted sums and can pick other
scales for some blocks (about 1% of super-blocks of Gaussian data).

Checked against ggml's own C (ggml-org/ggml d99724f2, ``gcc -O2 -ffp-contract=off``)
on about 100,000 super-blocks of eleven input families, all bit-identical;
``tests/numerics/test_ggml_vectors.py`` keeps 80 of them as vectors.

``quantize_row_q5_K_ref`` is the same function with 5-bit codes (``make_qkx2_quants(32, 31, ...,
-0.5f, 0.1f, 15, false)``, requantized to 0..31): :func:`quantize_k_ref` is both, ``q5k.py``
names q5_K's parameters and packs its fields.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.blocks import Q4KFields
from compiler.numerics.f32ops import F32, fp16_bits, fp16_value, nearest_int, sequential_sum

QK_K = 256
NMAX = 15
RMIN = F32(-1.0)
RDELTA = F32(0.1)
NSTEP = 20
"""q4_K's ``make_qkx2_quants(32, 15, ..., -1.f, 0.1f, 20, false)``: the code range 0..NMAX and the
inverse scales ``(RMIN + RDELTA * is + NMAX) / (max - min)`` for is = 0..NSTEP."""


def _weighted_error(
    w: NDArray[np.float32],
    x: NDArray[np.float32],
    scale: NDArray[np.float32],
    minimum: NDArray[np.float32],
    levels: NDArray[np.float32],
    use_mad: bool = False,
) -> NDArray[np.float32]:
    """``Σ w * (scale*l + min - x)²`` left to right, or ``Σ w * |scale*l + min - x|`` with ``use_mad``."""
    diff = (scale * levels + minimum) - x
    return sequential_sum(w * (np.abs(diff) if use_mad else diff * diff))


def _levels(
    iscale: NDArray[np.float32], x: NDArray[np.float32], minimum: NDArray[np.float32], nmax: int
) -> NDArray[np.float32]:
    """``MAX(0, MIN(nmax, nearest_int(iscale*(x - min))))`` kept in float32.

    float32 ``rint`` is ``nearest_int`` for the |v| <= nmax + 1 that occur here (and for every
    |v| <= 4194303, ggml's assertion); clamping in float gives the same integers without int
    conversions.
    """
    v = x - minimum
    v *= iscale
    np.rint(v, out=v)
    return np.clip(v, F32(0), F32(nmax), out=v)


def make_qkx2_quants(
    x: NDArray[np.float32],
    w: NDArray[np.float32],
    nmax: int = NMAX,
    rmin: np.float32 = RMIN,
    rdelta: np.float32 = RDELTA,
    nstep: int = NSTEP,
    use_mad: bool = False,
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.uint8]]:
    """``make_qkx2_quants(n, nmax, x, w, L, &the_min, Laux, rmin, rdelta, nstep, use_mad)``; the
    defaults are q4_K's (-1, 0.1, 20, nmax 15, false), q5_K passes (31, -0.5, 0.1, 15, false), q2_K
    (n = 16: 3, -0.5, 0.1, 15, true: the error is Σ w * |diff|).

    ``x``, ``w``: (n, S) float32, the loop axis first, S independent sub-blocks.
    Returns (scale, the_min, L) with L (n, S) uint8.
    """
    minimum = np.minimum(np.min(x, axis=0), F32(0))  # "if (min > 0) min = 0"
    maximum = np.max(x, axis=0)
    # C: sum_w = w[0]; sum_x = sum_w*x[0]; for i >= 1: sum_w += w[i]; sum_x += w[i]*x[i]
    sum_w = w[0].copy()
    sum_x = w[0] * x[0]
    for i in range(1, x.shape[0]):
        sum_w = sum_w + w[i]
        sum_x = sum_x + w[i] * x[i]
    flat = maximum == minimum
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        iscale = F32(nmax) / (maximum - minimum)
        scale = F32(1.0) / iscale
        levels = _levels(iscale, x, minimum, nmax)
        best_error = _weighted_error(w, x, scale, minimum, levels, use_mad)
        for step in range(nstep + 1):
            # ggml reads the *current* min here: once a step improves the fit, later
            # steps search around the fitted min, not the data minimum.
            iscale = ((F32(rmin) + F32(rdelta) * F32(step)) + F32(nmax)) / (maximum - minimum)
            aux = _levels(iscale, x, minimum, nmax)
            wl = w * aux
            sum_l = sequential_sum(wl)
            sum_l2 = sequential_sum(wl * aux)
            sum_xl = sequential_sum(wl * x)
            det = sum_w * sum_l2 - sum_l * sum_l
            this_scale = (sum_w * sum_xl - sum_x * sum_l) / det
            this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det
            clamp = this_min > 0
            this_min = np.where(clamp, F32(0), this_min)
            this_scale = np.where(clamp, sum_xl / sum_l2, this_scale)
            cur_error = _weighted_error(w, x, this_scale, this_min, aux, use_mad)
            better = (det > 0) & (cur_error < best_error) & ~flat
            np.copyto(levels, aux, where=better)
            best_error = np.where(better, cur_error, best_error)
            scale = np.where(better, this_scale, scale)
            minimum = np.where(better, this_min, minimum)
    levels = np.where(flat, F32(0), levels)
    scale = np.where(flat, F32(0), scale).astype(np.float32)
    return scale, (-minimum).astype(np.float32), levels.astype(np.uint8)


def _to_6bit(values: NDArray[np.float32]) -> NDArray[np.uint8]:
    """``uint8_t v = nearest_int(f); v = MIN(63, v)`` including the uint8 wrap."""
    return np.minimum(nearest_int(values) & 0xFF, 63).astype(np.uint8)


def quantize_q4_K_ref(x: NDArray[np.float32]) -> Q4KFields:
    """Fields of ``quantize_row_q4_K_ref`` for float32 ``x`` of shape (..., K), K % 256 == 0.

    Blocks whose scales are below ~63 / FLT_MAX (|x| around 1e-37 and less, all
    values of the block) make ``63.f/max_scale`` overflow; ggml aborts there on the
    ``nearest_int`` assertion, and the bytes produced here for them are unspecified.
    """
    return Q4KFields(*quantize_k_ref(x, NMAX, RMIN, RDELTA, NSTEP))


def quantize_k_ref(
    x: NDArray[np.float32], nmax: int, rmin: np.float32, rdelta: np.float32, nstep: int
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """Steps 1-4 of ``quantize_row_q4_K_ref`` / ``quantize_row_q5_K_ref`` (module docstring) with
    ``make_qkx2_quants(32, nmax, ..., rmin, rdelta, nstep, false)`` and codes 0..nmax, on float32
    ``x`` (..., K), K % 256 == 0: (d, dmin, scales, mins, q) shaped as ``Q4KFields``' / ``Q5KFields``'."""
    per_block = x.shape[:-1] + (x.shape[-1] // QK_K,)
    d, dmin, ls, lm, q = by_chunks(x, lambda chunk: _quantize_chunk(chunk, nmax, rmin, rdelta, nstep))
    return (d.reshape(per_block), dmin.reshape(per_block), ls.reshape(per_block + (8,)), lm.reshape(per_block + (8,)),
            q.reshape(per_block + (QK_K,)))


CHUNK = 2048
"""Super-blocks per vectorised step (16384 sub-blocks of 16 values or 8192 of 32: 2 MiB per float32 work array)."""


def by_chunks(x: NDArray[np.float32], quantize_chunk) -> tuple[NDArray, ...]:  # noqa: ANN001 - (B, 256) -> arrays
    """``quantize_chunk`` (super-blocks (B, 256) float32 -> per-super-block arrays, leading axis B) over the
    super-blocks of ``x`` (..., K), ``CHUNK`` at a time, floating-point warnings silenced, the results
    concatenated. Super-blocks are independent; chunks keep the work arrays in cache."""
    flat = x.reshape(-1, QK_K)
    with np.errstate(all="ignore"):
        parts = [quantize_chunk(flat[i : i + CHUNK]) for i in range(0, max(flat.shape[0], 1), CHUNK)]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(len(parts[0])))


def _quantize_chunk(
    x: NDArray[np.float32], nmax: int, rmin: np.float32, rdelta: np.float32, nstep: int
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """:func:`quantize_k_ref` on (B, 256) float32 -> (d, dmin, scales, mins, q) with leading axis B."""
    # (S, 32) sub-blocks -> loop axis first: (32, S)
    sub = np.ascontiguousarray(x.reshape(-1, 32).T, dtype=np.float32)
    sum_x2 = sequential_sum(sub * sub)
    av_x = np.sqrt(sum_x2 / F32(32))
    weights = av_x + np.abs(sub)
    scales, mins, levels = make_qkx2_quants(sub, weights, nmax, rmin, rdelta, nstep)

    per_block = (-1, QK_K // 32)  # (B, 8)
    scales = scales.reshape(per_block)
    mins = mins.reshape(per_block)
    max_scale = np.maximum(np.max(scales, axis=1), F32(0))
    max_min = np.maximum(np.max(mins, axis=1), F32(0))
    with np.errstate(divide="ignore"):
        inv_scale = np.where(max_scale > 0, F32(63) / max_scale, F32(0)).astype(np.float32)
        inv_min = np.where(max_min > 0, F32(63) / max_min, F32(0)).astype(np.float32)
    ls = _to_6bit(inv_scale[:, None] * scales)
    lm = _to_6bit(inv_min[:, None] * mins)
    d = fp16_value(fp16_bits(max_scale / F32(63)))
    dmin = fp16_value(fp16_bits(max_min / F32(63)))

    d_sub = (d[:, None] * ls.astype(np.float32)).reshape(-1)  # (S,)
    dm_sub = (dmin[:, None] * lm.astype(np.float32)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        requant = np.clip(nearest_int((sub + dm_sub) / d_sub), 0, nmax).astype(np.uint8)
    levels = np.where(d_sub != 0, requant, levels)

    q = np.ascontiguousarray(levels.T).reshape(-1, QK_K)
    return d, dmin, ls, lm, q

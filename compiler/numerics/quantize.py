"""float -> ggml blocks, with the rounding of the ggml function each method names.

Inputs are converted to float32 first (every ggml quantizer takes ``const float *``);
all arithmetic is float32, in the order of the C/CUDA source (see ``f32ops.py``).

Methods (``method=``):

* ``"cuda"`` — llama.cpp's CUDA ``quantize_q8_1`` kernel (``ggml-cuda/quantize.cu``),
  the default for ``q8_1`` and ``q8_1_mmq``, because GPU kernels are compared with
  it. Per 32 values: ``amax = max|x|``; ``d = amax / 127.0f``; ``q = amax == 0 ? 0 :
  roundf(x / d)``; ``s`` = the float inputs summed by ``warp_reduce_sum<32>`` (xor
  shuffles with offsets 16, 8, 4, 2, 1); ``ds = make_half2(d, s)`` (fp16, nearest
  even). Division is IEEE (``div.rn.f32``). Note: llama.cpp compiles its CUDA code
  with ``-use_fast_math`` (ggml-cuda/CMakeLists.txt), which makes ``/`` approximate
  and flushes subnormals, so a llama.cpp binary can differ from this: on an H200
  the fast-math build gave a q off by one (x/d near a half) in about 0.2% of random
  normal blocks, and flushed tiny blocks. The qdot kernels use IEEE division.
* ``"cuda_mmq"`` (``q8_1_mmq`` only) — the arithmetic of llama.cpp's
  ``quantize_mmq_q8_1<MMQ_Q8_1_DS_LAYOUT_DS4>``, which is what MMQ really feeds its
  q4_K kernel: each thread loads 4 floats, ``s = ((x0 + x1) + x2) + x3`` then xor
  shuffles 4, 2, 1 across the 8 threads of 32 values; ``d_inv = 127.0f / amax``;
  ``q = roundf(x * d_inv)``; ``d = 1.0f / d_inv``. With ``amax == 0`` this gives
  ``d_inv = inf``, ``q = 0`` (nvcc converts float to int8 through a saturating
  int32 and keeps the low byte: NaN -> 0, +Inf -> -1, -Inf -> 0, as seen on the
  H200) and ``d = 0``. This differs from ``"cuda"`` in d's last bit and in q/s for some
  blocks: llama.cpp's MMQ really sees these numbers.
* ``"ref"`` — ggml-quants.c's CPU references, the default for ``q8_0``, ``q4_0``, ``q4_1``, ``q5_0``,
  ``q5_1``, ``mxfp4``, ``q2_K``, ``q3_K``, ``q4_K``, ``q5_K`` and ``q6_K``:
  ``quantize_row_q8_0_ref`` / ``quantize_row_q8_1_ref`` (``d = amax / 127``, ``id =
  d ? 1/d : 0``, ``q = roundf(x * id)``; q8_1 also stores ``s = fp16((float)Σq * d)``)
  ``quantize_row_q4_0_ref`` (``d = max / -8`` of the value of largest magnitude, code
  ``MIN(15, (int8_t)(x * id + 8.5f))``) and ``quantize_row_q5_0_ref`` (the same with 16:
  ``d = max / -16``, ``MIN(31, (int8_t)(x * id + 16.5f))``), ``quantize_row_q4_1_ref`` (``d = (max -
  min) / 15``, ``m = min``, code ``MIN(15, (int8_t)((x - min) * id + 0.5f))``) and
  ``quantize_row_q5_1_ref`` (``/ 31``, ``(uint8_t)((x - min) * id + 0.5f)``), ``quantize_row_q2_K_ref``
  (see ``q2k.py``), ``quantize_row_q3_K_ref`` (see ``q3k.py``), ``quantize_row_q4_K_ref`` (see
  ``q4k.py``), ``quantize_row_q5_K_ref`` (see ``q5k.py``), ``quantize_row_q6_K_ref`` (see ``q6k.py``)
  and ``quantize_row_mxfp4_ref`` (``e = (uint8_t)(floorf(log2f(amax)) - 2 + 127)``, ``d =
  2^(e - 128)``, each code the first of the 16 with the least ``fabsf(kvalue * d - x)``),
  ``quantize_row_iq4_xs_ref`` (see ``iq4nl.py``) and, not iq4_nl's default, ``quantize_row_iq4_nl_ref``
  (``iq4nl.py``: no scale search, and a block below 1e-15 keeps the codes of the row's previous block,
  each row of ``x`` being one call). For ``q8_1_mmq`` it applies the q8_1 reference per 32 values.
* ``"chunk"`` (``iq4_nl`` only, its default) — ggml's ``quantize_iq4_nl(..., quant_weights = NULL)``, what
  ``ggml_quantize_chunk`` (llama-quantize without an importance matrix) writes into model files: the
  scale search of ``quantize_row_iq4_nl_impl`` with ntry 7 and weights x², then every code requantized
  with the float32 scale found, which is stored as fp16 (see ``iq4nl.py``). For the other formats
  ggml's ``quantize_<fmt>(..., NULL)`` is their ``_ref`` function, so ``"ref"`` covers it.

``"cuda"`` and ``"cuda_mmq"`` were checked bit for bit against the kernels' arithmetic
compiled with nvcc 13.0 (sm_90, IEEE division) and run on an H200, 1.7 million
inputs including ties, zeros and tiny blocks; ``"ref"`` against ggml's C. Vectors
from both are in ``tests/numerics/data``.

Inf and NaN inputs are outside every ggml quantizer's contract and raise
``ValueError``. Finite inputs whose block arithmetic overflows (|x| near FLT_MAX)
or underflows (amax below ~1e-36, where 1/d or 127/amax is Inf) follow the
float32 IEEE result and the target's float-to-int8 conversion, as noted per method.
mxfp4's exponent for amax below 2^-125 (less the 44 subnormals just below it, whose ``log2f`` rounds
up to -125) is the negative float ``floorf(log2f(amax)) + 125`` converted to ``uint8_t``, undefined in
C; x86-64 gcc converts through int32 (``cvttss2si``) and keeps the low byte, so e wraps to 232..255 (d
= 2^104 .. 2^127) and every code of the block is 0. ``quantize`` does the same (``_mxfp4_ref``).
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from compiler.numerics.arrays import as_array
from compiler.numerics.blocks import (MXFP4_KVALUE_ARRAY, Q8_GROUP, Q8Fields, Q41Fields, Q51Fields, e8m0_half,
                                      pack_blocks)
from compiler.numerics.f32ops import (
    F32,
    butterfly_sum,
    cuda_float_to_int8,
    first_min_max,
    first_of_largest,
    floor_log2f,
    roundf,
)
from compiler.numerics.formats import block_format
from compiler.numerics.iq4nl import quantize_iq4_nl, quantize_iq4_xs
from compiler.numerics.q2k import quantize_q2_K_ref
from compiler.numerics.q3k import quantize_q3_K_ref
from compiler.numerics.q4k import quantize_q4_K_ref
from compiler.numerics.q5k import quantize_q5_K_ref
from compiler.numerics.q6k import quantize_q6_K_ref


class QuantizeMethod(StrEnum):
    """Which ggml quantizer's arithmetic ``quantize`` reproduces (module docstring)."""

    CUDA = "cuda"
    CUDA_MMQ = "cuda_mmq"
    REF = "ref"
    CHUNK = "chunk"


_METHODS: dict[str, tuple[QuantizeMethod, ...]] = {
    # format -> allowed methods, the default first
    "q8_0": (QuantizeMethod.REF,),
    "q8_1": (QuantizeMethod.CUDA, QuantizeMethod.REF),
    "q8_1_mmq": (QuantizeMethod.CUDA, QuantizeMethod.CUDA_MMQ, QuantizeMethod.REF),
    "q4_K": (QuantizeMethod.REF,),
    "q4_0": (QuantizeMethod.REF,),
    "q4_1": (QuantizeMethod.REF,),
    "q5_0": (QuantizeMethod.REF,),
    "q5_1": (QuantizeMethod.REF,),
    "mxfp4": (QuantizeMethod.REF,),
    "q6_K": (QuantizeMethod.REF,),
    "q5_K": (QuantizeMethod.REF,),
    "q2_K": (QuantizeMethod.REF,),
    "q3_K": (QuantizeMethod.REF,),
    "iq4_nl": (QuantizeMethod.CHUNK, QuantizeMethod.REF),
    "iq4_xs": (QuantizeMethod.REF,),
}


def _groups(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """(..., K) -> (..., K/32, 32)."""
    return x.reshape(x.shape[:-1] + (x.shape[-1] // Q8_GROUP, Q8_GROUP))


def _x86_float_to_int8(q: NDArray[np.float32]) -> NDArray[np.int8]:
    """C ``int8_t v = (float)q`` on x86-64 (``cvttss2si``, then the low byte).

    |q| <= 127 whenever 1/d is finite; when d is so small that ``1.0f/d`` overflows,
    ``x * id`` is ±Inf and x86 yields INT_MIN, whose low byte is 0.
    """
    return np.where(np.isfinite(q), q, F32(0)).astype(np.int64).astype(np.uint8).view(np.int8)


def _q8_cuda(x: NDArray[np.float32]) -> Q8Fields:
    g = _groups(x)
    amax = np.max(np.abs(g), axis=-1)
    d = amax / F32(127.0)
    zero = amax == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        q = roundf(g / d[..., None])  # d underflows to 0 for amax < 127 * 2^-150: x/0 = ±Inf
    q = np.where(zero[..., None], F32(0), q)
    return Q8Fields(d=d, q=cuda_float_to_int8(q), s=butterfly_sum(g, Q8_GROUP))


def _q8_cuda_mmq(x: NDArray[np.float32]) -> Q8Fields:
    g = _groups(x)
    amax = np.max(np.abs(g), axis=-1)
    per_thread = g.reshape(g.shape[:-1] + (8, 4))
    thread_sum = ((per_thread[..., 0] + per_thread[..., 1]) + per_thread[..., 2]) + per_thread[..., 3]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d_inv = F32(127.0) / amax  # Inf for amax == 0 and for amax < 127 / FLT_MAX
        q = roundf(g * d_inv[..., None])
        d = F32(1.0) / d_inv
    return Q8Fields(d=d.astype(np.float32), q=cuda_float_to_int8(q), s=butterfly_sum(thread_sum, 8))


def _q8_ref(x: NDArray[np.float32], with_sum: bool) -> Q8Fields:
    g = _groups(x)
    amax = np.max(np.abs(g), axis=-1)
    d = amax / F32(127.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv = np.where(d != 0, F32(1.0) / d, F32(0)).astype(np.float32)
        q = _x86_float_to_int8(roundf(g * inv[..., None]))
    if not with_sum:
        return Q8Fields(d=d, q=q)
    total = q.astype(np.int32).sum(axis=-1)  # an int sum: order does not matter
    return Q8Fields(d=d, q=q, s=total.astype(np.float32) * d)


def _q0_ref(x: NDArray[np.float32], bits: int) -> Q8Fields:
    """ggml-quants.c ``quantize_row_q4_0_ref`` (``bits`` 4) and ``quantize_row_q5_0_ref`` (5), with the
    centre c = 2^(bits - 1) (8, 16): ``max`` is the first value of largest magnitude (sign kept), ``d =
    max / -c``, ``id = d ? 1/d : 0``, code ``MIN(2c - 1, (int8_t)(x * id + (c + 0.5f)))`` (a C cast:
    truncation toward zero), stored as ``q = code - c``."""
    centre = 1 << (bits - 1)
    g = _groups(x)
    peak = first_of_largest(g)  # the first of equal magnitudes, as ``amax < |v|`` keeps it
    peak = np.where(np.abs(peak) > 0, peak, F32(0.0))  # ggml's max stays +0 in a zero block: d = -0
    d = (peak / F32(-centre)).astype(np.float32)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv = np.where(d != 0, F32(1.0) / d, F32(0)).astype(np.float32)
        shifted = (g * inv[..., None]).astype(np.float32) + F32(centre + 0.5)
    codes = np.minimum(_x86_float_to_int8(np.trunc(shifted)).astype(np.int16), 2 * centre - 1)
    return Q8Fields(d=d, q=(codes - centre).astype(np.int8))


def _q1_ref(x: NDArray[np.float32], bits: int) -> Q41Fields | Q51Fields:
    """ggml-quants.c ``quantize_row_q4_1_ref`` (``bits`` 4) and ``quantize_row_q5_1_ref`` (5): ``min`` and
    ``max`` are the first smallest and largest values, ``d = (max - min) / (2^bits - 1)``, ``id = d ? 1/d :
    0``, ``m = min``, and the code is ``v = (x - min) * id + 0.5f`` truncated: q4_1 ``MIN(15, (int8_t)v)``,
    q5_1 ``(uint8_t)v`` unclamped (``x - min <= max - min`` keeps v below 2^bits whenever id is finite;
    an id that overflowed to Inf, d below 2^-128, makes v Inf or NaN, which x86 converts to code 0)."""
    top = (1 << bits) - 1
    g = _groups(x)
    lowest, highest = first_min_max(g)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        d = ((highest - lowest) / F32(top)).astype(np.float32)  # Inf when max - min overflows
        inv = np.where(d != 0, F32(1.0) / d, F32(0)).astype(np.float32)
        shifted = ((g - lowest[..., None]) * inv[..., None]).astype(np.float32) + F32(0.5)
    wrapped = _x86_float_to_int8(np.trunc(shifted))
    if bits == 4:
        return Q41Fields(d=d, m=lowest, q=np.minimum(wrapped.astype(np.int16), top).astype(np.uint8))
    return Q51Fields(d=d, m=lowest, q=wrapped.view(np.uint8))


def _mxfp4_ref(x: NDArray[np.float32]) -> Q8Fields:
    """ggml-quants.c ``quantize_row_mxfp4_ref``: ``amax`` = the largest |x| of the block; ``e = amax > 0 ?
    (uint8_t)(floorf(log2f(amax)) - 2 + 127) : 0`` (glibc's ``log2f``: :func:`floor_log2f`; below 2^-125
    the negative float converts as x86 does, through int32, keeping the low byte); ``d =
    GGML_E8M0_TO_FP32_HALF(e)`` = 2^(e - 128); each code is ``best_index_mxfp4(x, d)``, the first i of
    0..15 with the least ``fabsf(kvalues_mxfp4[i] * d - x)`` in float32 (a strict ``<``: of equal errors
    the first code, so ties go to the smaller magnitude and code 8, a second 0, is never chosen). The
    product is exact or overflows to Inf (never chosen); the subtraction rounds, as in C."""
    g = _groups(x)
    amax = np.max(np.abs(g), axis=-1)
    floor_log2 = floor_log2f(np.where(amax > 0, amax, F32(1)))
    e = np.where(amax > 0, (floor_log2 - 2 + 127) & 0xFF, 0).astype(np.uint8)  # x86: low byte of int32
    d = e8m0_half(e)
    kvalues = MXFP4_KVALUE_ARRAY.astype(np.float32)
    with np.errstate(over="ignore"):
        best_err = np.abs(kvalues[0] * d[..., None] - g)
        code = np.zeros(g.shape, dtype=np.uint8)
        for i in range(1, 16):
            err = np.abs(kvalues[i] * d[..., None] - g)  # kvalue * d: exact, or ±Inf for e >= 253
            better = err < best_err
            code[better] = i
            best_err = np.where(better, err, best_err)
    return Q8Fields(d=d, q=MXFP4_KVALUE_ARRAY[code])


def _to_mmq(fields: Q8Fields) -> Q8Fields:
    """Per-32 fields (..., K/32) -> q8_1_mmq fields (..., K/128, 4)."""
    assert fields.s is not None
    lead = fields.d.shape[:-1]
    nb = fields.d.shape[-1] // 4
    return Q8Fields(
        d=fields.d.reshape(lead + (nb, 4)),
        s=fields.s.reshape(lead + (nb, 4)),
        q=fields.q.reshape(lead + (nb, 128)),
    )


def quantize(fmt: str, x: ArrayLike, *, method: QuantizeMethod | str | None = None) -> NDArray[np.uint8]:
    """ggml blocks ``(..., K/block_values * block_bytes)`` of float values ``(..., K)``.

    ``method`` picks the ggml quantizer whose rounding is reproduced (module
    docstring); None means the format's default (q8_1/q8_1_mmq: ``"cuda"``, iq4_nl: ``"chunk"``,
    q8_0/q4_0/q4_1/q5_0/q5_1/mxfp4/q2_K/q3_K/q4_K/q5_K/q6_K/iq4_xs: ``"ref"``). An input with no values
    (an axis of 0, K = 0 or a leading one) gives bytes of the same leading shape, none of them.
    """
    info = block_format(fmt)
    allowed = _METHODS[info.name]
    try:
        chosen = allowed[0] if method is None else QuantizeMethod(method)
    except ValueError:
        chosen = None
    if chosen not in allowed:
        names = ", ".join(repr(str(m)) for m in allowed)
        raise ValueError(f"quantize({info.name!r}) supports method {names}, got {method!r}")
    values = as_array(x, f"quantize({info.name!r})'s values")
    if values.dtype.kind not in "fiuV" or values.ndim == 0:
        raise ValueError(f"quantize({info.name!r}) needs a real array of shape (..., K), got {values.dtype}")
    if values.shape[-1] % info.block_values:
        raise ValueError(
            f"quantize({info.name!r}) needs K to be a multiple of {info.block_values}, got K = {values.shape[-1]}"
        )
    x32 = values.astype(np.float32)
    if not np.isfinite(x32).all():
        raise ValueError(f"quantize({info.name!r}) needs finite inputs (ggml's quantizers do not define Inf/NaN)")
    if info.name == "iq4_nl":
        return pack_blocks("iq4_nl", quantize_iq4_nl(x32, search=chosen is QuantizeMethod.CHUNK))
    if info.name == "iq4_xs":
        return pack_blocks("iq4_xs", quantize_iq4_xs(x32))
    if info.name == "q2_K":
        return pack_blocks("q2_K", quantize_q2_K_ref(x32))
    if info.name == "q3_K":
        return pack_blocks("q3_K", quantize_q3_K_ref(x32))
    if info.name == "q4_K":
        return pack_blocks("q4_K", quantize_q4_K_ref(x32))
    if info.name == "q5_K":
        return pack_blocks("q5_K", quantize_q5_K_ref(x32))
    if info.name == "q6_K":
        return pack_blocks("q6_K", quantize_q6_K_ref(x32))
    if info.name in ("q4_0", "q5_0"):
        return pack_blocks(info.name, _q0_ref(x32, info.bits))
    if info.name in ("q4_1", "q5_1"):
        return pack_blocks(info.name, _q1_ref(x32, info.bits))
    if info.name == "mxfp4":
        return pack_blocks("mxfp4", _mxfp4_ref(x32))
    if chosen is QuantizeMethod.REF:
        fields = _q8_ref(x32, with_sum=info.name != "q8_0")
    elif chosen is QuantizeMethod.CUDA_MMQ:
        fields = _q8_cuda_mmq(x32)
    else:
        fields = _q8_cuda(x32)
    if info.name == "q8_1_mmq":
        fields = _to_mmq(fields)
    return pack_blocks(info.name, fields)

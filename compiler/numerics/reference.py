"""The float64 meaning of ``qdot.dot_scaled``: D = acc + (A * scale_A) @ (B * scale_B).

Operands arrive as the IR's tensors hold them (``shared/DESIGN.md`` §2):

* e4m3, e5m2, e2m3, e3m2: uint8 codes, one per value (lhs ``[M, K]``, rhs ``[K, N]``).
* e2m1: two codes per byte, first value in the low nibble (``pack_fp4``). Packed along
  K by default (lhs ``[M, K/2]``, rhs ``[K/2, N]``); ``lhs_k_pack=False`` packs lhs
  along M (``[M/2, K]``), ``rhs_k_pack=False`` packs rhs along N (``[K, N/2]``).
* bf16: ``ml_dtypes.bfloat16`` arrays; fp16: ``np.float16`` arrays; i8: ``np.int8``.
* the ggml blocks (q2_K, q3_K, q4_K, q5_K, q6_K, q4_0, q4_1, q5_0, q5_1, mxfp4, iq4_nl, iq4_xs, q8_0, q8_1,
  q8_1_mmq): uint8 with a trailing byte axis, lhs ``[M, K/bv, bytes]``, rhs ``[K/bv, N, bytes]`` (bv = values
  per block);
  their scales are inside the blocks (mxfp4's is its exponent byte: d = 2^(e - 128), times kvalues
  that are twice the e2m1 values; the product is an MX e2m1 value with its ue8m0 scale e).

External scales (float formats only): ``ue8m0`` one per 32 K-values (the OCP MX
formats; ``a_scale [M, K/32]``, ``b_scale [N, K/32]``), or ``ue4m3`` one per 16
K-values (NVFP4, e2m1 only; ``[M, K/16]``, ``[N, K/16]``), as uint8 codes. Row m's
K-chunk j is multiplied by scale[m, j], as PTX ISA 9.0 §9.7.14.3 defines block scaling.

Every decoded value and every product is exact in float64 (the widest significands
are fp16 x fp16 and q4_K's float32 dequantization x q8's 19 bits); only the K-sum
rounds, in float64, so i8 x i8 results are exact integers. A block without a min term (q4_0, q5_0,
mxfp4, q8_0) against q8_0 / q8_1 thus gives, per 32 values and up to that sum's rounding, d_w * d_x
times the integer dot of q_w and q_x (llama.cpp's ``vec_dot_*_q8_1``; for mxfp4 ``d = e8m0_to_fp32(e) *
0.5f * d8``, the same d for e < 255). q2_K and q3_K, with a scale per 16 values, give per 16 values d *
sc * d_x times the integer dot (q3_K's q = code - 4), less q2_K's dmin * m * d_x * Σq_x (ggml's
``vec_dot_q2_K_q8_K`` / ``vec_dot_q3_K_q8_K``); q2_K's min, one per 16, has no ``use_block_sums`` form.
iq4_nl and iq4_xs give per 32 values d_w * d_x times the integer dot of the kvalues and q_x, d_w = d or
d * (ls - 32) (``vec_dot_iq4_nl_q8_0``; ``vec_dot_iq4_xs_q8_K``, whose q8_K has one d_x per 256).
NaN codes (e4m3 0x7F, ue8m0 0xFF, ...) propagate as IEEE NaN.

``use_block_sums=True`` gives the meaning of llama.cpp's MMQ q4_K x q8_1 kernel (and q5_K's, q4_1's and
q5_1's) instead of dequantize-then-matmul: the offset term of each 32 values, -dmin*m*Σx for q4_K /
q5_K and +m*Σx for q4_1 / q5_1, is computed with the q8_1 block's stored sum ``s`` in place of
``d*Σq``: per block d_w*d_x*Σq_w*q_x + offset*s. The sign is the dequantization's. llama.cpp's MMQ
adds ``dmA.y*dsB.y`` for all four (``ggml-cuda/mmq-vec-dot.cuh``: ``sum += dmA.x*dsB.x*C + dmA.y*dsB.y``),
having loaded q4_K's pair as ``half2(d, -dmin) * half2(sc, m)`` and q4_1's as the stored ``(d, m)``
(``mmq-load-tiles.cuh``); its MMVQ ``vec_dot_q4_1_q8_1_impl`` (``vecdotq.cuh``) returns ``sumi * d4d8 +
m4s8``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from compiler.numerics.arrays import as_array
from compiler.numerics.blocks import Q4KFields, Q5KFields, Q8Fields, Q41Fields, Q51Fields, block_fields, dequantize
from compiler.numerics.element import decode, unpack_fp4
from compiler.numerics.flags import require_bool
from compiler.numerics.formats import FORMATS, SCALE_GROUP, FormatKind, format_info

_CODE_FORMATS = ("e4m3", "e5m2", "e2m3", "e3m2")
_SUM_PAIRS = ("q8_1", "q8_1_mmq")
_MIN_FORMATS = tuple(name for name, info in FORMATS.items() if info.min_term)
"""The block formats with an offset per 32 values: q4_K, q5_K (d * sc * q - dmin * m), q4_1, q5_1
(d * q + m)."""


def _shape(arr: NDArray) -> str:
    return "[" + ", ".join(str(n) for n in arr.shape) + "]"


def _require_dtype(side: str, fmt: str, arr: NDArray, allowed: tuple[str, ...]) -> NDArray:
    if arr.dtype.name not in allowed:
        raise ValueError(f"{side} {fmt} operand must have dtype {' or '.join(allowed)}, got {arr.dtype}")
    return arr


def _rows_by_k(side: str, fmt: str, arr: NDArray, k_pack: bool) -> NDArray[np.float64]:
    """Decode an operand to float64 ``[rows, K]`` (rows = M for lhs, N for rhs)."""
    info = format_info(fmt)
    lhs = side == "lhs"
    if info.is_block:
        assert info.block_bytes is not None
        layout = "[M, K/bv, bytes]" if lhs else "[K/bv, N, bytes]"
        if arr.ndim != 3 or arr.shape[2] != info.block_bytes:
            raise ValueError(
                f"{side} {fmt} operand must have shape {layout} with bytes = {info.block_bytes}, got {_shape(arr)}"
            )
        _require_dtype(side, fmt, arr, ("uint8",))
        blocks = arr if lhs else arr.transpose(1, 0, 2)
        rows, nb, nbytes = blocks.shape
        return dequantize(fmt, blocks.reshape(rows, nb * nbytes)).astype(np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{side} {fmt} operand must be 2-D, got shape {_shape(arr)}")
    if fmt == "e2m1":
        if arr.dtype.name == "float4_e2m1fn":
            raise ValueError(f"{side} e2m1 operand must be packed uint8/int8 (two codes per byte), got float4_e2m1fn")
        _require_dtype(side, fmt, arr, ("uint8", "int8"))
        along_k = k_pack
        # lhs [M, K]: K is axis 1; rhs [K, N]: K is axis 0.
        axis = (1 if lhs else 0) if along_k else (0 if lhs else 1)
        values = decode("e2m1", unpack_fp4(arr, axis=axis))
    elif fmt in _CODE_FORMATS:
        ml_name = format_info(fmt).ml_dtypes_name
        assert ml_name is not None
        _require_dtype(side, fmt, arr, ("uint8", ml_name))
        values = decode(fmt, arr.view(np.uint8))
    elif fmt == "bf16":
        values = _require_dtype(side, fmt, arr, ("bfloat16",)).astype(np.float64)
    elif fmt == "fp16":
        values = _require_dtype(side, fmt, arr, ("float16",)).astype(np.float64)
    elif fmt == "i8":
        values = _require_dtype(side, fmt, arr, ("int8",)).astype(np.float64)
    else:
        raise ValueError(f"{side} format {fmt!r} is not a dot_scaled operand format")
    return values if lhs else values.T


def _k_of(side: str, fmt: str, operand: ArrayLike, k_pack: bool) -> tuple[int, int]:
    """(rows, K) implied by an operand's shape, before decoding it."""
    info = format_info(fmt)
    shape = np.shape(operand)
    lhs = side == "lhs"
    if info.is_block:
        if len(shape) != 3 or shape[2] != info.block_bytes:
            layout = "[M, K/bv, bytes]" if lhs else "[K/bv, N, bytes]"
            raise ValueError(
                f"{side} {fmt} operand must have shape {layout} with bv = {info.block_values},"
                f" bytes = {info.block_bytes}, got {list(shape)}"
            )
        return (shape[0], shape[1] * info.block_values) if lhs else (shape[1], shape[0] * info.block_values)
    if len(shape) != 2:
        raise ValueError(f"{side} {fmt} operand must be 2-D, got shape {list(shape)}")
    outer, inner = shape if lhs else (shape[1], shape[0])
    if fmt == "e2m1":
        return (outer, 2 * inner) if k_pack else (2 * outer, inner)
    return outer, inner


_TYPED_SCALES = {"float8_e8m0fnu": "ue8m0", "float8_e4m3fn": "ue4m3"}
"""The scale format an ml_dtypes array holds: its bits are read as that format's codes, so a shape that implies the
other format (a ue8m0 array of K/16 columns) is an error, not another reading of the same bits."""


def _scale_format(side: str, fmt: str, scale: NDArray, rows: int, k: int, scale_fmt: str | None) -> str:
    kind = format_info(fmt).kind
    if kind is FormatKind.BLOCK:
        raise ValueError(f"{side} {fmt} operand takes no external scale (block formats carry theirs inside)")
    if kind is not FormatKind.FLOAT:
        raise ValueError(f"{side} {fmt} operand takes no external scale (only float formats are scaled)")
    name = "a_scale" if side == "lhs" else "b_scale"
    if scale.ndim != 2:
        raise ValueError(f"{name} must be 2-D [{'M' if side == 'lhs' else 'N'}, K/group], got {_shape(scale)}")
    typed = _TYPED_SCALES.get(getattr(scale.dtype, "name", ""))
    if typed is not None and scale_fmt is not None and scale_fmt != typed:
        raise ValueError(f"{name} holds {scale.dtype.name} values, {typed} scales, but {name}_fmt says {scale_fmt}")
    if scale_fmt is None:  # a typed array says its format; raw codes, the shape (one per 32 or per 16)
        matches = [s for s, g in SCALE_GROUP.items() if k % g == 0 and scale.shape[1] == k // g]
        scale_fmt = typed or (matches[0] if matches else "ue8m0")
    if scale_fmt not in SCALE_GROUP:
        raise ValueError(f"{name} format must be one of {', '.join(SCALE_GROUP)}, got {scale_fmt!r}")
    if scale_fmt == "ue4m3" and fmt != "e2m1":
        raise ValueError(f"ue4m3 scales (NVFP4, one per 16) apply only to e2m1 operands; {side} is {fmt}")
    group = SCALE_GROUP[scale_fmt]
    dim = "M" if side == "lhs" else "N"
    if k % group:
        raise ValueError(f"{name} ({scale_fmt}, one per {group} K-values) needs K % {group} == 0, got K = {k}")
    if scale.shape != (rows, k // group):
        raise ValueError(
            f"{name} ({scale_fmt}) must have shape [{dim}, K/{group}] = [{rows}, {k // group}], got {_shape(scale)}"
        )
    return scale_fmt


def _apply_scale(values: NDArray[np.float64], scale: NDArray, scale_fmt: str) -> NDArray[np.float64]:
    codes = scale
    if codes.dtype.name in ("float8_e8m0fnu", "float8_e4m3fn"):
        codes = codes.view(np.uint8)
    if codes.dtype != np.uint8:
        raise ValueError(f"{scale_fmt} scales must be uint8 codes, got dtype {codes.dtype}")
    factors = decode(scale_fmt, codes)
    rows, k = values.shape
    group = SCALE_GROUP[scale_fmt]
    return (values.reshape(rows, k // group, group) * factors[..., None]).reshape(rows, k)


def _min_term(side: str, fmt: str, operand: NDArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A q4_K / q5_K / q4_1 / q5_1 operand split for ``use_block_sums``: (the scaled codes as [rows, K],
    the signed offset of each 32 values as [rows, K/32]): (d*sc*q, -dmin*m) for q4_K / q5_K, (d*q, +m)
    for q4_1 / q5_1, so that value = scaled + offset for both."""
    blocks = operand if side == "lhs" else operand.transpose(1, 0, 2)
    rows, nb, nbytes = blocks.shape  # sizes spelled out, not -1: numpy cannot infer one when rows is 0
    fields = block_fields(fmt, blocks.reshape(rows, nb * nbytes))
    k = nb * format_info(fmt).block_values
    if isinstance(fields, Q41Fields | Q51Fields):
        scaled = fields.d[..., None].astype(np.float64) * fields.q  # (rows, nb, 32)
        return scaled.reshape(rows, k), fields.m.astype(np.float64)
    assert isinstance(fields, Q4KFields | Q5KFields)
    d1 = fields.d[..., None].astype(np.float64) * fields.scales  # (rows, nb, 8)
    q = fields.q.reshape(fields.q.shape[:-1] + (8, 32)).astype(np.float64)
    scaled = (d1[..., None] * q).reshape(rows, k)
    offsets = -(fields.dmin[..., None].astype(np.float64) * fields.mins).reshape(rows, nb * 8)
    return scaled, offsets


def _stored_sums(side: str, fmt: str, operand: NDArray) -> NDArray[np.float64]:
    """The q8_1 / q8_1_mmq stored sums s as [rows, K/32]."""
    blocks = operand if side == "lhs" else operand.transpose(1, 0, 2)
    rows, nb, nbytes = blocks.shape  # not -1: numpy cannot infer a size when rows is 0
    fields = block_fields(fmt, blocks.reshape(rows, nb * nbytes))
    assert isinstance(fields, Q8Fields) and fields.s is not None
    sums = nb * (format_info(fmt).block_values // 32)  # one per 32 values
    return fields.s.reshape(rows, sums).astype(np.float64)


def dot_scaled(
    a: ArrayLike,
    b: ArrayLike,
    acc: ArrayLike | None = None,
    *,
    lhs: str,
    rhs: str,
    a_scale: ArrayLike | None = None,
    b_scale: ArrayLike | None = None,
    lhs_k_pack: bool = True,
    rhs_k_pack: bool = True,
    a_scale_fmt: str | None = None,
    b_scale_fmt: str | None = None,
    use_block_sums: bool = False,
) -> NDArray[np.float64]:
    """D = acc + (A * a_scale) @ (B * b_scale) in float64, ``[M, N]``.

    Operand and scale conventions are in the module docstring; ``lhs_k_pack`` and
    ``rhs_k_pack`` are read for e2m1 operands only. The scale format is
    ``a_scale_fmt``/``b_scale_fmt`` when given, else read from the scale's shape
    (``K/32`` columns: ue8m0, ``K/16``: ue4m3). Any shape, dtype or format mismatch
    raises ``ValueError`` naming the operand and the expected shape; a flag other than True or
    False, ``TypeError`` naming it. M or N = 0 gives an empty ``[M, N]``, K = 0 gives ``acc``.
    """
    lhs_k_pack = require_bool("lhs_k_pack", lhs_k_pack)
    rhs_k_pack = require_bool("rhs_k_pack", rhs_k_pack)
    use_block_sums = require_bool("use_block_sums", use_block_sums)
    format_info(lhs), format_info(rhs)  # an unknown format is named before its operand is read
    a, b = as_array(a, f"lhs ({lhs})"), as_array(b, f"rhs ({rhs})")
    a_scale = None if a_scale is None else as_array(a_scale, "a_scale")
    b_scale = None if b_scale is None else as_array(b_scale, "b_scale")
    m, k_a = _k_of("lhs", lhs, a, lhs_k_pack)
    n, k_b = _k_of("rhs", rhs, b, rhs_k_pack)
    if k_a != k_b:
        raise ValueError(
            f"lhs ({lhs}, shape {list(np.shape(a))}) has K = {k_a}"
            f" but rhs ({rhs}, shape {list(np.shape(b))}) has K = {k_b}"
        )
    k = k_a
    scale_fmts: list[str | None] = []
    for side, fmt, scale, rows, given in (("lhs", lhs, a_scale, m, a_scale_fmt), ("rhs", rhs, b_scale, n, b_scale_fmt)):
        if scale is None:
            if given is not None:
                raise ValueError(f"{side} scale format {given!r} given without a scale")
            scale_fmts.append(None)
        else:
            scale_fmts.append(_scale_format(side, fmt, scale, rows, k, given))
    acc64 = np.zeros((m, n), dtype=np.float64)
    if acc is not None:
        acc_arr = as_array(acc, "acc")
        if acc_arr.shape != (m, n):
            raise ValueError(f"acc must have shape [M, N] = [{m}, {n}], got {_shape(acc_arr)}")
        if acc_arr.dtype.kind not in "fiu":
            raise ValueError(f"acc must be a real numeric array, got dtype {acc_arr.dtype}")
        acc64 = acc_arr.astype(np.float64)

    if use_block_sums:
        return acc64 + _dot_with_block_sums(a, b, lhs, rhs)

    a_rows = _rows_by_k("lhs", lhs, a, lhs_k_pack)
    b_rows = _rows_by_k("rhs", rhs, b, rhs_k_pack)
    if scale_fmts[0] is not None:
        a_rows = _apply_scale(a_rows, a_scale, scale_fmts[0])
    if scale_fmts[1] is not None:
        b_rows = _apply_scale(b_rows, b_scale, scale_fmts[1])
    return acc64 + a_rows @ b_rows.T


def _dot_with_block_sums(a: NDArray, b: NDArray, lhs: str, rhs: str) -> NDArray[np.float64]:
    if lhs in _MIN_FORMATS and rhs in _SUM_PAIRS:
        scaled, offsets = _min_term("lhs", lhs, a)
        sums = _stored_sums("rhs", rhs, b)
        return scaled @ _rows_by_k("rhs", rhs, b, True).T + offsets @ sums.T
    if rhs in _MIN_FORMATS and lhs in _SUM_PAIRS:
        scaled, offsets = _min_term("rhs", rhs, b)
        sums = _stored_sums("lhs", lhs, a)
        return _rows_by_k("lhs", lhs, a, True) @ scaled.T + sums @ offsets.T
    offset_formats = ", ".join(_MIN_FORMATS[:-1]) + f" or {_MIN_FORMATS[-1]}"
    raise ValueError(
        f"use_block_sums needs a {offset_formats} operand and a q8_1 or q8_1_mmq operand, got lhs = {lhs}, rhs = {rhs}"
    )

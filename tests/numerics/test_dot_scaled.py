"""dot_scaled against a straightforward computation written independently here:
ml_dtypes decodes the codes, nibbles are unpacked by hand, scales are np.repeat-ed,
and the product is a float64 matmul. Block formats are checked against
dequantize-then-matmul (dequantize itself is pinned in test_blocks.py).
"""

from __future__ import annotations

import time
from itertools import product

import ml_dtypes
import numpy as np
import pytest

from compiler.numerics import (
    IQ4XSFields,
    Q2KFields,
    Q3KFields,
    Q4KFields,
    Q8Fields,
    Q41Fields,
    Q51Fields,
    block_fields,
    dequantize,
    dot_scaled,
    format_info,
    pack_fp4,
    quantize,
)

M, N, K = 16, 8, 64
ML = {
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e2m3": ml_dtypes.float6_e2m3fn,
    "e3m2": ml_dtypes.float6_e3m2fn,
    "e2m1": ml_dtypes.float4_e2m1fn,
}
FLOATS = ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "bf16", "fp16"]
ALL = [*FLOATS, "i8"]


def _finite_codes(rng: np.random.Generator, fmt: str, shape: tuple[int, ...]) -> np.ndarray:
    count = 1 << format_info(fmt).bits
    codes = rng.integers(0, count, shape).astype(np.uint8)
    values = codes.view(ML[fmt]).astype(np.float64)
    return np.where(np.isfinite(values), codes, 0).astype(np.uint8)


def _operand(rng: np.random.Generator, fmt: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(the operand as dot_scaled takes it, unpacked [rows, cols] float64 values)."""
    if fmt in ML:
        codes = _finite_codes(rng, fmt, (rows, cols))
        return codes, codes.view(ML[fmt]).astype(np.float64)
    if fmt == "bf16":
        arr = rng.standard_normal((rows, cols)).astype(ml_dtypes.bfloat16)
    elif fmt == "fp16":
        arr = rng.standard_normal((rows, cols)).astype(np.float16)
    else:
        arr = rng.integers(-128, 128, (rows, cols)).astype(np.int8)
    return arr, arr.astype(np.float64)


def _pack_pairs(codes: np.ndarray, axis: int) -> np.ndarray:
    """Two codes per byte along ``axis``, written out without compiler.numerics."""
    even = np.take(codes, np.arange(0, codes.shape[axis], 2), axis=axis)
    odd = np.take(codes, np.arange(1, codes.shape[axis], 2), axis=axis)
    return (even | (odd << 4)).astype(np.uint8)


def _scale_values(codes: np.ndarray, fmt: str) -> np.ndarray:
    ml = ml_dtypes.float8_e8m0fnu if fmt == "ue8m0" else ml_dtypes.float8_e4m3fn
    return codes.view(ml).astype(np.float64)


def _assert_dot_close(got: np.ndarray, want: np.ndarray, bound: np.ndarray) -> None:
    """Equal up to float64 summation order: |got - want| <= 2^-40 * sum|a*b|."""
    assert got.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_array_less(np.abs(got - want), bound * 2.0**-40 + 1e-300)


@pytest.mark.parametrize("scaled", [False, True], ids=["plain", "ue8m0"])
@pytest.mark.parametrize(("lhs", "rhs"), list(product(ALL, ALL)))
def test_every_format_pair(lhs: str, rhs: str, scaled: bool) -> None:
    rng = np.random.default_rng(ALL.index(lhs) * 17 + ALL.index(rhs) * 3 + scaled)
    a, a_vals = _operand(rng, lhs, M, K)
    b, b_vals = _operand(rng, rhs, K, N)
    if lhs == "e2m1":
        a = _pack_pairs(a, axis=1)
    if rhs == "e2m1":
        b = _pack_pairs(b, axis=0)
    a_scale = b_scale = None
    if scaled and lhs != "i8":
        a_scale = rng.integers(120, 135, (M, K // 32)).astype(np.uint8)
        a_vals = a_vals * np.repeat(_scale_values(a_scale, "ue8m0"), 32, axis=1)
    if scaled and rhs != "i8":
        b_scale = rng.integers(120, 135, (N, K // 32)).astype(np.uint8)
        b_vals = b_vals * np.repeat(_scale_values(b_scale, "ue8m0"), 32, axis=1).T
    acc = rng.standard_normal((M, N)).astype(np.float32)
    got = dot_scaled(a, b, acc, lhs=lhs, rhs=rhs, a_scale=a_scale, b_scale=b_scale)
    want = acc.astype(np.float64) + a_vals @ b_vals
    _assert_dot_close(got, want, np.abs(a_vals) @ np.abs(b_vals) + np.abs(acc))


def test_i8_is_exact() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (32, 4096)).astype(np.int8)
    b = rng.integers(-128, 128, (4096, 16)).astype(np.int8)
    got = dot_scaled(a, b, lhs="i8", rhs="i8")
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64))


@pytest.mark.parametrize(("lhs_k_pack", "rhs_k_pack"), list(product([True, False], repeat=2)))
def test_e2m1_packing_directions(lhs_k_pack: bool, rhs_k_pack: bool) -> None:
    rng = np.random.default_rng(2)
    a_codes = _finite_codes(rng, "e2m1", (M, K))
    b_codes = _finite_codes(rng, "e2m1", (K, N))
    a = _pack_pairs(a_codes, axis=1 if lhs_k_pack else 0)  # [M, K/2] or [M/2, K]
    b = _pack_pairs(b_codes, axis=0 if rhs_k_pack else 1)  # [K/2, N] or [K, N/2]
    got = dot_scaled(a, b, lhs="e2m1", rhs="e2m1", lhs_k_pack=lhs_k_pack, rhs_k_pack=rhs_k_pack)
    want = a_codes.view(ML["e2m1"]).astype(np.float64) @ b_codes.view(ML["e2m1"]).astype(np.float64)
    np.testing.assert_array_equal(got, want)  # small integers and halves: every sum is exact


def test_e2m1_accepts_int8_packed_tensors() -> None:
    rng = np.random.default_rng(3)
    a = _pack_pairs(_finite_codes(rng, "e2m1", (M, K)), axis=1)
    b = _pack_pairs(_finite_codes(rng, "e2m1", (K, N)), axis=0)
    np.testing.assert_array_equal(
        dot_scaled(a.view(np.int8), b.view(np.int8), lhs="e2m1", rhs="e2m1"), dot_scaled(a, b, lhs="e2m1", rhs="e2m1")
    )


def test_nvfp4_ue4m3_scales_per_16() -> None:
    rng = np.random.default_rng(4)
    a_codes = _finite_codes(rng, "e2m1", (M, K))
    b_codes = _finite_codes(rng, "e2m1", (K, N))
    a_scale = rng.integers(0x20, 0x7F, (M, K // 16)).astype(np.uint8)  # ue4m3, no NaN (0x7F)
    b_scale = rng.integers(0x20, 0x7F, (N, K // 16)).astype(np.uint8)
    a_vals = a_codes.view(ML["e2m1"]).astype(np.float64) * np.repeat(_scale_values(a_scale, "ue4m3"), 16, axis=1)
    b_vals = b_codes.view(ML["e2m1"]).astype(np.float64) * np.repeat(_scale_values(b_scale, "ue4m3"), 16, axis=1).T
    a, b = _pack_pairs(a_codes, 1), _pack_pairs(b_codes, 0)
    want = a_vals @ b_vals
    bound = np.abs(a_vals) @ np.abs(b_vals)
    _assert_dot_close(dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=a_scale, b_scale=b_scale), want, bound)
    explicit = dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=a_scale, b_scale=b_scale,
                          a_scale_fmt="ue4m3", b_scale_fmt="ue4m3")
    _assert_dot_close(explicit, want, bound)


def test_mixed_scale_sides_and_ml_dtypes_scale_arrays() -> None:
    rng = np.random.default_rng(5)
    a, a_vals = _operand(rng, "bf16", M, K)
    b_codes = _finite_codes(rng, "e2m1", (K, N))
    b_scale = rng.integers(100, 150, (N, K // 32)).astype(np.uint8)
    b_vals = b_codes.view(ML["e2m1"]).astype(np.float64) * np.repeat(_scale_values(b_scale, "ue8m0"), 32, axis=1).T
    got = dot_scaled(a, _pack_pairs(b_codes, 0), lhs="bf16", rhs="e2m1", b_scale=b_scale.view(ml_dtypes.float8_e8m0fnu))
    _assert_dot_close(got, a_vals @ b_vals, np.abs(a_vals) @ np.abs(b_vals))


def test_nan_codes_propagate() -> None:
    rng = np.random.default_rng(6)
    a = _finite_codes(rng, "e4m3", (M, K))
    b = _finite_codes(rng, "e4m3", (K, N))
    a[2, 5] = 0x7F  # e4m3 NaN
    b_scale = np.full((N, K // 32), 127, dtype=np.uint8)
    b_scale[3, 1] = 0xFF  # ue8m0 NaN
    got = dot_scaled(a, b, lhs="e4m3", rhs="e4m3", b_scale=b_scale)
    nan = np.isnan(got)
    assert nan[2].all() and nan[:, 3].all()
    assert nan.sum() == N + M - 1


BLOCKS = ["q4_K", "q8_0", "q8_1", "q8_1_mmq", "q4_1", "q5_0", "q5_1", "mxfp4", "q2_K", "q3_K", "iq4_nl", "iq4_xs"]


def _block_operand(rng: np.random.Generator, fmt: str, rows: int, k: int, side: str) -> tuple[np.ndarray, np.ndarray]:
    """(operand as dot_scaled takes it, [rows, k] dequantized float64 values via dequantize)."""
    info = format_info(fmt)
    assert info.block_bytes is not None
    raw = quantize(fmt, rng.standard_normal((rows, k)).astype(np.float32))  # (rows, k/bv * bytes)
    values = dequantize(fmt, raw).astype(np.float64)
    blocks = raw.reshape(rows, k // info.block_values, info.block_bytes)
    return (blocks if side == "lhs" else blocks.transpose(1, 0, 2)), values


@pytest.mark.parametrize(("lhs", "rhs"), [*product(BLOCKS, BLOCKS), ("q4_K", "bf16"), ("e4m3", "q8_0"), ("i8", "q8_1")])
def test_block_formats_are_dequantize_then_matmul(lhs: str, rhs: str) -> None:
    rng = np.random.default_rng(BLOCKS.index(lhs) * 5 + BLOCKS.index(rhs) if lhs in BLOCKS and rhs in BLOCKS else 99)
    k = 512
    if lhs in BLOCKS:
        a, a_vals = _block_operand(rng, lhs, M, k, "lhs")
    else:
        a, a_vals = _operand(rng, lhs, M, k)
    if rhs in BLOCKS:
        b, b_rows = _block_operand(rng, rhs, N, k, "rhs")
        b_vals = b_rows.T
    else:
        b, b_vals = _operand(rng, rhs, k, N)
    got = dot_scaled(a, b, lhs=lhs, rhs=rhs)
    _assert_dot_close(got, a_vals @ b_vals, np.abs(a_vals) @ np.abs(b_vals))


@pytest.mark.parametrize("q8", ["q8_1", "q8_1_mmq"])
@pytest.mark.parametrize("q4_side", ["lhs", "rhs"])
def test_block_sums_follow_the_mmq_formula(q8: str, q4_side: str) -> None:
    rng = np.random.default_rng(7)
    k, rows4, rows8 = 512, 4, 3
    raw4 = quantize("q4_K", rng.standard_normal((rows4, k)).astype(np.float32))
    raw8 = quantize(q8, rng.standard_normal((rows8, k)).astype(np.float32))
    f4 = block_fields("q4_K", raw4)
    f8 = block_fields(q8, raw8)
    assert isinstance(f4, Q4KFields) and isinstance(f8, Q8Fields) and f8.s is not None
    # sum over 32-value sub-blocks j: d*sc_j*d8_j*sum(q4*q8) - dmin*m_j*s_j
    d8 = f8.d.reshape(rows8, k // 32)
    s8 = f8.s.reshape(rows8, k // 32)
    q8v = f8.q.reshape(rows8, k // 32, 32).astype(np.int64)
    q4v = f4.q.reshape(rows4, k // 32, 32).astype(np.int64)
    sc = f4.scales.reshape(rows4, k // 32).astype(np.float64) * np.repeat(f4.d, 8, axis=1)
    mn = f4.mins.reshape(rows4, k // 32).astype(np.float64) * np.repeat(f4.dmin, 8, axis=1)
    want = np.zeros((rows4, rows8))
    for r4 in range(rows4):
        for r8 in range(rows8):
            for j in range(k // 32):
                integer = int(q4v[r4, j] @ q8v[r8, j])
                want[r4, r8] += sc[r4, j] * float(d8[r8, j]) * integer - mn[r4, j] * float(s8[r8, j])
    blocks4 = raw4.reshape(rows4, k // 256, 144)
    bv8 = format_info(q8).block_values
    blocks8 = raw8.reshape(rows8, k // bv8, -1)
    if q4_side == "lhs":
        got = dot_scaled(blocks4, blocks8.transpose(1, 0, 2), lhs="q4_K", rhs=q8, use_block_sums=True)
    else:
        got = dot_scaled(blocks8, blocks4.transpose(1, 0, 2), lhs=q8, rhs="q4_K", use_block_sums=True).T
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # and it is a different number from dequantize-then-matmul (s is the sum of the inputs)
    plain = dequantize("q4_K", raw4).astype(np.float64) @ dequantize(q8, raw8).astype(np.float64).T
    assert not np.allclose(got, plain, rtol=1e-9, atol=0)


@pytest.mark.parametrize("q8", ["q8_1", "q8_1_mmq"])
@pytest.mark.parametrize("w_side", ["lhs", "rhs"])
@pytest.mark.parametrize("fmt", ["q4_1", "q5_1"])
def test_block_sums_add_the_q4_1_q5_1_min(fmt: str, w_side: str, q8: str) -> None:
    """q4_1 / q5_1 values are d * q + m: the block sums enter with a plus sign, where q4_K's dmin * m
    is subtracted; what llama.cpp's q4_1 x q8_1 dot computes, d_w * d_x * Σq_w*q_x + m * s per 32."""
    rng = np.random.default_rng(12)
    k, rows_w, rows_x = 256, 4, 3
    raw_w = quantize(fmt, (rng.standard_normal((rows_w, k)) + 0.7).astype(np.float32))
    raw_x = quantize(q8, rng.standard_normal((rows_x, k)).astype(np.float32), method="ref")  # s = fp16(d * Σq)
    fw = block_fields(fmt, raw_w)
    fx = block_fields(q8, raw_x)
    assert isinstance(fw, Q41Fields | Q51Fields) and isinstance(fx, Q8Fields) and fx.s is not None
    nb = k // 32
    d_x, s_x = fx.d.reshape(rows_x, nb).astype(np.float64), fx.s.reshape(rows_x, nb).astype(np.float64)
    q_x = fx.q.reshape(rows_x, nb, 32).astype(np.int64)
    q_w = fw.q.astype(np.int64)
    assert (fw.m != 0).all()
    want = np.zeros((rows_w, rows_x))
    for r_w in range(rows_w):
        for r_x in range(rows_x):
            for j in range(nb):
                integer = int(q_w[r_w, j] @ q_x[r_x, j])
                want[r_w, r_x] += float(fw.d[r_w, j]) * d_x[r_x, j] * integer + float(fw.m[r_w, j]) * s_x[r_x, j]
    blocks_w = raw_w.reshape(rows_w, nb, -1)
    blocks_x = raw_x.reshape(rows_x, k // format_info(q8).block_values, -1)
    if w_side == "lhs":
        got = dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs=fmt, rhs=q8, use_block_sums=True)
    else:
        got = dot_scaled(blocks_x, blocks_w.transpose(1, 0, 2), lhs=q8, rhs=fmt, use_block_sums=True).T
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the exact dequantized dot (d * q + m in float64, times d_x * q_x) differs from it by m * (s - d_x * Σq_x)
    # per block: the q8_1 sum's fp16 rounding alone, never the 2 * m * s a wrong sign would add
    exact_w = (fw.d[..., None].astype(np.float64) * q_w + fw.m[..., None]).reshape(rows_w, k)
    exact = exact_w @ (d_x[..., None] * q_x).reshape(rows_x, k).T
    sum_rounding = s_x - d_x * q_x.sum(axis=-1)  # (rows_x, nb)
    assert (np.abs(sum_rounding) <= np.abs(d_x * q_x.sum(axis=-1)) * 2.0**-10).all() and sum_rounding.any()
    np.testing.assert_allclose(got - exact, fw.m.astype(np.float64) @ sum_rounding.T, rtol=1e-9, atol=1e-12)
    assert np.abs(got - exact).max() < 1e-3 * np.abs(fw.m.astype(np.float64) @ s_x.T).max()


@pytest.mark.parametrize("q8", ["q8_0", "q8_1", "q8_1_mmq"])
@pytest.mark.parametrize("w_side", ["lhs", "rhs"])
def test_mxfp4_dot_is_an_integer_dot_per_block(w_side: str, q8: str) -> None:
    """mxfp4 x q8: per 32 values d_w * d_x * Σ kvalue * q_x, d_w = 2^(e - 128), what llama.cpp's
    ``vec_dot_mxfp4_q8_1`` computes (``d = e8m0_to_fp32(e) * 0.5f * d8``, the same d); no min, no block sum."""
    rng = np.random.default_rng(15)
    k, rows_w, rows_x = 256, 4, 3
    w = rng.standard_normal((rows_w, k)).astype(np.float32) * np.float32(3)
    w[1] *= np.float32(2.0**-100)  # small exponents (e near 25) beside ordinary ones
    raw_w = quantize("mxfp4", w)
    raw_x = quantize(q8, rng.standard_normal((rows_x, k)).astype(np.float32), method="ref")
    fw, fx = block_fields("mxfp4", raw_w), block_fields(q8, raw_x)
    assert isinstance(fw, Q8Fields) and isinstance(fx, Q8Fields)
    nb = k // 32
    d_x = fx.d.reshape(rows_x, nb).astype(np.float64)
    q_x = fx.q.reshape(rows_x, nb, 32).astype(np.int64)
    blocks_w = raw_w.reshape(rows_w, nb, 17)
    want = np.zeros((rows_w, rows_x))
    for r_w in range(rows_w):
        for r_x in range(rows_x):
            for j in range(nb):
                integer = int(fw.q[r_w, j].astype(np.int64) @ q_x[r_x, j])
                e8m0 = 2.0 ** (int(blocks_w[r_w, j, 0]) - 127)  # the exponent byte as E8M0, then * 0.5
                want[r_w, r_x] += e8m0 * 0.5 * d_x[r_x, j] * integer
    blocks_x = raw_x.reshape(rows_x, k // format_info(q8).block_values, -1)
    if w_side == "lhs":
        got = dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs="mxfp4", rhs=q8)
    else:
        got = dot_scaled(blocks_x, blocks_w.transpose(1, 0, 2), lhs=q8, rhs="mxfp4").T
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert 0 < np.abs(got[1]).min() and np.abs(got[1]).max() < 2.0**-90
    if q8 != "q8_0":
        with pytest.raises(ValueError, match="use_block_sums needs a q4_K, q5_K, q4_1 or q5_1 operand"):
            dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs="mxfp4", rhs=q8, use_block_sums=True)


@pytest.mark.parametrize("q8", ["q8_0", "q8_1"])
@pytest.mark.parametrize("w_side", ["lhs", "rhs"])
@pytest.mark.parametrize("fmt", ["q2_K", "q3_K"])
def test_q2_K_q3_K_dot_is_an_integer_dot_per_16(fmt: str, w_side: str, q8: str) -> None:
    """q2_K / q3_K x q8: per 16 values d * sc * d_x * Σ q_w * q_x (q3_K: q = code - 4), less q2_K's
    dmin * m * d_x * Σ q_x: ggml's ``vec_dot_q2_K_q8_K`` / ``vec_dot_q3_K_q8_K`` with q8's d per 32."""
    rng = np.random.default_rng(16)
    k, rows_w, rows_x = 512, 4, 3
    raw_w = quantize(fmt, rng.standard_normal((rows_w, k)).astype(np.float32))
    raw_x = quantize(q8, rng.standard_normal((rows_x, k)).astype(np.float32), method="ref")
    fw, fx = block_fields(fmt, raw_w), block_fields(q8, raw_x)
    assert isinstance(fw, Q2KFields | Q3KFields) and isinstance(fx, Q8Fields)
    groups = k // 16
    d_x = np.repeat(fx.d.reshape(rows_x, k // 32).astype(np.float64), 2, axis=1)  # per 16
    q_x = fx.q.reshape(rows_x, groups, 16).astype(np.int64)
    q_w = fw.q.reshape(rows_w, groups, 16).astype(np.int64)
    d_w = np.repeat(fw.d.astype(np.float64), 16, axis=1) * fw.scales.reshape(rows_w, groups)
    want = np.zeros((rows_w, rows_x))
    for r_w in range(rows_w):
        for r_x in range(rows_x):
            for j in range(groups):
                want[r_w, r_x] += d_w[r_w, j] * d_x[r_x, j] * int(q_w[r_w, j] @ q_x[r_x, j])
                if isinstance(fw, Q2KFields):
                    m = float(fw.dmin[r_w, j // 16]) * int(fw.mins[r_w, j // 16, j % 16])
                    want[r_w, r_x] -= m * d_x[r_x, j] * int(q_x[r_x, j].sum())
    info = format_info(fmt)
    assert info.block_bytes is not None and not info.min_term  # q2_K's min is per 16: no block-sum form
    blocks_w = raw_w.reshape(rows_w, k // 256, info.block_bytes)
    blocks_x = raw_x.reshape(rows_x, k // 32, -1)
    if w_side == "lhs":
        got = dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs=fmt, rhs=q8)
    else:
        got = dot_scaled(blocks_x, blocks_w.transpose(1, 0, 2), lhs=q8, rhs=fmt).T
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("q8", ["q8_0", "q8_1"])
@pytest.mark.parametrize("w_side", ["lhs", "rhs"])
@pytest.mark.parametrize("fmt", ["iq4_nl", "iq4_xs"])
def test_iq4_dot_is_an_integer_dot_per_32(fmt: str, w_side: str, q8: str) -> None:
    """iq4_nl / iq4_xs x q8: per 32 values d_w * d_x * Σ kvalue * q_x, d_w = d (iq4_nl) or d * (ls - 32)
    (iq4_xs): ggml's ``vec_dot_iq4_nl_q8_0`` / ``vec_dot_iq4_xs_q8_K`` with q8's d per 32; no min, no block
    sum."""
    rng = np.random.default_rng(22)
    k, rows_w, rows_x = 512, 4, 3
    raw_w = quantize(fmt, rng.standard_normal((rows_w, k)).astype(np.float32))
    raw_x = quantize(q8, rng.standard_normal((rows_x, k)).astype(np.float32), method="ref")
    fw, fx = block_fields(fmt, raw_w), block_fields(q8, raw_x)
    assert isinstance(fw, Q8Fields | IQ4XSFields) and isinstance(fx, Q8Fields)
    nb = k // 32
    d_w = fw.d.astype(np.float64) if isinstance(fw, Q8Fields) else (
        np.repeat(fw.d.astype(np.float64), 8, axis=1) * fw.scales.reshape(rows_w, nb))
    d_x = fx.d.reshape(rows_x, nb).astype(np.float64)
    q_w = fw.q.reshape(rows_w, nb, 32).astype(np.int64)
    q_x = fx.q.reshape(rows_x, nb, 32).astype(np.int64)
    want = np.zeros((rows_w, rows_x))
    for r_w in range(rows_w):
        for r_x in range(rows_x):
            for j in range(nb):
                want[r_w, r_x] += d_w[r_w, j] * d_x[r_x, j] * int(q_w[r_w, j] @ q_x[r_x, j])
    info = format_info(fmt)
    assert info.block_bytes is not None and not info.min_term
    blocks_w = raw_w.reshape(rows_w, k // info.block_values, info.block_bytes)
    blocks_x = raw_x.reshape(rows_x, nb, -1)
    if w_side == "lhs":
        got = dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs=fmt, rhs=q8)
    else:
        got = dot_scaled(blocks_x, blocks_w.transpose(1, 0, 2), lhs=q8, rhs=fmt).T
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if q8 == "q8_1":
        with pytest.raises(ValueError, match="use_block_sums needs a q4_K, q5_K, q4_1 or q5_1 operand"):
            dot_scaled(blocks_w, blocks_x.transpose(1, 0, 2), lhs=fmt, rhs=q8, use_block_sums=True)


def test_mxfp4_is_e2m1_with_its_exponent_as_ue8m0() -> None:
    """An mxfp4 block is an OCP MX e2m1 block: its codes are e2m1 codes (kvalue = 2 * e2m1 value) and its
    exponent byte, read as a ue8m0 scale 2^(e - 127), undoes the doubling. Repacked as e2m1 along K (values
    2i, 2i + 1 per byte, where mxfp4 pairs i and i + 16) with ``a_scale = e``, dot_scaled agrees exactly."""
    rng = np.random.default_rng(16)
    k = 128
    w = rng.standard_normal((M, k)).astype(np.float32) * np.exp2(rng.integers(-20, 20, (M, 1))).astype(np.float32)
    raw = quantize("mxfp4", w).reshape(M, k // 32, 17)
    codes = np.concatenate([raw[..., 1:] & 0xF, raw[..., 1:] >> 4], axis=-1).reshape(M, k)  # value order
    e = raw[..., 0]
    assert e.min() > 0 and e.max() < 255
    x = quantize("q8_0", rng.standard_normal((N, k)).astype(np.float32)).reshape(N, k // 32, 34).transpose(1, 0, 2)
    mx = dot_scaled(pack_fp4(codes, axis=1), x, lhs="e2m1", rhs="q8_0", a_scale=e, a_scale_fmt="ue8m0")
    np.testing.assert_array_equal(dot_scaled(raw, x, lhs="mxfp4", rhs="q8_0"), mx)


def _e4m3(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=np.uint8)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(a=_e4m3((M, K)), b=_e4m3((K + 32, N)), lhs="e4m3", rhs="e4m3"),
         r"lhs \(e4m3, shape \[16, 64\]\) has K = 64 but rhs \(e4m3, shape \[96, 8\]\) has K = 96"),
        (dict(a=_e4m3((M, K // 4)), b=_e4m3((K, N)), lhs="e2m1", rhs="e4m3"),
         r"lhs \(e2m1, shape \[16, 16\]\) has K = 32 but rhs \(e4m3, shape \[64, 8\]\) has K = 64"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3", b_scale=np.zeros((N, 3), np.uint8)),
         r"b_scale \(ue8m0\) must have shape \[N, K/32\] = \[8, 2\], got \[8, 3\]"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3", a_scale=np.zeros((M, 4), np.uint8)),
         r"ue4m3 scales \(NVFP4, one per 16\) apply only to e2m1 operands; lhs is e4m3"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3", a_scale=np.zeros((M, 2), np.uint8),
              a_scale_fmt="ue4m3"), r"apply only to e2m1"),
        (dict(a=np.zeros((M, 2, 144), np.uint8), b=_e4m3((512, N)), lhs="q4_K", rhs="e4m3",
              a_scale=np.zeros((M, 16), np.uint8)), r"lhs q4_K operand takes no external scale"),
        (dict(a=np.zeros((M, K), np.int8), b=np.zeros((K, N), np.int8), lhs="i8", rhs="i8",
              a_scale=np.zeros((M, 2), np.uint8)), r"only float formats are scaled"),
        (dict(a=np.zeros((M, K), np.float32), b=_e4m3((K, N)), lhs="bf16", rhs="e4m3"),
         r"lhs bf16 operand must have dtype bfloat16, got float32"),
        (dict(a=_e4m3((M, K)), b=np.zeros((2, N, 143), np.uint8), lhs="e4m3", rhs="q4_K"),
         r"rhs q4_K operand must have shape \[K/bv, N, bytes\] with bv = 256, bytes = 144, got \[2, 8, 143\]"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), acc=np.zeros((N, M)), lhs="e4m3", rhs="e4m3"),
         r"acc must have shape \[M, N\] = \[16, 8\], got \[8, 16\]"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3", use_block_sums=True),
         r"use_block_sums needs a q4_K, q5_K, q4_1 or q5_1 operand and a q8_1 or q8_1_mmq operand"),
        (dict(a=_e4m3((K,)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3"), r"lhs e4m3 operand must be 2-D"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="q9_K"), r"unknown format 'q9_K'"),
        (dict(a=np.zeros((M, K), np.uint16), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3"),
         r"lhs e4m3 operand must have dtype uint8 or float8_e4m3fn, got uint16"),
        (dict(a=_e4m3((M, K)), b=_e4m3((K, N)), lhs="e4m3", rhs="e4m3", b_scale_fmt="ue8m0"),
         r"rhs scale format 'ue8m0' given without a scale"),
    ],
)
def test_shape_and_format_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dot_scaled(**kwargs)


def test_large_reference_is_fast_enough() -> None:
    """512x4096 by 4096x4096 (e4m3 x e2m1 with MX scales) stays a few-second reference."""
    rng = np.random.default_rng(8)
    a = _finite_codes(rng, "e4m3", (512, 4096))
    b = rng.integers(0, 256, (2048, 4096), dtype=np.uint8)  # packed e2m1 along K
    a_scale = rng.integers(120, 135, (512, 128)).astype(np.uint8)
    b_scale = rng.integers(120, 135, (4096, 128)).astype(np.uint8)
    start = time.perf_counter()
    out = dot_scaled(a, b, lhs="e4m3", rhs="e2m1", a_scale=a_scale, b_scale=b_scale)
    elapsed = time.perf_counter() - start
    assert out.shape == (512, 4096) and np.isfinite(out).all()
    assert elapsed < 20.0, f"took {elapsed:.1f} s"


def test_a_typed_scale_array_is_read_as_its_own_format() -> None:
    """A float8_e8m0fnu or float8_e4m3fn array says which scale format its bits are: the shape used to choose, so
    an e8m0 array of K/16 columns was read as ue4m3 (1.0 became NaN) and an e4m3fn one of K/32 as ue8m0 (2^-71)."""
    from compiler.numerics import encode

    a = pack_fp4(encode("e2m1", np.ones((1, 32))))
    b = pack_fp4(encode("e2m1", np.ones((32, 1))), axis=0)
    e8m0, e4m3 = ml_dtypes.float8_e8m0fnu, ml_dtypes.float8_e4m3fn
    assert dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=np.ones((1, 1), e8m0))[0, 0] == 32
    assert dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=np.ones((1, 2), e4m3))[0, 0] == 32
    with pytest.raises(ValueError, match=r"a_scale \(ue8m0\) must have shape \[M, K/32\] = \[1, 1\], got \[1, 2\]"):
        dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=np.ones((1, 2), e8m0))
    with pytest.raises(ValueError, match=r"a_scale \(ue4m3\) must have shape \[M, K/16\] = \[1, 2\], got \[1, 1\]"):
        dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=np.ones((1, 1), e4m3))
    with pytest.raises(ValueError, match="a_scale holds float8_e4m3fn values, ue4m3 scales, but a_scale_fmt says "
                                         "ue8m0"):
        dot_scaled(a, b, lhs="e2m1", rhs="e2m1", a_scale=np.ones((1, 1), e4m3), a_scale_fmt="ue8m0")

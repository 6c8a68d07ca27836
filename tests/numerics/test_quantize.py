"""quantize(): hand-derived cases for every rounding rule, and q4_K properties.

Bit-exactness against ggml's C and llama.cpp's CUDA kernels on many blocks is in
test_ggml_vectors.py; here each rule gets a case small enough to check by hand.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from compiler.numerics import (
    IQ4NL_KVALUES,
    IQ4XSFields,
    Q2KFields,
    Q3KFields,
    Q4KFields,
    Q5KFields,
    Q6KFields,
    Q8Fields,
    Q41Fields,
    Q51Fields,
    block_fields,
    dequantize,
    pack_blocks,
    quantize,
)

F32 = np.float32


def _fields(fmt: str, x: np.ndarray, method: str | None = None) -> Q8Fields:
    fields = block_fields(fmt, quantize(fmt, np.asarray(x, dtype=np.float32), method=method))
    assert isinstance(fields, Q8Fields)
    return fields


def _block(*head: float, fill: float = 0.0) -> np.ndarray:
    x = np.full(32, fill, dtype=np.float32)
    x[: len(head)] = head
    return x


# ---------------------------------------------------------------- q8_1, CUDA kernel arithmetic


def test_q8_1_all_zero_block() -> None:
    raw = quantize("q8_1", np.zeros(64, dtype=np.float32))
    assert raw.tolist() == [0] * 72


def test_q8_1_halves_round_away_from_zero() -> None:
    # amax = 127 -> d = 1 exactly, so q = roundf(x): 2.5 -> 3 (rint would give 2)
    f = _fields("q8_1", _block(127, 2.5, -2.5, 0.5, -0.5, 1.5, -1.5, -127, 126.5, -126.49))
    assert f.d.tolist() == [1.0]
    assert f.q[0, :10].tolist() == [127, 3, -3, 1, -1, 2, -2, -127, 127, -126]


def test_q8_1_d_is_rounded_to_fp16_after_quantizing_with_the_f32_d() -> None:
    amax = F32(127) * F32(1 + 2.0**-11)  # d = amax/127 = 1 + 2^-11 exactly: an fp16 tie
    f = _fields("q8_1", _block(amax, 50.5))
    raw = quantize("q8_1", _block(amax, 50.5))
    assert raw[:2].tolist() == [0x00, 0x3C]  # the tie goes to the even fp16 1.0
    # q uses the float32 d: 50.5 / (1 + 2^-11) = 50.475... -> 50 (with d = 1.0 it would be 51)
    assert f.q[0, :2].tolist() == [127, 50]
    amax3 = F32(127) * F32(1 + 3 * 2.0**-11)  # tie between 1 + 2^-10 (odd) and 1 + 2^-9 (even)
    assert quantize("q8_1", _block(amax3))[:2].tolist() == [0x02, 0x3C]


def test_q8_1_negative_amax_and_d() -> None:
    f = _fields("q8_1", _block(-63.5, 10.0, -20.0))
    assert f.d.tolist() == [float(np.float16(F32(63.5) / F32(127)))] == [0.5]
    assert f.q[0, :3].tolist() == [-127, 20, -40]


def test_q8_1_s_is_the_butterfly_sum_of_the_inputs() -> None:
    # Sequentially, 2^24 + 1 rounds back to 2^24 fifteen times and the total is 15; the
    # xor-shuffle tree first cancels lane 0 against lane 16 and keeps every 1: 30.
    x = _block(2.0**24, *([1.0] * 15), -(2.0**24), *([1.0] * 15))
    lanes = x.copy()
    for offset in (16, 8, 4, 2, 1):
        lanes = lanes + lanes[np.arange(32) ^ offset]
    assert lanes[0] == 30.0
    f = _fields("q8_1", x)
    assert f.s is not None and f.s.tolist() == [30.0]
    # the CPU reference stores d * sum(q) instead: q = ±127 at the two big values, 0 elsewhere
    ref = _fields("q8_1", x, method="ref")
    assert ref.s is not None and ref.s.tolist() == [0.0]


def test_q8_1_s_rounding_to_fp16() -> None:
    x = _block(1.0, 2048.0, 1.0)  # s = 2050: fp16 spacing at 2048 is 2, 2050 is exact
    assert _fields("q8_1", x).s.tolist() == [2050.0]
    x = _block(1.0, 2048.0)  # s = 2049: a tie between 2048 and 2050 -> even mantissa 2048
    assert _fields("q8_1", x).s.tolist() == [2048.0]


def test_q8_1_ref_variant() -> None:
    f = _fields("q8_1", _block(127, 2.5, -3.5, 7.4), method="ref")
    assert f.q[0, :4].tolist() == [127, 3, -4, 7]
    assert f.s is not None and f.s.tolist() == [133.0]  # d * (127 + 3 - 4 + 7) = 133


def test_q8_0_ref() -> None:
    raw = quantize("q8_0", np.concatenate([_block(-127, 0.5, 126.5), np.zeros(32, np.float32)]))
    assert raw.size == 68
    assert raw[:2].tolist() == [0x00, 0x3C]  # d = amax/127 = 1.0 (amax is |x|)
    f = block_fields("q8_0", raw)
    assert isinstance(f, Q8Fields) and f.s is None
    assert f.d.tolist() == [1.0, 0.0]
    assert f.q[0, :3].tolist() == [-127, 1, 127] and not f.q[1].any()


def test_q8_bounded_error_on_random_data() -> None:
    x = np.random.default_rng(3).standard_normal((16, 1024)).astype(np.float32) * 5
    amax = np.abs(x.reshape(-1, 32)).max(axis=1)
    for fmt, method in (("q8_0", None), ("q8_1", "cuda"), ("q8_1", "ref"), ("q8_1_mmq", "cuda_mmq")):
        err = np.abs(dequantize(fmt, quantize(fmt, x, method=method)) - x).reshape(-1, 32).max(axis=1)
        # half a step of d = amax/127, plus the fp16 rounding of d (2^-11 relative, times 127)
        assert (err <= amax * (0.5 / 127 + 2.0**-11 * 1.01)).all(), fmt


# ---------------------------------------------------------------- q8_1_mmq


def test_q8_1_mmq_cuda_is_q8_1_in_ds4_layout() -> None:
    x = np.random.default_rng(4).standard_normal((3, 256)).astype(np.float32)
    mmq = block_fields("q8_1_mmq", quantize("q8_1_mmq", x))
    per32 = block_fields("q8_1", quantize("q8_1", x))
    assert isinstance(mmq, Q8Fields) and isinstance(per32, Q8Fields)
    assert mmq.d.shape == (3, 2, 4)
    np.testing.assert_array_equal(mmq.d.reshape(3, 8), per32.d)
    np.testing.assert_array_equal(mmq.s.reshape(3, 8), per32.s)
    np.testing.assert_array_equal(mmq.q.reshape(3, 256), per32.q.reshape(3, 256))


def test_q8_1_mmq_cuda_mmq_arithmetic() -> None:
    x = np.zeros(128, dtype=np.float32)
    x[:32] = _block(127, 2.5, -2.5)
    x[32:64] = _block(3.0, 1e-3, 1e-3, 1e-3, 5.0)  # thread sums: (3+1e-3+1e-3+1e-3), (5+0+0+0), ...
    x[96:128] = _block(1e-37, -5e-38)  # 127/amax overflows: d_inv = inf
    f = _fields("q8_1_mmq", x, method="cuda_mmq")
    assert f.d[0, 0] == 1.0 and f.q[0, :3].tolist() == [127, 3, -3]
    threads = x[32:64].reshape(8, 4)
    thread_sums = ((threads[:, 0] + threads[:, 1]) + threads[:, 2]) + threads[:, 3]
    for offset in (4, 2, 1):
        thread_sums = thread_sums + thread_sums[np.arange(8) ^ offset]
    assert f.s is not None and f.s[0, 1] == float(np.float16(thread_sums[0]))
    # d_inv = 127/5, d = 1/d_inv, q = roundf(x * d_inv)
    d_inv = F32(127) / F32(5)
    assert f.d[0, 1] == float(np.float16(F32(1) / d_inv))
    assert f.q[0, 32:37].tolist() == [76, 0, 0, 0, 127]
    # the all-zero group: d = 1/inf = 0, q = 0; the overflowing group: q = (int8)(int32)(±inf)
    assert f.d[0, 2] == 0.0 and not f.q[0, 64:96].any()
    assert f.d[0, 3] == 0.0 and f.q[0, 96:99].tolist() == [-1, 0, 0]


# ---------------------------------------------------------------- q4_K


def _q4_K(x: np.ndarray) -> Q4KFields:
    fields = block_fields("q4_K", quantize("q4_K", x))
    assert isinstance(fields, Q4KFields)
    return fields


def test_q4_K_round_trip_error_is_small() -> None:
    x = np.random.default_rng(5).standard_normal((32, 2048)).astype(np.float32)
    err = dequantize("q4_K", quantize("q4_K", x)) - x
    assert np.sqrt(np.mean(err**2)) < 0.09 * x.std()
    sub = x.reshape(-1, 32)
    spread = sub.max(axis=1) - np.minimum(sub.min(axis=1), 0)
    assert (np.abs(err).reshape(-1, 32).max(axis=1) <= 0.1 * spread).all()


def test_q4_K_fields_follow_the_reference_rules() -> None:
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(np.float32)
    f = _q4_K(x)
    assert f.scales.max() <= 63 and f.mins.max() <= 63 and f.q.max() <= 15
    # the largest scale and min of each super-block are quantized to the top code 63
    assert (f.scales.max(axis=-1) == 63).all() and (f.mins.max(axis=-1) == 63).all()
    # every nibble is the requantization of step 4 of quantize_row_q4_K_ref, in float32
    d_sub = f.d[..., None] * f.scales.astype(F32)  # (8, 4, 8)
    dm_sub = f.dmin[..., None] * f.mins.astype(F32)
    xs = x.reshape(8, 4, 8, 32)
    want = np.clip(np.rint((xs + dm_sub[..., None]) / d_sub[..., None]), 0, 15)
    np.testing.assert_array_equal(f.q.reshape(8, 4, 8, 32), want)


def test_q4_K_zero_and_constant_blocks() -> None:
    x = np.zeros((2, 256), dtype=np.float32)
    x[1] = -2.0
    raw = quantize("q4_K", x)
    assert raw.shape == (2, 144) and not raw[0].any()  # all-zero super-block: every byte 0
    f = _q4_K(x)
    # constant -2: no scale (max == min), every min is 2 -> code 63, dmin = fp16(2/63)
    assert f.d[1, 0] == 0.0 and f.dmin[1, 0] == float(np.float16(F32(2) / F32(63)))
    assert f.mins[1, 0].tolist() == [63] * 8 and not f.scales[1].any() and not f.q[1].any()
    np.testing.assert_allclose(dequantize("q4_K", raw)[1], -2.0, rtol=2.0**-10)


def test_q4_K_leading_axes() -> None:
    x = np.random.default_rng(7).standard_normal((2, 3, 512)).astype(np.float32)
    raw = quantize("q4_K", x)
    assert raw.shape == (2, 3, 288)
    np.testing.assert_array_equal(raw[1, 2], quantize("q4_K", x[1, 2]))


# ---------------------------------------------------------------- q5_K


def _q5_K(x: np.ndarray) -> Q5KFields:
    fields = block_fields("q5_K", quantize("q5_K", x))
    assert isinstance(fields, Q5KFields)
    return fields


def test_q5_K_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(np.float32)
    raw = quantize("q5_K", x)
    assert raw.shape == (8, 4 * 176)
    err = dequantize("q5_K", raw) - x
    err4 = dequantize("q4_K", quantize("q4_K", x)) - x
    # one more bit: about half q4_K's error (ratio ~0.5 for Gaussian data), and within 0.05 std
    assert np.sqrt(np.mean(err**2)) < 0.6 * np.sqrt(np.mean(err4**2))
    assert np.sqrt(np.mean(err**2)) < 0.05 * x.std()
    f = _q5_K(x)
    assert f.scales.max() <= 63 and f.mins.max() <= 63 and f.q.max() == 31
    # the largest scale and min of each super-block are quantized to the top code 63
    assert (f.scales.max(axis=-1) == 63).all() and (f.mins.max(axis=-1) == 63).all()
    # every code is the requantization of step 4 of quantize_row_q5_K_ref, in float32, clamped to 0..31
    d_sub = f.d[..., None] * f.scales.astype(F32)  # (8, 4, 8)
    dm_sub = f.dmin[..., None] * f.mins.astype(F32)
    want = np.clip(np.rint((x.reshape(8, 4, 8, 32) + dm_sub[..., None]) / d_sub[..., None]), 0, 31)
    np.testing.assert_array_equal(f.q.reshape(8, 4, 8, 32), want)
    np.testing.assert_array_equal(raw[3], quantize("q5_K", x[3]))  # leading axes are independent rows


def test_q5_K_zero_and_constant_blocks() -> None:
    x = np.zeros((3, 256), dtype=np.float32)
    x[1] = -2.0
    x[2] = 1.5
    raw = quantize("q5_K", x)
    assert raw.shape == (3, 176) and not raw[0].any()  # all-zero super-block: every byte 0
    f = _q5_K(x)
    # constant -2: max == min, no scale; every min is 2 -> code 63, dmin = fp16(2/63), codes 0
    assert f.d[1, 0] == 0.0 and f.dmin[1, 0] == float(np.float16(F32(2) / F32(63)))
    assert f.mins[1, 0].tolist() == [63] * 8 and not f.scales[1].any() and not f.q[1].any()
    np.testing.assert_allclose(dequantize("q5_K", raw)[1], -2.0, rtol=2.0**-10)
    # constant 1.5 > 0: min clamped to 0, so the top code 31 carries it and no min is stored
    assert f.dmin[2, 0] == 0.0 and not f.mins[2].any() and (f.q[2] == 31).all() and (f.scales[2] == 63).all()
    np.testing.assert_allclose(dequantize("q5_K", raw)[2], 1.5, rtol=2.0**-9)


def test_q6_K_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((4, 1024)) * rng.uniform(0.01, 3, (4, 1))).astype(np.float32)
    raw = quantize("q6_K", x)
    assert raw.shape == (4, 4 * 210)
    err = dequantize("q6_K", raw) - x
    assert np.sqrt(np.mean(err**2)) < 0.02 * x.std()
    f = block_fields("q6_K", raw)
    assert isinstance(f, Q6KFields)
    # the scale of largest magnitude is the one that set d = max_scale / -128: code -128
    assert (np.abs(f.scales.astype(np.int16)).max(axis=-1) == 128).all()
    # every code is step 3's requantization, clamped to -32..31
    d_sub = f.d[..., None] * f.scales.astype(F32)  # (4, 4, 16)
    want = np.clip(np.rint(x.reshape(4, 4, 16, 16) / d_sub[..., None]), -32, 31)
    np.testing.assert_array_equal(f.q.reshape(4, 4, 16, 16), want)
    np.testing.assert_array_equal(raw[3], quantize("q6_K", x[3]))  # leading axes are independent rows


def test_q6_K_zero_block_is_all_zero_bytes() -> None:
    raw = quantize("q6_K", np.zeros((1, 256), dtype=np.float32))
    assert not raw.any()  # ggml's memset; dequantized: d · sc · (0 - 32) = -0.0
    assert np.all(dequantize("q6_K", raw) == 0)


# ---------------------------------------------------------------- q2_K, q3_K


def test_q2_K_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(10)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(np.float32)
    raw = quantize("q2_K", x)
    assert raw.shape == (8, 4 * 84)
    err = dequantize("q2_K", raw) - x
    err3 = dequantize("q3_K", quantize("q3_K", x)) - x
    # two bits and a min: about twice q3_K's error on Gaussian data (0.29 of the std here)
    assert np.sqrt(np.mean(err**2)) < 0.32 * x.std() and np.sqrt(np.mean(err3**2)) < 0.6 * np.sqrt(np.mean(err**2))
    f = block_fields("q2_K", raw)
    assert isinstance(f, Q2KFields)
    # the largest scale and min of each super-block are the top 4-bit code 15
    assert (f.scales.max(axis=-1) == 15).all() and (f.mins.max(axis=-1) == 15).all()
    # every code is step 3's requantization in float32, clamped to 0..3
    d_sub = f.d[..., None] * f.scales.astype(F32)  # (8, 4, 16)
    dm_sub = f.dmin[..., None] * f.mins.astype(F32)
    assert (d_sub != 0).all()
    want = np.clip(np.rint((x.reshape(8, 4, 16, 16) + dm_sub[..., None]) / d_sub[..., None]), 0, 3)
    np.testing.assert_array_equal(f.q.reshape(8, 4, 16, 16), want)
    np.testing.assert_array_equal(raw[3], quantize("q2_K", x[3]))  # leading axes are independent rows


def test_q3_K_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(np.float32)
    raw = quantize("q3_K", x)
    assert raw.shape == (8, 4 * 110)
    err = dequantize("q3_K", raw) - x
    err4 = dequantize("q4_K", quantize("q4_K", x)) - x
    assert np.sqrt(np.mean(err**2)) < 0.16 * x.std() and np.sqrt(np.mean(err4**2)) < 0.6 * np.sqrt(np.mean(err**2))
    f = block_fields("q3_K", raw)
    assert isinstance(f, Q3KFields)
    # the scale of largest magnitude set d = max_scale / -32: its code is 0 (scale -32)
    assert (np.abs(f.scales.astype(np.int16)).max(axis=-1) == 32).all()
    d_sub = f.d[..., None] * f.scales.astype(F32)  # (8, 4, 16)
    assert (d_sub != 0).all()
    want = np.clip(np.rint(x.reshape(8, 4, 16, 16) / d_sub[..., None]), -4, 3)
    np.testing.assert_array_equal(f.q.reshape(8, 4, 16, 16), want)
    np.testing.assert_array_equal(raw[5], quantize("q3_K", x[5]))


@pytest.mark.parametrize("fmt", ["q2_K", "q3_K"])
def test_q2_K_q3_K_zero_block_is_all_zero_bytes(fmt: str) -> None:
    """q2_K: no scale and no min, d = dmin = +0, codes 0; q3_K: ``make_q3_quants`` leaves L 0 below 1e-15
    (not the centre 4), every scale code 0 (``memset``), d = +0."""
    raw = quantize(fmt, np.zeros((2, 256), dtype=np.float32))
    assert not raw.any()
    assert np.all(dequantize(fmt, raw) == 0)


def test_q3_K_sub_blocks_below_threshold_keep_code_0() -> None:
    """Sub-blocks with amax < 1e-15 get scale 0 (code 32) and L 0 (q = -4), beside scaled ones."""
    x = np.zeros(256, dtype=np.float32)
    x[16:32] = np.linspace(-1, 1, 16, dtype=np.float32)
    x[48:64] = F32(9e-16)
    f = block_fields("q3_K", quantize("q3_K", x))
    assert isinstance(f, Q3KFields)
    assert f.scales[0, 0] == f.scales[0, 3] == 0 and f.scales[0, 1] == -32
    assert (f.q[0, :16] == -4).all() and (f.q[0, 48:64] == -4).all()
    np.testing.assert_array_equal(dequantize("q3_K", pack_blocks("q3_K", f))[48:64], 0)


# ---------------------------------------------------------------- q4_1, q5_1, q5_0


def _type1(fmt: str, x: np.ndarray) -> Q41Fields | Q51Fields:
    fields = block_fields(fmt, quantize(fmt, np.asarray(x, dtype=np.float32)))
    assert isinstance(fields, Q41Fields | Q51Fields)
    return fields


@pytest.mark.parametrize(("fmt", "top"), [("q4_1", 15), ("q5_1", 31)])
def test_q4_1_q5_1_halves_round_up_from_the_min(fmt: str, top: int) -> None:
    # min -1, max top - 1: d = 1 and m = -1 exactly; x - min = k + 0.5 -> (k + 0.5) * 1 + 0.5f truncated: k + 1
    x = _block(-1.0, top - 1.0, -0.5, 0.5, 1.5, 2.5, fill=-1.0)
    f = _type1(fmt, x)
    assert (f.d.tolist(), f.m.tolist()) == ([1.0], [-1.0])
    assert f.q[0, :6].tolist() == [0, top, 1, 2, 3, 4] and not f.q[0, 6:].any()
    np.testing.assert_array_equal(dequantize(fmt, quantize(fmt, x))[:2], [-1.0, top - 1.0])


@pytest.mark.parametrize(("fmt", "top"), [("q4_1", 15), ("q5_1", 31)])
def test_q4_1_q5_1_quantize_with_the_f32_d_and_min(fmt: str, top: int) -> None:
    x = np.random.default_rng(10).standard_normal((6, 256)).astype(F32) * F32(3) + F32(1)
    f = _type1(fmt, x)
    g = x.reshape(6, 8, 32)
    lo, hi = g.min(axis=-1), g.max(axis=-1)
    d = (hi - lo) / F32(top)  # float32, before fp16: the codes use it, the block stores fp16(d), fp16(min)
    np.testing.assert_array_equal(f.d, d.astype(np.float16).astype(F32))
    np.testing.assert_array_equal(f.m, lo.astype(np.float16).astype(F32))
    want = np.floor((g - lo[..., None]) * (F32(1) / d)[..., None] + F32(0.5))
    np.testing.assert_array_equal(f.q, np.minimum(want, top))
    assert (f.q.max(axis=-1) == top).all() and (f.q.min(axis=-1) == 0).all()
    # the error is half a step plus the fp16 roundings of d (times top) and of m
    err = np.abs(dequantize(fmt, quantize(fmt, x)).reshape(6, 8, 32) - g)
    bound = d * (0.5 + top * 2.0**-11) + np.abs(lo) * 2.0**-11 + 1e-6
    assert (err.max(axis=-1) <= bound).all()


@pytest.mark.parametrize("fmt", ["q4_1", "q5_1"])
def test_q4_1_q5_1_constant_and_signed_zero_blocks(fmt: str) -> None:
    x = np.zeros((4, 32), dtype=F32)
    x[1] = -2.5
    x[2, 0] = -0.0  # the first smallest of equal zeros is kept: m = -0.0 (``if (v < min)``)
    x[3, 1:] = -0.0
    raw = quantize(fmt, x)
    f = block_fields(fmt, raw)
    assert isinstance(f, Q41Fields | Q51Fields)
    assert not raw[0].any() and not f.d.any() and not f.q.any()
    assert f.m[:, 0].tolist() == [0.0, -2.5, 0.0, 0.0]
    assert np.signbit(f.m[:, 0]).tolist() == [False, True, True, False]
    np.testing.assert_array_equal(dequantize(fmt, raw)[1], -2.5)


def test_q5_0_is_q4_0_with_sixteen_levels() -> None:
    # max -16 (the first of largest magnitude): d = 1; x * 1 + 16.5f truncated rounds halves up
    x = _block(-16.0, 15.5, -15.5, 2.5, -2.5, 0.5, -0.5, 16.0)
    f = _fields("q5_0", x)
    assert f.d.tolist() == [1.0] and f.s is None
    # 15.5 -> 32.0 and 16 -> 32.5 clamp to code 31 (q = 15); -15.5 -> 1.0 (q = -15)
    assert f.q[0, :8].tolist() == [-16, 15, -15, 3, -2, 1, 0, 15]
    assert _fields("q5_0", -x).d.tolist() == [-1.0]  # the first peak's sign is d's: +16 -> d = -1
    # a zero block: ggml's max stays +0, d = +0 / -16 = -0.0; every code 16 (q = 0): qh all ones
    zero = quantize("q5_0", np.zeros(32, dtype=F32))
    assert zero.tolist() == [0x00, 0x80] + [0xFF] * 4 + [0x00] * 16


def test_q5_0_round_trip_error() -> None:
    x = np.random.default_rng(11).standard_normal((8, 512)).astype(F32)
    err = dequantize("q5_0", quantize("q5_0", x)) - x
    amax = np.abs(x.reshape(-1, 32)).max(axis=1)
    # half a step of amax / 16, plus d's fp16 rounding times 16; the clamped code 31 is a full step off
    assert (np.abs(err).reshape(-1, 32).max(axis=1) <= amax / 16 * (1 + 16 * 2.0**-11) + 1e-6).all()
    err4 = dequantize("q4_0", quantize("q4_0", x)) - x
    assert np.sqrt(np.mean(err**2)) < 0.6 * np.sqrt(np.mean(err4**2))  # one more bit: about half q4_0's


# ---------------------------------------------------------------- mxfp4

KV = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]  # ggml-common.h kvalues_mxfp4


def _mxfp4(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(e, codes in value order) of ``quantize("mxfp4", x)``, read from the bytes."""
    raw = quantize("mxfp4", np.asarray(x, dtype=F32)).reshape(-1, 17)
    return raw[:, 0], np.concatenate([raw[:, 1:] & 0xF, raw[:, 1:] >> 4], axis=-1)


def test_mxfp4_scale_and_nearest_kvalue() -> None:
    # amax 6: floor(log2 6) = 2, e = 2 - 2 + 127 = 127, d = 2^(127 - 128) = 0.5: values kvalue / 2, e2m1's
    x = _block(6.0, -6.0, 0.5, -1.5, 3.0, 0.7, -2.2, 4.9, 5.1, 0.0, -0.0, 1e-30)
    e, codes = _mxfp4(x)
    assert e.tolist() == [127]
    assert [KV[c] / 2 for c in codes[0, :12]] == [6, -6, 0.5, -1.5, 3, 0.5, -2, 4, 6, 0, 0, 0]
    assert (codes != 8).all()  # -0.0 and tiny negatives take code 0, the first of the two zeros
    f = _fields("mxfp4", x)
    assert f.d.tolist() == [0.5] and f.s is None and f.q[0, :2].tolist() == [12, -12]
    # amax 12: floor(log2 12) = 3, e = 128, d = 1, the kvalues themselves (7 is a tie: 6)
    e, codes = _mxfp4(_block(8.0, 7.5, -12.0, 11.0, 9.9, 7.0))
    assert e.tolist() == [128] and [KV[c] for c in codes[0, :6]] == [8, 8, -12, 12, 8, 6]


def test_mxfp4_ties_go_to_the_smaller_magnitude() -> None:
    # d = 1 (amax 12): every midpoint of neighbouring kvalues; best_index_mxfp4 keeps the first of equal
    # errors, and codes 0..7 (and 8..15) run from small to large magnitude
    ties = [0.5, 1.5, 2.5, 3.5, 5.0, 7.0, 10.0]
    x = _block(12.0, *ties, *(-t for t in ties))
    e, codes = _mxfp4(x)
    assert e.tolist() == [128]
    assert [KV[c] for c in codes[0, 1:15]] == [0, 1, 2, 3, 4, 6, 8, 0, -1, -2, -3, -4, -6, -8]
    # one ulp away from zero, the larger magnitude
    away = [np.nextafter(F32(t), F32(np.copysign(np.inf, t))) for t in (*ties, *(-t for t in ties))]
    _, codes = _mxfp4(_block(12.0, *away))
    assert [KV[c] for c in codes[0, 1:15]] == [1, 2, 3, 4, 6, 8, 12, -1, -2, -3, -4, -6, -8, -12]


def test_mxfp4_exponent_takes_glibc_log2f_rounding() -> None:
    """floorf(log2f(amax)): log2f rounds a few floats below 2^k up to k itself (correctly rounded, the float
    below k is farther); how many: 0 below 2^2, 1 below 2^3 and 2^-2, 2 below 2^5, 5 below 2^9, 44 below
    2^-125 and 2^128 (ggml's C, tests/numerics/data/ggml_cpu_mxfp4.txt, edges 15-64)."""
    def e_of(amax: float | np.float32, below: int = 0) -> int:
        a = F32(amax)
        for _ in range(below):
            a = np.nextafter(a, F32(0))
        return int(_mxfp4(_block(a))[0][0])

    assert [e_of(4.0, m) for m in range(3)] == [127, 126, 126]
    assert [e_of(8.0, m) for m in range(3)] == [128, 128, 127]
    assert [e_of(32.0, m) for m in range(4)] == [130, 130, 130, 129]
    assert [e_of(512.0, m) for m in (1, 5, 6)] == [134, 134, 133]
    assert [e_of(0.25, m) for m in range(3)] == [123, 123, 122]
    # the largest floats: log2f(FLT_MAX) rounds to 128, e = 253 (d = 2^125); 8 * d = 2^128 is Inf, so the
    # block's largest value is 6 * d = 1.5 * 2^127, FLT_MAX's code 5
    fmax = np.finfo(F32).max
    assert e_of(fmax) == e_of(fmax, 43) == 253 and e_of(fmax, 44) == 252
    e, codes = _mxfp4(_block(fmax, -fmax, 1.0))
    assert e.tolist() == [253] and codes[0, :3].tolist() == [5, 13, 0]
    assert dequantize("mxfp4", quantize("mxfp4", _block(fmax)))[0] == F32(1.5 * 2.0**127)


def test_floor_log2f_differs_from_the_exact_floor_on_7456_floats() -> None:
    """floor_log2f's table against the counts of an exhaustive run of gcc 12.2 / glibc 2.36 ``floorf(log2f(x))``
    over every positive finite float32: it exceeds the exact floor on 7456 floats, the n(k) just below each
    2^k; nowhere else does it differ."""
    from compiler.numerics.f32ops import _LOG2F_FLOOR_STARTS, floor_log2f

    ks = np.arange(-149, 129)
    tops = np.where(ks < 128, np.ldexp(1.0, np.minimum(ks, 127)).astype(F32).view(np.uint32), 0x7F800000)
    rounded_up = dict(zip(ks.tolist(), (tops.astype(np.int64) - _LOG2F_FLOOR_STARTS.view(np.uint32)).tolist()))
    assert sum(rounded_up.values()) == 7456
    assert [rounded_up[k] for k in (1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 128)] == \
        [0, 0, 1, 1, 2, 2, 5, 5, 11, 11, 22, 22, 44, 44]
    assert [rounded_up[k] for k in (0, -1, -2, -3, -4, -8, -16, -32, -64, -125, -126, -127, -128, -131, -132)] == \
        [0, 0, 1, 1, 2, 5, 11, 22, 44, 44, 22, 11, 11, 1, 0]
    # elsewhere the exact floor: random floats of every binade, normal and subnormal
    bits = np.random.default_rng(14).integers(1, 0x7F800000, 200_000).astype(np.uint32)
    x = bits.view(F32)
    exact = np.floor(np.log2(x.astype(np.float64))).astype(np.int64)
    got = floor_log2f(x)
    assert ((got == exact) | ((got == exact + 1) & (x >= _LOG2F_FLOOR_STARTS[got + 149]))).all()
    assert (floor_log2f(np.ldexp(F32(1), np.arange(-149, 128)).astype(F32)) == np.arange(-149, 128)).all()


def test_mxfp4_tiny_blocks_wrap_the_exponent_as_x86() -> None:
    """amax < 2^-125: floorf(log2f(amax)) + 125 < 0, and ``(uint8_t)`` of a negative float (undefined in C)
    is what gcc emits on x86-64: cvttss2si to int32, the low byte. e wraps to 232..255, d = 2^(e - 128) is
    huge, and every code is 0: the block dequantizes to zeros."""
    sub = F32(2.0**-149)
    cases = {F32(2.0**-125): 0, np.nextafter(F32(2.0**-125), F32(0)): 0, F32(2.0**-124): 1, F32(2.0**-123): 2,
             F32(1.5 * 2.0**-126): 255, F32(2.0**-130): 251, sub: 232}
    for amax, e in cases.items():
        got_e, codes = _mxfp4(_block(amax, -amax / F32(3), sub))
        assert got_e.tolist() == [e], amax
        if e >= 232:
            assert not codes.any() and not dequantize("mxfp4", quantize("mxfp4", _block(amax))).any()
        else:
            assert codes[0, 0] == 6  # amax = 8 d (e = 0, 1: d = 2^-128, 2^-127, subnormal): kvalue 8
    below = F32(2.0**-125)
    for _ in range(45):
        below = np.nextafter(below, F32(0))
    assert _mxfp4(_block(below))[0].tolist() == [255]  # 45 ulps below: log2f no longer rounds up to -125


def test_mxfp4_round_trip_error() -> None:
    x = np.random.default_rng(13).standard_normal((8, 512)).astype(F32) * F32(3)
    f = _fields("mxfp4", x)
    amax = np.abs(x.reshape(-1, 32)).max(axis=1)
    d = f.d.reshape(-1)
    # d = 2^(floor(log2 amax) - 3): amax / 16 < d <= amax / 8
    assert ((amax / 16 < d) & (d <= amax / 8)).all()
    err = np.abs(dequantize("mxfp4", quantize("mxfp4", x)) - x).reshape(-1, 32).max(axis=1)
    # half the widest gap (8 -> 12: 2d), or the clamp of values above 12 d (amax < 16 d)
    assert (err <= np.maximum(2 * d, amax - 12 * d)).all()
    assert not (f.q == 0).all(axis=-1).any()


# ---------------------------------------------------------------- iq4_nl, iq4_xs

KV_IQ4 = np.array(IQ4NL_KVALUES, dtype=F32)


def _best_index_int8_c(x: np.float32) -> int:
    """ggml-quants.c ``best_index_int8(16, kvalues_iq4nl, x)`` transcribed line by line (float32 scalars)."""
    if x <= KV_IQ4[0]:
        return 0
    if x >= KV_IQ4[15]:
        return 15
    ml, mu = 0, 15
    while mu - ml > 1:
        mav = (ml + mu) // 2
        if x < KV_IQ4[mav]:
            mu = mav
        else:
            ml = mav
    return mu - 1 if x - KV_IQ4[mu - 1] < KV_IQ4[mu] - x else mu


def test_best_index_int8_is_ggml_bisection() -> None:
    """The table lookup of iq4nl.best_index_int8 against the C bisection: 400 floats around every kvalue and
    every midpoint between neighbours (where the float32 differences decide), zeros, subnormals, NaN, ±Inf
    and random floats of every magnitude."""
    from compiler.numerics.iq4nl import best_index_int8

    centres = np.concatenate([KV_IQ4, (KV_IQ4[:-1] + KV_IQ4[1:]) / F32(2)]).astype(F32)
    steps = np.arange(-200, 201, dtype=np.int32)
    near = (centres.view(np.int32)[:, None] + steps).view(F32).reshape(-1)
    rng = np.random.default_rng(21)
    wide = (rng.standard_normal(20000) * 10.0 ** rng.uniform(-45, 38, 20000)).astype(F32)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38], dtype=F32)
    x = np.concatenate([near, wide, special, rng.uniform(-140, 140, 20000).astype(F32)])
    want = [_best_index_int8_c(v) for v in x]
    assert best_index_int8(x).tolist() == want
    assert best_index_int8(centres[16:]).tolist() == list(range(1, 16))  # a midpoint goes up


def test_iq4_nl_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(17)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(F32)
    rms = {m: float(np.sqrt(np.mean((dequantize("iq4_nl", quantize("iq4_nl", x, method=m)) - x) ** 2)))
           for m in ("chunk", "ref")}
    q4_0 = float(np.sqrt(np.mean((dequantize("q4_0", quantize("q4_0", x)) - x) ** 2)))
    # the non-linear grid beats q4_0's even steps on Gaussian data, the scale search beats none
    assert rms["chunk"] < rms["ref"] < q4_0 and rms["chunk"] < 0.92 * q4_0 and rms["chunk"] < 0.08 * x.std()
    assert quantize("iq4_nl", x).shape == (8, 32 * 18)
    np.testing.assert_array_equal(quantize("iq4_nl", x)[3], quantize("iq4_nl", x[3]))
    # ref: codes of id = 1/(max/-127) (the bisection, value by value), so max takes -127 and d max's other sign
    row = x[0, :256]
    f = _fields("iq4_nl", row, method="ref")
    blocks = row.reshape(8, 32)
    peak = blocks[np.arange(8), np.argmax(np.abs(blocks), axis=1)]
    inverse = F32(1) / (peak / F32(-127))
    codes = [[_best_index_int8_c(inverse[b] * v) for v in blocks[b]] for b in range(8)]
    np.testing.assert_array_equal(f.q, KV_IQ4[codes])
    assert (np.sign(f.d) == -np.sign(peak)).all()


def test_iq4_nl_fits_scaled_kvalues_exactly() -> None:
    """Values on the grid (the kvalues times 1/4, max -31.75 first): both quantizers find d = 1/4 and
    every code (chunk: the try with id = (0 - 127)/max = 4)."""
    x = np.concatenate([KV_IQ4, KV_IQ4[::-1]]) / F32(4)
    for method in ("chunk", "ref"):
        f = _fields("iq4_nl", x, method=method)
        assert f.d.tolist() == [0.25] and f.q[0].tolist() == np.concatenate([KV_IQ4, KV_IQ4[::-1]]).tolist()
        np.testing.assert_array_equal(dequantize("iq4_nl", quantize("iq4_nl", x, method=method)), x)


def test_iq4_nl_blocks_below_threshold() -> None:
    """amax < 1e-15: d = +0. chunk requantizes with id = 0 (every code 8, kvalue 1); ref leaves ggml's
    codes array as the row's previous block left it, and here code 8 before a row's first scaled block."""
    normal = np.random.default_rng(19).standard_normal(32).astype(F32)
    tiny = np.full(32, 9e-16, dtype=F32)
    rows = np.stack([np.concatenate([normal, np.zeros(32, F32), tiny]),
                     np.concatenate([tiny, normal, np.zeros(32, F32)])])
    chunk = quantize("iq4_nl", rows).reshape(2, 3, 18)
    assert chunk[0, 1].tobytes() == chunk[0, 2].tobytes() == chunk[1, 0].tobytes() == bytes(2) + bytes([0x88] * 16)
    f = block_fields("iq4_nl", quantize("iq4_nl", rows, method="ref"))
    assert isinstance(f, Q8Fields)
    assert (f.d == 0).tolist() == [[False, True, True], [True, False, True]] and not np.signbit(f.d[f.d == 0]).any()
    np.testing.assert_array_equal(f.q[0, 1], f.q[0, 0])
    np.testing.assert_array_equal(f.q[0, 2], f.q[0, 0])
    np.testing.assert_array_equal(f.q[1, 2], f.q[1, 1])
    assert (f.q[1, 0] == 1).all()  # rows are separate calls: row 1's leading block does not see row 0's codes


def test_iq4_xs_round_trip_error_and_rules() -> None:
    rng = np.random.default_rng(18)
    x = (rng.standard_normal((8, 1024)) * rng.uniform(0.01, 3, (8, 1))).astype(F32)
    raw = quantize("iq4_xs", x)
    assert raw.shape == (8, 4 * 136)
    err = dequantize("iq4_xs", raw) - x
    assert np.sqrt(np.mean(err**2)) < 0.08 * x.std()
    f = block_fields("iq4_xs", raw)
    assert isinstance(f, IQ4XSFields)
    # the sub-block of largest |scale| sets d = -max_scale/32: its scale is -32 in every super-block
    assert (f.scales == -32).any(axis=-1).all()
    np.testing.assert_array_equal(raw[5], quantize("iq4_xs", x[5]))


def test_iq4_xs_zero_super_block() -> None:
    """Every scale 0: d = -0/32 = -0 (fp16 0x8000), scale code l + 32 = 32 (scales_h 0xAAAA, scales_l 0),
    codes best_index_int8(0) = 8; a zero sub-block beside scaled ones gets the same code and scale."""
    raw = quantize("iq4_xs", np.zeros(256, dtype=F32))
    assert raw.tobytes() == bytes([0x00, 0x80, 0xAA, 0xAA]) + bytes(4) + bytes([0x88] * 128)
    x = np.zeros(256, dtype=F32)
    x[32:64] = np.linspace(-1, 1, 32, dtype=F32)
    f = block_fields("iq4_xs", quantize("iq4_xs", x))
    assert isinstance(f, IQ4XSFields)
    assert f.scales[0].tolist() == [0, -32, 0, 0, 0, 0, 0, 0] and (f.q[0, :32] == 1).all() and (f.q[0, 64:] == 1).all()


def test_iq4_quantize_is_fast_enough() -> None:
    """A 1000 x 4096 weight matrix in seconds: the 15 trial scales per 32 values run on all blocks at once."""
    x = np.random.default_rng(20).standard_normal((1000, 4096)).astype(F32)
    for fmt in ("iq4_nl", "iq4_xs"):
        start = time.perf_counter()
        quantize(fmt, x)
        elapsed = time.perf_counter() - start
        assert elapsed < 10.0, f"{fmt} took {elapsed:.1f} s"


# ---------------------------------------------------------------- errors


def test_errors() -> None:
    with pytest.raises(ValueError, match="K to be a multiple of 256, got K = 128"):
        quantize("q4_K", np.zeros(128, dtype=np.float32))
    with pytest.raises(ValueError, match="supports method 'ref', got 'cuda'"):
        quantize("q8_0", np.zeros(32, dtype=np.float32), method="cuda")
    with pytest.raises(ValueError, match="supports method"):
        quantize("q8_1", np.zeros(32, dtype=np.float32), method="cuda_mmq")
    with pytest.raises(ValueError, match="finite"):
        quantize("q8_1", np.full(32, np.inf, dtype=np.float32))
    with pytest.raises(ValueError, match="not a block format"):
        quantize("e4m3", np.zeros(32, dtype=np.float32))
    with pytest.raises(ValueError, match="finite"):
        quantize("mxfp4", np.array([np.nan] + [0.0] * 31, dtype=np.float32))
    with pytest.raises(ValueError, match="supports method 'ref', got 'cuda'"):
        quantize("mxfp4", np.zeros(32, dtype=np.float32), method="cuda")
    with pytest.raises(ValueError, match="K to be a multiple of 32, got K = 16"):
        quantize("mxfp4", np.zeros(16, dtype=np.float32))
    with pytest.raises(ValueError, match="quantize\\('iq4_nl'\\) supports method 'chunk', 'ref', got 'cuda'"):
        quantize("iq4_nl", np.zeros(32, dtype=np.float32), method="cuda")
    with pytest.raises(ValueError, match="quantize\\('iq4_xs'\\) supports method 'ref', got 'chunk'"):
        quantize("iq4_xs", np.zeros(256, dtype=np.float32), method="chunk")
    with pytest.raises(ValueError, match="K to be a multiple of 256, got K = 32"):
        quantize("iq4_xs", np.zeros(32, dtype=np.float32))

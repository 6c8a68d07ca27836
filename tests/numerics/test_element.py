"""decode/encode of the small float formats against ml_dtypes and hand tables.

ml_dtypes is an independent implementation (C++), so agreeing with it on every code
and on many rounding cases checks our field arithmetic. Where the documented rules
differ from ml_dtypes (saturation, NaN in formats without NaN, ue8m0 zero and
negatives), the tests pin our rule explicitly.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from compiler.numerics import decode, encode, format_info

ML = {
    "e2m1": ml_dtypes.float4_e2m1fn,
    "e2m3": ml_dtypes.float6_e2m3fn,
    "e3m2": ml_dtypes.float6_e3m2fn,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "ue8m0": ml_dtypes.float8_e8m0fnu,
}
CODE_COUNT = {"e2m1": 16, "e2m3": 64, "e3m2": 64, "e4m3": 256, "e5m2": 256, "ue8m0": 256}


def _ml_decode(fmt: str, codes: np.ndarray) -> np.ndarray:
    return codes.astype(np.uint8).view(ML[fmt]).astype(np.float64)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN where NaN, and the same sign of zero."""
    return bool(np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b)))


# ---------------------------------------------------------------- decode


@pytest.mark.parametrize("fmt", list(ML))
def test_decode_every_code_matches_ml_dtypes(fmt: str) -> None:
    codes = np.arange(CODE_COUNT[fmt], dtype=np.uint8)
    assert _same(decode(fmt, codes), _ml_decode(fmt, codes))


def test_decode_e2m1_table_of_ptx_reference() -> None:
    # shared/reference/ptx.md §7.1
    want = [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]
    assert _same(decode("e2m1", np.arange(16)), np.array(want, dtype=np.float64))


@pytest.mark.parametrize(
    ("fmt", "code", "value"),
    [
        ("e4m3", 0x7E, 448.0), ("e4m3", 0x08, 2.0**-6), ("e4m3", 0x01, 2.0**-9), ("e4m3", 0x38, 1.0),
        ("e4m3", 0x30, 0.5), ("e5m2", 0x7B, 57344.0), ("e5m2", 0x04, 2.0**-14), ("e5m2", 0x01, 2.0**-16),
        ("e5m2", 0x7C, np.inf), ("e5m2", 0xFC, -np.inf), ("e2m3", 0x1F, 7.5), ("e2m3", 0x01, 0.125),
        ("e3m2", 0x1F, 28.0), ("e3m2", 0x01, 0.0625), ("ue8m0", 0, 2.0**-127), ("ue8m0", 127, 1.0),
        ("ue8m0", 254, 2.0**127), ("ue4m3", 0x7E, 448.0), ("ue4m3", 0x38, 1.0), ("ue4m3", 0x01, 2.0**-9),
    ],
)
def test_decode_landmarks(fmt: str, code: int, value: float) -> None:
    assert decode(fmt, np.array([code]))[0] == value


@pytest.mark.parametrize(("fmt", "codes"), [("e4m3", [0x7F, 0xFF]), ("e5m2", [0x7D, 0x7E, 0x7F, 0xFD, 0xFF]),
                                            ("ue8m0", [0xFF]), ("ue4m3", [0x7F])])
def test_decode_nan_codes(fmt: str, codes: list[int]) -> None:
    assert np.isnan(decode(fmt, np.array(codes))).all()


def test_decode_ue4m3_is_the_non_negative_half_of_e4m3fn() -> None:
    codes = np.arange(0x80, dtype=np.uint8)
    assert _same(decode("ue4m3", codes), _ml_decode("e4m3", codes))


def test_decode_bf16_and_fp16_every_code() -> None:
    codes = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns when casting NaN payloads
        want = codes.view(ml_dtypes.bfloat16).astype(np.float64)
    assert _same(decode("bf16", codes), want)
    assert _same(decode("fp16", codes), codes.view(np.float16).astype(np.float64))


def test_decode_keeps_shape() -> None:
    codes = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    out = decode("e4m3", codes)
    assert out.shape == (2, 3, 4) and out.dtype == np.float64


@pytest.mark.parametrize(
    ("fmt", "code", "message"),
    [
        ("e2m1", 0x10, "e2m1 code 0x10 at index \\(1,\\) is out of range 0..0xf"),
        ("e2m3", 0x40, "e2m3 code 0x40"),
        ("e3m2", 0xFF, "e3m2 code 0xff"),
        ("ue4m3", 0x80, "ue4m3 code 0x80 .*MSB must be 0"),
    ],
)
def test_decode_rejects_out_of_range_codes(fmt: str, code: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode(fmt, np.array([0, code], dtype=np.uint8))


def test_decode_rejects_float_input_and_block_formats() -> None:
    with pytest.raises(ValueError, match="integer array"):
        decode("e4m3", np.array([1.0]))
    with pytest.raises(ValueError, match="not a float element format"):
        decode("q4_K", np.array([1], dtype=np.uint8))


# ---------------------------------------------------------------- encode: agreement with ml_dtypes


def _log_uniform(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    mag = np.exp2(rng.uniform(np.log2(lo), np.log2(hi), n))
    return (mag * rng.choice([-1.0, 1.0], n)).astype(np.float32)


@pytest.mark.parametrize("fmt", ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2"])
def test_encode_random_values_match_ml_dtypes(fmt: str) -> None:
    coding = format_info(fmt).coding
    assert coding is not None
    rng = np.random.default_rng(list(ML).index(fmt))
    # from far below the smallest subnormal to far above the largest value
    x = _log_uniform(rng, 200_000, coding.min_positive / 16, coding.max_finite * 4)
    x = np.concatenate([x, np.float32([0.0, -0.0])])
    got = encode(fmt, x, saturate=False)
    want = x.astype(ML[fmt]).view(np.uint8)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


def _ties(fmt: str, table: np.ndarray) -> np.ndarray:
    """Every midpoint between neighbouring finite values, and its float32 neighbours."""
    finite = np.unique(table[np.isfinite(table)])
    mids = ((finite[1:] + finite[:-1]) / 2).astype(np.float32)
    assert np.array_equal(mids.astype(np.float64), (finite[1:] + finite[:-1]) / 2), "midpoints exact in f32"
    up = np.nextafter(mids, np.float32(np.inf))
    down = np.nextafter(mids, np.float32(-np.inf))
    return np.concatenate([mids, up, down])


@pytest.mark.parametrize("fmt", ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2"])
def test_encode_ties_go_to_even_as_ml_dtypes(fmt: str) -> None:
    table = decode(fmt, np.arange(CODE_COUNT[fmt]))
    x = _ties(fmt, table)
    got = encode(fmt, x, saturate=False)
    np.testing.assert_array_equal(got, x.astype(ML[fmt]).view(np.uint8))
    # and the rule itself: an exact midpoint goes to the code with an even mantissa
    finite = np.unique(table[np.isfinite(table)])
    positive = finite[finite > 0]
    mids = ((positive[1:] + positive[:-1]) / 2).astype(np.float32)
    assert (encode(fmt, mids, saturate=False) & 1 == 0).all()


@pytest.mark.parametrize("fmt", ["e2m1", "e2m3", "e3m2", "e4m3", "e5m2", "ue8m0", "ue4m3", "bf16", "fp16"])
def test_encode_decode_round_trips_every_code(fmt: str) -> None:
    info = format_info(fmt)
    codes = np.arange(1 << info.bits, dtype=np.int64)
    values = decode(fmt, codes)
    keep = ~np.isnan(values)
    back = encode(fmt, values[keep], saturate=False)
    np.testing.assert_array_equal(back.astype(np.int64), codes[keep])


def test_encode_bf16_and_fp16_match_standard_casts() -> None:
    rng = np.random.default_rng(5)
    x = _log_uniform(rng, 200_000, 2.0**-140, 3e38)
    x = np.concatenate([x, _log_uniform(rng, 50_000, 2.0**-30, 1e6)])
    np.testing.assert_array_equal(encode("bf16", x, saturate=False), x.astype(ml_dtypes.bfloat16).view(np.uint16))
    with np.errstate(over="ignore"):
        want16 = x.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(encode("fp16", x, saturate=False), want16)


def test_encode_accepts_float64_bf16_and_int_inputs_without_double_rounding() -> None:
    # 1 + 2^-4 + 2^-30 is above the e4m3 midpoint 1.0625; a float32 detour (which rounds it to
    # the midpoint exactly, 1 + 2^-4) would then round to even, i.e. down to 1.0.
    x = np.array([1.0 + 2.0**-4 + 2.0**-30])
    assert encode("e4m3", x)[0] == 0x39  # 1.125
    assert encode("e4m3", np.array([3], dtype=np.int32))[0] == encode("e4m3", np.float32([3.0]))[0]
    b = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(encode("e2m1", b), [0x3, 0xC])


# ---------------------------------------------------------------- encode: our rules


@pytest.mark.parametrize(
    ("fmt", "x", "code"),
    [
        ("e4m3", 448.0, 0x7E), ("e4m3", 464.0, 0x7E), ("e4m3", 480.0, 0x7E), ("e4m3", 1e10, 0x7E),
        ("e4m3", -1e10, 0xFE), ("e4m3", np.inf, 0x7E), ("e4m3", -np.inf, 0xFE),
        ("e5m2", 61440.0, 0x7B), ("e5m2", 1e10, 0x7B), ("e5m2", -1e10, 0xFB),
        ("e5m2", np.inf, 0x7C), ("e5m2", -np.inf, 0xFC),
        ("e2m1", 7.0, 0x7), ("e2m1", 100.0, 0x7), ("e2m1", -np.inf, 0xF), ("e2m1", np.inf, 0x7),
        ("e2m3", 8.0, 0x1F), ("e2m3", -1e30, 0x3F), ("e3m2", 31.0, 0x1F), ("e3m2", np.inf, 0x1F),
        ("ue4m3", 1e6, 0x7E), ("ue4m3", np.inf, 0x7E), ("ue8m0", np.inf, 0xFE), ("ue8m0", 2.0**127 * 1.5, 0xFE),
        ("fp16", 70000.0, 0x7BFF), ("fp16", np.inf, 0x7C00), ("bf16", 3.4e38, 0x7F7F),
    ],
)
def test_encode_saturates(fmt: str, x: float, code: int) -> None:
    assert int(encode(fmt, np.array([x]))[0]) == code


@pytest.mark.parametrize(
    ("fmt", "x", "code"),
    [
        ("e4m3", 464.0, 0x7E), ("e4m3", 480.0, 0x7F), ("e4m3", -480.0, 0xFF), ("e4m3", np.inf, 0x7F),
        ("e5m2", 61440.0, 0x7C), ("e5m2", -1e10, 0xFC), ("e2m1", 100.0, 0x7), ("e2m1", -np.inf, 0xF),
        ("ue8m0", np.inf, 0xFF), ("ue8m0", 2.0**127 * 1.5, 0xFF), ("ue4m3", 480.0, 0x7F), ("fp16", 70000.0, 0x7C00),
    ],
)
def test_encode_without_saturation_overflows_like_ieee(fmt: str, x: float, code: int) -> None:
    assert int(encode(fmt, np.array([x]), saturate=False)[0]) == code


def test_ml_dtypes_gives_nan_where_we_saturate_e4m3() -> None:
    """Documents why saturation is tested against hand values and not ml_dtypes."""
    x = np.float32([480.0, np.inf])
    assert (x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8) == 0x7F).all()
    assert (encode("e4m3", x) == 0x7E).all()


@pytest.mark.parametrize(
    ("fmt", "positive", "negative"),
    [
        ("e4m3", 0x7F, 0xFF), ("e5m2", 0x7E, 0xFE), ("e2m1", 0x7, 0x7), ("e2m3", 0x1F, 0x1F),
        ("e3m2", 0x1F, 0x1F), ("ue8m0", 0xFF, 0xFF), ("ue4m3", 0x7F, 0x7F), ("bf16", 0x7FC0, 0xFFC0),
        ("fp16", 0x7E00, 0xFE00),
    ],
)
def test_encode_nan(fmt: str, positive: int, negative: int) -> None:
    for saturate in (True, False):
        got = encode(fmt, np.array([np.nan, -np.nan]), saturate=saturate)
        assert [int(c) for c in got] == [positive, negative]


def test_encode_nan_in_formats_without_nan_differs_from_ml_dtypes() -> None:
    """ml_dtypes maps NaN to a zero code in e2m1; we follow PTX cvt.rn.satfinite (+max)."""
    nan = np.float32([np.nan])
    assert nan.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)[0] in (0x0, 0x8)
    assert encode("e2m1", nan)[0] == 0x7


def test_encode_keeps_the_sign_of_zero() -> None:
    got = encode("e2m1", np.array([-0.0, 0.0, -0.1, 0.1, -0.25, 0.25]))
    np.testing.assert_array_equal(got, [0x8, 0x0, 0x8, 0x0, 0x8, 0x0])


def test_encode_e2m1_round_half_even_examples_of_ptx_reference() -> None:
    # ptx.md §7.1: 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2, 2.5 -> 2, 3.5 -> 4, 5 -> 4
    x = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])
    np.testing.assert_array_equal(decode("e2m1", encode("e2m1", x)), [0, 1, 1, 2, 2, 4, 4])


# ---------------------------------------------------------------- encode: unsigned scales


def test_encode_ue8m0_matches_ml_dtypes_on_normal_float32() -> None:
    rng = np.random.default_rng(11)
    x = np.abs(_log_uniform(rng, 200_000, 2.0**-126, 2.0**127))
    np.testing.assert_array_equal(encode("ue8m0", x), x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8))


def test_encode_ue8m0_ties_round_up_in_the_linear_domain() -> None:
    k = np.arange(-126, 127)
    tie = np.ldexp(1.5, k).astype(np.float32)
    np.testing.assert_array_equal(encode("ue8m0", tie), k + 1 + 127)  # 1.5 * 2^k -> 2^(k+1)
    below = np.nextafter(tie, np.float32(0))
    np.testing.assert_array_equal(encode("ue8m0", below), k + 127)
    np.testing.assert_array_equal(encode("ue8m0", tie), tie.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8))
    assert list(decode("ue8m0", encode("ue8m0", np.array([0.75, 3.0])))) == [1.0, 4.0]


@pytest.mark.parametrize("x", [0.0, -0.0, -1.0, -1e30, -np.inf, 2.0**-128, 2.0**-149, 1e-300])
def test_encode_ue8m0_zero_negative_and_tiny_go_to_code_0(x: float) -> None:
    assert encode("ue8m0", np.array([x]))[0] == 0


def test_encode_ue4m3() -> None:
    rng = np.random.default_rng(13)
    x = np.abs(_log_uniform(rng, 100_000, 2.0**-12, 900.0))
    want = x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)  # MSB is 0 for x >= 0
    np.testing.assert_array_equal(encode("ue4m3", x, saturate=False), want)
    sat = encode("ue4m3", x)
    assert sat.max() == 0x7E
    np.testing.assert_array_equal(encode("ue4m3", np.array([-3.0, -0.0, -np.inf, 1e-9])), [0, 0, 0, 0])


def test_encode_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match="real numeric array"):
        encode("e4m3", np.array(["1.0"]))
    with pytest.raises(ValueError, match="not a float element format"):
        encode("i8", np.array([1.0]))

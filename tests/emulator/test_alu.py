"""Register instructions: prmt, lop3, shfl.sync, cvt, bf16x2 fma/mul, bitcast (ptx.md §6, ISA §9.7).

Each test runs one instruction per thread on inputs from global memory and compares with
values computed here from the ISA's definition (or, for the recipes of ptx.md §6.3, with
the numbers the recipe is meant to produce).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from compiler import numerics
from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import KernelText, elementwise

def u32(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(3)


def test_prmt_default_mode(rng: np.random.Generator) -> None:
    n = 256
    a, b = u32(rng, n), u32(rng, n)
    c = u32(rng, n)
    c[:32] = [0x3210, 0x7654, 0x8888, 0xFFFF, 0x1404, 0x3424, 0x1100, 0x3322] * 4  # edge selectors
    got = elementwise([a, b, c], ["i32"] * 3, "i32", np.uint32,
                      lambda k, v: k.op(f"ptx.prmt {v[0]}, {v[1]}, {v[2]}"))
    for i in range(n):
        src = int(a[i]).to_bytes(4, "little") + int(b[i]).to_bytes(4, "little")
        expected = 0
        for j in range(4):
            s = (int(c[i]) >> (4 * j)) & 0xF
            byte = src[s & 7]
            if s & 8:  # sign replication
                byte = 0xFF if byte & 0x80 else 0
            expected |= byte << (8 * j)
        assert int(got[i]) == expected, (hex(int(a[i])), hex(int(b[i])), hex(int(c[i])))


def test_prmt_lut_recipe_turns_fp4_into_e4m3(rng: np.random.Generator) -> None:
    """ptx.md §6.3 R1 with the e4m3 table: out0/out1 byte j = e4m3 of e2m1 element j (exact)."""
    q = u32(rng, 128)

    def body(k: KernelText, v: list[str]) -> str:
        idx = k.binop("andi", v[0], 0x77777777)
        hs = k.binop("shrui", k.binop("andi", v[0], k.const(0x88888888 - 2**32)), 1)
        sel = k.binop("ori", hs, 0x32103210)
        lo = k.op(f"ptx.prmt {k.const(0x3C383000)}, {k.const(0x4C484440)}, {idx}")
        hi = k.op(f"ptx.prmt {k.const(0xBCB8B080 - 2**32)}, {k.const(0xCCC8C4C0 - 2**32)}, {idx}")
        return k.op(f"ptx.prmt {lo}, {hi}, {sel}")

    got = elementwise([q], ["i32"], "i32", np.uint32, body)
    codes = np.stack([(q >> (4 * j)) & 0xF for j in range(4)], axis=1)
    expected = numerics.encode("e4m3", numerics.decode("e2m1", codes))
    assert np.array_equal(got.view(np.uint8).reshape(-1, 4), expected)


@pytest.mark.parametrize("lut,fn", [(0xEA, lambda a, b, c: (a & b) | c), (0x96, lambda a, b, c: a ^ b ^ c),
                                    (0xF0, lambda a, b, c: a), (0x01, lambda a, b, c: ~(a | b | c))])
def test_lop3(lut: int, fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
              rng: np.random.Generator) -> None:
    a, b, c = u32(rng, 64), u32(rng, 64), u32(rng, 64)
    got = elementwise([a, b, c], ["i32"] * 3, "i32", np.uint32,
                      lambda k, v: k.op(f"ptx.lop3 {v[0]}, {v[1]}, {v[2]} lut {lut:#x}"))
    assert np.array_equal(got, fn(a, b, c).astype(np.uint32))


@pytest.mark.parametrize("mode,b,c,source", [
    ("bfly", 1, 0x1F, lambda lane: lane ^ 1),
    ("bfly", 6, 0x1F, lambda lane: lane ^ 6),
    ("idx", 5, 0x1F, lambda lane: 5),
    ("down", 2, 0x1F, lambda lane: lane + 2 if lane + 2 <= 31 else lane),
    ("up", 3, 0, lambda lane: lane - 3 if lane >= 3 else lane),
    ("idx", 3, 0x1C1F, lambda lane: (lane & 0x1C) | 3),  # segmask 0x1C: sub-warps of 4 lanes
])
def test_shfl_sync(mode: str, b: int, c: int, source: Callable[[int], int], rng: np.random.Generator) -> None:
    values = u32(rng, 64)

    def body(k: KernelText, v: list[str]) -> str:
        return k.op(f"ptx.shfl_sync {mode} {v[0]}, {k.const(b)}, {k.const(c)}, {k.const(-1)} : i32")

    got = elementwise([values], ["i32"], "i32", np.uint32, body)
    for i in range(64):
        assert got[i] == values[(i // 32) * 32 + source(i % 32)], i


def test_shfl_sync_needs_full_member_mask() -> None:
    with pytest.raises(EmulationError, match="membermask"):
        elementwise([np.zeros(32, np.uint32)], ["i32"], "i32", np.uint32,
                    lambda k, v: k.op(f"ptx.shfl_sync bfly {v[0]}, {k.const(1)}, {k.const(31)}, "
                                      f"{k.const(0xFFFF)} : i32"))


def test_cvt_e4m3x2_to_f16x2_every_code() -> None:
    codes = np.arange(256, dtype=np.uint16)
    pairs = (codes | (codes[::-1] << 8)).astype(np.uint16)  # element 0 in the low byte
    got = elementwise([pairs], ["i16"], "vector<2xf16>", np.float16,
                      lambda k, v: k.op(f"ptx.cvt f16x2.e4m3x2 {v[0]}"))
    expected = numerics.decode("e4m3", np.stack([codes, codes[::-1]], axis=1)).astype(np.float16)
    nan = np.isnan(expected)
    assert np.array_equal(got[~nan], expected[~nan]) and np.isnan(got[nan]).all()
    assert (got.view(np.uint16)[nan] == 0x7FFF).all()  # ptx.md §6.1: NaN -> 0x7fff


@pytest.mark.parametrize("fmt,bits", [("e5m2", 8), ("e2m3", 6), ("e3m2", 6)])
def test_cvt_small_floats_to_f16x2_every_code(fmt: str, bits: int) -> None:
    codes = np.arange(1 << bits, dtype=np.uint16)
    codes = np.concatenate([codes] * (64 // len(codes))) if len(codes) < 64 else codes
    pairs = (codes | (codes[::-1] << 8)).astype(np.uint16)
    got = elementwise([pairs], ["i16"], "vector<2xf16>", np.float16,
                      lambda k, v: k.op(f"ptx.cvt f16x2.{fmt}x2 {v[0]}"))
    expected = numerics.decode(fmt, np.stack([codes, codes[::-1]], axis=1)).astype(np.float16)
    finite = np.isfinite(expected)
    assert np.array_equal(got[finite], expected[finite])
    assert np.array_equal(np.isnan(got), np.isnan(expected)) and np.array_equal(np.isinf(got), np.isinf(expected))


def test_cvt_f32_to_e4m3x2_satfinite(rng: np.random.Generator) -> None:
    a = np.concatenate([rng.standard_normal(28) * 100, [1e6, -np.inf, np.nan, 464.0]]).astype(np.float32)
    b = np.concatenate([rng.standard_normal(28), [-1e6, np.inf, 0.0, -0.0]]).astype(np.float32)
    got = elementwise([a, b], ["f32", "f32"], "i16", np.uint16,
                      lambda k, v: k.op(f"ptx.cvt e4m3x2.f32 {v[0]}, {v[1]}"))
    hi, lo = got >> 8, got & 0xFF  # a -> upper byte
    assert np.array_equal(hi, numerics.encode("e4m3", np.where(np.isinf(a), np.sign(a) * 448, a)))
    assert np.array_equal(lo, numerics.encode("e4m3", np.where(np.isinf(b), np.sign(b) * 448, b)))
    assert hi[28] == 0x7E and lo[29] == 0x7E and hi[30] == 0x7F  # clamp to 448, NaN stays NaN


def test_cvt_f32_to_bf16x2_rounds_to_nearest_even(rng: np.random.Generator) -> None:
    a = rng.standard_normal(64).astype(np.float32)
    b = (rng.standard_normal(64) * 1e-39).astype(np.float32)  # subnormals too
    a[:4] = np.array([0x3F808000, 0x3F818000, 0x3F80C000, 0x7F7FFFFF], dtype=np.uint32).view(np.float32)  # ties
    got = elementwise([a, b], ["f32", "f32"], "vector<2xbf16>", np.uint16,
                      lambda k, v: k.op(f"ptx.cvt bf16x2.f32 {v[0]}, {v[1]}"))
    assert np.array_equal(got[:, 1], a.astype(ml_dtypes.bfloat16).view(np.uint16))  # a -> upper half
    assert np.array_equal(got[:, 0], b.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_cvt_e2m1x2_both_ways() -> None:
    codes = np.arange(256, dtype=np.uint8)
    got = elementwise([codes.astype(np.uint32)], ["i32"], "vector<2xf16>", np.float16,
                      lambda k, v: k.op(f"ptx.cvt f16x2.e2m1x2 {k.op(f'arith.trunci {v[0]} : i32 to i8')}"))
    assert np.array_equal(got[:, 0], numerics.decode("e2m1", codes & 0xF))
    assert np.array_equal(got[:, 1], numerics.decode("e2m1", codes >> 4))
    x = np.array([0.25, 0.75, 2.5, 5.0, 7.0, -100.0, np.nan, -0.1] * 4, dtype=np.float32)
    y = x[::-1].copy()
    packed = elementwise([x, y], ["f32", "f32"], "i8", np.uint8,
                         lambda k, v: k.op(f"ptx.cvt e2m1x2.f32 {v[0]}, {v[1]}"))
    assert np.array_equal(packed >> 4, numerics.encode("e2m1", x))  # a -> bits [7:4]
    assert np.array_equal(packed & 0xF, numerics.encode("e2m1", y))
    assert (packed[6] >> 4) == 0x7  # NaN -> +6 (satfinite)


def _bf16(rng: np.random.Generator, n: int, scale: float = 1.0) -> np.ndarray:
    return numerics.encode("bf16", rng.standard_normal((n, 2)) * scale)


def _nearest_bf16(value: Fraction) -> int:
    """Bits of the bf16 nearest to the exact `value`, ties to the even bit pattern."""
    guess = int(numerics.encode("bf16", np.array([float(value)]))[0])
    candidates = [c for c in (guess - 1, guess, guess + 1) if 0 <= c <= 0xFFFF]
    finite = [c for c in candidates if np.isfinite(numerics.decode("bf16", np.array([c]))[0])]

    def distance(c: int) -> tuple[Fraction, int]:
        return abs(Fraction(float(numerics.decode("bf16", np.array([c]))[0])) - value), c & 1
    return min(finite, key=distance)


def test_fma_rn_bf16x2_rounds_once(rng: np.random.Generator) -> None:
    a, b, c = _bf16(rng, 96), _bf16(rng, 96), _bf16(rng, 96, 1e-3)
    # (1 + 2^-6)(1 + 2^-2) = 1.25 + 2^-6 + 2^-8 is a tie between bf16 neighbours whose lower one is
    # even; + 2^-30 must push it up. Adding c after rounding the product (or in f32) would not.
    a[0] = numerics.encode("bf16", np.array([1.0 + 2.0**-6, 1.0]))
    b[0] = numerics.encode("bf16", np.array([1.0 + 2.0**-2, 1.0]))
    c[0] = numerics.encode("bf16", np.array([2.0**-30, 0.0]))

    def body(k: KernelText, v: list[str]) -> str:
        return k.op(f"ptx.fma_rn_bf16x2 {v[0]}, {v[1]}, {v[2]}")

    got = elementwise([a, b, c], ["vector<2xbf16>"] * 3, "vector<2xbf16>", np.uint16, body)
    va, vb, vc = (numerics.decode("bf16", x) for x in (a, b, c))
    for i in range(96):
        for h in range(2):
            exact = Fraction(float(va[i, h])) * Fraction(float(vb[i, h])) + Fraction(float(vc[i, h]))
            assert int(got[i, h]) == _nearest_bf16(exact), (i, h)
    assert numerics.decode("bf16", got[0:1, 0])[0] == 1.25 + 2.0**-6 + 2.0**-7


def test_mul_rn_bf16x2(rng: np.random.Generator) -> None:
    a, b = _bf16(rng, 64), _bf16(rng, 64)
    got = elementwise([a, b], ["vector<2xbf16>"] * 2, "vector<2xbf16>", np.uint16,
                      lambda k, v: k.op(f"ptx.mul_rn_bf16x2 {v[0]}, {v[1]}"))
    exact = numerics.decode("bf16", a) * numerics.decode("bf16", b)  # exact in float64
    assert np.array_equal(got, numerics.encode("bf16", exact, saturate=False))


def test_bitcast_between_scalar_and_vector(rng: np.random.Generator) -> None:
    words = u32(rng, 32)

    def body(k: KernelText, v: list[str]) -> str:
        pair = k.op(f"ptx.bitcast {v[0]} : i32 -> vector<2xbf16>")
        return k.op(f"ptx.bitcast {pair} : vector<2xbf16> -> vector<2xf16>")

    got = elementwise([words], ["i32"], "vector<2xf16>", np.float16, body)
    assert np.array_equal(got.view(np.uint16).reshape(-1), words.view(np.uint16))  # low half first


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_f32_to_fp8x2_makes_every_nan_0x7f(fmt: str) -> None:
    """CUDA's model of the conversion (cuda_fp8.hpp) gives any NaN, of either sign and payload, as 0x7F: a negative
    NaN was 0xFF (e4m3) and e5m2's NaN 0x7E / 0xFE, the sign-kept codes of numerics.encode."""
    nans = [np.nan, np.uint32(0xFFC0_0001).view(np.float32), -np.nan, np.uint32(0x7F80_0001).view(np.float32)]
    a = np.array(nans * 8, np.float32)
    got = elementwise([a, a], ["f32", "f32"], "i16", np.uint16,
                      lambda k, v: k.op(f"ptx.cvt {fmt}x2.f32 {v[0]}, {v[1]}"))
    assert set(got.tolist()) == {0x7F7F}

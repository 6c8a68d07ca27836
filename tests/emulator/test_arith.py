"""arith on per-thread values: wraparound, signedness, casts, float precision, and the UB cases."""

from __future__ import annotations

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import KernelText, elementwise


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(5)


def i32(rng: np.random.Generator, n: int = 64) -> np.ndarray:
    x = rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
    x[:6] = [0, -1, 2**31 - 1, -2**31, 1, 7]
    return x


def binary(name: str, a: np.ndarray, b: np.ndarray, type_: str = "i32", out: str | None = None) -> np.ndarray:
    out = out or type_
    dtype = {"i32": np.int32, "i1": np.uint8, "f32": np.float32, "i16": np.int16}[out]
    return elementwise([a, b], [type_, type_], out, dtype,
                       lambda k, v: _widen_i1(k, k.op(f"arith.{name} {v[0]}, {v[1]} : {type_}"), out))


def _widen_i1(k: KernelText, value: str, out: str) -> str:
    return k.op(f"arith.extui {value} : i1 to i8") if out == "i1" else value


@pytest.mark.parametrize("name,fn", [
    ("addi", lambda a, b: a + b), ("subi", lambda a, b: a - b), ("muli", lambda a, b: a * b),
    ("andi", lambda a, b: a & b), ("ori", lambda a, b: a | b), ("xori", lambda a, b: a ^ b),
    ("maxsi", np.maximum), ("minsi", np.minimum),
    ("maxui", lambda a, b: np.maximum(a % 2**32, b % 2**32)), ("minui", lambda a, b: np.minimum(a % 2**32, b % 2**32)),
])
def test_integer_binary_wraps_on_32_bits(name: str, fn, rng: np.random.Generator) -> None:  # noqa: ANN001
    a, b = i32(rng), i32(rng)[::-1].copy()
    expected = (fn(a.astype(np.int64), b.astype(np.int64)) + 2**31) % 2**32 - 2**31
    assert np.array_equal(binary(name, a, b).astype(np.int64), expected)


def test_division_and_remainder_signed_and_unsigned(rng: np.random.Generator) -> None:
    a = i32(rng)
    b = i32(rng)[::-1].copy()
    b[b == 0] = 3
    b[(a == -2**31) & (b == -1)] = 5
    ua, ub = a.astype(np.int64) % 2**32, b.astype(np.int64) % 2**32
    assert np.array_equal(binary("divui", a, b).view(np.uint32), ua // ub)
    assert np.array_equal(binary("remui", a, b).view(np.uint32), ua % ub)
    assert np.array_equal(binary("ceildivui", a, b).view(np.uint32), -(-ua // ub))
    q = np.trunc(a.astype(np.float64) / b.astype(np.float64)).astype(np.int64)  # C division: toward zero
    assert np.array_equal(binary("divsi", a, b), q)
    assert np.array_equal(binary("remsi", a, b), a.astype(np.int64) - q * b)
    assert np.array_equal(binary("floordivsi", a, b), np.floor_divide(a.astype(np.int64), b))


@pytest.mark.parametrize("name", ["divui", "remsi"])
def test_division_by_zero_is_an_error(name: str) -> None:
    a = np.ones(32, np.int32)
    b = np.ones(32, np.int32)
    b[17] = 0
    with pytest.raises(EmulationError, match="by zero \\(thread 17\\)"):
        binary(name, a, b)


def test_shifts(rng: np.random.Generator) -> None:
    a = i32(rng)
    s = rng.integers(0, 32, size=64).astype(np.int32)
    wide = a.view(np.uint32).astype(np.int64)
    assert np.array_equal(binary("shli", a, s).view(np.uint32), (wide << s.astype(np.int64)) % 2**32)
    assert np.array_equal(binary("shrui", a, s).view(np.uint32), a.view(np.uint32) >> s)
    assert np.array_equal(binary("shrsi", a, s), a >> s)


def test_shift_by_the_width_is_poison() -> None:
    with pytest.raises(EmulationError, match="shift by 32 >= width 32"):
        binary("shli", np.ones(32, np.int32), np.full(32, 32, np.int32))


@pytest.mark.parametrize("predicate", ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"])
def test_cmpi_predicates(predicate: str, rng: np.random.Generator) -> None:
    a = i32(rng)
    b = np.where(rng.random(64) < 0.3, a, i32(rng)[::-1]).astype(np.int32)
    got = elementwise([a, b], ["i32", "i32"], "i8", np.uint8,
                      lambda k, v: _widen_i1(k, k.op(f"arith.cmpi {predicate}, {v[0]}, {v[1]} : i32"), "i1"))
    x, y = (a.astype(np.int64), b.astype(np.int64)) if predicate[0] != "u" else (a.view(np.uint32), b.view(np.uint32))
    op = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal}[predicate if predicate in ("eq", "ne") else predicate[1:]]
    assert np.array_equal(got.astype(bool), op(x, y))


def test_casts(rng: np.random.Generator) -> None:
    a = i32(rng)

    def body(k: KernelText, v: list[str]) -> str:
        narrow = k.op(f"arith.trunci {v[0]} : i32 to i16")
        signed = k.op(f"arith.extsi {narrow} : i16 to i64")
        unsigned = k.op(f"arith.extui {narrow} : i16 to i64")
        index = k.op(f"arith.index_cast {signed} : i64 to index")
        back = k.op(f"arith.index_cast {index} : index to i32")
        both = k.op(f"arith.addi {signed}, {unsigned} : i64")
        return k.op(f"arith.addi {back}, {k.op(f'arith.trunci {both} : i64 to i32')} : i32")

    got = elementwise([a], ["i32"], "i32", np.int32, body)
    low = a.astype(np.int64) & 0xFFFF
    sext = np.where(low >= 2**15, low - 2**16, low)
    assert np.array_equal(got.astype(np.int64), (sext + sext + low + 2**31) % 2**32 - 2**31)


def test_select_and_i1_logic(rng: np.random.Generator) -> None:
    a, b = i32(rng), i32(rng)[::-1].copy()

    def body(k: KernelText, v: list[str]) -> str:
        lt = k.op(f"arith.cmpi slt, {v[0]}, {v[1]} : i32")
        odd = k.op(f"arith.trunci {v[0]} : i32 to i1")
        both = k.op(f"arith.xori {lt}, {odd} : i1")
        return k.op(f"arith.select {both}, {v[0]}, {v[1]} : i32")

    got = elementwise([a, b], ["i32", "i32"], "i32", np.int32, body)
    assert np.array_equal(got, np.where((a < b) ^ (a & 1).astype(bool), a, b))


def test_f32_arithmetic_rounds_in_f32(rng: np.random.Generator) -> None:
    a = rng.standard_normal(64).astype(np.float32)
    b = (rng.standard_normal(64) * 1e-4).astype(np.float32)
    for name, fn in (("addf", np.add), ("subf", np.subtract), ("mulf", np.multiply), ("divf", np.divide)):
        assert np.array_equal(binary(name, a, b, "f32"), fn(a, b)), name  # numpy float32 = IEEE single
    assert not np.array_equal(binary("addf", a, b, "f32").astype(np.float64), a.astype(np.float64) + b)


def test_math_fma_rounds_once(rng: np.random.Generator) -> None:
    """``math.fma`` is a·b + c rounded once to f32 (what ``llvm.fma`` / ``fma.rn.f32`` do), checked
    against exact rational arithmetic — including the magic-number rescale of qdot-lower-mma,
    fma(1.5 · 2^23 + x, s, −1.5 · 2^23 · s) = x · s rounded once for an fp16 s, which a
    separately rounded product would miss by up to half an ulp of 1.5 · 2^23 · s."""
    from fractions import Fraction

    n = 256
    a = (rng.standard_normal(n) * 1e3).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = (rng.standard_normal(n) * 1e3).astype(np.float32)
    x = rng.integers(-60960, 60961, size=64)  # q4_K × q8_1 block sums
    s = (rng.random(64) * 4).astype(np.float16).astype(np.float32)
    a[:64] = (1.5 * 2**23 + x).astype(np.float32)
    b[:64] = s
    c[:64] = -1.5 * 2**23 * s  # exact: an fp16 s has 11 significant bits
    got = elementwise([a, b, c], ["f32"] * 3, "f32", np.float32,
                      lambda k, v: k.op(f"math.fma {v[0]}, {v[1]}, {v[2]} : f32"))

    def nearest_f32(e: Fraction) -> np.float32:
        """The f32 nearest the exact value e (ties to the even significand)."""
        guess = np.float32(float(e))
        candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
        return min(candidates, key=lambda f: (abs(Fraction(float(f)) - e), int(f.view(np.uint32)) & 1))

    want = np.array([nearest_f32(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)))
                     for p, q, r in zip(a, b, c)], dtype=np.float32)
    assert np.array_equal(got, want)
    assert np.array_equal(got[:64], (x * s.astype(np.float64)).astype(np.float32))
    unfused = (a[:64] * b[:64]) + c[:64]  # numpy float32: the product rounded first
    assert not np.array_equal(unfused, got[:64])


def test_contractible_multiply_add_is_one_fma(rng: np.random.Generator) -> None:
    """``arith.mulf`` and ``arith.addf`` both marked ``contract`` (``Builder.fma``) become one
    ``fma.rn.f32`` in the NVPTX backend, so the emulator rounds them once too — run 124 found it
    the one difference left between the emulator and the H200 on q4_K kernels (the
    products of ggml's scales are inexact); without the flag they are two roundings."""
    a, b, c = ((rng.standard_normal(256) * 1e3).astype(np.float32) for _ in range(3))

    def product_then_sum(flags: str):  # noqa: ANN202
        def body(k: KernelText, v: list[str]) -> str:
            p = k.op(f"arith.mulf {v[0]}, {v[1]}{flags} : f32")
            return k.op(f"arith.addf {v[2]}, {p}{flags} : f32")  # the product on either side
        return body

    fused = elementwise([a, b, c], ["f32"] * 3, "f32", np.float32, product_then_sum(" fastmath<contract>"))
    fma = elementwise([a, b, c], ["f32"] * 3, "f32", np.float32, lambda k, v: k.op(f"math.fma {v[0]}, {v[1]}, {v[2]} : f32"))
    assert np.array_equal(fused, fma)
    separate = elementwise([a, b, c], ["f32"] * 3, "f32", np.float32, product_then_sum(""))
    assert np.array_equal(separate, a * b + c)  # numpy float32: two roundings
    assert not np.array_equal(separate, fused)


def test_int_float_conversions(rng: np.random.Generator) -> None:
    a = i32(rng)
    floats = elementwise([a], ["i32"], "f32", np.float32, lambda k, v: k.op(f"arith.sitofp {v[0]} : i32 to f32"))
    assert np.array_equal(floats, a.astype(np.float64).astype(np.float32))
    x = (rng.standard_normal(64) * 1e3).astype(np.float32)
    ints = elementwise([x], ["f32"], "i32", np.int32, lambda k, v: k.op(f"arith.fptosi {v[0]} : f32 to i32"))
    assert np.array_equal(ints, np.trunc(x).astype(np.int32))
    with pytest.raises(EmulationError, match="out of the range of i32"):
        elementwise([np.full(32, 3e9, np.float32)], ["f32"], "i32", np.int32,
                    lambda k, v: k.op(f"arith.fptosi {v[0]} : f32 to i32"))


def test_bitcast_f32_bits(rng: np.random.Generator) -> None:
    x = rng.standard_normal(32).astype(np.float32)
    got = elementwise([x], ["f32"], "i32", np.uint32, lambda k, v: k.op(f"arith.bitcast {v[0]} : f32 to i32"))
    assert np.array_equal(got, x.view(np.uint32))


def test_dense_splat_vector_constant() -> None:
    def body(k: KernelText, v: list[str]) -> str:
        splat = k.op("arith.constant dense<1.5> : vector<2xf16>")
        pair = k.op("arith.constant dense<[0.5, -2.0]> : vector<2xbf16>")
        bits = k.op(f"ptx.bitcast {splat} : vector<2xf16> -> i32")
        more = k.op(f"ptx.bitcast {pair} : vector<2xbf16> -> i32")
        return k.op(f"arith.xori {k.op(f'arith.xori {bits}, {more} : i32')}, {v[0]} : i32")

    got = elementwise([np.zeros(32, np.uint32)], ["i32"], "i32", np.uint32, body)
    f16 = int(np.float16(1.5).view(np.uint16))
    bf16 = 0x3F00 | (0xC000 << 16)  # 0.5 low, -2.0 high
    assert (got == ((f16 | f16 << 16) ^ bf16)).all()


def _i64(name: str, a: np.ndarray, b: np.ndarray) -> list[int]:
    return [int(v) for v in elementwise([a, b], ["i64", "i64"], "i64", np.int64,
                                        lambda k, v: k.op(f"arith.{name} {v[0]}, {v[1]} : i64"))]


def test_signed_64_bit_division_of_the_minimum() -> None:
    """-(-2^63) wraps to -2^63 in int64, which flipped the sign of divsi / remsi / ceildivsi of the minimum; the
    references here are Python's unbounded integers (truncation toward zero, ceiling)."""
    low = -2**63
    divisors = [2, 3, -3, 7, -2, 2**62 + 1, -(2**63 - 1)] + [5] * 25
    a, b = np.full(32, low, np.int64), np.array(divisors, np.int64)
    trunc = [abs(low) // abs(d) * (1 if (low < 0) == (d < 0) else -1) for d in divisors]
    assert _i64("divsi", a, b) == trunc
    assert _i64("remsi", a, b) == [low - q * d for q, d in zip(trunc, divisors)]
    assert _i64("ceildivsi", a, b) == [-((-low) // d) for d in divisors]
    assert _i64("floordivsi", a, b) == [low // d for d in divisors]
    x = np.arange(-16, 16, dtype=np.int64) * 3 + 1
    y = np.array([3, -3, 4, -4] * 8, np.int64)
    assert _i64("ceildivsi", x, y) == [-((-int(p)) // int(q)) for p, q in zip(x, y)]


def test_fp_to_64_bit_integers_at_the_ends_of_the_range() -> None:
    """2^64 - 1 as an f32 bound rounds to 2^64, so 2^64 itself passed the range check; unsigned results at or
    above 2^63 went through int64. Both ends are powers of two now: in range converts exactly, 2^N is poison."""
    x = np.full(32, 1e19, np.float32)
    ints = elementwise([x], ["f32"], "i64", np.uint64, lambda k, v: k.op(f"arith.fptoui {v[0]} : f32 to i64"))
    assert int(ints[0]) == int(np.float32(1e19)) == 9999999980506447872
    for name, value, width in [("fptoui", 2.0**64, "i64"), ("fptosi", 2.0**63, "i64"), ("fptoui", -1.0, "i64"),
                               ("fptoui", 2.0**32, "i32"), ("fptosi", -2.0**31 - 256, "i32")]:
        with pytest.raises(EmulationError, match=f"out of the range of {width}"):
            elementwise([np.full(32, value, np.float32)], ["f32"], width, np.int64 if width == "i64" else np.int32,
                        lambda k, v: k.op(f"arith.{name} {v[0]} : f32 to {width}"))
    low = elementwise([np.full(32, -2.0**63, np.float32)], ["f32"], "i64", np.int64,
                      lambda k, v: k.op(f"arith.fptosi {v[0]} : f32 to i64"))
    assert int(low[0]) == -2**63


def test_64_bit_integers_to_f32_round_once() -> None:
    """2^54 + 2^30 + 1 rounded to float64 is the tie 2^54 + 2^30, which f32's round-to-even then took down to 2^54;
    one rounding gives 2^54 + 2^31 (as ``cvt.rn.f32.s64`` does). The reference rounds the exact integer to f32's
    24 significant bits, ties to even, in Python integers."""
    from tests.gpu.test_arith_edges_gpu import _rne

    def f32_of(value: int) -> int:
        return _rne(value, 24)

    values = [2**54 + 2**30 + 1, -(2**54 + 2**30 + 1), 2**63 - 1, -2**63, 2**53 + 1, 3, 2**62 + 2**38,
              2**62 + 2**38 + 1] + [2**60 + 2**36 * k + 1 for k in range(24)]
    floats = elementwise([np.array(values, np.int64)], ["i64"], "f32", np.float32,
                         lambda k, v: k.op(f"arith.sitofp {v[0]} : i64 to f32"))
    assert [int(f) for f in floats] == [f32_of(v) for v in values]
    unsigned = [2**64 - 1, 2**63 + 2**39 + 1, 2**63 + 2**39] + [2**63 + 2**40 * k + 2**39 for k in range(29)]
    floats = elementwise([np.array(unsigned, np.uint64)], ["i64"], "f32", np.float32,
                         lambda k, v: k.op(f"arith.uitofp {v[0]} : i64 to f32"))
    assert [int(f) for f in floats] == [f32_of(v) for v in unsigned]


@pytest.mark.parametrize("name", ["maximumf", "minimumf"])
def test_maximumf_and_minimumf_order_the_zeros(name: str) -> None:
    """LLVM's llvm.maximum / llvm.minimum: -0 is below +0 whichever operand it is (numpy returned the first)."""
    x = np.array([0.0, -0.0, -0.0, 0.0, np.nan, 1.0, -2.0, 3.0] * 4, np.float32)
    y = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, np.nan, 5.0, -3.0] * 4, np.float32)
    got = elementwise([x, y], ["f32", "f32"], "f32", np.float32,
                      lambda k, v: k.op(f"arith.{name} {v[0]}, {v[1]} : f32"))
    want_zero_sign = [False, False, True, False] if name == "maximumf" else [True, True, True, False]
    assert [bool(np.signbit(z)) for z in got[:4]] == want_zero_sign and all(z == 0 for z in got[:4])
    assert np.isnan(got[4]) and np.isnan(got[5])
    assert list(got[6:8]) == ([5.0, 3.0] if name == "maximumf" else [-2.0, -3.0])


@pytest.mark.parametrize("name", ["maxnumf", "minnumf"])
def test_maxnumf_and_minnumf_give_one_zero_whatever_the_thread_count(name: str) -> None:
    """numpy's fmax / fmin gave either zero of (-0, +0) by the length of the array (their vector and scalar loops
    differ), so the emulated max.f32 depended on how many threads ran; now -0 is below +0 at every count."""
    for threads in (32, 64, 96):
        x = np.array([-0.0, 0.0] * (threads // 2), np.float32)
        y = np.array([0.0, -0.0] * (threads // 2), np.float32)
        got = elementwise([x, y], ["f32", "f32"], "f32", np.float32,
                          lambda k, v: k.op(f"arith.{name} {v[0]}, {v[1]} : f32"))
        assert all(z == 0 and bool(np.signbit(z)) == (name == "minnumf") for z in got), (threads, got)

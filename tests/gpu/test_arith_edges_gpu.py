"""``arith`` ops at their edges on the GPU, against references in Python integers: the LLVM translations that work
around NVPTX (targets/ptx/llvm_arith.py: a float to i1, i32 / i64 to bf16 below sm_90 in one rounding, a select
guarding a shift by a wide amount, ``shl nsw``) and the ops whose emulation was fixed beside them (signed 64-bit
division of the minimum, fp to i64 at the range's ends, i64 to f32 in one rounding, the zeros and NaNs of maximumf /
minimumf / maxnumf / minnumf, the canonical NaN of f32 arithmetic and of truncf to f16: the last three are what the
emulator assumes, not yet measured; tests/emulator/test_arith_edges.py holds the emulator to the same references).

Each kernel reads one or two values per thread and writes one (tests.kernel_ir: it builds without xDSL, so the GPU
machine finds the PTX in the kernel cache); sm_80 PTX runs on the H200 through the driver's JIT.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from compiler.kernel_cache import get_or_compile
from tests.kernel_ir import KernelText

N = 64


def _rne(value: int, bits: int) -> int:
    """``value`` rounded to ``bits`` significant bits, ties to even (exact, in Python integers)."""
    magnitude, shift = abs(value), max(abs(value).bit_length() - bits, 0)
    q, r = divmod(magnitude, 1 << shift)
    half = 1 << shift >> 1
    q += shift > 0 and (r > half or (r == half and q & 1))
    return (q << shift) * (1 if value >= 0 else -1)


def _bf16_bits(value: int) -> int:
    return int(np.array([float(_rne(value, 8))], np.float32).view(np.uint32)[0] >> 16)


@dataclass(frozen=True)
class Case:
    name: str
    arch: str
    in_types: tuple[str, ...]
    in_dtypes: tuple[type, ...]
    out_type: str
    out_dtype: type
    body: Callable[[KernelText, list[str]], str]
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    expected: Callable[[list[np.ndarray]], np.ndarray]

    def kernel(self) -> KernelText:
        k = KernelText([f"in{j}" for j in range(len(self.in_types))] + ["out"], name=self.name)
        values = [k.load(f"in{j}", k.per_thread(np.dtype(dt).itemsize), t)
                  for j, (t, dt) in enumerate(zip(self.in_types, self.in_dtypes))]
        k.store("out", k.per_thread(np.dtype(self.out_dtype).itemsize), self.body(k, values), self.out_type)
        return k


def _ints(rng: np.random.Generator, bits: int, signed: bool, ties: list[int]) -> np.ndarray:
    """Ties of the first rounding, the ends of the range, and random values at every magnitude."""
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = [*ties, low, high, 0, 1]
    while len(values) < N:
        magnitude = int(rng.integers(1, bits - (1 if signed else 0)))
        value = int(rng.integers(0, 1 << magnitude)) | 1 << (magnitude - 1)
        values.append(-value if signed and rng.random() < 0.5 else value)
    dtype = {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[bits, signed]
    return np.array(values[:N], dtype=dtype)


def _to_bf16(op: str, bits: int, arch: str) -> Case:
    signed = op == "sitofp"
    ties = [(1 << 30) + (1 << 22) + 1, -((1 << 30) + (1 << 22) + 1), (1 << 30) + (1 << 22)] if signed and bits == 32 \
        else [(1 << 31) + (1 << 23) + 1] if bits == 32 else [(1 << 62) + (1 << 54) + 1, (1 << 62) + (1 << 54)]
    dtype = {(32, True): np.int32, (32, False): np.uint32, (64, True): np.int64, (64, False): np.uint64}[bits, signed]
    return Case(f"{op}_i{bits}_bf16_{arch}", arch, (f"i{bits}",), (dtype,), "i16", np.uint16,
                lambda k, v: k.op(f"arith.bitcast {k.op(f'arith.{op} {v[0]} : i{bits} to bf16')} : bf16 to i16"),
                lambda rng: [_ints(rng, bits, signed, [t for t in ties if signed or t >= 0])],
                lambda ins: np.array([_bf16_bits(int(x)) for x in ins[0]], np.uint16))


def _guarded_shift(k: KernelText, v: list[str]) -> str:
    ok = k.op(f"arith.cmpi ult, {v[1]}, {k.const(64, 'i64')} : i64")
    shifted = k.op(f"arith.shli {v[0]}, {v[1]} : i64")
    return k.op(f"arith.select {ok}, {shifted}, {k.const(0, 'i64')} : i64")


def _guarded_shift_i32(k: KernelText, v: list[str]) -> str:
    big = k.op(f"arith.cmpi ugt, {v[1]}, {k.const(31, 'i64')} : i64")
    amount = k.op(f"arith.trunci {v[1]} : i64 to i32")
    shifted = k.op(f"arith.shrui {v[0]}, {amount} : i32")
    return k.op(f"arith.select {big}, {k.const(0)}, {shifted} : i32")


def _amounts(rng: np.random.Generator) -> np.ndarray:
    return np.array([(1 << 32) + 5, (1 << 32), 64, 63, 0, 1, 200, (1 << 40) + 3] * (N // 8), np.int64)


CANONICAL_NAN = np.uint32(0x7FFF_FFFF).view(np.float32)
NEGATIVE_NAN = np.uint32(0xFFC0_0001).view(np.float32)
"""A NaN with the sign and a payload the GPU's results do not keep."""


def _min_max(op: str) -> Case:
    larger = op in ("maximumf", "maxnumf")

    def expected(ins: list[np.ndarray]) -> np.ndarray:
        out = []
        for a, b in zip(*ins):
            if np.isnan(a) and np.isnan(b) or (np.isnan(a) or np.isnan(b)) and op in ("maximumf", "minimumf"):
                out.append(CANONICAL_NAN)  # max.NaN / min.NaN give the canonical NaN (H100, run 333)
            elif np.isnan(a) or np.isnan(b):  # max / min (maxnumf, minnumf): the other operand
                out.append(b if np.isnan(a) else a)
            elif a == b:  # the zeros: -0 below +0
                out.append(a if np.signbit(a) != larger else b)
            else:
                out.append(max(a, b) if larger else min(a, b))
        return np.array(out, np.float32).view(np.uint32)

    pairs = [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (0.0, 0.0), (np.nan, 1.0), (1.0, NEGATIVE_NAN), (-2.0, 5.0),
             (NEGATIVE_NAN, np.nan)]
    return Case(f"{op}_zeros", "sm_90", ("f32", "f32"), (np.float32, np.float32), "i32", np.uint32,
                lambda k, v: k.op(f"arith.bitcast {k.op(f'arith.{op} {v[0]}, {v[1]} : f32')} : f32 to i32"),
                lambda rng: [np.array([p[j] for p in pairs] * (N // 8), np.float32) for j in (0, 1)],
                expected)


def _f16_bits(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # 70000 is past f16's largest: infinity, as cvt.rn.f16.f32 gives
        return x.astype(np.float16).view(np.uint16)


def _nan_result(op: str) -> Case:
    """An f32 op whose result is NaN gives the canonical NaN, whatever made it (inf · 0, inf − inf, 0 / 0) and
    whatever NaN went in (x86 gives its negative default NaN and keeps an operand's payload)."""
    pairs = [(np.inf, 0.0), (NEGATIVE_NAN, 1.0), (1.0, np.nan), (np.inf, np.inf), (0.0, 0.0), (-np.inf, -np.inf),
             (2.0, 3.0), (np.nan, NEGATIVE_NAN)]

    def expected(ins: list[np.ndarray]) -> np.ndarray:
        with np.errstate(all="ignore"):
            exact = {"mulf": np.multiply, "subf": np.subtract, "divf": np.divide, "addf": np.add}[op](*ins)
        return np.where(np.isnan(exact), CANONICAL_NAN, exact).astype(np.float32).view(np.uint32)

    return Case(f"{op}_nan", "sm_90", ("f32", "f32"), (np.float32, np.float32), "i32", np.uint32,
                lambda k, v: k.op(f"arith.bitcast {k.op(f'arith.{op} {v[0]}, {v[1]} : f32')} : f32 to i32"),
                lambda rng: [np.array([p[j] for p in pairs] * (N // 8), np.float32) for j in (0, 1)],
                expected)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_DIVISORS = [2, 3, -3, 7, -2, (1 << 62) + 1, -((1 << 63) - 1), 5]

CASES = [
    *(_to_bf16(op, bits, arch) for op in ("sitofp", "uitofp") for bits in (32, 64) for arch in ("sm_80", "sm_90")),
    Case("fptoui_i1", "sm_90", ("f32",), (np.float32,), "i32", np.int32,
         lambda k, v: k.op(f"arith.extui {k.op(f'arith.fptoui {v[0]} : f32 to i1')} : i1 to i32"),
         lambda rng: [np.array([0.0, 0.5, 1.0, 1.5, 0.25, 1.75, -0.5, 0.99] * (N // 8), np.float32)],
         lambda ins: np.array([int(np.trunc(x)) for x in ins[0]], np.int32)),
    Case("fptosi_i1", "sm_90", ("f32",), (np.float32,), "i32", np.int32,
         lambda k, v: k.op(f"arith.extsi {k.op(f'arith.fptosi {v[0]} : f32 to i1')} : i1 to i32"),
         lambda rng: [np.array([0.0, -0.5, -1.0, -1.5, 0.5, -1.75, 0.75, -0.99] * (N // 8), np.float32)],
         lambda ins: np.array([int(np.trunc(x)) for x in ins[0]], np.int32)),
    Case("guarded_shl_i64", "sm_90", ("i64", "i64"), (np.int64, np.int64), "i64", np.int64, _guarded_shift,
         lambda rng: [np.ones(N, np.int64), _amounts(rng)],
         lambda ins: np.array([(1 << int(s)) % (1 << 64) if s < 64 else 0 for s in ins[1]], np.uint64).view(np.int64)),
    Case("guarded_shrui_i32", "sm_90", ("i32", "i64"), (np.int32, np.int64), "i32", np.int32, _guarded_shift_i32,
         lambda rng: [np.full(N, -1, np.int32), _amounts(rng)],
         lambda ins: np.array([0xFFFFFFFF >> int(s) if s <= 31 else 0 for s in ins[1]], np.uint32).view(np.int32)),
    Case("shl_nsw_31", "sm_90", ("i32",), (np.int32,), "i64", np.int64,
         lambda k, v: k.op(f"arith.extsi {k.op(f'arith.shli {v[0]}, {k.const(31)} overflow<nsw> : i32')} : i32 to i64"),
         lambda rng: [np.array([-1, 0] * (N // 2), np.int32)],
         lambda ins: np.array([-(1 << 31) if x == -1 else 0 for x in ins[0]], np.int64)),
    *(Case(f"{op}_i64_min", "sm_90", ("i64", "i64"), (np.int64, np.int64), "i64", np.int64,
           lambda k, v, op=op: k.op(f"arith.{op} {v[0]}, {v[1]} : i64"),
           lambda rng: [np.full(N, -(1 << 63), np.int64), np.array(_DIVISORS * (N // 8), np.int64)],
           lambda ins, fn=fn: np.array([fn(int(a), int(b)) for a, b in zip(*ins)], np.int64))
      for op, fn in [("divsi", _trunc_div), ("remsi", lambda a, b: a - _trunc_div(a, b) * b),
                     ("ceildivsi", lambda a, b: -((-a) // b)), ("floordivsi", lambda a, b: a // b)]),
    Case("fptoui_f32_i64", "sm_90", ("f32",), (np.float32,), "i64", np.uint64,
         lambda k, v: k.op(f"arith.fptoui {v[0]} : f32 to i64"),
         lambda rng: [np.array([1e19, 2.0**63, 2.0**64 - 2.0**40, 0.5] * (N // 4), np.float32)],
         lambda ins: np.array([int(x) for x in ins[0]], np.uint64)),
    Case("sitofp_i64_f32", "sm_90", ("i64",), (np.int64,), "f32", np.float32,
         lambda k, v: k.op(f"arith.sitofp {v[0]} : i64 to f32"),
         lambda rng: [_ints(rng, 64, True, [(1 << 54) + (1 << 30) + 1, -((1 << 54) + (1 << 30) + 1)])],
         lambda ins: np.array([float(_rne(int(x), 24)) for x in ins[0]], np.float32)),
    *(_min_max(op) for op in ("maximumf", "minimumf", "maxnumf", "minnumf")),
    *(_nan_result(op) for op in ("mulf", "subf", "divf", "addf")),
    Case("truncf_f16_nan", "sm_90", ("f32",), (np.float32,), "i16", np.uint16,
         lambda k, v: k.op(f"arith.bitcast {k.op(f'arith.truncf {v[0]} : f32 to f16')} : f16 to i16"),
         lambda rng: [np.array([np.nan, NEGATIVE_NAN, 1.0, -2.5, np.inf, 70000.0, 1e-8, -0.0] * (N // 8), np.float32)],
         lambda ins: np.where(np.isnan(ins[0]), np.uint16(0x7FFF), _f16_bits(ins[0]))),
]


def _compiled(case: Case):  # noqa: ANN202
    return get_or_compile(case.kernel().text(), arch=case.arch, pipeline="")


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_gpu_gives_the_reference(case: Case, gpu) -> None:  # noqa: ANN001
    from targets.ptx.runner import load

    compiled = _compiled(case)
    cupy = gpu()
    inputs = case.inputs(np.random.default_rng())
    out = cupy.full(N, 0x5A, dtype=case.out_dtype)  # poisoned: a value no case writes everywhere
    load(compiled.ptx, compiled.kernels[0]).launch(*(cupy.asarray(x) for x in inputs), out, grid=N // 32)
    got, want = out.get(), case.expected(inputs)
    wrong = np.flatnonzero(got.view(want.dtype) != want)
    assert not wrong.size, (f"{case.name}: {wrong.size} of {N} differ, first at {wrong[0]}: inputs "
                            f"{[x[wrong[0]] for x in inputs]}, GPU {got[wrong[0]]}, reference {want[wrong[0]]}")

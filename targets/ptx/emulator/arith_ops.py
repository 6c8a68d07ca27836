"""``arith`` ops on per-thread arrays, with the MLIR semantics and LLVM's undefined cases as errors.

Integers wrap on their width (MLIR arith is two's complement without overflow flags
here); signed predicates and divisions reinterpret the bits. What MLIR/LLVM call
poison or immediate UB — a shift by the width or more, a division by zero, signed
``MIN / -1``, ``fptosi`` of NaN or of a value out of range — is reported instead of
computed, so that a kernel that depends on it fails loudly rather than by luck.
Floats compute in their own precision: f32 and f16 with numpy's IEEE arithmetic
(f16 through float32, which is exact or innocuous double rounding for + - * /), bf16
through float64 and one rounding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Operation, SSAValue

from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.numbers import f64_to_bf16_bits, f64_to_f16, round_to_odd_sum
from targets.ptx.emulator.values import Kind, RegType, constant_array, float_value, from_bytes, reg_type, to_bytes

Fn = Callable[..., np.ndarray]

CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
        "uno", "true")


def _signed(x: np.ndarray, rt: RegType) -> np.ndarray:
    if rt.bits == 1:
        return -x.astype(np.int64)  # i1 as signed: true is -1
    return x.view(rt.signed_dtype)


def _unsigned(x: np.ndarray, rt: RegType) -> np.ndarray:
    return x.astype(np.uint8) if rt.bits == 1 else x


def _wrap(x: np.ndarray, rt: RegType) -> np.ndarray:
    """Any integer array -> the storage of `rt`, modulo 2^width (i1: the low bit)."""
    x = np.asarray(x)
    if rt.bits == 1:
        return (x & 1).astype(bool)
    if x.dtype.kind == "i":
        x = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return x.astype(rt.dtype)


def _nonzero_divisor(b: np.ndarray, what: str) -> None:
    if (b == 0).any():
        raise EmulationError(f"{what} by zero (thread {int(np.flatnonzero(b == 0)[0])})")


def _shift_amount(b: np.ndarray, rt: RegType) -> np.ndarray:
    amount = _unsigned(b, rt).astype(np.uint64)
    if (amount >= np.uint64(rt.bits)).any():
        i = int(np.flatnonzero(amount >= np.uint64(rt.bits))[0])
        raise EmulationError(f"shift by {int(amount[i])} >= width {rt.bits} (thread {i}) is poison")
    return amount


def _integer_binary(name: str, rt: RegType) -> Fn:
    dt = rt.dtype

    def u(x: np.ndarray) -> np.ndarray:
        return _unsigned(x, rt)

    def s(x: np.ndarray) -> np.ndarray:
        return _signed(x, rt)

    def out(x: np.ndarray) -> np.ndarray:
        return _wrap(x, rt)

    if name == "arith.addi":
        return lambda a, b: out(u(a) + u(b))
    if name == "arith.subi":
        return lambda a, b: out(u(a) - u(b))
    if name == "arith.muli":
        return lambda a, b: out(u(a) * u(b))
    if name == "arith.andi":
        return lambda a, b: a & b
    if name == "arith.ori":
        return lambda a, b: a | b
    if name == "arith.xori":
        return lambda a, b: a ^ b
    if name == "arith.maxui":
        return lambda a, b: np.maximum(a, b)
    if name == "arith.minui":
        return lambda a, b: np.minimum(a, b)
    if name == "arith.maxsi":
        return lambda a, b: np.where(s(a) >= s(b), a, b)
    if name == "arith.minsi":
        return lambda a, b: np.where(s(a) <= s(b), a, b)

    def shli(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        amount = _shift_amount(b, rt)
        return out(u(a).astype(np.uint64) << amount)

    def shrui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        amount = _shift_amount(b, rt)
        return out(u(a).astype(np.uint64) >> amount)

    def shrsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        amount = _shift_amount(b, rt)
        return out(s(a).astype(np.int64) >> amount.astype(np.int64))

    def divui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _nonzero_divisor(b, "divui")
        return out(u(a) // u(b))

    def remui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _nonzero_divisor(b, "remui")
        return out(u(a) % u(b))

    def ceildivui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _nonzero_divisor(b, "ceildivui")
        return out(u(a) // u(b) + (u(a) % u(b) != 0).astype(dt))

    def _signed_div_check(a: np.ndarray, b: np.ndarray, what: str) -> None:
        _nonzero_divisor(b, what)
        if rt.bits > 1 and ((s(a) == np.iinfo(rt.signed_dtype).min) & (s(b) == -1)).any():
            raise EmulationError(f"{what} of the minimum signed value by -1 overflows (UB)")

    def floor_div(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The floor quotient, whether it is inexact, and whether the signs differ: from these the truncated and
        the ceiling quotients follow without negating a dividend (-MIN wraps to MIN in 64 bits)."""
        sa, sb = s(a).astype(np.int64), s(b).astype(np.int64)
        return sa // sb, sa % sb != 0, (sa < 0) != (sb < 0)

    def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        q, inexact, differ = floor_div(a, b)
        return q + (inexact & differ)

    def divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _signed_div_check(a, b, "divsi")
        return out(trunc_div(a, b))

    def remsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _signed_div_check(a, b, "remsi")
        return out(s(a).astype(np.int64) - trunc_div(a, b) * s(b).astype(np.int64))

    def floordivsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _signed_div_check(a, b, "floordivsi")
        return out(s(a).astype(np.int64) // s(b).astype(np.int64))

    def ceildivsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _signed_div_check(a, b, "ceildivsi")
        q, inexact, _ = floor_div(a, b)
        return out(q + inexact)

    table: dict[str, Fn] = {
        "arith.shli": shli, "arith.shrui": shrui, "arith.shrsi": shrsi, "arith.divui": divui,
        "arith.remui": remui, "arith.ceildivui": ceildivui, "arith.divsi": divsi, "arith.remsi": remsi,
        "arith.floordivsi": floordivsi, "arith.ceildivsi": ceildivsi,
    }
    if name not in table:
        raise EmulationError(f"{name} is not emulated")
    return table[name]


_CANONICAL_NAN = {np.dtype(np.float32): np.uint32(0x7FFF_FFFF).view(np.float32),
                  np.dtype(np.float16): np.uint16(0x7FFF).view(np.float16)}


def _canonical_nan(x: np.ndarray) -> np.ndarray:
    """A NaN result as ``max.NaN`` / ``min.NaN`` give it: the canonical NaN (all ones but the sign), whatever the
    operand's payload — measured for f32 on an H100 (run 333), the PTX ISA's for f16. float64 (bf16's path) keeps
    numpy's: its rounding to bf16 decides."""
    nan = _CANONICAL_NAN.get(x.dtype)
    return x if nan is None else np.where(np.isnan(x), nan, x)


def _maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.maximumf``: NaN if either is, and -0 below +0 (LLVM's ``llvm.maximum``); numpy's ``maximum`` returns
    its first operand of two equal zeros."""
    return _canonical_nan(np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b)))


def _minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.minimumf``: NaN if either is, and -0 below +0 (LLVM's ``llvm.minimum``)."""
    return _canonical_nan(np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b)))


def _maxnum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.maxnumf`` (``max.f32``): the other operand of a NaN, the canonical NaN of two, and -0 below +0 as
    ``max.NaN`` orders them. numpy's ``fmax`` gives either zero, by the length of the array (its vector and scalar
    loops differ), so the emulated result depended on the number of threads."""
    return _canonical_nan(np.where(np.isnan(a), b, np.where(np.isnan(b), a, _maximum(a, b))))


def _minnum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.minnumf`` (``min.f32``), as ``_maxnum``."""
    return _canonical_nan(np.where(np.isnan(a), b, np.where(np.isnan(b), a, _minimum(a, b))))


def _nan_canonical(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray],
                                                                                    np.ndarray]:
    """``fn`` with a NaN result the GPU's canonical NaN: x86 makes inf · 0 its negative default NaN and keeps an
    operand's payload, the GPU gives 0x7FFFFFFF (which a cvt to e4m3 then makes 0x7F, not 0xFF)."""
    return lambda a, b: _canonical_nan(fn(a, b))


def _float_binary(name: str, rt: RegType) -> Fn:
    ops: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
        "arith.addf": _nan_canonical(np.add), "arith.subf": _nan_canonical(np.subtract),
        "arith.mulf": _nan_canonical(np.multiply), "arith.divf": _nan_canonical(np.divide),
        "arith.maximumf": _maximum, "arith.minimumf": _minimum, "arith.maxnumf": _maxnum, "arith.minnumf": _minnum,
    }
    if name not in ops:
        raise EmulationError(f"{name} is not emulated")
    fn = ops[name]
    if rt.kind is Kind.BF16:
        def bf16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                x, y = (float_value(v, rt).astype(np.float64) for v in (a, b))
                return f64_to_bf16_bits(fn(x, y))
        return bf16

    def native(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return fn(a, b)
    return native


def _cmpi(predicate: str, rt: RegType) -> Fn:
    signed = predicate.startswith("s")

    def view(x: np.ndarray) -> np.ndarray:
        return _signed(x, rt) if signed else _unsigned(x, rt)

    compare = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
               "ge": np.greater_equal}[predicate if predicate in ("eq", "ne") else predicate[1:]]
    return lambda a, b: compare(view(a), view(b))


def _cmpf(predicate: str, rt: RegType) -> Fn:
    def fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        x, y = float_value(a, rt), float_value(b, rt)
        unordered = np.isnan(x) | np.isnan(y)
        if predicate in ("false", "true"):
            return np.full(x.shape, predicate == "true")
        if predicate in ("ord", "uno"):
            return ~unordered if predicate == "ord" else unordered
        base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less, "le": np.less_equal,
                "ne": np.not_equal}[predicate[1:]]
        with np.errstate(invalid="ignore"):
            result = base(x, y)
        return (result & ~unordered) if predicate[0] == "o" else (result | unordered)
    return fn


def _to_float(values: np.ndarray, rt: RegType) -> np.ndarray:
    """float64 values -> storage of float type `rt`, one rounding."""
    if rt.kind is Kind.BF16:
        return f64_to_bf16_bits(values)
    if rt.bits == 16:  # a NaN as cvt.rn.f16x2.f32 gives it (0x7FFF), not numpy's 0x7E00
        return np.where(np.isnan(values), np.uint16(0x7FFF).view(np.float16), f64_to_f16(values))
    with np.errstate(all="ignore"):
        return _canonical_nan(values.astype(rt.dtype))


def _int_to_f64_odd(wide: np.ndarray) -> np.ndarray:
    """int64 / uint64 values in float64 rounded to odd, so that one more rounding to a format of at most 51
    significant bits is the correctly rounded conversion (``cvt.rn.f32.s64``): rounding to nearest twice would
    round a tie the first step made to even (2^54 + 2^30 + 1 to f32). Below 2^53 float64 holds them exactly."""
    exact = wide.astype(np.float64)
    big = np.flatnonzero(np.abs(exact) >= 2.0 ** 53)
    for i in big:  # rare (index arithmetic of 2^53 and more): exact Python integers
        value = int(wide.flat[i])
        nearest = float(value)
        truncated = nearest if abs(int(nearest)) <= abs(value) else float(np.nextafter(nearest, 0.0))
        if int(truncated) != value:  # inexact: of the two neighbours, the one whose last significand bit is 1
            truncated = float((np.float64(truncated).view(np.int64) | 1).view(np.float64))
        exact.flat[i] = truncated
    return exact


def _casts(name: str, src: RegType, dst: RegType) -> Fn:
    if name in ("arith.extui", "arith.index_castui"):
        return lambda a: _wrap(_unsigned(a, src), dst)
    if name in ("arith.extsi", "arith.index_cast"):
        return lambda a: _wrap(_signed(a, src).astype(np.int64), dst)
    if name == "arith.trunci":
        return lambda a: _wrap(_unsigned(a, src), dst)
    if name in ("arith.sitofp", "arith.uitofp"):
        signed = name == "arith.sitofp"

        def itofp(a: np.ndarray) -> np.ndarray:
            wide = _signed(a, src).astype(np.int64) if signed else _unsigned(a, src).astype(np.uint64)
            return _to_float(_int_to_f64_odd(wide) if dst.bits < 64 else wide.astype(np.float64), dst)
        return itofp
    if name in ("arith.fptosi", "arith.fptoui"):
        signed = name == "arith.fptosi"
        # [lo, end): both powers of two (or 0), exact in float64; an inclusive 2^N - 1 would round up to 2^N.
        lo, end = (-2.0 ** (dst.bits - 1), 2.0 ** (dst.bits - 1)) if signed else (0.0, 2.0 ** dst.bits)

        def fptoi(a: np.ndarray) -> np.ndarray:
            x = np.trunc(float_value(a, src).astype(np.float64))
            bad = np.isnan(x) | (x < lo) | (x >= end)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise EmulationError(f"{name} of {float(float_value(a, src)[i])} (thread {i}) is out of the "
                                     f"range of i{dst.bits}: poison")
            return _wrap(x.astype(np.int64) if signed else x.astype(np.uint64), dst)
        return fptoi
    if name in ("arith.extf", "arith.truncf"):
        return lambda a: _to_float(float_value(a, src).astype(np.float64), dst)
    if name == "arith.bitcast":
        return lambda a: from_bytes(to_bytes(a, src), dst)
    raise EmulationError(f"{name} is not emulated")


def _fma(rt: RegType) -> Fn:
    """``math.fma`` on f32: the product is exact in float64, the sum rounded to odd there, so
    the one rounding to f32 is the correctly rounded a·b + c (``numbers.round_to_odd_sum``)."""
    if rt.kind is not Kind.FLOAT or rt.bits != 32:
        raise EmulationError(f"math.fma on {rt} is not emulated (f32 only)")

    def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            x, y, z = (v.astype(np.float64) for v in (a, b, c))
            return _canonical_nan(round_to_odd_sum(x * y, z).astype(np.float32))
    return fma


def _contracts(op: Operation) -> bool:
    flags = getattr(op, "fastmath", None)
    return flags is not None and any(flag.value == "contract" for flag in flags.data)


def contracted_fma(op: Operation) -> tuple[SSAValue, SSAValue, SSAValue] | None:
    """(a, b, c) when LLVM makes ``op`` one FMA a·b + c: an f32 ``arith.addf`` and an
    ``arith.mulf`` feeding it, both ``contract`` and in one block (the NVPTX backend fuses them
    there — each add, whatever else uses the product), which rounds once where the two ops
    would round twice. The IR qdot emits has no other contractible pattern (``Builder.fma``)."""
    if op.name != "arith.addf" or not _contracts(op):
        return None
    rt = reg_type(op.results[0].type)
    if rt.kind is not Kind.FLOAT or rt.bits != 32 or rt.lanes:
        return None
    for product, addend in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        mul = product.owner
        if isinstance(mul, Operation) and mul.name == "arith.mulf" and _contracts(mul) and mul.parent is op.parent:
            return mul.operands[0], mul.operands[1], addend
    return None


def fused_multiply_add() -> Fn:
    """The one-rounding f32 a·b + c of `contracted_fma`."""
    return _fma(RegType(Kind.FLOAT, 32))


def constant(op: Operation, threads: int) -> np.ndarray:
    """The array of an ``arith.constant`` (scalar or splat)."""
    rt = reg_type(op.results[0].type)
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    if isinstance(value, IntegerAttr):
        return constant_array(value.value.data, rt, threads)
    if isinstance(value, FloatAttr):
        return constant_array(value.value.data, rt, threads)
    if isinstance(value, DenseIntOrFPElementsAttr):
        items = list(value.get_values())
        if not rt.lanes:
            raise EmulationError(f"dense constant of non-vector type {op.results[0].type}")
        columns = [constant_array(x, rt.element, threads) for x in items]
        if len(columns) == 1:
            columns = columns * rt.lanes
        return np.stack(columns, axis=-1)
    raise EmulationError(f"arith.constant {value} is not emulated")


def arith_handler(op: Operation) -> Fn:
    """The function computing `op`'s result from its operand arrays."""
    name = op.name
    ins = [reg_type(v.type) for v in op.operands]
    res = reg_type(op.results[0].type)
    if name == "arith.select":
        def select(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            c = cond if cond.ndim == a.ndim else cond.reshape(cond.shape + (1,) * (a.ndim - cond.ndim))
            return np.where(c, a, b)
        return select
    if name == "arith.cmpi":
        return _cmpi(CMPI[op.properties["predicate"].value.data], ins[0])
    if name == "arith.cmpf":
        return _cmpf(CMPF[op.properties["predicate"].value.data], ins[0])
    if name == "math.fma":
        return _fma(res)
    if name == "arith.negf":
        if res.kind is Kind.BF16:
            return lambda a: a ^ np.uint16(0x8000)
        return lambda a: -a
    if len(ins) == 1:
        return _casts(name, ins[0], res)
    if ins[0].kind is Kind.INT:
        return _integer_binary(name, ins[0])
    return _float_binary(name, ins[0])

"""`arith` (and `math.fma`) -> LLVM IR: MLIR's arith-to-llvm conversion, as text.

Most ops are one LLVM instruction. `index` is i64 throughout. The three rounding
divisions (`ceildivsi`, `ceildivui`, `floordivsi`) are expanded the way MLIR's
`arith-expand` does, since LLVM has no instruction for them.

A few translations work around the PTX that LLVM's NVPTX backend (llvmlite 0.50, LLVM 22)
makes of correct IR, each shown on emitted PTX (tests/lit/targets/ptx/nvptx-workarounds.mlir):
a float to `i1` became a test of the float's bits against +0.0; an integer wider than f32's
significand to bf16 rounded twice below sm_90 (through f32); a shift guarded by a `select` lost
its guard (PTX clamps an amount of the width or more, but the backend dropped the guard where the
amount's high bits are cut, or where `nsw` let it turn `shl` into a multiply).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, VectorType
from xdsl.ir import Operation

from compiler.diagnostics import QdotError
from targets.ptx.llvm_core import FunctionEmitter, Lowering, bit_width, constant_text, llvm_type, mangle

_INTEGER_BINARY: dict[type[Operation], str] = {
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.DivSIOp: "sdiv",
    arith.DivUIOp: "udiv",
    arith.RemSIOp: "srem",
    arith.RemUIOp: "urem",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
    arith.ShLIOp: "shl",
    arith.ShRUIOp: "lshr",
    arith.ShRSIOp: "ashr",
}

_FLOAT_BINARY: dict[type[Operation], str] = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}

_MIN_MAX: dict[type[Operation], str] = {
    arith.MaxSIOp: "llvm.smax",
    arith.MaxUIOp: "llvm.umax",
    arith.MinSIOp: "llvm.smin",
    arith.MinUIOp: "llvm.umin",
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
}

_CASTS: dict[type[Operation], str] = {
    arith.ExtUIOp: "zext",
    arith.ExtSIOp: "sext",
    arith.TruncIOp: "trunc",
    arith.ExtFOp: "fpext",
    arith.TruncFOp: "fptrunc",
    arith.SIToFPOp: "sitofp",
    arith.UIToFPOp: "uitofp",
    arith.FPToSIOp: "fptosi",
    arith.FPToUIOp: "fptoui",
    arith.BitcastOp: "bitcast",
}

# Predicate numbering of arith.cmpi / arith.cmpf (MLIR's enums), as LLVM spells them.
_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
         "uno", "true")
_FASTMATH_ORDER = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")


def _overflow_flags(op: Operation) -> str:
    flags = getattr(op, "overflow_flags", None)
    if flags is None or isinstance(op, arith.ShLIOp):  # shl nsw by width - 1 became a multiply, negating the value
        return ""
    names = {flag.value for flag in flags.data}
    return "".join(f" {name}" for name in ("nuw", "nsw") if name in names)


def _fastmath(op: Operation) -> str:
    flags = getattr(op, "fastmath", None)
    if flags is None:
        return ""
    names = {flag.value for flag in flags.data}
    return "".join(f" {name}" for name in _FASTMATH_ORDER if name in names)


_SHIFTS = (arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp)


def _integer_binary(em: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = op.operands
    amount = em.text(rhs)
    if isinstance(op, _SHIFTS) and not isinstance(rhs.owner, arith.ConstantOp):
        # An amount of the width or more is poison, so masking it refines nothing; it keeps NVPTX from dropping a
        # select that guards the shift (PTX's .u32 amount loses an i64 amount's high bits).
        element = lhs.type.get_element_type() if isinstance(lhs.type, VectorType) else lhs.type
        mask = bit_width(element) - 1
        literal = constant_text(DenseIntOrFPElementsAttr.from_list(lhs.type, [mask]) if isinstance(lhs.type, VectorType)
                                else IntegerAttr(mask, element), lhs.type, op)
        amount = em.temp(f"and {llvm_type(lhs.type, op)} {amount}, {literal}", "amount")
    em.assign(op.results[0], f"{_INTEGER_BINARY[type(op)]}{_overflow_flags(op)} {em.typed(lhs)}, {amount}")



def _float_binary(em: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = op.operands
    em.assign(op.results[0], f"{_FLOAT_BINARY[type(op)]}{_fastmath(op)} {em.typed(lhs)}, {em.text(rhs)}")


def _negf(em: FunctionEmitter, op: Operation) -> None:
    em.assign(op.results[0], f"fneg{_fastmath(op)} {em.typed(op.operands[0])}")


def _min_max(em: FunctionEmitter, op: Operation) -> None:
    lhs, rhs = op.operands
    type_ = llvm_type(lhs.type, op)
    name = f"{_MIN_MAX[type(op)]}.{mangle(lhs.type)}"
    em.module.declare(name, type_, [type_, type_])
    em.assign(op.results[0], f"call {type_} @{name}({em.typed(lhs)}, {em.typed(rhs)})")


def _fma(em: FunctionEmitter, op: Operation) -> None:
    """``math.fma``: ``llvm.fma``, fused whatever the fast-math flags (NVPTX: ``fma.rn``)."""
    a, b, c = op.operands
    type_ = llvm_type(a.type, op)
    name = f"llvm.fma.{mangle(a.type)}"
    em.module.declare(name, type_, [type_, type_, type_])
    em.assign(op.results[0], f"call {type_} @{name}({em.typed(a)}, {em.typed(b)}, {em.typed(c)})")


def _cast(em: FunctionEmitter, op: Operation) -> None:
    source = op.operands[0]
    result = op.results[0]
    if isinstance(op, (arith.FPToSIOp, arith.FPToUIOp)) and result.type == IntegerType(1):
        # NVPTX made fptoui/fptosi to i1 a compare of the float's bits with +0.0; through i32 it is cvt.rzi.
        wide = em.temp(f"{_CASTS[type(op)]} {em.typed(source)} to i32", "wide")
        em.assign(result, f"trunc i32 {wide} to i1")
        return
    if (isinstance(op, (arith.SIToFPOp, arith.UIToFPOp)) and isinstance(result.type, BFloat16Type)
            and em.module.capability < 90 and bit_width(source.type) >= 32 and not isinstance(source.type, VectorType)):
        _int_to_bf16(em, op)
        return
    em.assign(result, f"{_CASTS[type(op)]} {em.typed(source)} to {llvm_type(result.type, op)}")


def _int_to_bf16(em: FunctionEmitter, op: Operation) -> None:
    """i32 / i64 to bf16 below sm_90, where NVPTX converts through f32 twice rounding to nearest (a tie the first
    rounding makes goes to even). Rounded toward zero to f32 instead, with the last significand bit set where
    that was inexact (round to odd), f32's 24 bits round once more to bf16's 8 correctly. Scalars only: a vector
    of them keeps NVPTX's two roundings."""
    source, result = op.operands[0], op.results[0]
    signed = isinstance(op, arith.SIToFPOp)
    width = bit_width(source.type)
    name = {(True, 32): "i2f", (False, 32): "ui2f", (True, 64): "ll2f", (False, 64): "ull2f"}.get((signed, width))
    if name is None:
        raise QdotError(op, f"'{op.name}' from i{width} to bf16 below sm_90 is not translated (i32 and i64 are)")
    intrinsic = f"llvm.nvvm.{name}.rz"
    em.module.declare(intrinsic, "float", [f"i{width}"])
    value = em.text(source)
    toward_zero = em.temp(f"call float @{intrinsic}(i{width} {value})", "rz")
    back = em.temp(f"{'fptosi' if signed else 'fptoui'} float {toward_zero} to i{width}", "back")
    inexact = em.temp(f"icmp ne i{width} {back}, {value}", "inexact")
    bits = em.temp(f"bitcast float {toward_zero} to i32", "bits")
    sticky = em.temp(f"zext i1 {inexact} to i32", "sticky")
    odd = em.temp(f"or i32 {bits}, {sticky}", "odd")
    rounded = em.temp(f"bitcast i32 {odd} to float", "odd")
    em.assign(result, f"fptrunc float {rounded} to bfloat")


def _index_cast(em: FunctionEmitter, op: Operation) -> None:
    """index <-> iN: sign-extend when widening, truncate when narrowing, same width is a no-op."""
    source = op.operands[0]
    result = op.results[0]
    source_width, result_width = bit_width(source.type), bit_width(result.type)
    instruction = "sext" if result_width > source_width else "trunc" if result_width < source_width else "bitcast"
    em.assign(result, f"{instruction} {em.typed(source)} to {llvm_type(result.type, op)}")


def _cmpi(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, arith.CmpiOp)
    predicate = _CMPI[op.predicate.value.data]
    em.assign(op.result, f"icmp {predicate} {em.typed(op.lhs)}, {em.text(op.rhs)}")


def _cmpf(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, arith.CmpfOp)
    predicate = _CMPF[op.predicate.value.data]
    em.assign(op.result, f"fcmp{_fastmath(op)} {predicate} {em.typed(op.lhs)}, {em.text(op.rhs)}")


def _select(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, arith.SelectOp)
    em.assign(op.result, f"select {em.typed(op.cond)}, {em.typed(op.lhs)}, {em.typed(op.rhs)}")


def _constant(em: FunctionEmitter, op: Operation) -> None:
    """Nothing to emit: `llvm_ir` binds constants to their literal when naming values."""


def _rounding_division(em: FunctionEmitter, op: Operation) -> None:
    """ceildivsi / floordivsi: q = a / b (truncating), then q +/- 1 when inexact and the signs say so;
    ceildivui: q + (a % b != 0)."""
    lhs, rhs = op.operands
    type_ = llvm_type(lhs.type, op)
    a, b = em.text(lhs), em.text(rhs)
    if isinstance(op, arith.CeilDivUIOp):
        quotient = em.temp(f"udiv {type_} {a}, {b}", "q")
        remainder = em.temp(f"urem {type_} {a}, {b}", "r")
        inexact = em.temp(f"icmp ne {type_} {remainder}, 0", "inexact")
        bump = em.temp(f"zext i1 {inexact} to {type_}", "bump")
        em.assign(op.results[0], f"add {type_} {quotient}, {bump}")
        return
    quotient = em.temp(f"sdiv {type_} {a}, {b}", "q")
    product = em.temp(f"mul {type_} {quotient}, {b}", "qb")
    inexact = em.temp(f"icmp ne {type_} {product}, {a}", "inexact")
    a_negative = em.temp(f"icmp slt {type_} {a}, 0", "aneg")
    b_negative = em.temp(f"icmp slt {type_} {b}, 0", "bneg")
    if isinstance(op, arith.CeilDivSIOp):
        same_sign = em.temp(f"icmp eq i1 {a_negative}, {b_negative}", "same")
        adjust = em.temp(f"and i1 {inexact}, {same_sign}", "adjust")
        bump = em.temp(f"zext i1 {adjust} to {type_}", "bump")
        em.assign(op.results[0], f"add {type_} {quotient}, {bump}")
        return
    opposite = em.temp(f"icmp ne i1 {a_negative}, {b_negative}", "opposite")
    adjust = em.temp(f"and i1 {inexact}, {opposite}", "adjust")
    bump = em.temp(f"zext i1 {adjust} to {type_}", "bump")
    em.assign(op.results[0], f"sub {type_} {quotient}, {bump}")


def _unsupported(em: FunctionEmitter, op: Operation) -> None:
    raise QdotError(op, f"'{op.name}' is not translated to LLVM IR (extended arithmetic is not needed by qdot)")


ARITH_LOWERINGS: dict[type[Operation], Lowering] = {
    **{op: _integer_binary for op in _INTEGER_BINARY},
    **{op: _float_binary for op in _FLOAT_BINARY},
    **{op: _min_max for op in _MIN_MAX},
    **{op: _cast for op in _CASTS},
    arith.NegfOp: _negf,
    arith.IndexCastOp: _index_cast,
    arith.CmpiOp: _cmpi,
    arith.CmpfOp: _cmpf,
    arith.SelectOp: _select,
    arith.ConstantOp: _constant,
    arith.CeilDivSIOp: _rounding_division,
    arith.CeilDivUIOp: _rounding_division,
    arith.FloorDivSIOp: _rounding_division,
    arith.AddUIExtendedOp: _unsupported,
    arith.MulSIExtendedOp: _unsupported,
    arith.MulUIExtendedOp: _unsupported,
}

NAMED_LOWERINGS: dict[str, Lowering] = {"math.fma": _fma}
"""Ops looked up by name: importing xDSL's math dialect costs a cold compile 16 ms, which only
the kernels that hold a ``math.fma`` (qdot-lower-mma's magic-number rescale) need."""

"""A small IR builder for lowering code: ``b.add(x, b.const(4))`` instead of op plumbing.

Lowerings build a lot of integer index arithmetic; this keeps it readable and
folds what is known at compile time (``b.mul(x, 1)`` is ``x``, constants are
shared per insertion block), so the IR the lit tests show stays small.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnrealizedConversionCastOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

_NO_OVERFLOW: Mapping[str, Attribute] = {"overflowFlags": arith.IntegerOverflowAttr("none")}
"""The properties ``arith.addi/subi/muli/shli.__init__`` gives an op by default."""

_CMPI_PREDICATES = {name: IntegerAttr(code, i64) for code, name in enumerate(
    ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"))}
"""``arith.cmpi``'s ``predicate`` property per mnemonic (the numbering of ``CmpiOp.__init__``)."""


def _create(cls: type[Operation], operands: Sequence[SSAValue], result_types: Sequence[Attribute],
            properties: Mapping[str, Attribute] | None = None) -> Operation:
    """The op ``cls.__init__`` would build, for fixed-arity ops (no segment sizes), without
    xDSL's generic IRDL builder, which costs three times as much; lowering a kernel builds
    thousands of these. Same operands, result types and properties (the attribute objects
    are immutable, so ops may share them)."""
    return cls.create(operands=operands, result_types=result_types,
                      properties=dict(properties) if properties else {})


@functools.cache
def _is_constant_class(cls: type) -> bool:
    """``isinstance(owner, arith.ConstantOp)`` per class: the folds ask it of nearly every
    operand they see, and a failing ``isinstance`` against xDSL's ABC-based op classes is
    several times slower than this lookup."""
    return issubclass(cls, arith.ConstantOp)


def constant_value(value: SSAValue) -> int | float | None:
    """The compile-time value of an ``arith.constant`` scalar, else None."""
    owner = value.owner
    if _is_constant_class(type(owner)):
        attr = owner.value
        if isinstance(attr, IntegerAttr):
            return int(attr.value.data)
        data = getattr(attr, "value", None)
        if data is not None and hasattr(data, "data") and isinstance(data.data, float):
            return float(data.data)
    return None


class Builder:
    """Inserts operations at an insertion point, in order."""

    def __init__(self, point: InsertPoint, location: FileLineColLoc | None = None):
        self.point = point
        self.location = location
        """Where the ops inserted without one of their own are said to be: the op they lower (``before``), as MLIR's
        conversions keep it, so that a later refusal of one (an instruction the arch lacks) is reported there
        and not at the enclosing function."""
        self._consts: dict[tuple[int | float, Attribute], SSAValue] = {}

    @staticmethod
    def before(op: Operation) -> "Builder":
        location = op.location
        return Builder(InsertPoint.before(op), location if isinstance(location, FileLineColLoc) else None)

    @staticmethod
    def at_start(block: Block) -> "Builder":
        return Builder(InsertPoint.at_start(block))

    @staticmethod
    def at_end(block: Block) -> "Builder":
        return Builder(InsertPoint.at_end(block))

    def insert(self, op: Operation) -> Operation:
        """``Rewriter.insert_op(op, self.point)`` for one op, without its generic checks (a
        lowering inserts thousands)."""
        point = self.point
        if self.location is not None and not isinstance(op.location, FileLineColLoc):
            op.location = self.location
        if point.insert_before is not None:
            point.block.insert_op_before(op, point.insert_before)
        else:
            point.block.add_op(op)
        return op

    def emit(self, op: Operation) -> SSAValue:
        self.insert(op)
        return op.results[0]

    # ---- constants -------------------------------------------------------------------------
    def const(self, value: int, type_: Attribute = i32) -> SSAValue:
        key = (value, type_)
        if key not in self._consts:
            if isinstance(type_, IntegerType) and type_.width.data == 1:
                value = 1 if value else 0
            self._consts[key] = self.emit(_create(arith.ConstantOp, (), (type_,), {"value": IntegerAttr(value, type_)}))
        return self._consts[key]

    def fconst(self, value: float, type_: Attribute = f32) -> SSAValue:
        key = (repr(float(value)), type_)  # repr keeps NaN and -0.0 distinct and hashable
        if key not in self._consts:
            from xdsl.dialects.builtin import FloatAttr

            self._consts[key] = self.emit(arith.ConstantOp(FloatAttr(float(value), type_)))  # type: ignore[arg-type]
        return self._consts[key]

    # ---- integer arithmetic with folding ---------------------------------------------------
    def add(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        if constant_value(b) == 0:
            return a
        if constant_value(a) == 0:
            return b
        ca, cb = constant_value(a), constant_value(b)
        if isinstance(ca, int) and isinstance(cb, int):
            return self.const(ca + cb, a.type)
        return self.emit(_create(arith.AddiOp, (a, b), (a.type,), _NO_OVERFLOW))

    def sub(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        if constant_value(b) == 0:
            return a
        return self.emit(_create(arith.SubiOp, (a, b), (a.type,), _NO_OVERFLOW))

    def mul(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        ca, cb = constant_value(a), constant_value(b)
        if cb == 1:
            return a
        if ca == 1:
            return b
        if cb == 0 or ca == 0:
            return self.const(0, a.type)
        if isinstance(ca, int) and isinstance(cb, int):
            return self.const(ca * cb, a.type)
        if isinstance(cb, int) and cb > 0 and cb & (cb - 1) == 0:
            return self.shl(a, cb.bit_length() - 1)
        return self.emit(_create(arith.MuliOp, (a, b), (a.type,), _NO_OVERFLOW))

    def xor(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        if constant_value(b) == 0:
            return a
        if constant_value(a) == 0:
            return b
        return self.emit(_create(arith.XOrIOp, (a, b), (a.type,)))

    def and_(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        return self.emit(_create(arith.AndIOp, (a, b), (a.type,)))

    def or_(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        if constant_value(b) == 0:
            return a
        if constant_value(a) == 0:
            return b
        return self.emit(_create(arith.OrIOp, (a, b), (a.type,)))

    def shl(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int) and b == 0:
            return a
        return self.emit(_create(arith.ShLIOp, (a, self._operand(b, a.type)), (a.type,), _NO_OVERFLOW))

    def lshr(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int) and b == 0:
            return a
        return self.emit(_create(arith.ShRUIOp, (a, self._operand(b, a.type)), (a.type,)))

    def udiv(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        if constant_value(b) == 1:
            return a
        return self.emit(_create(arith.DivUIOp, (a, b), (a.type,)))

    def urem(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        return self.emit(_create(arith.RemUIOp, (a, self._operand(b, a.type)), (a.type,)))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue | int) -> SSAValue:
        b = self._operand(b, a.type)
        predicate_attr = _CMPI_PREDICATES.get(predicate)
        if predicate_attr is None or a.type != b.type:
            return self.emit(arith.CmpiOp(a, b, predicate))  # xDSL's builder reports the error
        return self.emit(_create(arith.CmpiOp, (a, b), (i1,), {"predicate": predicate_attr}))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(_create(arith.SelectOp, (cond, a, b), (a.type,)))

    def and_i1(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if a is None:
            return b
        if b is None:
            return a
        return self.emit(_create(arith.AndIOp, (a, b), (a.type,)))

    def cast_int(self, value: SSAValue, type_: Attribute) -> SSAValue:
        """index <-> iN, zero-extend or truncate between integer widths."""
        src = value.type
        if src == type_:
            return value
        c = constant_value(value)
        if isinstance(c, int):
            return self.const(c, type_)
        if isinstance(src, IndexType) or isinstance(type_, IndexType):
            return self.emit(_create(arith.IndexCastOp, (value,), (type_,)))
        assert isinstance(src, IntegerType) and isinstance(type_, IntegerType)
        if src.width.data < type_.width.data:
            return self.emit(_create(arith.ExtUIOp, (value,), (type_,)))
        return self.emit(_create(arith.TruncIOp, (value,), (type_,)))

    def cast(self, values: Sequence[SSAValue], types: Sequence[Attribute]) -> list[SSAValue]:
        op = _create(UnrealizedConversionCastOp, tuple(values), tuple(types))
        self.insert(op)
        return list(op.results)

    # ---- f32 arithmetic ----------------------------------------------------------------------
    def mulf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MulfOp(a, b))

    def addf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddfOp(a, b))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """a·b + c as one fused multiply-add.

        Plain ``fmul``/``fadd`` print as ``mul.rn``/``add.rn``, which PTX never fuses;
        the ``contract`` flag on both lets LLVM form ``fma.rn.f32`` (one rounding, one
        instruction) — what an epilogue of many rescales needs.
        """
        contract = arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT])
        product = self.emit(arith.MulfOp(a, b, flags=contract))
        return self.emit(arith.AddfOp(product, c, flags=contract))

    def fused_fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """a·b + c rounded once, always (``math.fma``, LLVM's ``llvm.fma``): for results whose
        exactness needs the single rounding, where ``fma``'s contraction is only allowed."""
        from xdsl.dialects import math  # 16 ms of import that kernels without such a step never pay

        return self.emit(math.FmaOp(a, b, c))

    def _operand(self, b: SSAValue | int, type_: Attribute) -> SSAValue:
        return self.const(b, type_) if isinstance(b, int) else b


__all__ = ["Builder", "constant_value", "i1", "i32", "i64", "f32", "Float32Type", "IndexType"]

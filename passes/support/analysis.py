"""Small facts about index values that lowering needs: known divisibility and contiguity.

``known_divisor`` is what lets a global → shared copy use 16-byte ``cp.async``:
a row stride of ``K/2`` bytes is 16-byte aligned only if K is a multiple of 32.
Kernels state what they know with ``{qdot.divisibility = N}`` on index arguments
(Triton's ``tt.divisibility``); the analysis carries it through ``arith``.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, SSAValue

from dialects.qdot.kernel_attrs import DIVISIBILITY_ATTR
from passes.support.builder import constant_value

CAP = 1 << 16


def _pow2_divisor(value: int) -> int:
    if value == 0:
        return CAP
    value = abs(value)
    return min(value & -value, CAP)


def known_divisor(value: SSAValue) -> int:
    """The largest power of two known to divide ``value`` (at most 2^16)."""
    c = constant_value(value)
    if isinstance(c, int):
        return _pow2_divisor(c)
    owner = value.owner
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        if isinstance(parent, scf.ForOp) and value.index == 0:
            # the induction variable: lb + i·step
            return gcd(known_divisor(parent.lb), known_divisor(parent.step))
        if isinstance(parent, FuncOp) and parent.arg_attrs is not None:
            attrs = parent.arg_attrs.data[value.index]
            div = attrs.data.get(DIVISIBILITY_ATTR)
            if isinstance(div, IntegerAttr):
                return _pow2_divisor(int(div.value.data))
        return 1
    if isinstance(owner, arith.MuliOp):
        return min(known_divisor(owner.lhs) * known_divisor(owner.rhs), CAP)
    if isinstance(owner, (arith.AddiOp, arith.SubiOp)):
        return gcd(known_divisor(owner.lhs), known_divisor(owner.rhs))
    if isinstance(owner, (arith.MinUIOp, arith.MaxUIOp, arith.MinSIOp, arith.MaxSIOp)):
        # one of the two: what divides both divides it (qdot-pipeline's min(ahead, last) of an in_bounds load)
        return gcd(known_divisor(owner.lhs), known_divisor(owner.rhs))
    if isinstance(owner, arith.SelectOp):
        return gcd(known_divisor(owner.lhs), known_divisor(owner.rhs))
    if isinstance(owner, arith.DivUIOp):
        d = constant_value(owner.rhs)
        inner = known_divisor(owner.lhs)
        if isinstance(d, int) and d > 0 and inner % d == 0:
            return inner // d
        return 1
    if isinstance(owner, arith.IndexCastOp):
        return known_divisor(owner.input)
    if isinstance(owner, arith.ShLIOp):
        s = constant_value(owner.rhs)
        if isinstance(s, int):
            return min(known_divisor(owner.lhs) << s, CAP)
    return 1


def rows_back_to_back(row_stride: SSAValue, row_elements: int) -> bool:
    """Whether each row of a 2-D tile starts where the previous one ends: its row stride is the constant
    ``row_elements`` (a tile as wide as its tensor's rows, as ``tile_weights``' order gives each K step). Its copies
    then take one base address, where rows apart need one per row (the copies' one-run form, ``copies.py``; the
    decode kernels' scale layout, ``dot_operands.one_contiguous_run``)."""
    stride = constant_value(row_stride)
    return isinstance(stride, int) and stride == row_elements


def unit_stride(strides: Sequence[SSAValue]) -> int | None:
    """The one dimension whose stride is the constant 1, if exactly one is: the dimension a tile is contiguous
    along (its rows' elements for a row-major descriptor, its columns' for a column-major one)."""
    unit = [i for i, s in enumerate(strides) if constant_value(s) == 1]
    return unit[0] if len(unit) == 1 else None

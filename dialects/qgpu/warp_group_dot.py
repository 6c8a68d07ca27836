"""``qgpu.warp_group_dot``: D = A · B + C with both operands read from shared memory by wgmma.

    %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16
         : !qgpu.memdesc<128x64xbf16, #shared_a>, !qgpu.memdesc<64x128xbf16, #shared_b>,
           tensor<128x128xf32, #qgpu.mma<{versionMajor = 3, ..., instrShape = [16, 128, 16]}>>
         -> tensor<128x128xf32, #qgpu.mma<{versionMajor = 3, ...}>>

``{pendings = 1}`` (set by ``qdot-pipeline``) lets the dot finish asynchronously: after
issuing it the warps wait only until at most one dot — this one — is still running, so
it overlaps whatever follows (the next K step's dequantization), and its buffers and
result are safe to touch one dot later; ``qgpu.warp_group_dot_wait %acc {pendings = 0}``
after the loop waits for the last one before its result is read:

    %r = qgpu.warp_group_dot_wait %acc {pendings = 0} : tensor<128x128xf32, #mma3>

Triton's ``ttng.warp_group_dot`` with both operands in shared memory. Unlike
``qgpu.mma`` no operand passes through registers: each warpgroup (4 warps) multiplies
its 64-row slices of A by all of B straight from the buffers, which must be in a
layout a wgmma descriptor can describe (``wgmma_operands.operand_descriptor``) — the
verifier checks that element by element. The accumulator is a ``#qgpu.mma`` of
versionMajor 3 whose ``instrShape[1]`` is the tile's N (one instruction per k16 step
and 64-row slice).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import Float32Type, IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.base import wait_count_problem
from dialects.qgpu.encodings import MmaEncodingAttr
from dialects.qgpu.memory_ops import check_layout
from dialects.qgpu.register_formats import RegFormat, RegFormatAttr, element_type
from dialects.qgpu.types import MemDescType
from dialects.qgpu.wgmma_operands import WgmmaOperand, operand_descriptor
from compiler.diagnostics import dims_text

WGMMA_FORMATS = (RegFormat.BF16, RegFormat.FP16)



@irdl_op_definition
class WarpGroupDotOp(IRDLOperation):
    """The wgmma form of ``qgpu.mma`` (module docstring)."""

    name = "qgpu.warp_group_dot"

    a = operand_def(MemDescType)
    b = operand_def(MemDescType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    c = operand_def(T)
    lhs_format = prop_def(RegFormatAttr, prop_name="lhs")
    rhs_format = prop_def(RegFormatAttr, prop_name="rhs")
    pendings = opt_prop_def(IntegerAttr)
    result = result_def(T)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def()
    assembly_format = ("$a `,` $b `,` $c `lhs` `=` $lhs `rhs` `=` $rhs attr-dict"
                       " `:` type($a) `,` type($b) `,` type($c) `->` type($result)")

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation, c: SSAValue | Operation,
                 lhs: RegFormat, rhs: RegFormat):
        acc = SSAValue.get(c)
        super().__init__(operands=[a, b, acc], result_types=[acc.type],
                         properties={"lhs": RegFormatAttr(lhs), "rhs": RegFormatAttr(rhs)})

    @property
    def lhs(self) -> RegFormat:
        return self.lhs_format.data

    @property
    def pending_count(self) -> int:
        """Dots left running when this one returns (0: its result is complete)."""
        return 0 if self.pendings is None else self.pendings.value.data

    @property
    def rhs(self) -> RegFormat:
        return self.rhs_format.data

    def operands_view(self) -> tuple[WgmmaOperand, WgmmaOperand]:
        """The descriptor view of A and B (verified to exist)."""
        views = []
        for op_idx, value in ((0, self.a), (1, self.b)):
            assert isinstance(value.type, MemDescType)
            view = operand_descriptor(value.type, op_idx)
            assert isinstance(view, WgmmaOperand)
            views.append(view)
        return views[0], views[1]

    def verify_(self) -> None:
        if not 0 <= self.pending_count <= 1:
            raise VerifyException(f"pendings must be 0 or 1, got {self.pending_count}")
        result = self.result.type
        assert isinstance(result, TensorType)
        mma = result.encoding
        if not isinstance(mma, MmaEncodingAttr) or not mma.is_warp_group:
            raise VerifyException(f"result must have a #qgpu.mma encoding of versionMajor = 3 (wgmma), got {mma}")
        check_layout("result", result)
        if result.get_element_type() != Float32Type():
            raise VerifyException(f"accumulator and result must be f32, got {result.get_element_type()}")
        m, n = result.get_shape()
        for name, fmt in (("lhs", self.lhs), ("rhs", self.rhs)):
            if fmt not in WGMMA_FORMATS:
                raise VerifyException(f"{name} must be bf16 or fp16 (the wgmma forms qdot emits), got {fmt}")
        if self.lhs != self.rhs:
            raise VerifyException(f"lhs and rhs must be the same format, got {self.lhs} and {self.rhs}")
        a, b = self.a.type, self.b.type
        assert isinstance(a, MemDescType) and isinstance(b, MemDescType)
        for name, mem, fmt in (("lhs", a, self.lhs), ("rhs", b, self.rhs)):
            if mem.get_element_type() != element_type(fmt):
                raise VerifyException(f"{name} buffer must hold {element_type(fmt)} for {name} = {fmt}, "
                                      f"got {mem.get_element_type()}")
        for op_idx, name, mem in ((0, "lhs", a), (1, "rhs", b)):
            # The [M, K] / [K, N] comparison below indexes two dimensions; operand_descriptor owns the rank rule.
            if len(mem.get_shape()) != 2:
                raise VerifyException(f"{name} buffer cannot be read by wgmma: {operand_descriptor(mem, op_idx)}")
        if a.get_shape()[0] != m or b.get_shape()[1] != n or a.get_shape()[1] != b.get_shape()[0]:
            raise VerifyException(f"lhs [M, K] = {dims_text(a.get_shape())} and rhs [K, N] = {dims_text(b.get_shape())} must "
                                  f"match the result [M, N] = {dims_text((m, n))}")
        # M a multiple of 16·warpsPerCTA[0] (whole 64-row slices per warpgroup): check_layout above
        if mma.instr_shape[1] != n:
            raise VerifyException(f"instrShape N = {mma.instr_shape[1]} must be the tile's N = {n} (one wgmma per "
                                  f"k16 step spans the whole N)")
        for op_idx, name, mem in ((0, "lhs", a), (1, "rhs", b)):
            view = operand_descriptor(mem, op_idx)
            if isinstance(view, str):
                raise VerifyException(f"{name} buffer cannot be read by wgmma: {view}")


@irdl_op_definition
class WarpGroupDotWaitOp(IRDLOperation):
    """Wait until at most ``pendings`` asynchronous ``qgpu.warp_group_dot`` of this warpgroup
    are still running; the result is the accumulator, now safe to read."""

    name = "qgpu.warp_group_dot_wait"

    T: ClassVar = VarConstraint("T", base(TensorType))
    acc = operand_def(T)
    pendings = prop_def(IntegerAttr)
    result = result_def(T)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$acc attr-dict `:` type($acc)"

    def __init__(self, acc: SSAValue | Operation, pendings: int = 0):
        value = SSAValue.get(acc)
        super().__init__(operands=[value], result_types=[value.type],
                         properties={"pendings": IntegerAttr(pendings, i64)})

    @property
    def pending_count(self) -> int:
        return self.pendings.value.data

    def verify_(self) -> None:
        if (problem := wait_count_problem(self.pending_count, "pendings")) is not None:
            raise VerifyException(problem)
        acc = self.acc.type
        assert isinstance(acc, TensorType)
        if not isinstance(acc.encoding, MmaEncodingAttr) or not acc.encoding.is_warp_group:
            raise VerifyException(f"the accumulator must have a #qgpu.mma encoding of versionMajor = 3, got "
                                  f"{acc.encoding}")


__all__ = ["WGMMA_FORMATS", "WarpGroupDotOp", "WarpGroupDotWaitOp"]

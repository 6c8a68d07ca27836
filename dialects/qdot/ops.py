"""``qdot.dot_scaled``: the central op of the tensor level (DESIGN.md §2).

    %d = qdot.dot_scaled %a scale %a_scale, %b scale %b_scale, %acc lhs = e4m3 rhs = e2m1
         : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU>
         -> tensor<128x128xf32>
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from dialects.qdot.attrs import FormatAttr
from dialects.qdot.dot import DotProblem, OperandTypes, dot_problem
from dialects.qdot.formats import Format

_TRUE = BoolAttr.from_bool(True)
_FALSE = BoolAttr.from_bool(False)


def _format_attr(fmt: Format | str | FormatAttr) -> FormatAttr:
    return fmt if isinstance(fmt, FormatAttr) else FormatAttr(Format(fmt))


@irdl_op_definition
class DotScaledOp(IRDLOperation):
    """D = A · B + C on quantized operands, with optional per-block scales (Triton's ``tt.dot_scaled``).

    A is M×K (``lhs``), B is K×N (``rhs``), C and D are M×N. Each side names its
    format; the tensor element type must be the one the format travels in
    (``dialects.qdot.formats``). Packed e2m1 operands hold two values per ``i8``
    byte, low nibble first, packed along K (lhs ``[M, K/2]``, rhs ``[K/2, N]``)
    unless ``lhs_k_pack``/``rhs_k_pack`` is false, which packs the lhs along M
    (``[M/2, K]``) or the rhs along N (``[K, N/2]``). Block operands (q4_K, q8_x)
    are ``[M, K/bv]`` / ``[K/bv, N]`` tensors of ``!qdot.block`` and carry their
    scales inside the blocks.

    An external scale multiplies each group of K-values of its row (lhs) or
    column (rhs): ue8m0 (``f8E8M0FNU``) per 32 values (MX formats), or ue4m3
    (``f8E4M3FN``) per 16 values (NVFP4, e2m1 only); the lhs scale is
    ``[M, K/g]``, the rhs scale ``[N, K/g]``. Accumulation is f32, or i32 for
    i8 × i8. ``fast_math`` lets lowerings skip NaN propagation of ue8m0's NaN
    code (0xFF), as Triton's ``fastMath`` does.

    Operand tensors may carry any encoding; the verifier compares only shapes
    and element types (see ``dialects.qdot.dot``).
    """

    name = "qdot.dot_scaled"

    a = operand_def(TensorType)
    a_scale = opt_operand_def(TensorType)
    b = operand_def(TensorType)
    b_scale = opt_operand_def(TensorType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    acc = operand_def(T)
    result = result_def(T)

    lhs_format = prop_def(FormatAttr, prop_name="lhs")
    rhs_format = prop_def(FormatAttr, prop_name="rhs")
    lhs_k_pack = prop_def(BoolAttr, default_value=_TRUE)
    rhs_k_pack = prop_def(BoolAttr, default_value=_TRUE)
    fast_math = prop_def(BoolAttr, default_value=_FALSE)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $acc"
        " `lhs` `=` $lhs `rhs` `=` $rhs attr-dict"
        " `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)?"
        " `->` type($result)"
    )

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        acc: SSAValue | Operation,
        lhs: Format | str | FormatAttr,
        rhs: Format | str | FormatAttr,
        a_scale: SSAValue | Operation | None = None,
        b_scale: SSAValue | Operation | None = None,
        *,
        lhs_k_pack: bool = True,
        rhs_k_pack: bool = True,
        fast_math: bool = False,
        result_type: Attribute | None = None,
    ):
        acc_value = SSAValue.get(acc)
        properties: dict[str, Attribute] = {
            "lhs": _format_attr(lhs),
            "rhs": _format_attr(rhs),
            "lhs_k_pack": BoolAttr.from_bool(lhs_k_pack),
            "rhs_k_pack": BoolAttr.from_bool(rhs_k_pack),
            "fast_math": BoolAttr.from_bool(fast_math),
        }
        super().__init__(
            operands=[a, a_scale, b, b_scale, acc_value],
            result_types=[result_type if result_type is not None else acc_value.type],
            properties=properties,
        )

    @property
    def lhs(self) -> Format:
        return self.lhs_format.data

    @property
    def rhs(self) -> Format:
        return self.rhs_format.data

    @property
    def lhs_k_packed(self) -> bool:
        return self.lhs_k_pack.value.data != 0

    @property
    def rhs_k_packed(self) -> bool:
        return self.rhs_k_pack.value.data != 0

    @property
    def is_fast_math(self) -> bool:
        return self.fast_math.value.data != 0

    def dot_operand_types(self) -> OperandTypes:
        return OperandTypes(
            lhs=self.a.type,
            rhs=self.b.type,
            acc=self.acc.type,
            lhs_scale=self.a_scale.type if self.a_scale is not None else None,
            rhs_scale=self.b_scale.type if self.b_scale is not None else None,
        )

    def problem(self) -> DotProblem:
        """M, N, K, formats and scale kinds; raises ``VerifyException`` if ill-formed."""
        return dot_problem(self.dot_operand_types(), self.lhs, self.rhs, self.lhs_k_packed, self.rhs_k_packed)

    def verify_(self) -> None:
        self.problem()

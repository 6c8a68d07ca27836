"""Register instructions: special registers, shuffles, byte permutes, LUT logic, conversions.

These are the ops the FP4/FP8 promotion recipes of ptx.md §6 are written in (prmt LUTs,
lop3 masks, cvt between FP8 pairs and f16x2, bf16x2 arithmetic) plus what a reduction
across lanes needs (shfl.sync).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, UnitAttr, VectorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.arch import Feature, Requirement, requirement
from dialects.ptx.attrs import CvtKind, CvtKindAttr, ShflMode, ShflModeAttr, SpecialReg, SpecialRegAttr
from dialects.ptx.base import (
    BF16,
    BF16X2,
    F16,
    F16X2,
    F32,
    I8,
    I16,
    I32,
    PtxInstruction,
    access_bytes,
    int_prop,
    int_value,
    parse_operand_list,
    print_attr_dict,
    print_operands,
    resolve,
)


@irdl_op_definition
class SpecialRegOp(PtxInstruction):
    """`mov.u32 %r, %<reg>` ([ISA] 10): read a special register (thread/block ids, lane id).

        %tid = ptx.special_reg tid.x
    """

    name = "ptx.special_reg"
    reg = prop_def(SpecialRegAttr)
    res = result_def(I32)
    traits = traits_def(Pure())
    assembly_format = "$reg attr-dict"

    def __init__(self, reg: SpecialReg):
        super().__init__(result_types=[I32], properties={"reg": SpecialRegAttr(reg)})

    def ptx_mnemonic(self) -> str:
        """The register operand of the `mov` (``%tid.x``)."""
        return f"%{self.reg.data}"


@irdl_op_definition
class ShflSyncOp(PtxInstruction):
    """`shfl.sync.<mode>.b32 d, value, b, c, membermask` ([ISA] 9.7.9.6).

    `b` is the source lane (idx), lane offset (up/down) or XOR mask (bfly); `c` packs the
    clamp and segment mask (0x1f for a whole warp with bfly/idx/down, 0 for up).
    Every lane named in `membermask` must execute it.

        %r = ptx.shfl_sync bfly %value, %lane_mask, %clamp, %member_mask : f32
    """

    name = "ptx.shfl_sync"
    T: ClassVar = VarConstraint("T", base(type(I32)) | base(type(F32)))
    mode = prop_def(ShflModeAttr)
    value = operand_def(T)
    lane = operand_def(I32)
    clamp = operand_def(I32)
    member_mask = operand_def(I32)
    res = result_def(T)
    assembly_format = "$mode $value `,` $lane `,` $clamp `,` $member_mask attr-dict `:` type($value)"

    def __init__(self, mode: ShflMode, value: SSAValue, lane: SSAValue, clamp: SSAValue, member_mask: SSAValue):
        super().__init__(operands=[value, lane, clamp, member_mask], result_types=[value.type],
                         properties={"mode": ShflModeAttr(mode)})

    def verify_(self) -> None:
        if self.value.type not in (I32, F32):
            raise VerifyException(f"value must be i32 or f32, got {self.value.type}")

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.SHUFFLE, "6.0", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return f"shfl.sync.{self.mode.data}.b32"


@irdl_op_definition
class PrmtOp(PtxInstruction):
    """`prmt.b32 d, a, b, c` ([ISA] 9.7.8.7), default mode: byte j of d is byte (c >> 4j) & 7 of
    {b, a} (a = bytes 0-3), replaced by its sign replicated when bit 3 of the selector is set
    (ptx.md §6.2).

        %d = ptx.prmt %a, %b, %selector
    """

    name = "ptx.prmt"
    a = operand_def(I32)
    b = operand_def(I32)
    selector = operand_def(I32)
    res = result_def(I32)
    traits = traits_def(Pure())
    assembly_format = "$a `,` $b `,` $selector attr-dict"

    def __init__(self, a: SSAValue, b: SSAValue, selector: SSAValue):
        super().__init__(operands=[a, b, selector], result_types=[I32])

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.SHUFFLE, "2.0", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "prmt.b32"


@irdl_op_definition
class Lop3Op(PtxInstruction):
    """`lop3.b32 d, a, b, c, immLut` ([ISA] 9.7.8.6): any bitwise function of three inputs.

    Bit i of `lut` is the result for inputs (a, b, c) = bits of i read as a = 0xF0,
    b = 0xCC, c = 0xAA: ``(a & b) | c`` is ``lut 0xea``.

        %d = ptx.lop3 %a, %b, %c lut 0xea
    """

    name = "ptx.lop3"
    a = operand_def(I32)
    b = operand_def(I32)
    c = operand_def(I32)
    lut = prop_def(IntegerAttr)
    res = result_def(I32)
    traits = traits_def(Pure())

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, lut: int):
        super().__init__(operands=[a, b, c], result_types=[I32], properties={"lut": int_prop(lut)})

    def verify_(self) -> None:
        if not 0 <= int_value(self.lut) <= 255:
            raise VerifyException(f"lut must be in 0..255 (0x00..0xff), got {int_value(self.lut)}")

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.SHUFFLE, "4.3", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "lop3.b32"

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, [self.a, self.b, self.c])
        printer.print_string(f" lut {int_value(self.lut):#04x}")
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> Lop3Op:
        a, b, c = _resolve_exactly(parser, 3, I32)
        parser.parse_keyword("lut")
        lut = parser.parse_integer(allow_boolean=False)
        op = cls(a, b, c, lut)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


@dataclass(frozen=True)
class CvtForm:
    """Operand and result types of one conversion and the target it needs."""

    operands: tuple[Attribute, ...]
    result: Attribute
    rounding: str  # qualifiers between `cvt` and the types, e.g. "rn.satfinite"
    feature: Feature
    min_ptx: str
    relu: bool  # whether `.relu` exists for this conversion


_FP8_TO_F16X2 = CvtForm((I16,), F16X2, "rn", Feature.CVT_FP8, "8.1", True)
_FP6_TO_F16X2 = CvtForm((I16,), F16X2, "rn", Feature.CVT_FP6_FP4, "8.6", True)
_F32_TO_FP8X2 = CvtForm((F32, F32), I16, "rn.satfinite", Feature.CVT_FP8, "8.1", True)

CVT_FORMS: dict[CvtKind, CvtForm] = {
    CvtKind.F16X2_E4M3X2: _FP8_TO_F16X2,
    CvtKind.F16X2_E5M2X2: _FP8_TO_F16X2,
    CvtKind.F16X2_E2M1X2: CvtForm((I8,), F16X2, "rn", Feature.CVT_FP6_FP4, "8.6", True),
    CvtKind.F16X2_E2M3X2: _FP6_TO_F16X2,
    CvtKind.F16X2_E3M2X2: _FP6_TO_F16X2,
    CvtKind.E4M3X2_F32: _F32_TO_FP8X2,
    CvtKind.E5M2X2_F32: _F32_TO_FP8X2,
    CvtKind.E4M3X2_F16X2: CvtForm((F16X2,), I16, "rn.satfinite", Feature.CVT_FP8, "8.1", True),
    CvtKind.E2M1X2_F32: CvtForm((F32, F32), I8, "rn.satfinite", Feature.CVT_FP6_FP4, "8.6", True),
    CvtKind.BF16X2_F32: CvtForm((F32, F32), BF16X2, "rn", Feature.CVT_F16_BF16, "7.0", True),
    CvtKind.F16X2_F32: CvtForm((F32, F32), F16X2, "rn", Feature.CVT_F16_BF16, "7.0", True),
    CvtKind.F32_F16: CvtForm((F16,), F32, "", Feature.CVT_F16_BF16, "2.0", False),
    CvtKind.F32_BF16: CvtForm((BF16,), F32, "", Feature.CVT_F16_BF16, "7.1", False),
}


@irdl_op_definition
class CvtOp(PtxInstruction):
    """`cvt{.rn}{.satfinite}{.relu}.<dtype>.<atype>` ([ISA] 9.7.9.21), the forms of ptx.md §6.1.

    Packed pairs keep element order: the element in the low byte/half of the source lands
    in the low half/byte of the result. From two f32 (`a`, `b`), as in PTX, `a` goes to the
    **upper** half/byte and `b` to the lower. FP8/FP6/FP4 packs are integer registers
    (i16; e2m1x2 an i8), f16x2 / bf16x2 are vector<2xf16> / vector<2xbf16>. Narrowing to
    FP8/FP4 saturates to the largest finite value (`.satfinite`).

        %h = ptx.cvt f16x2.e4m3x2 %pair : (i16) -> vector<2xf16>  (types implied, not written)
        %h = ptx.cvt f16x2.e4m3x2 %pair
        %p = ptx.cvt relu e4m3x2.f32 %hi, %lo
    """

    name = "ptx.cvt"
    kind = prop_def(CvtKindAttr)
    relu = opt_prop_def(UnitAttr)
    operand_list = var_operand_def()
    res = result_def()
    traits = traits_def(Pure())

    def __init__(self, kind: CvtKind, operands: Sequence[SSAValue], relu: bool = False):
        super().__init__(operands=[operands], result_types=[CVT_FORMS[kind].result],
                         properties={"kind": CvtKindAttr(kind), "relu": UnitAttr() if relu else None})

    @property
    def form(self) -> CvtForm:
        return CVT_FORMS[self.kind.data]

    def verify_(self) -> None:
        form = self.form
        kind = self.kind.data
        if len(self.operand_list) != len(form.operands):
            raise VerifyException(f"cvt {kind} takes {len(form.operands)} operand(s), got {len(self.operand_list)}")
        for index, (value, expected) in enumerate(zip(self.operand_list, form.operands)):
            if value.type != expected:
                raise VerifyException(f"cvt {kind} operand #{index} must be {expected}, got {value.type}")
        if self.res.type != form.result:
            raise VerifyException(f"cvt {kind} result must be {form.result}, got {self.res.type}")
        if self.relu is not None and not form.relu:
            raise VerifyException(f"cvt {kind} has no relu form")

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(self.form.feature, self.form.min_ptx, self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        qualifiers = [q for q in (self.form.rounding, "relu" if self.relu is not None else "") if q]
        return ".".join(["cvt", *qualifiers, self.kind.data.value])

    def print(self, printer: Printer) -> None:
        printer.print_string(f"{' relu' if self.relu is not None else ''} {self.kind.data} ")
        print_operands(printer, self.operand_list)
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> CvtOp:
        relu = parser.parse_optional_keyword("relu") is not None
        kind = parser.parse_str_enum(CvtKind)
        unresolved = parse_operand_list(parser)
        types = CVT_FORMS[kind].operands
        # Extra operands resolve with the first type so the verifier can report the count.
        values = [parser.resolve_operand(u, types[min(i, len(types) - 1)]) for i, u in enumerate(unresolved)]
        op = cls(kind, values, relu)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


@irdl_op_definition
class FmaRnBf16x2Op(PtxInstruction):
    """`fma.rn.bf16x2 d, a, b, c` ([ISA] 9.7.4.5): d = a * b + c per bf16 half, one rounding.

        %d = ptx.fma_rn_bf16x2 %a, %b, %c
    """

    name = "ptx.fma_rn_bf16x2"
    a = operand_def(BF16X2)
    b = operand_def(BF16X2)
    c = operand_def(BF16X2)
    res = result_def(BF16X2)
    traits = traits_def(Pure())
    assembly_format = "$a `,` $b `,` $c attr-dict"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue):
        super().__init__(operands=[a, b, c], result_types=[BF16X2])

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.BF16X2_FMA, "7.0", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "fma.rn.bf16x2"


@irdl_op_definition
class MulRnBf16x2Op(PtxInstruction):
    """`mul.rn.bf16x2 d, a, b` ([ISA] 9.7.4.3), never fused with a following add; sm_90+.

        %d = ptx.mul_rn_bf16x2 %a, %b
    """

    name = "ptx.mul_rn_bf16x2"
    a = operand_def(BF16X2)
    b = operand_def(BF16X2)
    res = result_def(BF16X2)
    traits = traits_def(Pure())
    assembly_format = "$a `,` $b attr-dict"

    def __init__(self, a: SSAValue, b: SSAValue):
        super().__init__(operands=[a, b], result_types=[BF16X2])

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.BF16X2_MUL, "7.8", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "mul.rn.bf16x2"


@irdl_op_definition
class BitcastOp(PtxInstruction):
    """Reinterpret the bits of a register ([ISA] 9.7.9.10 `mov.b32 d, {a, b}` packs / unpacks).

    Between scalars and 1-D vectors of equal total width: an f16x2 mma accumulator
    (vector<2xf16>) as the i32 a prmt works on, an i16 e4m3x2 pair as vector<2xi8>, ...
    (`arith.bitcast` only relates types of the same shape, so it cannot do this.)

        %bits = ptx.bitcast %pair : vector<2xf16> -> i32
    """

    name = "ptx.bitcast"
    source = operand_def()
    res = result_def()
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($res)"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        source = register_bits(self.source.type, "source")
        result = register_bits(self.res.type, "result")
        if source != result:
            raise VerifyException(f"source has {source} bits but result has {result}; bitcast keeps the width")

    def ptx_mnemonic(self) -> str:
        return "mov.b"


@irdl_op_definition
class PackOp(PtxInstruction):
    """Gather 32-bit registers into one vector register for a vector store
    ([ISA] 9.7.9.10 `mov.b64 d, {a, b}`; `st.shared.v4.b32 [p], {a, b, c, d}` takes the
    registers themselves, so in PTX this is free).

        %v = ptx.pack %a, %b, %c, %d : i32, i32, i32, i32 -> vector<4xi32>
    """

    name = "ptx.pack"
    T: ClassVar = VarConstraint("T", base(Attribute))
    parts = var_operand_def(T)
    res = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$parts attr-dict `:` type($parts) `->` type($res)"

    def __init__(self, parts: Sequence[SSAValue]):
        super().__init__(operands=[parts], result_types=[VectorType(I32, [len(parts)])])

    def verify_(self) -> None:
        if len(self.parts) not in (2, 4):
            raise VerifyException(f"pack takes 2 or 4 registers, got {len(self.parts)}")
        for part in self.parts:
            if register_bits(part.type, "part") != 32:
                raise VerifyException(f"every part must be a 32-bit register, got {part.type}")
        if self.res.type != VectorType(I32, [len(self.parts)]):
            raise VerifyException(f"result must be vector<{len(self.parts)}xi32>, got {self.res.type}")

    def ptx_mnemonic(self) -> str:
        return f"mov.b{32 * len(self.parts)}"


@irdl_op_definition
class UnpackOp(PtxInstruction):
    """Split a vector register into its 32-bit registers — the inverse of ``ptx.pack``, for the
    result of a vector load (`ld.shared.v4.b32 {a, b, c, d}, [p]` names the registers itself, so
    in PTX this is free).

        %a, %b, %c, %d = ptx.unpack %v : vector<4xi32> -> i32, i32, i32, i32
    """

    name = "ptx.unpack"
    vector = operand_def(VectorType)
    parts = var_result_def(I32)
    traits = traits_def(Pure())
    assembly_format = "$vector attr-dict `:` type($vector) `->` type($parts)"

    def __init__(self, vector: SSAValue):
        vector_type = vector.type
        assert isinstance(vector_type, VectorType)
        super().__init__(operands=[vector], result_types=[[I32] * vector_type.get_shape()[0]])

    def verify_(self) -> None:
        vector_type = self.vector.type
        assert isinstance(vector_type, VectorType)
        if vector_type.get_element_type() != I32 or vector_type.get_num_dims() != 1 \
                or vector_type.get_shape()[0] not in (2, 4):
            raise VerifyException(f"unpack takes a vector<2xi32> or vector<4xi32>, got {vector_type}")
        if len(self.parts) != vector_type.get_shape()[0]:
            raise VerifyException(f"unpack of {vector_type} gives {vector_type.get_shape()[0]} registers, "
                                  f"got {len(self.parts)}")

    def ptx_mnemonic(self) -> str:
        return f"mov.b{32 * len(self.parts)}"


def register_bits(type_: Attribute, what: str) -> int:
    """Width of a register value: scalar or 1-D vector of i8/i16/i32/i64/f16/bf16/f32/f64."""
    try:
        return 8 * access_bytes(type_, what)
    except VerifyException:
        pass
    if isinstance(type_, VectorType) and type_.get_num_dims() == 1:
        element = type_.get_element_type()
        return type_.get_shape()[0] * register_bits(element, f"{what} element")
    raise VerifyException(f"{what} must be an integer, float or 1-D vector of them, got {type_}")


def _resolve_exactly(parser: Parser, count: int, type_: Attribute) -> list[SSAValue]:
    pos = parser.pos
    unresolved = parse_operand_list(parser)
    if len(unresolved) != count:
        parser.raise_error(f"expected {count} operands, got {len(unresolved)}", pos, parser.pos)
    return resolve(parser, unresolved, type_)


ALU_OPS = [BitcastOp, PackOp, UnpackOp, SpecialRegOp, ShflSyncOp, PrmtOp, Lop3Op, CvtOp, FmaRnBf16x2Op, MulRnBf16x2Op]

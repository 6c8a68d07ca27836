"""`ptx.mma_sync`: warp-level matrix multiply-accumulate, every form qdot emits.

`mma_form` is the one table of legal (shape, kind, types, scale) combinations — the
verifier, `check_arch` and the LLVM emitter all read it. Sources: [ISA] 9.7.14.5.14 and
ptx.md §1, §4 (ptxas 13.0 acceptance on sm_80 / sm_89 / sm_90 / sm_120a).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntegerAttr, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.arch import Feature, Requirement, requirement
from dialects.ptx.attrs import (
    MmaKind,
    MmaKindAttr,
    MmaShape,
    MmaShapeAttr,
    MmaType,
    MmaTypeAttr,
    ScaleType,
    ScaleTypeAttr,
    ScaleVec,
    ScaleVecAttr,
)
from dialects.ptx.base import (
    F16X2,
    F32,
    I16,
    I32,
    PtxInstruction,
    parse_bracketed_operands,
    print_attr_dict,
    print_bracketed_operands,
    resolve,
)

T = MmaType
INT8 = (T.S8, T.U8)
INT4 = (T.S4, T.U4)
FP8 = (T.E4M3, T.E5M2)
F8F6F4 = (T.E4M3, T.E5M2, T.E3M2, T.E2M3, T.E2M1)


@dataclass(frozen=True)
class MmaSignature:
    """Everything about one mma.sync instruction that is not an operand value."""

    shape: MmaShape
    d_type: MmaType
    a_type: MmaType
    b_type: MmaType
    c_type: MmaType
    kind: MmaKind | None = None
    satfinite: bool = False
    scale_vec: ScaleVec | None = None
    scale_type: ScaleType | None = None

    def mnemonic(self) -> str:
        parts = ["mma.sync.aligned", self.shape.value, "row.col"]
        if self.kind is not None:
            parts.append(f"kind::{self.kind}")
        if self.kind is not None and self.kind.block_scaled:
            parts.append("block_scale")
            if self.scale_vec is not None:
                parts.append(f"scale_vec::{self.scale_vec}")
        if self.satfinite:
            parts.append("satfinite")
        parts += [self.d_type, self.a_type, self.b_type, self.c_type]
        if self.scale_type is not None:
            parts.append(self.scale_type)
        return ".".join(parts)


@dataclass(frozen=True)
class MmaForm:
    """Register counts and target needs of a legal signature."""

    a_regs: int
    b_regs: int
    c_regs: int
    d_regs: int
    requirement: Requirement

    @property
    def scale_operands(self) -> int:
        """scale-a data, byte-id-a, thread-id-a, then the same for b (0 when not block-scaled)."""
        return 0


@dataclass(frozen=True)
class BlockScaledForm(MmaForm):
    @property
    def scale_operands(self) -> int:
        return 6


def accumulator_register_type(type_: MmaType) -> Attribute:
    """IR type of one C/D register: i32 (s32), f32, or vector<2xf16> (an f16x2 register)."""
    return {T.S32: I32, T.F32: F32, T.F16: F16X2}[type_]


def accumulator_register_count(type_: MmaType) -> int:
    """C/D of a 16x8 tile: four 32-bit registers, or two f16x2."""
    return 2 if type_ is T.F16 else 4


def _accumulators(sig: MmaSignature, allowed: Sequence[tuple[MmaType, MmaType]]) -> None:
    if (sig.d_type, sig.c_type) not in allowed:
        spelled = " or ".join(f"{d}.{c}" for d, c in allowed)
        raise VerifyException(f"{sig.a_type} x {sig.b_type} accumulates as {spelled} (d.c), "
                              f"got {sig.d_type}.{sig.c_type}")


def _shape(sig: MmaSignature, allowed: Sequence[MmaShape], what: str) -> None:
    if sig.shape not in allowed:
        spelled = " or ".join(s.value for s in allowed)
        raise VerifyException(f"{what} takes shape {spelled}, got {sig.shape}")


def mma_form(sig: MmaSignature) -> MmaForm:
    """The register counts and requirement of `sig`, or VerifyException naming the rule."""
    if sig.kind is None:
        return _plain_form(sig)
    if sig.satfinite:
        raise VerifyException(f"satfinite applies to integer mma only, not kind::{sig.kind}")
    if sig.kind is MmaKind.F8F6F4:
        return _f8f6f4_form(sig)
    return _block_scaled_form(sig)


def _plain_form(sig: MmaSignature) -> MmaForm:
    a, b = sig.a_type, sig.b_type
    if sig.scale_vec is not None or sig.scale_type is not None:
        raise VerifyException("scale_vec and the scale type need a block-scaled kind "
                              "(kind::mxf8f6f4, kind::mxf4, kind::mxf4nvf4)")
    if a in INT8 + INT4 or b in INT8 + INT4:
        return _integer_form(sig)
    if sig.satfinite:
        raise VerifyException(f"satfinite applies to integer mma only, not {a} x {b}")
    if a in FP8 and b in FP8:
        _shape(sig, (MmaShape.M16N8K16, MmaShape.M16N8K32), f"{a} x {b} mma")
        _accumulators(sig, ((T.F32, T.F32), (T.F16, T.F16)))
        # ptxas: f32 accumulate at k32 since PTX 8.4; f16 accumulate and k16 since 8.7.
        version = "8.4" if (sig.shape, sig.d_type) == (MmaShape.M16N8K32, T.F32) else "8.7"
        k32 = sig.shape is MmaShape.M16N8K32
        return MmaForm(4 if k32 else 2, 2 if k32 else 1, accumulator_register_count(sig.c_type),
                       accumulator_register_count(sig.d_type),
                       requirement(Feature.MMA_FP8, version, sig.mnemonic()))
    if a in F8F6F4 or b in F8F6F4:
        raise VerifyException(f"{a} x {b} mma requires kind::f8f6f4 (or a block-scaled kind); "
                              "only e4m3/e5m2 pairs work without one")
    if (a, b) in ((T.BF16, T.BF16), (T.F16, T.F16)):
        _shape(sig, (MmaShape.M16N8K16,), f"{a} mma")
        allowed = ((T.F32, T.F32),) if a is T.BF16 else ((T.F32, T.F32), (T.F16, T.F16))
        _accumulators(sig, allowed)
        return MmaForm(4, 2, accumulator_register_count(sig.c_type), accumulator_register_count(sig.d_type),
                       requirement(Feature.MMA_F16_BF16, "7.0", sig.mnemonic()))
    raise VerifyException(f"no mma.sync multiplies {a} x {b}")


def _integer_form(sig: MmaSignature) -> MmaForm:
    a, b = sig.a_type, sig.b_type
    if a in INT8 and b in INT8:
        _shape(sig, (MmaShape.M16N8K16, MmaShape.M16N8K32), f"{a} x {b} mma")
        k32 = sig.shape is MmaShape.M16N8K32
        a_regs, b_regs = (4, 2) if k32 else (2, 1)
    elif a in INT4 and b in INT4:
        _shape(sig, (MmaShape.M16N8K64,), f"{a} x {b} mma")
        a_regs, b_regs = 4, 2
    else:
        raise VerifyException(f"integer mma multiplies s8/u8 x s8/u8 or s4/u4 x s4/u4, got {a} x {b}")
    _accumulators(sig, ((T.S32, T.S32),))
    return MmaForm(a_regs, b_regs, 4, 4, requirement(Feature.MMA_INT8, "7.0", sig.mnemonic()))


def _f8f6f4_form(sig: MmaSignature) -> MmaForm:
    if sig.scale_vec is not None or sig.scale_type is not None:
        raise VerifyException("kind::f8f6f4 is not block-scaled; use kind::mxf8f6f4 for scale_vec")
    _shape(sig, (MmaShape.M16N8K32,), "kind::f8f6f4")
    _f8f6f4_types(sig)
    _accumulators(sig, ((T.F32, T.F32), (T.F16, T.F16)))
    return MmaForm(4, 2, accumulator_register_count(sig.c_type), accumulator_register_count(sig.d_type),
                   requirement(Feature.MMA_F8F6F4, "8.7", sig.mnemonic()))


def _f8f6f4_types(sig: MmaSignature) -> None:
    for side, type_ in (("A", sig.a_type), ("B", sig.b_type)):
        if type_ not in F8F6F4:
            raise VerifyException(f"kind::{sig.kind} takes {side} type e4m3, e5m2, e3m2, e2m3 or e2m1, "
                                  f"got {type_}")


# Block-scaled kinds (ptx.md §4.2): shape, scale_vec / scale-type pairs ptxas 13.0 accepts.
_BLOCK_SCALE_RULES: dict[MmaKind, tuple[MmaShape, tuple[tuple[ScaleVec, ScaleType], ...]]] = {
    MmaKind.MXF8F6F4: (MmaShape.M16N8K32, ((ScaleVec.X1, ScaleType.UE8M0),)),
    MmaKind.MXF4: (MmaShape.M16N8K64, ((ScaleVec.X2, ScaleType.UE8M0),)),
    MmaKind.MXF4NVF4: (MmaShape.M16N8K64, ((ScaleVec.X2, ScaleType.UE8M0), (ScaleVec.X4, ScaleType.UE4M3))),
}


def _block_scaled_form(sig: MmaSignature) -> MmaForm:
    kind = sig.kind
    assert kind is not None
    shape, pairs = _BLOCK_SCALE_RULES[kind]
    _shape(sig, (shape,), f"kind::{kind}")
    if kind is MmaKind.MXF8F6F4:
        _f8f6f4_types(sig)
    elif (sig.a_type, sig.b_type) != (T.E2M1, T.E2M1):
        raise VerifyException(f"kind::{kind} multiplies packed e2m1 x e2m1, got {sig.a_type} x {sig.b_type}")
    if (sig.d_type, sig.c_type) != (T.F32, T.F32):
        raise VerifyException(f"block-scaled mma accumulates in f32 (f32.f32), got {sig.d_type}.{sig.c_type}")
    if sig.scale_vec is None or sig.scale_type is None:
        raise VerifyException(f"kind::{kind} needs scale_vec and a scale type")
    if (sig.scale_vec, sig.scale_type) not in pairs:
        if (kind, sig.scale_vec, sig.scale_type) == (MmaKind.MXF4NVF4, ScaleVec.X4, ScaleType.UE8M0):
            raise VerifyException("kind::mxf4nvf4 scale_vec::4X with ue8m0 scales is rejected by ptxas 13.0 "
                                  "and has no LLVM 22 intrinsic; use ue4m3 with 4X or ue8m0 with 2X")
        spelled = " or ".join(f"scale_vec::{v} with {s}" for v, s in pairs)
        raise VerifyException(f"kind::{kind} takes {spelled}, got scale_vec::{sig.scale_vec} "
                              f"with {sig.scale_type}")
    return BlockScaledForm(4, 2, 4, 4, requirement(Feature.MMA_BLOCK_SCALE, "8.7", sig.mnemonic()))


@irdl_op_definition
class MmaSyncOp(PtxInstruction):
    """`mma.sync.aligned.<shape>.row.col...` ([ISA] 9.7.14.5.14): D = A x B + C for one warp.

    A, B are `.b32` fragment registers (i32; 8-bit and FP6/FP4-container elements 4 per
    register, packed FP4 8 per register, f16/bf16 2 per register); C and D are i32 (s32),
    f32, or vector<2xf16> (f16x2) registers. Fragment layouts: ptx.md §3. Block-scaled
    kinds take, for each of A and B, the scale register (i32) and the byte-id and
    thread-id selectors (i16) that pick which lane and byte supplies each scale (ptx.md §4.3).

        %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0, %c1, %c2, %c3]
        %d:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e4m3.e2m1.f32 A[...] B[...] C[...]
        %d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0
                   A[...] B[...] C[...] scale_a[%sa, %byte_a, %thread_a] scale_b[%sb, %byte_b, %thread_b]
    """

    name = "ptx.mma_sync"
    a = var_operand_def(I32)
    b = var_operand_def(I32)
    c = var_operand_def()
    scale_a = var_operand_def()
    scale_b = var_operand_def()
    shape = prop_def(MmaShapeAttr)
    kind = opt_prop_def(MmaKindAttr)
    d_type = prop_def(MmaTypeAttr, prop_name="dType")
    a_type = prop_def(MmaTypeAttr, prop_name="aType")
    b_type = prop_def(MmaTypeAttr, prop_name="bType")
    c_type = prop_def(MmaTypeAttr, prop_name="cType")
    satfinite = opt_prop_def(UnitAttr)
    scale_vec = opt_prop_def(ScaleVecAttr, prop_name="scaleVec")
    scale_type = opt_prop_def(ScaleTypeAttr, prop_name="scaleType")
    res = var_result_def()
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, sig: MmaSignature, a: Sequence[SSAValue], b: Sequence[SSAValue], c: Sequence[SSAValue],
                 scale_a: Sequence[SSAValue] = (), scale_b: Sequence[SSAValue] = ()):
        super().__init__(
            operands=[a, b, c, scale_a, scale_b],
            result_types=[[accumulator_register_type(sig.d_type)] * accumulator_register_count(sig.d_type)],
            properties={
                "shape": MmaShapeAttr(sig.shape),
                "kind": MmaKindAttr(sig.kind) if sig.kind is not None else None,
                "dType": MmaTypeAttr(sig.d_type),
                "aType": MmaTypeAttr(sig.a_type),
                "bType": MmaTypeAttr(sig.b_type),
                "cType": MmaTypeAttr(sig.c_type),
                "satfinite": UnitAttr() if sig.satfinite else None,
                "scaleVec": ScaleVecAttr(sig.scale_vec) if sig.scale_vec is not None else None,
                "scaleType": ScaleTypeAttr(sig.scale_type) if sig.scale_type is not None else None,
            },
        )

    @property
    def signature(self) -> MmaSignature:
        return MmaSignature(
            shape=self.shape.data,
            d_type=self.d_type.data,
            a_type=self.a_type.data,
            b_type=self.b_type.data,
            c_type=self.c_type.data,
            kind=self.kind.data if self.kind is not None else None,
            satfinite=self.satfinite is not None,
            scale_vec=self.scale_vec.data if self.scale_vec is not None else None,
            scale_type=self.scale_type.data if self.scale_type is not None else None,
        )

    @property
    def form(self) -> MmaForm:
        return mma_form(self.signature)

    def verify_(self) -> None:
        sig = self.signature
        form = mma_form(sig)
        _count("A", len(self.a), form.a_regs, sig)
        _count("B", len(self.b), form.b_regs, sig)
        _count("C", len(self.c), form.c_regs, sig)
        _count("D (results)", len(self.res), form.d_regs, sig)
        _types("C", self.c, accumulator_register_type(sig.c_type), sig.c_type)
        _types("D (result)", self.res, accumulator_register_type(sig.d_type), sig.d_type)
        for side, operands in (("scale_a", self.scale_a), ("scale_b", self.scale_b)):
            if form.scale_operands == 0:
                if operands:
                    raise VerifyException(f"{side} operands need a block-scaled kind, got {len(operands)}")
                continue
            if len(operands) != 3:
                raise VerifyException(f"{side} takes 3 operands (data, byte-id, thread-id), got {len(operands)}")
            for value, expected, what in zip(operands, (I32, I16, I16), ("data", "byte-id", "thread-id")):
                if value.type != expected:
                    raise VerifyException(f"{side} {what} must be {expected}, got {value.type}")
            assert sig.scale_vec is not None  # mma_form refuses a block-scaled kind without one
            _check_selectors(side, operands[1], operands[2], sig.scale_vec)

    def requirements(self) -> Sequence[Requirement]:
        return (self.form.requirement,)

    def ptx_mnemonic(self) -> str:
        return self.signature.mnemonic()

    def print(self, printer: Printer) -> None:
        sig = self.signature
        printer.print_string(f" {sig.shape}")
        if sig.kind is not None:
            printer.print_string(f" kind::{sig.kind}")
        if sig.scale_vec is not None:
            printer.print_string(f" scale_vec::{sig.scale_vec}")
        if sig.satfinite:
            printer.print_string(" satfinite")
        types = [sig.d_type, sig.a_type, sig.b_type, sig.c_type] + ([sig.scale_type] if sig.scale_type else [])
        printer.print_string(" " + ".".join(types))
        print_bracketed_operands(printer, "A", self.a)
        print_bracketed_operands(printer, "B", self.b)
        print_bracketed_operands(printer, "C", self.c)
        if self.scale_a or self.scale_b:
            print_bracketed_operands(printer, "scale_a", self.scale_a)
            print_bracketed_operands(printer, "scale_b", self.scale_b)
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        shape = parser.parse_str_enum(MmaShape)
        kind = None
        scale_vec = None
        if parser.parse_optional_keyword("kind") is not None:
            parser.parse_punctuation(":")
            parser.parse_punctuation(":")
            kind = parser.parse_str_enum(MmaKind)
        if parser.parse_optional_keyword("scale_vec") is not None:
            parser.parse_punctuation(":")
            parser.parse_punctuation(":")
            pos = parser.pos
            count = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_keyword("X")
            try:
                scale_vec = ScaleVec(f"{count}X")
            except ValueError:
                parser.raise_error(f"expected scale_vec::1X, 2X or 4X, got {count}X", pos, parser.pos)
        satfinite = parser.parse_optional_keyword("satfinite") is not None
        d_type, a_type, b_type, c_type, scale_type = _parse_type_chain(parser)
        sig = MmaSignature(shape, d_type, a_type, b_type, c_type, kind, satfinite, scale_vec, scale_type)
        a = resolve(parser, parse_bracketed_operands(parser, "A"), I32)
        b = resolve(parser, parse_bracketed_operands(parser, "B"), I32)
        c = resolve(parser, parse_bracketed_operands(parser, "C"), accumulator_register_type(c_type))
        scale_a: list[SSAValue] = []
        scale_b: list[SSAValue] = []
        if parser.parse_optional_keyword("scale_a") is not None:
            unresolved = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
            scale_a = _resolve_scale(parser, unresolved)
            scale_b = _resolve_scale(parser, parse_bracketed_operands(parser, "scale_b"))
        attributes = parser.parse_optional_attr_dict()
        op = cls(sig, a, b, c, scale_a, scale_b)
        op.attributes.update(attributes)
        return op


BYTE_IDS = {ScaleVec.X1: (0, 1, 2, 3), ScaleVec.X2: (0, 2), ScaleVec.X4: (0,)}
"""The byte-id values each ``.scale_vec`` allows: the first of the 1, 2 or 4 scale bytes it reads (ptx.md §4.3)."""
THREAD_IDS = {"scale_a": (0, 1), "scale_b": (0, 1, 2, 3)}
"""thread-id-a picks a lane pair of each quad, thread-id-b one lane of it (ptx.md §4.3)."""


def _check_selectors(side: str, byte_id: SSAValue, thread_id: SSAValue, scale_vec: ScaleVec) -> None:
    """Refuse constant byte-id / thread-id selectors out of the ISA's range. ptxas checks immediates only, and
    LLVM puts even constant selectors in ``%rs`` registers, so an out-of-range one would assemble and be
    undefined behaviour on the GPU (the emulator alone refused it); run-time selectors cannot be checked."""
    for what, value, legal in (("byte-id", byte_id, BYTE_IDS[scale_vec]), ("thread-id", thread_id, THREAD_IDS[side])):
        owner = value.owner
        if not issubclass(type(owner), ConstantOp) or not isinstance(owner.value, IntegerAttr):
            continue
        got = owner.value.value.data & 0xFFFF  # an unsigned 16-bit selector, however the constant is written
        if got not in legal:
            spelled = ", ".join(str(v) for v in legal[:-1]) + (" or " if len(legal) > 1 else "") + str(legal[-1])
            for_what = f" for scale_vec::{scale_vec}" if what == "byte-id" else ""
            raise VerifyException(f"{side} {what} must be {spelled}{for_what}, got {got}")


def _resolve_scale(parser: Parser, unresolved: Sequence[UnresolvedOperand]) -> list[SSAValue]:
    """data (i32), byte-id (i16), thread-id (i16); extra operands resolve as i32 for the verifier to count."""
    types = (I32, I16, I16) + (I32,) * max(0, len(unresolved) - 3)
    return [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]


def _parse_type_chain(parser: Parser) -> tuple[MmaType, MmaType, MmaType, MmaType, ScaleType | None]:
    """``f32.e4m3.e2m1.f32`` or, block-scaled, ``f32.e4m3.e2m1.f32.ue8m0``."""
    pos = parser.pos
    chain = parser.parse_identifier()
    parts = chain.split(".")
    if len(parts) not in (4, 5):
        parser.raise_error(f"expected the types as dtype.atype.btype.ctype[.scale_type], got '{chain}'",
                           pos, parser.pos)
    try:
        types = [MmaType(p) for p in parts[:4]]
        scale_type = ScaleType(parts[4]) if len(parts) == 5 else None
    except ValueError as err:
        parser.raise_error(f"bad mma type in '{chain}': {err}", pos, parser.pos)
    if types[3] not in (T.S32, T.F32, T.F16) or types[0] not in (T.S32, T.F32, T.F16):
        parser.raise_error(f"mma accumulators (dtype, ctype) must be s32, f32 or f16, got '{chain}'",
                           pos, parser.pos)
    return types[0], types[1], types[2], types[3], scale_type


def _count(what: str, got: int, expected: int, sig: MmaSignature) -> None:
    if got != expected:
        raise VerifyException(f"{what} takes {expected} registers for {sig.mnemonic()}, got {got}")


def _types(what: str, values: Sequence[SSAValue], expected: Attribute, type_: MmaType) -> None:
    for value in values:
        if value.type != expected:
            raise VerifyException(f"{what} registers of a {type_} accumulator must be {expected}, got {value.type}")


MMA_OPS = [MmaSyncOp]

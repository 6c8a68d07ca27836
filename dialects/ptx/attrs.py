"""The closed sets of PTX instruction qualifiers, as StrEnums and their xDSL attributes.

Enum values are spelled exactly as in the PTX instruction (``b8x16.b4x16_p64``,
``tid.x``, ``1X``), so the custom op syntax reads like the PTX it becomes. In generic
form they print as ``#ptx<ldmatrix_elt b8x16.b4x16_p64>``. ``LdmatrixShape`` and
``LdmatrixElt`` are defined in ``ldmatrix_forms`` next to the rules of the ldmatrix forms.
"""

from __future__ import annotations

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from dialects.ptx.ldmatrix_forms import LdmatrixElt, LdmatrixShape


class SpecialReg(StrEnum):
    """Read-only special registers ([ISA] 10). All are 32-bit."""

    TID_X = "tid.x"
    TID_Y = "tid.y"
    TID_Z = "tid.z"
    NTID_X = "ntid.x"
    NTID_Y = "ntid.y"
    NTID_Z = "ntid.z"
    CTAID_X = "ctaid.x"
    CTAID_Y = "ctaid.y"
    CTAID_Z = "ctaid.z"
    NCTAID_X = "nctaid.x"
    NCTAID_Y = "nctaid.y"
    NCTAID_Z = "nctaid.z"
    LANEID = "laneid"
    WARPID = "warpid"


class MmaShape(StrEnum):
    M16N8K16 = "m16n8k16"
    M16N8K32 = "m16n8k32"
    M16N8K64 = "m16n8k64"


class MmaKind(StrEnum):
    """The ``.kind`` qualifier; the ``mx*`` kinds are the block-scaled forms."""

    F8F6F4 = "f8f6f4"
    MXF8F6F4 = "mxf8f6f4"
    MXF4 = "mxf4"
    MXF4NVF4 = "mxf4nvf4"

    @property
    def block_scaled(self) -> bool:
        return self is not MmaKind.F8F6F4


class MmaType(StrEnum):
    """Element types of mma.sync operands and accumulators ([ISA] 9.7.14.5.14)."""

    S8 = "s8"
    U8 = "u8"
    S4 = "s4"
    U4 = "u4"
    S32 = "s32"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E3M2 = "e3m2"
    E2M3 = "e2m3"
    E2M1 = "e2m1"


class ScaleVec(StrEnum):
    """``.scale_vec``: how many scale factors per row of A / column of B (per 32/16 K)."""

    X1 = "1X"
    X2 = "2X"
    X4 = "4X"


class ScaleType(StrEnum):
    UE8M0 = "ue8m0"
    UE4M3 = "ue4m3"


class CacheOp(StrEnum):
    """cp.async cache operator: ``ca`` caches in L1 and L2, ``cg`` only in L2 (16 bytes only)."""

    CA = "ca"
    CG = "cg"


class ShflMode(StrEnum):
    BFLY = "bfly"
    IDX = "idx"
    UP = "up"
    DOWN = "down"


class CvtKind(StrEnum):
    """Conversions, spelled ``dtype.atype`` as in the PTX instruction ([ISA] 9.7.9.21)."""

    F16X2_E4M3X2 = "f16x2.e4m3x2"
    F16X2_E5M2X2 = "f16x2.e5m2x2"
    F16X2_E2M1X2 = "f16x2.e2m1x2"
    F16X2_E2M3X2 = "f16x2.e2m3x2"
    F16X2_E3M2X2 = "f16x2.e3m2x2"
    E4M3X2_F32 = "e4m3x2.f32"
    E5M2X2_F32 = "e5m2x2.f32"
    E4M3X2_F16X2 = "e4m3x2.f16x2"
    E2M1X2_F32 = "e2m1x2.f32"
    BF16X2_F32 = "bf16x2.f32"
    F16X2_F32 = "f16x2.f32"
    F32_F16 = "f32.f16"
    F32_BF16 = "f32.bf16"


@irdl_attr_definition
class SpecialRegAttr(EnumAttribute[SpecialReg], SpacedOpaqueSyntaxAttribute):
    name = "ptx.special_reg"


@irdl_attr_definition
class LdmatrixShapeAttr(EnumAttribute[LdmatrixShape], SpacedOpaqueSyntaxAttribute):
    name = "ptx.ldmatrix_shape"


@irdl_attr_definition
class LdmatrixEltAttr(EnumAttribute[LdmatrixElt], SpacedOpaqueSyntaxAttribute):
    name = "ptx.ldmatrix_elt"


@irdl_attr_definition
class MmaShapeAttr(EnumAttribute[MmaShape], SpacedOpaqueSyntaxAttribute):
    name = "ptx.mma_shape"


@irdl_attr_definition
class MmaKindAttr(EnumAttribute[MmaKind], SpacedOpaqueSyntaxAttribute):
    name = "ptx.mma_kind"


@irdl_attr_definition
class MmaTypeAttr(EnumAttribute[MmaType], SpacedOpaqueSyntaxAttribute):
    name = "ptx.mma_type"


@irdl_attr_definition
class ScaleVecAttr(EnumAttribute[ScaleVec], SpacedOpaqueSyntaxAttribute):
    name = "ptx.scale_vec"


@irdl_attr_definition
class ScaleTypeAttr(EnumAttribute[ScaleType], SpacedOpaqueSyntaxAttribute):
    name = "ptx.scale_type"


@irdl_attr_definition
class CacheOpAttr(EnumAttribute[CacheOp], SpacedOpaqueSyntaxAttribute):
    name = "ptx.cache_op"


@irdl_attr_definition
class ShflModeAttr(EnumAttribute[ShflMode], SpacedOpaqueSyntaxAttribute):
    name = "ptx.shfl_mode"


@irdl_attr_definition
class CvtKindAttr(EnumAttribute[CvtKind], SpacedOpaqueSyntaxAttribute):
    name = "ptx.cvt_kind"


ATTRIBUTES = [
    SpecialRegAttr,
    LdmatrixShapeAttr,
    LdmatrixEltAttr,
    MmaShapeAttr,
    MmaKindAttr,
    MmaTypeAttr,
    ScaleVecAttr,
    ScaleTypeAttr,
    CacheOpAttr,
    ShflModeAttr,
    CvtKindAttr,
]

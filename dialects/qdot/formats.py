"""The IR-side view of every quantized format qdot knows.

Verifiers, passes and lowerings ask this table what a format looks like in a
tensor (which element type it travels in, how many values one element holds,
how many bytes one element takes) instead of re-deriving bit widths and block
sizes. The sizes themselves (bits, values and bytes per block, scale groups) are
read from ``compiler/format_table.py``, the one definition both this module and
``compiler.numerics`` use; this module adds only what the IR decides: the MLIR
type each format travels in, which formats take an external scale, and which
pairs ``qdot.dot_scaled`` accepts.

    >>> format_info(Format.E2M1).values_per_element
    2
    >>> format_info("q4_K").element_bytes
    144
    >>> scale_info(ScaleKind.UE8M0).group_size
    32
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IntegerType,
)
from xdsl.ir import Attribute, TypeAttribute
from xdsl.utils.str_enum import StrEnum

from compiler.format_table import FORMATS, SCALE_GROUP, FormatKind

if TYPE_CHECKING:
    from fractions import Fraction


class Format(StrEnum):
    """Operand formats of ``qdot.dot_scaled`` (the spelling is the IR spelling)."""

    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E2M3 = "e2m3"
    E3M2 = "e3m2"
    E2M1 = "e2m1"
    BF16 = "bf16"
    FP16 = "fp16"
    I8 = "i8"
    Q4_K = "q4_K"
    Q4_0 = "q4_0"
    Q4_1 = "q4_1"
    Q5_0 = "q5_0"
    Q5_1 = "q5_1"
    Q5_K = "q5_K"
    Q6_K = "q6_K"
    Q3_K = "q3_K"
    Q2_K = "q2_K"
    IQ4_NL = "iq4_nl"
    IQ4_XS = "iq4_xs"
    MXFP4 = "mxfp4"
    Q8_1 = "q8_1"
    Q8_0 = "q8_0"
    Q8_1_MMQ = "q8_1_mmq"


class ScaleKind(StrEnum):
    """External block-scale formats: one scale per ``group_size`` values along K."""

    UE8M0 = "ue8m0"
    """Power-of-two scale, one per 32 K-values: the OCP MX formats."""
    UE4M3 = "ue4m3"
    """Unsigned e4m3 scale, one per 16 K-values: NVFP4 (e2m1 data only)."""


@dataclass(frozen=True)
class FormatInfo:
    """What one format looks like inside a tensor."""

    format: Format
    bits_per_value: int
    """Width of one value's code (q4_K: 4). Block formats carry their scales on top
    of this; ``element_bytes`` counts them."""
    values_per_element: int
    """Logical values in one tensor element: 2 for packed e2m1, the block size for
    block formats, else 1. A K-packed operand's K extent is its dimension times this."""
    element_bytes: int
    """Bytes one tensor element occupies in global memory (f6 values take a whole byte)."""
    is_block: bool
    """A llama.cpp block format: scales live inside each block, none are passed."""
    is_float: bool
    takes_scale: bool
    """Accepts an external block scale (``%x scale %s``)."""
    builtin_type: TypeAttribute | None
    """The builtin element type it travels in, or None for block formats."""

    @property
    def element_type(self) -> TypeAttribute:
        """The tensor element type: a builtin type or ``!qdot.block<fmt>``."""
        if self.builtin_type is not None:
            return self.builtin_type
        from dialects.qdot.types import BlockType  # types.py imports this module

        return BlockType(self.format)

    @property
    def is_packed(self) -> bool:
        """Several values share one byte (e2m1, two per byte, low nibble first)."""
        return not self.is_block and self.values_per_element > 1

    @property
    def values_per_byte(self) -> Fraction:
        from fractions import Fraction  # with decimal, ~3 ms of a cold compile that never asks

        return Fraction(self.values_per_element, self.element_bytes)

    @property
    def storage_bits_per_value(self) -> Fraction:
        """Bits of memory per value, scales included (q4_K: 9/2)."""
        from fractions import Fraction

        return Fraction(self.element_bytes * 8, self.values_per_element)

    def matches_element_type(self, element_type: Attribute) -> bool:
        return element_type == self.element_type


def _view(fmt: Format, builtin: TypeAttribute | None, *, takes_scale: bool) -> FormatInfo:
    """How ``fmt``'s entry of the format table travels in a tensor of ``builtin`` (None: blocks)."""
    entry = FORMATS[fmt.value]
    if entry.is_block:
        assert entry.block_bytes is not None
        per_element, element_bytes = entry.block_values, entry.block_bytes
    else:
        # Values narrower than a byte travel packed (e2m1: two per byte, first value in the
        # low nibble, as in Triton); the others take their container each (fp6: a whole byte).
        per_element = max(1, 8 // entry.container_bits)
        element_bytes = entry.container_bits * per_element // 8
    return FormatInfo(fmt, entry.bits, per_element, element_bytes, entry.is_block,
                      entry.kind is FormatKind.FLOAT, takes_scale, builtin)


_I8 = IntegerType(8)

FORMAT_INFO: Mapping[Format, FormatInfo] = MappingProxyType(
    {
        Format.E4M3: _view(Format.E4M3, Float8E4M3FNType(), takes_scale=True),
        Format.E5M2: _view(Format.E5M2, Float8E5M2Type(), takes_scale=True),
        Format.E2M3: _view(Format.E2M3, Float6E2M3FNType(), takes_scale=True),
        Format.E3M2: _view(Format.E3M2, Float6E3M2FNType(), takes_scale=True),
        Format.E2M1: _view(Format.E2M1, _I8, takes_scale=True),
        Format.BF16: _view(Format.BF16, BFloat16Type(), takes_scale=False),
        Format.FP16: _view(Format.FP16, Float16Type(), takes_scale=False),
        Format.I8: _view(Format.I8, _I8, takes_scale=False),
        # ggml blocks travel as !qdot.block<fmt>; their layouts: dialects/qgpu/block_parts.py
        Format.Q4_K: _view(Format.Q4_K, None, takes_scale=False),
        Format.Q4_0: _view(Format.Q4_0, None, takes_scale=False),
        Format.Q4_1: _view(Format.Q4_1, None, takes_scale=False),
        Format.Q5_0: _view(Format.Q5_0, None, takes_scale=False),
        Format.Q5_1: _view(Format.Q5_1, None, takes_scale=False),
        Format.Q5_K: _view(Format.Q5_K, None, takes_scale=False),
        Format.Q6_K: _view(Format.Q6_K, None, takes_scale=False),
        Format.Q3_K: _view(Format.Q3_K, None, takes_scale=False),
        Format.Q2_K: _view(Format.Q2_K, None, takes_scale=False),
        Format.IQ4_NL: _view(Format.IQ4_NL, None, takes_scale=False),
        Format.IQ4_XS: _view(Format.IQ4_XS, None, takes_scale=False),
        Format.MXFP4: _view(Format.MXFP4, None, takes_scale=False),
        Format.Q8_1: _view(Format.Q8_1, None, takes_scale=False),
        Format.Q8_0: _view(Format.Q8_0, None, takes_scale=False),
        Format.Q8_1_MMQ: _view(Format.Q8_1_MMQ, None, takes_scale=False),
    }
)


def format_info(fmt: Format | str) -> FormatInfo:
    """Facts about ``fmt``; raises ``ValueError`` for a name that is not a format."""
    return FORMAT_INFO[Format(fmt)]


BLOCK_FORMATS: tuple[Format, ...] = tuple(f for f, info in FORMAT_INFO.items() if info.is_block)
SCALABLE_FORMATS: tuple[Format, ...] = tuple(f for f, info in FORMAT_INFO.items() if info.takes_scale)


def _with_mmq_variants(pairs: tuple[tuple[Format, Format], ...]) -> frozenset[tuple[Format, Format]]:
    """q8_1_mmq is q8_1 regrouped for MMQ tiles: it may stand in for q8_1 on either side."""

    def options(fmt: Format) -> tuple[Format, ...]:
        return (Format.Q8_1, Format.Q8_1_MMQ) if fmt == Format.Q8_1 else (fmt,)

    return frozenset((lhs, rhs) for a, b in pairs for lhs in options(a) for rhs in options(b))


BLOCK_PAIRS: frozenset[tuple[Format, Format]] = _with_mmq_variants(
    (
        (Format.Q4_K, Format.Q8_1),
        (Format.Q8_1, Format.Q4_K),
        (Format.Q4_0, Format.Q8_1),
        (Format.Q8_1, Format.Q4_0),
        (Format.Q4_1, Format.Q8_1),
        (Format.Q8_1, Format.Q4_1),
        (Format.Q5_0, Format.Q8_1),
        (Format.Q8_1, Format.Q5_0),
        (Format.Q5_1, Format.Q8_1),
        (Format.Q8_1, Format.Q5_1),
        (Format.Q5_K, Format.Q8_1),
        (Format.Q8_1, Format.Q5_K),
        (Format.Q6_K, Format.Q8_1),
        (Format.Q8_1, Format.Q6_K),
        (Format.Q3_K, Format.Q8_1),
        (Format.Q8_1, Format.Q3_K),
        (Format.Q2_K, Format.Q8_1),
        (Format.Q8_1, Format.Q2_K),
        (Format.MXFP4, Format.Q8_1),
        (Format.Q8_1, Format.MXFP4),
        (Format.MXFP4, Format.Q8_0),
        (Format.Q8_0, Format.MXFP4),
        (Format.IQ4_NL, Format.Q8_1),
        (Format.Q8_1, Format.IQ4_NL),
        (Format.IQ4_NL, Format.Q8_0),
        (Format.Q8_0, Format.IQ4_NL),
        (Format.IQ4_XS, Format.Q8_1),
        (Format.Q8_1, Format.IQ4_XS),
        (Format.Q4_0, Format.Q8_0),
        (Format.Q8_0, Format.Q4_0),
        (Format.Q5_0, Format.Q8_0),
        (Format.Q8_0, Format.Q5_0),
        (Format.Q8_0, Format.Q8_1),
        (Format.Q8_1, Format.Q8_0),
        (Format.Q8_0, Format.Q8_0),
        (Format.Q8_1, Format.Q8_1),
    )
)
"""(lhs, rhs) block-format pairs ``qdot.dot_scaled`` accepts (ggml's vec_dot pairings)."""


def block_pairs_sorted() -> list[tuple[Format, Format]]:
    """BLOCK_PAIRS in the order of ``Format`` (for deterministic messages and docs)."""
    order = list(Format)
    return sorted(BLOCK_PAIRS, key=lambda pair: (order.index(pair[0]), order.index(pair[1])))


def is_supported_pair(lhs: Format, rhs: Format) -> bool:
    """Whether ``lhs × rhs`` is a legal pairing of operand formats.

    Float formats pair freely; i8 pairs only with i8; block formats only with
    the block formats in ``BLOCK_PAIRS``.
    """
    lhs_info, rhs_info = FORMAT_INFO[lhs], FORMAT_INFO[rhs]
    if lhs_info.is_block or rhs_info.is_block:
        return (lhs, rhs) in BLOCK_PAIRS
    if lhs == Format.I8 or rhs == Format.I8:
        return lhs == rhs
    return True


def accumulator_type(lhs: Format, rhs: Format) -> TypeAttribute:
    """The accumulator element type of ``lhs × rhs``: i32 for i8 × i8, else f32."""
    if lhs == Format.I8 and rhs == Format.I8:
        return IntegerType(32)
    return Float32Type()


@dataclass(frozen=True)
class ScaleInfo:
    """What one external scale kind looks like inside a scale tensor."""

    kind: ScaleKind
    element_type: TypeAttribute
    group_size: int
    """K-values that share one scale."""
    only_format: Format | None
    """The one data format this scale kind may scale, or None for any scalable format."""


def _scale_view(kind: ScaleKind, element_type: TypeAttribute, only_format: Format | None) -> ScaleInfo:
    return ScaleInfo(kind, element_type, SCALE_GROUP[kind.value], only_format)


SCALE_INFO: Mapping[ScaleKind, ScaleInfo] = MappingProxyType(
    {
        ScaleKind.UE8M0: _scale_view(ScaleKind.UE8M0, Float8E8M0FNUType(), None),
        # ue4m3 travels in e4m3fn tensors (its sign bit zero)
        ScaleKind.UE4M3: _scale_view(ScaleKind.UE4M3, Float8E4M3FNType(), Format.E2M1),
    }
)


def scale_info(kind: ScaleKind | str) -> ScaleInfo:
    return SCALE_INFO[ScaleKind(kind)]


def scale_kind_of(element_type: Attribute) -> ScaleKind | None:
    """The scale kind a scale tensor's element type stands for, or None if it is none."""
    for kind, info in SCALE_INFO.items():
        if info.element_type == element_type:
            return kind
    return None


def formats_of(element_type: Attribute) -> tuple[Format, ...]:
    """Every format that travels in ``element_type`` (i8 carries both i8 and e2m1)."""
    return tuple(f for f, info in FORMAT_INFO.items() if info.matches_element_type(element_type))


__all__ = [
    "BLOCK_FORMATS",
    "BLOCK_PAIRS",
    "FORMAT_INFO",
    "SCALABLE_FORMATS",
    "SCALE_INFO",
    "Format",
    "FormatInfo",
    "ScaleInfo",
    "ScaleKind",
    "accumulator_type",
    "block_pairs_sorted",
    "format_info",
    "formats_of",
    "is_supported_pair",
    "scale_info",
    "scale_kind_of",
]

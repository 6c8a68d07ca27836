"""The table of every format qdot handles, by name: the one definition of their sizes and codings.

Code widths, float field layouts, values and bytes per block, the K-values that share one
external scale. Both sides read it: ``compiler.numerics`` (which re-exports it as
``compiler.numerics.formats``) decodes and encodes from ``ElementCoding`` and packs blocks
from ``block_values``/``block_bytes``; the dialects (``dialects/qdot/formats.py``) derive
what a format looks like in a tensor from it, and the passes read codings and group sizes
here. It is pure data on the standard library so that the dialects can import it without
numpy (cold compile latency).

Sources of the facts below:

* e2m1, e2m3, e3m2, e4m3 (= e4m3fn), e5m2, ue8m0, ue4m3: PTX ISA 9.0 §5.2.3
  ("Alternate floating-point data formats") and §9.7.14.5.14 (the ``.ue8m0`` /
  ``.ue4m3`` scale types); the OCP Microscaling Formats (MX) v1.0 spec §5.3 for
  the FP6/FP4 value sets and E8M0. Value tables: ``shared/reference/ptx.md`` §7.
* bf16, fp16: IEEE 754 binary16 and the bfloat16 truncation of binary32.
* q2_K, q3_K, q4_K, q5_K, q6_K, q4_0, q4_1, q5_0, q5_1, q8_0, q8_1: ``block_q2_K`` / ``block_q3_K`` /
  ``block_q4_K`` / ``block_q5_K`` / ``block_q6_K`` / ``block_q4_0`` / ``block_q4_1`` / ``block_q5_0`` /
  ``block_q5_1`` / ``block_q8_0`` / ``block_q8_1`` in ggml's ``src/ggml-common.h``; q8_1_mmq:
  ``block_q8_1_mmq`` (DS4 layout) in ``src/ggml-cuda/mmq.cuh``.
* mxfp4: ``block_mxfp4`` and ``kvalues_mxfp4`` (= ``kvalues_fp4``) in ggml's ``src/ggml-common.h``, its
  scale's decoding ``ggml_e8m0_to_fp32_half`` in ``src/ggml-impl.h``.
* iq4_nl, iq4_xs: ``block_iq4_nl`` (``QK4_NL`` = 32), ``block_iq4_xs`` and ``kvalues_iq4nl`` in ggml's
  ``src/ggml-common.h``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction


class FormatKind(StrEnum):
    """How a format's values are stored."""

    FLOAT = "float"
    """One code per value, decoded by an ``ElementCoding`` (fp4..fp16, the scales)."""
    INTEGER = "integer"
    """A two's-complement integer per value (i8)."""
    BLOCK = "block"
    """A ggml block: a fixed number of values and their scales in a fixed byte layout."""


class NanRule(StrEnum):
    """Which codes of a float coding are NaN."""

    NONE = "none"
    """No NaN code (e2m1, e2m3, e3m2)."""
    IEEE = "ieee"
    """Exponent all ones: mantissa 0 is Inf, any other mantissa NaN (e5m2, fp16, bf16)."""
    ALL_ONES = "all_ones"
    """Only exponent and mantissa all ones is NaN; no Inf (e4m3fn, ue4m3, ue8m0)."""


@dataclass(frozen=True)
class ElementCoding:
    """The bit fields of a small float: sign (optional), exponent, mantissa.

    value = (-1)^s * 2^(e - bias) * (1 + m / 2^mantissa_bits) for e > 0, and
    (-1)^s * 2^(1 - bias) * (m / 2^mantissa_bits) for e = 0 when ``subnormals``.
    ue8m0 has no subnormals and no zero: code 0 is 2^-127.
    """

    exponent_bits: int
    mantissa_bits: int
    bias: int
    signed: bool
    has_inf: bool
    nan: NanRule
    subnormals: bool

    @property
    def bits(self) -> int:
        return int(self.signed) + self.exponent_bits + self.mantissa_bits

    @property
    def max_exponent_field(self) -> int:
        return (1 << self.exponent_bits) - 1

    def max_finite_fields(self) -> tuple[int, int]:
        """(exponent field, mantissa field) of the largest finite magnitude."""
        top_e = self.max_exponent_field
        top_m = (1 << self.mantissa_bits) - 1
        if self.nan is NanRule.NONE and not self.has_inf:
            return top_e, top_m
        if self.nan is NanRule.ALL_ONES and self.mantissa_bits > 0 and not self.has_inf:
            return top_e, top_m - 1
        return top_e - 1, top_m

    @property
    def max_finite(self) -> float:
        exp_field, mant_field = self.max_finite_fields()
        significand = (1 << self.mantissa_bits) + mant_field
        return float(significand) * 2.0 ** (exp_field - self.bias - self.mantissa_bits)

    @property
    def min_positive(self) -> float:
        """Smallest positive value: the least subnormal, or 2^(-bias) without subnormals."""
        if self.subnormals:
            return 2.0 ** (1 - self.bias - self.mantissa_bits)
        return 2.0 ** (-self.bias)

    @property
    def nan_code(self) -> int | None:
        """The canonical (positive, quiet) NaN code, or None without NaN."""
        if self.nan is NanRule.NONE:
            return None
        exp_ones = self.max_exponent_field << self.mantissa_bits
        if self.nan is NanRule.ALL_ONES:
            return exp_ones | ((1 << self.mantissa_bits) - 1)
        return exp_ones | (1 << (self.mantissa_bits - 1))


@dataclass(frozen=True)
class FormatInfo:
    """Everything other code needs to know about one format, keyed by its name."""

    name: str
    kind: FormatKind
    bits: int
    """Width of one value's code: e2m1 4, e2m3 6, ue4m3 7, e4m3 8, bf16 16; for
    block formats the width of one quantized value (q4_K 4, q8_* 8)."""
    container_bits: int
    """Bits one value occupies in memory in the IR's tensors: e2m1 4 (two per byte),
    fp6 8 (one per byte, bits [7:6] zero), ue4m3 8; for block formats the same as
    ``bits`` (the scales are counted by ``block_bytes``)."""
    block_values: int = 1
    """Values per block (1 for non-block formats)."""
    block_bytes: int | None = None
    """Bytes per block (None for non-block formats)."""
    coding: ElementCoding | None = None
    ml_dtypes_name: str | None = None
    """The matching ``ml_dtypes`` type, used only by tests as an independent oracle."""
    source: str = ""
    min_term: bool = False
    """A block format whose values carry an offset per 32 beside the scaled code, ``d · sc · q − dmin ·
    m`` (q4_K, q5_K: subtracted) or ``d · q + m`` (q4_1, q5_1: added): a dot takes the offset part
    against the other side's block sums, with its sign (llama.cpp's MMQ and ``vec_dot_q4_1_q8_1``;
    qdot's rank-1 fold; ``numerics.dot_scaled(..., use_block_sums=True)``). q2_K's min is one per 16
    values, which a per-32 block sum cannot carry: it is not one of these."""

    @property
    def is_block(self) -> bool:
        return self.kind is FormatKind.BLOCK

    @property
    def storage_bits_per_value(self) -> Fraction:
        """Memory per value including in-block scales (q4_K: 4.5, q8_0: 8.5)."""
        from fractions import Fraction  # with decimal, ~3 ms of a cold compile that never asks

        if self.block_bytes is None:
            return Fraction(self.container_bits)
        return Fraction(8 * self.block_bytes, self.block_values)


Q8_GROUP = 32
"""Values per (d, s) pair in all q8 formats: one q8_0 / q8_1 block, a quarter of q8_1_mmq's."""

MXFP4_KVALUES: tuple[int, ...] = (0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12)
"""ggml's ``kvalues_mxfp4`` (ggml-common.h, = ``kvalues_fp4``): the integer value of each 4-bit mxfp4
code, twice its e2m1 value (code 8, e2m1's -0, is 0). A block's value is ``kvalue * 2^(e - 128)``: its
E8M0 scale 2^(e - 127) halved to match (``ggml_e8m0_to_fp32_half``)."""

IQ4NL_KVALUES: tuple[int, ...] = (-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113)
"""ggml's ``kvalues_iq4nl`` (ggml-common.h): the int8 value of each 4-bit iq4_nl / iq4_xs code, a
non-linear grid denser near 0, increasing with the code (so ggml's ``best_index_int8`` can bisect it)
and without a 0 (code 8, kvalue 1, is nearest). A value is ``d * kvalue`` (iq4_nl) or ``d * (ls - 32)
* kvalue`` (iq4_xs)."""

_PTX = "PTX ISA 9.0 §5.2.3"
_MX = "OCP MX v1.0 §5.3"

FORMATS: Mapping[str, FormatInfo] = MappingProxyType(
    {
        "e2m1": FormatInfo(
            "e2m1", FormatKind.FLOAT, 4, 4,
            coding=ElementCoding(2, 1, 1, True, False, NanRule.NONE, True),
            ml_dtypes_name="float4_e2m1fn", source=f"{_PTX}; {_MX} (FP4)",
        ),
        "e2m3": FormatInfo(
            "e2m3", FormatKind.FLOAT, 6, 8,
            coding=ElementCoding(2, 3, 1, True, False, NanRule.NONE, True),
            ml_dtypes_name="float6_e2m3fn", source=f"{_PTX}; {_MX} (FP6 E2M3)",
        ),
        "e3m2": FormatInfo(
            "e3m2", FormatKind.FLOAT, 6, 8,
            coding=ElementCoding(3, 2, 3, True, False, NanRule.NONE, True),
            ml_dtypes_name="float6_e3m2fn", source=f"{_PTX}; {_MX} (FP6 E3M2)",
        ),
        "e4m3": FormatInfo(
            "e4m3", FormatKind.FLOAT, 8, 8,
            coding=ElementCoding(4, 3, 7, True, False, NanRule.ALL_ONES, True),
            ml_dtypes_name="float8_e4m3fn", source=f"{_PTX} (e4m3 = e4m3fn: no Inf, NaN 0x7F/0xFF)",
        ),
        "e5m2": FormatInfo(
            "e5m2", FormatKind.FLOAT, 8, 8,
            coding=ElementCoding(5, 2, 15, True, True, NanRule.IEEE, True),
            ml_dtypes_name="float8_e5m2", source=_PTX,
        ),
        "ue8m0": FormatInfo(
            "ue8m0", FormatKind.FLOAT, 8, 8,
            coding=ElementCoding(8, 0, 127, False, False, NanRule.ALL_ONES, False),
            ml_dtypes_name="float8_e8m0fnu", source=f"{_PTX} (.ue8m0); {_MX} (E8M0)",
        ),
        "ue4m3": FormatInfo(
            "ue4m3", FormatKind.FLOAT, 7, 8,
            coding=ElementCoding(4, 3, 7, False, False, NanRule.ALL_ONES, True),
            ml_dtypes_name=None, source="PTX ISA 9.0 §9.7.14.5.14 (.ue4m3: 7-bit e4m3, MSB 0)",
        ),
        "bf16": FormatInfo(
            "bf16", FormatKind.FLOAT, 16, 16,
            coding=ElementCoding(8, 7, 127, True, True, NanRule.IEEE, True),
            ml_dtypes_name="bfloat16", source="bfloat16 (upper half of IEEE binary32)",
        ),
        "fp16": FormatInfo(
            "fp16", FormatKind.FLOAT, 16, 16,
            coding=ElementCoding(5, 10, 15, True, True, NanRule.IEEE, True),
            ml_dtypes_name=None, source="IEEE 754 binary16",
        ),
        "i8": FormatInfo("i8", FormatKind.INTEGER, 8, 8, source="two's-complement int8"),
        "q4_K": FormatInfo(
            "q4_K", FormatKind.BLOCK, 4, 4, block_values=256, block_bytes=144,
            source="ggml-common.h block_q4_K: fp16 d, fp16 dmin, scales[12], qs[128]", min_term=True,
        ),
        "q6_K": FormatInfo(
            "q6_K", FormatKind.BLOCK, 6, 6, block_values=256, block_bytes=210,
            source="ggml-common.h block_q6_K: uint8 ql[128], uint8 qh[64], int8 scales[16], fp16 d",
        ),
        "q5_K": FormatInfo(
            "q5_K", FormatKind.BLOCK, 5, 5, block_values=256, block_bytes=176,
            source="ggml-common.h block_q5_K: fp16 d, fp16 dmin, scales[12], qh[32], qs[128]", min_term=True,
        ),
        "q2_K": FormatInfo(
            "q2_K", FormatKind.BLOCK, 2, 2, block_values=256, block_bytes=84,
            source="ggml-common.h block_q2_K: uint8 scales[16] (4-bit scale | 4-bit min << 4), uint8 qs[64], fp16 d,"
                   " fp16 dmin",
        ),
        "q3_K": FormatInfo(
            "q3_K", FormatKind.BLOCK, 3, 3, block_values=256, block_bytes=110,
            source="ggml-common.h block_q3_K: uint8 hmask[32], uint8 qs[64], uint8 scales[12] (16 6-bit), fp16 d",
        ),
        "q4_0": FormatInfo(
            "q4_0", FormatKind.BLOCK, 4, 4, block_values=Q8_GROUP, block_bytes=18,
            source="ggml-common.h block_q4_0: fp16 d, uint8 qs[16] (value j low nibble, j + 16 high)",
        ),
        "q4_1": FormatInfo(
            "q4_1", FormatKind.BLOCK, 4, 4, block_values=Q8_GROUP, block_bytes=20,
            source="ggml-common.h block_q4_1: fp16 d, fp16 m, uint8 qs[16] (value j low nibble, j + 16 high)",
            min_term=True,
        ),
        "q5_0": FormatInfo(
            "q5_0", FormatKind.BLOCK, 5, 5, block_values=Q8_GROUP, block_bytes=22,
            source="ggml-common.h block_q5_0: fp16 d, uint8 qh[4] (bit j: value j's fifth bit), uint8 qs[16]",
        ),
        "q5_1": FormatInfo(
            "q5_1", FormatKind.BLOCK, 5, 5, block_values=Q8_GROUP, block_bytes=24,
            source="ggml-common.h block_q5_1: fp16 d, fp16 m, uint8 qh[4], uint8 qs[16]", min_term=True,
        ),
        "mxfp4": FormatInfo(
            "mxfp4", FormatKind.BLOCK, 4, 4, block_values=Q8_GROUP, block_bytes=17,
            source="ggml-common.h block_mxfp4: uint8 e (E8M0), uint8 qs[16] (e2m1 codes, value j low, j + 16 high)",
        ),
        "iq4_nl": FormatInfo(
            "iq4_nl", FormatKind.BLOCK, 4, 4, block_values=Q8_GROUP, block_bytes=18,
            source="ggml-common.h block_iq4_nl: fp16 d, uint8 qs[16] (kvalues_iq4nl codes, value j low, j + 16 high)",
        ),
        "iq4_xs": FormatInfo(
            "iq4_xs", FormatKind.BLOCK, 4, 4, block_values=256, block_bytes=136,
            source="ggml-common.h block_iq4_xs: fp16 d, uint16 scales_h (2 bits per 32), uint8 scales_l[4] (4 bits"
                   " per 32), uint8 qs[128] (kvalues_iq4nl codes, q4_0's nibbles per 32)",
        ),
        "q8_0": FormatInfo(
            "q8_0", FormatKind.BLOCK, 8, 8, block_values=Q8_GROUP, block_bytes=34,
            source="ggml-common.h block_q8_0: fp16 d, int8 qs[32]",
        ),
        "q8_1": FormatInfo(
            "q8_1", FormatKind.BLOCK, 8, 8, block_values=Q8_GROUP, block_bytes=36,
            source="ggml-common.h block_q8_1: fp16 d, fp16 s, int8 qs[32]",
        ),
        "q8_1_mmq": FormatInfo(
            "q8_1_mmq", FormatKind.BLOCK, 8, 8, block_values=4 * Q8_GROUP, block_bytes=144,
            source="ggml-cuda/mmq.cuh block_q8_1_mmq, DS4 layout: half2 ds4[4], int8 qs[128]",
        ),
    }
)
"""Every format by name. Keys are the IR spellings (``qdot.dot_scaled lhs = e4m3``)."""

ELEMENT_FORMATS: tuple[str, ...] = ("e2m1", "e3m2", "e2m3", "e4m3", "e5m2", "ue8m0", "ue4m3")
"""The small float formats of the brief; ``bf16``/``fp16`` are accepted too."""

SCALE_GROUP: Mapping[str, int] = MappingProxyType({"ue8m0": 32, "ue4m3": 16})
"""K-values that share one external scale: MX (ue8m0) 32, NVFP4 (ue4m3) 16."""


def format_info(name: str) -> FormatInfo:
    """The table entry for ``name``; ``ValueError`` listing the known names otherwise."""
    try:
        return FORMATS[name]
    except (KeyError, TypeError):
        known = ", ".join(FORMATS)
        raise ValueError(f"unknown format {name!r}; known formats: {known}") from None


def float_format(name: str) -> FormatInfo:
    """The entry of a float format with an ``ElementCoding`` (decode/encode take these)."""
    info = format_info(name)
    if info.coding is None:
        floats = ", ".join(n for n, i in FORMATS.items() if i.coding is not None)
        raise ValueError(f"{name!r} is not a float element format; expected one of: {floats}")
    return info


def block_format(name: str) -> FormatInfo:
    """The entry of a ggml block format (dequantize/quantize take these)."""
    info = format_info(name)
    if not info.is_block:
        blocks = ", ".join(n for n, i in FORMATS.items() if i.is_block)
        raise ValueError(f"{name!r} is not a block format; expected one of: {blocks}")
    return info


__all__ = [
    "ELEMENT_FORMATS",
    "FORMATS",
    "IQ4NL_KVALUES",
    "MXFP4_KVALUES",
    "Q8_GROUP",
    "SCALE_GROUP",
    "ElementCoding",
    "FormatInfo",
    "FormatKind",
    "NanRule",
    "block_format",
    "float_format",
    "format_info",
]

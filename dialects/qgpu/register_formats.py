"""What the registers of a ``qgpu.mma`` / ``qgpu.upcast`` operand hold, and which combinations exist.

The names are the PTX ``mma`` type names (``s8 u8 e4m3 e5m2 e2m3 e3m2 e2m1 bf16
fp16``); widths and the element type each travels in come from the qdot formats
table (``dialects.qdot.formats``: s8 is its ``i8``), so no width is restated here.

``qgpu.mma`` pairs (PTX ISA 9.7.14.5; reference/ptx.md §3, §4):

* ``s8 × s8`` and the unsigned mixes (``u8`` on either side): ``mma.m16n8k32 .s32``;
* ``bf16 × bf16``, ``fp16 × fp16``: ``mma.m16n8k16``;
* any two of ``e4m3 e5m2 e2m3 e3m2 e2m1``: ``m16n8k32 kind::f8f6f4`` (8-bit
  containers; e4m3/e5m2 alone also without the kind), or with both sides packed
  e2m1, ``m16n8k64 kind::mxf4``.

``qgpu.upcast`` conversions are exact by construction: every value of ``from`` is a
value of ``to`` (``s8``: times ``S8_FACTOR[from]``, the smallest power of two that
makes every value an integer — 2 for e2m1 as llama.cpp's ``kvalues_mxfp4``, 8 for
e2m3; the factor is folded into the scales by whoever emits the upcast). q4_K upcasts to
``s8`` (each nibble shifted down) or ``u8`` (masked in place: a high nibble is 16 · q, which the
scale of its 32-value block undoes — ``block_part`` ``scale16``). q4_0 upcasts to ``s8`` as
16 · (code − 8): each nibble masked into the high half of its byte with its top bit flipped, one
logical operation per register (``block_part`` ``d16``, d / 16, undoes the 16). q6_K upcasts to
``s8`` as 4 · (code − 32) exactly — the 6-bit code placed at bits 2-7 of its byte, top bit flipped —
from two sources: its ``ql`` nibbles (the ``from`` operand, paired as q4_K's are but 64 values
apart) and the top two bits of each code from its ``qh`` bytes (the ``high`` operand, four values
32 apart per byte); ``block_part`` ``d4``, d / 4, undoes the 4. q5_K upcasts to ``s8`` as its code 0..31: its
``qs`` nibbles (paired as q4_K's) and the top bit of each code from its ``qh`` bytes (eight values 32
apart per byte); its mins are a separate fold, as q4_K's. q4_1 upcasts to ``u8`` as its code 0..15 (q4_0's
nibble pairs, each shifted down and masked): its m is a separate fold against the other side's sums.
q5_0 upcasts to ``s8`` as 8 · (code − 16) — the 5-bit code at bits 3-7 of its byte, top bit flipped —
and q5_1 to ``u8`` as its code 0..31, each from q4_0's nibble pairs and the fifth bit of every code
from the block's 32-bit ``qh`` word (``HIGH_WORDS``); ``block_part`` ``d8``, d / 8, undoes q5_0's 8,
and q5_1's m is q4_1's fold. ggml's mxfp4 upcasts to ``s8`` as its ``kvalues_mxfp4`` entry (twice the e2m1
value, −12..12), looked up by ``prmt`` from q4_0's nibble pairs; its ``block_part`` ``d`` is ggml's
``e8m0_to_fp32_half`` of the block's exponent byte, so the factor is 1 against that d. q3_K upcasts to
``s8`` as 32 · (code − 4) — the 3-bit code at bits 5-7 of its byte, top bit flipped — from its ``qs``
bytes (the ``from`` operand: four 2-bit fields per byte, values 32 apart in a 128-value span, ``LOW_BITS``)
and the top bit of each code from its ``hmask`` bytes (the ``high`` operand, laid out as q5_K's ``qh``);
``block_part`` ``d32``, d / 32, undoes the 32, and its 6-bit scale per 16 values weights each half block in
s32 as q6_K's int8 one does. q2_K upcasts to ``u8`` as its code 0..3 (one shift and one mask of its ``qs``
bytes, laid out as q3_K's) times its 4-bit scale per 16 values, which the same upcast multiplies in
(``INTEGER_SCALED``); its min per 16 values is a second s8 mma (``qgpu.mma … rhs_min``) against the activations.
ggml's iq4_nl upcasts to ``s8`` as its ``kvalues_iq4nl`` entry (−127..113, not symmetric), looked up by ``prmt``
in a 16-byte table from q4_0's nibble pairs; its ``block_part`` ``d`` is the block's fp16 d. iq4_xs's ``qs`` are
eight such 32-value spans per super-block (``IQ4_NL`` too), scaled by d · (ls − 32) per span.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from dialects.qdot.formats import Format, FormatInfo, format_info


class RegFormat(StrEnum):
    S8 = "s8"
    U8 = "u8"
    """Unsigned bytes. q4_K's in-place upcast yields them: each nibble is masked where it sits,
    so a high nibble (values 32–63 of a 64-value chunk) arrives as 16 · q — no shift — and the
    scale of its 32-value block carries the 1/16 (``block_part`` ``scale16``)."""
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E2M3 = "e2m3"
    E3M2 = "e3m2"
    E2M1 = "e2m1"
    BF16 = "bf16"
    FP16 = "fp16"
    Q4_0 = "q4_0"
    """Raw q4_0 nibble bytes (``block_part`` ``qs``): byte p of a 32-value block holds value p in its
    low nibble and value p + 16 in its high nibble, each as its code 0..15 (value + 8); only an
    upcast reads it."""
    Q4_1 = "q4_1"
    """Raw q4_1 nibble bytes (``block_part`` ``qs``), paired as q4_0's (value p of a 32-value block low,
    p + 16 high), each its code 0..15; only an upcast reads it."""
    Q5_0 = "q5_0"
    """Raw q5_0 ``qs`` bytes (``block_part`` ``qs``), paired as q4_0's: the low four bits of each code;
    an upcast adds the fifth from the block's ``qh`` word (its ``high`` operand, ``HIGH_WORDS``)."""
    Q5_1 = "q5_1"
    """Raw q5_1 ``qs`` bytes, as q5_0's (its codes unsigned, its m a separate fold)."""
    MXFP4 = "mxfp4"
    """Raw ggml mxfp4 nibble bytes (``block_part`` ``qs``), paired as q4_0's (value p of a 32-value block
    low, p + 16 high), each an e2m1 code; only an upcast reads it (llama.cpp's ``kvalues_mxfp4`` lookup)."""
    Q6_K = "q6_K"
    """Raw q6_K ``ql`` bytes (``block_part`` ``ql``): the low four bits of each value, byte p of a
    128-value span holding value p in its low nibble and value p + 64 in its high nibble (ggml's
    layout); an upcast adds the top two bits from the ``qh`` bytes (its ``high`` operand)."""
    Q5_K = "q5_K"
    """Raw q5_K ``qs`` bytes (``block_part`` ``qs``): the low four bits of each value, paired as q4_K's
    nibbles (value p of a 64-value chunk low, p + 32 high); an upcast adds the top bit from the ``qh``
    bytes (its ``high`` operand)."""
    Q3_K = "q3_K"
    """Raw q3_K ``qs`` bytes (``block_part`` ``qs``): the low two bits of each value, byte p of a 128-value
    span holding values p, p + 32, p + 64 and p + 96 in its bits 0-1, 2-3, 4-5 and 6-7 (ggml's layout); an
    upcast adds the top bit from the ``hmask`` bytes (its ``high`` operand)."""
    Q2_K = "q2_K"
    """Raw q2_K ``qs`` bytes (``block_part`` ``qs``): each value's whole 2-bit code, laid out as q3_K's low
    bits (byte p of a 128-value span: values p, p + 32, p + 64, p + 96 in bits 0-1, 2-3, 4-5, 6-7)."""
    IQ4_NL = "iq4_nl"
    """Raw ggml iq4_nl nibble bytes (``block_part`` ``qs``), paired as q4_0's (value p of a 32-value block
    low, p + 16 high), each an index into ``kvalues_iq4nl``; only an upcast reads it (a table lookup)."""
    Q4_K = "q4_K"
    """Raw q4_K nibble bytes (``block_part`` ``qs``): byte p of a 64-value chunk holds value p in
    its low nibble and value p + 32 in its high nibble (ggml's layout); only an upcast reads it."""


_QDOT_FORMAT: Mapping[RegFormat, Format] = MappingProxyType({
    RegFormat.S8: Format.I8,
    RegFormat.U8: Format.I8,  # travels as i8 bytes, read unsigned
    RegFormat.E4M3: Format.E4M3,
    RegFormat.E5M2: Format.E5M2,
    RegFormat.E2M3: Format.E2M3,
    RegFormat.E3M2: Format.E3M2,
    RegFormat.E2M1: Format.E2M1,
    RegFormat.BF16: Format.BF16,
    RegFormat.FP16: Format.FP16,
    RegFormat.Q4_K: Format.E2M1,  # travels as packed i8, two 4-bit values per byte
    RegFormat.Q4_0: Format.E2M1,  # the same
    RegFormat.Q4_1: Format.E2M1,  # the same
    RegFormat.Q5_0: Format.E2M1,  # its qs bytes: the same
    RegFormat.Q5_1: Format.E2M1,  # the same
    RegFormat.MXFP4: Format.E2M1,  # the same
    RegFormat.Q6_K: Format.E2M1,  # its ql bytes: the same
    RegFormat.Q5_K: Format.E2M1,  # its qs bytes: the same
    RegFormat.Q3_K: Format.E2M1,  # its qs bytes: packed i8 too, four values per byte (LOW_BITS)
    RegFormat.Q2_K: Format.E2M1,  # the same
    RegFormat.IQ4_NL: Format.E2M1,  # packed i8, two values per byte
})

SMALL_FLOATS: frozenset[RegFormat] = frozenset(
    {RegFormat.E4M3, RegFormat.E5M2, RegFormat.E2M3, RegFormat.E3M2, RegFormat.E2M1})
"""The formats of ``kind::f8f6f4``: any two pair with each other."""


def info(fmt: RegFormat) -> FormatInfo:
    return format_info(_QDOT_FORMAT[fmt])


def element_type(fmt: RegFormat) -> TypeAttribute:
    """The tensor element type the format travels in (e2m1: packed ``i8``)."""
    return info(fmt).element_type


LOW_BITS: Mapping[RegFormat, int] = MappingProxyType({RegFormat.Q3_K: 2, RegFormat.Q2_K: 2})
"""Bits per value of the raw ``from`` bytes of an upcast where they are not 4 (a nibble): q3_K's and q2_K's
``qs``, four 2-bit fields per byte."""


def low_bits(fmt: RegFormat) -> int:
    """Bits per value in the bytes of a ggml packed format (``nibble_span``): 4, or ``LOW_BITS``'."""
    return LOW_BITS.get(fmt, 4)


def values_per_element(fmt: RegFormat) -> int:
    """Values per tensor element: 2 for packed e2m1 and the ggml nibble formats, 4 for q3_K's 2-bit fields,
    else 1."""
    return 8 // LOW_BITS[fmt] if fmt in LOW_BITS else info(fmt).values_per_element


def keeps_k_width(fmt: RegFormat) -> bool:
    """An upcast from ``fmt`` keeps kWidth (counted in values it equals the source's in bytes):
    q4_K's two values of a byte sit 32 apart in K, so a thread's bytes 4t..4t+3 give it
    values 4t..4t+3 of two sub-blocks — the ISA arrangement on both sides. q4_0's sit 16 apart
    within a 32-value block, so bytes 4t..4t+3 of a block give values 4t..4t+3 and 16 + 4t..16 + 4t + 3
    of it: the ISA arrangement again."""
    return nibble_span(fmt) is not None


NIBBLE_K_WIDTH = 4
"""The kWidth of an mma operand read from q4_K / q4_0 / q6_K nibbles: the s8 mma's own, at which a thread's
source bytes 4t..4t+3 hold exactly its values of both halves of a span (``keeps_k_width``)."""


def nibble_span(fmt: RegFormat) -> int | None:
    """Values along K over which a ggml nibble format pairs its bytes' two nibbles (q4_K: a
    64-value chunk, values p and p + 32; q4_0, q4_1, q5_0, q5_1 and mxfp4: a 32-value block, p and p + 16;
    q6_K's ql: a 128-value half super-block, p and p + 64; q5_K's qs: as q4_K) — or q3_K (q2_K) its bytes' four
    2-bit fields (a 128-value half super-block, p, p + 32, p + 64, p + 96): an upcast needs
    whole spans in a thread, or a byte's second value would belong to another thread. None for
    formats whose bytes hold consecutive values."""
    return {RegFormat.Q4_K: 64, RegFormat.Q4_0: 32, RegFormat.Q4_1: 32, RegFormat.Q5_0: 32, RegFormat.Q5_1: 32,
            RegFormat.MXFP4: 32, RegFormat.Q6_K: 128, RegFormat.Q5_K: 64, RegFormat.Q3_K: 128,
            RegFormat.Q2_K: 128, RegFormat.IQ4_NL: 32}.get(fmt)


INTEGER_SCALED: frozenset[RegFormat] = frozenset({RegFormat.Q2_K})
"""Formats whose upcast may multiply an integer factor per 16 values into each code (``qgpu.upcast … scale``,
i8 in the operand scale layout): q2_K's 4-bit scales times its codes 0..3, at most 45, exact in u8 — one
multiply per register of four values, which spares the mma the two half-block sums q3_K's scales need."""


HIGH_BITS: Mapping[RegFormat, int] = MappingProxyType({RegFormat.Q6_K: 2, RegFormat.Q5_K: 1, RegFormat.Q3_K: 1})
"""Formats whose upcast takes each value's top bits from a second operand (``qgpu.upcast … high``), by
bits per value: q6_K's ``qh`` holds the top two bits of four values per byte, q5_K's ``qh`` and q3_K's
``hmask`` the top bit of eight. Either way byte l of a 32-byte group holds values l, l + 32, l + 64, … of
its group's 32 · 8 / bits values (``passes.support.upcasts.high_bits_of``)."""


HIGH_WORDS: frozenset[RegFormat] = frozenset({RegFormat.Q5_0, RegFormat.Q5_1})
"""Formats whose upcast takes each code's fifth bit from its block's 32-bit ``qh`` word (bit j: value j
of the 32-value block, ``dequantize_row_q5_0``): the ``high`` operand is one i32 per block in the
#qgpu.dot_scale layout of the result (each thread holds the words of its values' blocks), and which
bits of it a register takes depends on the thread's place along K (``passes.support.upcasts``)."""


def is_wide(fmt: RegFormat) -> bool:
    """16-bit values (bf16, fp16): m16n8k16 tiles instead of m16n8k32."""
    return info(fmt).bits_per_value == 16


class Rescale(StrEnum):
    """How ``qgpu.mma`` applies its block scales."""

    NONE = "none"
    """No scales."""
    HW = "hw"
    """Passed to the instruction (``kind::mxf8f6f4`` / ``mxf4`` / ``mxf4nvf4 .block_scale``; sm_120a)."""
    PER_BLOCK = "per_block"
    """One mma per scale block with C = 0, then ``acc += D · sa[row] · sb[col]`` in f32."""


def mma_pair_problem(lhs: RegFormat, rhs: RegFormat) -> str | None:
    """Why ``lhs × rhs`` has no ``mma.sync``, or None when it has one."""
    if lhs in SMALL_FLOATS and rhs in SMALL_FLOATS:
        return None
    if lhs in INTEGER_FORMATS and rhs in INTEGER_FORMATS:
        return None
    if lhs == rhs and lhs in (RegFormat.BF16, RegFormat.FP16):
        return None
    return (f"lhs = {lhs} and rhs = {rhs} is not an mma.sync pair: s8 and u8 pair with each other, bf16 and "
            f"fp16 only with themselves, and e4m3, e5m2, e2m3, e3m2, e2m1 with each other")


INTEGER_FORMATS: frozenset[RegFormat] = frozenset({RegFormat.S8, RegFormat.U8})
"""The formats of the integer mma (s32 results)."""


S8_FACTOR: Mapping[RegFormat, int] = MappingProxyType(
    {RegFormat.E2M1: 2, RegFormat.E2M3: 8, RegFormat.Q4_K: 1, RegFormat.Q4_0: 16, RegFormat.Q6_K: 4,
     RegFormat.Q5_K: 1, RegFormat.Q4_1: 1, RegFormat.Q5_0: 8, RegFormat.Q5_1: 1, RegFormat.MXFP4: 1,
     RegFormat.Q3_K: 32, RegFormat.Q2_K: 1, RegFormat.IQ4_NL: 1})

UPCASTS: frozenset[tuple[RegFormat, RegFormat]] = frozenset({
    (RegFormat.E2M1, RegFormat.S8), (RegFormat.E2M3, RegFormat.S8), (RegFormat.Q4_K, RegFormat.S8),
    (RegFormat.Q4_K, RegFormat.U8), (RegFormat.Q4_0, RegFormat.S8), (RegFormat.Q6_K, RegFormat.S8),
    (RegFormat.Q5_K, RegFormat.S8), (RegFormat.Q4_1, RegFormat.U8), (RegFormat.Q5_0, RegFormat.S8),
    (RegFormat.Q5_1, RegFormat.U8), (RegFormat.MXFP4, RegFormat.S8), (RegFormat.Q3_K, RegFormat.S8),
    (RegFormat.Q2_K, RegFormat.U8), (RegFormat.IQ4_NL, RegFormat.S8),
    (RegFormat.E2M1, RegFormat.E4M3), (RegFormat.E2M3, RegFormat.E4M3), (RegFormat.E3M2, RegFormat.E4M3),
    *((f, to) for f in SMALL_FLOATS for to in (RegFormat.BF16, RegFormat.FP16)),
})
"""(from, to) of every exact in-register conversion ``qgpu.upcast`` performs."""


def upcast_problem(source: RegFormat, target: RegFormat) -> str | None:
    if (source, target) in UPCASTS:
        return None
    targets = sorted(str(to) for f, to in UPCASTS if f == source)
    if not targets:
        sources = ", ".join(sorted({str(f) for f, _ in UPCASTS}))
        return f"from = {source} cannot be upcast: the sources are {sources}"
    return f"from = {source} to = {target} is not an exact conversion; {source} upcasts to {', '.join(targets)}"


@irdl_attr_definition
class RegFormatAttr(EnumAttribute[RegFormat], SpacedOpaqueSyntaxAttribute):
    """A register format: ``#qgpu<format e4m3>`` (bare inside ops: ``lhs = e4m3``)."""

    name = "qgpu.format"

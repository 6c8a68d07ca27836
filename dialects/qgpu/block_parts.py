"""Views of one field of ggml blocks held in shared memory: the one definition of where it lives.

A tile of ggml blocks is staged raw (``qgpu.local_alloc`` of ``!qdot.block<...>``
elements: 144 bytes per q4_K super-block, 144 per q8_1_mmq block, 36 per q8_1,
34 per q8_0, 18 per q4_0, 20 per q4_1, 22 per q5_0, 24 per q5_1, 17 per mxfp4, 210 per q6_K, 176 per q5_K,
110 per q3_K, 84 per q2_K, 18 per iq4_nl, 136 per iq4_xs),
and the mma operands read its fields through ``qgpu.block_part``:

* raw parts are bytes at fixed places in each block, read as they are:
  ``qs`` of q8_1 / q8_1_mmq / q8_0 (int8 quants) and of q4_K, q4_0 and q4_1 (the 128 / 16
  bytes of nibbles, packed two values per byte; which value a nibble is, is the
  interleave that ``qgpu.upcast from = q4_K`` / ``from = q4_0`` knows);
* q6_K's ``ql`` (128 bytes, the low four bits of each code, paired as q4_K's nibbles but 64
  values apart) and ``qh`` (64 bytes, the top two bits of four codes 32 values apart per byte):
  raw, combined by ``qgpu.upcast from = q6_K … high`` into s8 4 · (code − 32);
* q5_K's ``qs`` (128 bytes of low four bits, paired as q4_K's) and ``qh`` (32 bytes, the top bit
  of eight codes 32 values apart per byte): raw, combined by ``qgpu.upcast from = q5_K … high``
  into s8 codes 0..31;
* q3_K's ``qs`` (64 bytes, the low two bits of each code, four codes 32 values apart per byte) and
  ``hmask`` (32 bytes, the top bit of eight codes 32 values apart per byte, as q5_K's ``qh``): raw,
  combined by ``qgpu.upcast from = q3_K … high`` into s8 32 · (code − 4);
* q2_K's ``qs`` (64 bytes laid out as q3_K's, each 2-bit field a whole code): raw, made u8 codes 0..3 by
  ``qgpu.upcast from = q2_K``;
* derived parts are computed when loaded, one f32 per 32 values (q6_K's ``sc``: one i32 per 16,
  its int8 scale; q3_K's ``sc`` likewise, its 6-bit scale − 32, unpacked from ``scales[12]``): ``d`` and ``s``
  of q8_1 / q8_1_mmq (the fp16 scale and sum; q8_1_mmq keeps one pair per 32
  values in its ``ds4`` header, llama.cpp's DS4 layout), ``d`` of q8_0, ``d16`` of
  q4_0 (d / 16, the scale of its quants upcast to s8 as 16 · q), and of q4_K
  ``scale`` = d·sc and ``min`` = dmin·m for each 32-value sub-block, with sc and m
  decoded from the 12 packed bytes as ggml's ``get_scale_min_k4`` does (q5_K's the same, from
  the same bytes); q6_K's ``d4`` is its one fp16 d / 4, per 32 values like every other block scale (q3_K's
  ``d32``: d / 32; q2_K's ``d`` and ``dmin``, the fp16 fields as they are, and its ``sc`` and ``mn``, the
  low and high nibble of each of its ``scales[16]`` as i8, one per 16 values, four to a register);
  q4_1's ``d`` and ``min`` (its fp16 m, negated: the fold subtracts what it reads); q5_0's and q5_1's
  ``qh``, the block's 32-bit word of fifth bits as an i32, q5_0's ``d8`` (d / 8) and q5_1's ``d``,
  ``min`` and ``m_pad`` as q4_1's; mxfp4's ``qs`` (raw, q4_0's nibble pairs of e2m1 codes) and ``d``, its
  exponent byte e as 2^(e − 128) (ggml's ``e8m0_to_fp32_half``); iq4_nl's ``qs`` (raw, q4_0's nibble pairs of
  ``kvalues_iq4nl`` indices) and ``d``; iq4_xs's ``qs`` (raw, eight 32-value spans of iq4_nl's nibble pairs) and
  ``scale``, d · (ls − 32) per 32 values, its 6-bit ls joined from a nibble of ``scales_l`` and two bits of
  ``scales_h`` as ggml's ``dequantize_row_iq4_xs`` does.

Byte positions follow ggml-common.h (block_q4_K: d, dmin, scales[12], qs[128]; block_q5_K:
d, dmin, scales[12], qh[32], qs[128]; block_q6_K: ql[128], qh[64], scales[16], d;
block_q3_K: hmask[32], qs[64], scales[12], d; block_q2_K: scales[16], qs[64], d, dmin;
block_q8_1: d, s, qs[32]; block_q8_0: d, qs[32]; block_q4_1: d, m, qs[16]; block_q5_0: d, qh[4],
qs[16]; block_q5_1: d, m, qh[4], qs[16]; block_mxfp4: e, qs[16]; block_iq4_nl: d, qs[16];
block_iq4_xs: d, scales_h, scales_l[4], qs[128]) and llama.cpp's mmq.cuh
(block_q8_1_mmq: half2 ds4[4], then qs[128]); each ``PartSpec`` says where its part
reads them (``first_byte``, ``pitch``, ``codes_byte``), and lowering
(passes/support/block_fields.py) reads nothing else. ``compiler.numerics`` is the
value-side definition of the same layouts; tests/dialects/test_block_parts.py checks
the two agree.

A view marked ``broadcast`` (``qgpu.block_part … {broadcast}``) maps every row to the buffer's row 0: a one-token
kernel (``qdot.broadcast_rhs``) reads its activation tile's token as all n columns of the mma, so the layout
functions — and with them ldmatrix's row addresses and the bank-conflict census — see one row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, IntAttr, IntegerAttr, StringAttr, UnitAttr, f16, f32, i8,
                                    i32, i64)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dialects.qdot.formats import Format, format_info
from dialects.qgpu.register_formats import S8_FACTOR, RegFormat
from dialects.qgpu.syntax import Value, build_checked, parse_keyword_struct, print_keyword_struct


@dataclass(frozen=True)
class PartSpec:
    """Where one part of a ggml block lives and what it loads as."""

    values_per_block: int
    raw: bool
    element: Attribute
    first_byte: int | None = 0
    """Raw parts: byte of value 0 inside the block (values follow contiguously). Derived
    parts: byte of the fp16 field value 0 is read from or scaled by (``d``, ``s``, ``dmin``),
    or of the int8 field of an i32 part (q6_K's ``sc``); None where there is none (``m_pad``,
    a 6-bit code alone)."""
    pitch: int = 0
    """Derived parts: bytes from one value's fp16 field to the next one's (the (d, s) pairs of
    q8_1_mmq's ``ds4``: 4); 0 where all values of the block share it (q4_K's d and dmin)."""
    codes_byte: int | None = None
    """Parts made of 6-bit codes packed in ``scales[12]``, at this byte: q4_K's / q5_K's sc or m
    (``get_scale_min_k4``; f32 / f16 parts), q3_K's scale − 32 (its i32 ``sc``)."""
    nibble: int | None = None
    """i8 parts of one 4-bit field of a byte: 0 the low nibble, 1 the high one (q2_K's ``sc`` and ``mn``, its
    scale and min per 16 values), four to a register — one 32-bit load and a mask where the four are
    consecutive bytes (``block_fields._nibble_word``)."""
    field_bytes: int = 1
    """i32 parts: the width of the integer field — q6_K's ``sc``, one int8, sign-extended; q5_0's and
    q5_1's ``qh``, a 32-bit word (two 16-bit loads where the blocks leave it 2-aligned)."""
    divisor: int = 1
    """Derived fp16 fields: a power of two the field is divided by when loaded (exact), to undo the
    factor an upcast of the block's quants multiplies them by (q4_0's ``d16``: 16), or −1 for a
    field that enters with the other sign (q4_1's ``min``: its m is added, q4_K's dmin · m subtracted)."""
    split_codes: bool = False
    """f32 parts whose 6-bit code j is split over two fields (iq4_xs's ``scale``): its low four bits the nibble
    j of the 32-bit ``scales_l`` word at ``codes_byte`` + 2, its top two bits 2j of the 16-bit ``scales_h`` at
    ``codes_byte``; the value is the fp16 field at ``first_byte`` times (code − 32)."""
    e8m0_half: bool = False
    """Derived f32 parts read from one E8M0 exponent byte e instead of an fp16 field (ggml mxfp4's ``e``):
    2^(e − 128), ggml's ``e8m0_to_fp32_half`` (subnormal for e < 2), exact in f32."""


Q4K_SCALE16 = "scale16"
"""q4_K's per-32 scale for quants upcast in place: d · sc, divided by 16 in the odd sub-blocks."""

# Field bytes of each ggml block (ggml-common.h; mmq.cuh for block_q8_1_mmq), named as ggml names them.
Q4K_D, Q4K_DMIN, Q4K_SCALES, Q4K_QS = 0, 2, 4, 16
"""block_q4_K: fp16 d, fp16 dmin, uint8 scales[12], uint8 qs[128]."""
DS_D, DS_S = 0, 2
"""ggml's ``half2 ds`` (of block_q8_1, and each of block_q8_1_mmq's ``ds4``): fp16 d, then fp16 s."""
Q8_1_DS, Q8_1_QS = 0, 4
"""block_q8_1: half2 ds, int8 qs[32]."""
Q8_0_D, Q8_0_QS = 0, 2
"""block_q8_0: fp16 d, int8 qs[32]."""
Q4_0_D, Q4_0_QS = 0, 2
"""block_q4_0: fp16 d, uint8 qs[16] (value p in the low nibble of byte p, p + 16 in the high one)."""

Q4_1_D, Q4_1_M, Q4_1_QS = 0, 2, 4
"""block_q4_1: fp16 d, fp16 m, uint8 qs[16] (paired as q4_0's); value = d · code + m."""

Q5_0_D, Q5_0_QH, Q5_0_QS = 0, 2, 6
"""block_q5_0: fp16 d, uint8 qh[4] (bit j: the fifth bit of value j), uint8 qs[16] (paired as q4_0's)."""
Q5_1_D, Q5_1_M, Q5_1_QH, Q5_1_QS = 0, 2, 4, 8
"""block_q5_1: fp16 d, fp16 m, uint8 qh[4], uint8 qs[16]; value = d · code + m."""

IQ4NL_D, IQ4NL_QS = 0, 2
"""block_iq4_nl: fp16 d, uint8 qs[16] (paired as q4_0's, each an index into ``kvalues_iq4nl``); 18 bytes."""
IQ4XS_D, IQ4XS_SCALES_H, IQ4XS_SCALES_L, IQ4XS_QS = 0, 2, 4, 8
"""block_iq4_xs: fp16 d, uint16 scales_h (bits 2j, 2j + 1: the top of sub-block j's 6-bit ls), uint8 scales_l[4]
(nibble j: its low four bits), uint8 qs[128] (per 32 values iq4_nl's 16 bytes); 136 bytes, 8-aligned."""
MXFP4_E, MXFP4_QS = 0, 1
"""block_mxfp4: uint8 e (E8M0), uint8 qs[16] (paired as q4_0's, each an e2m1 code); 17 bytes, unaligned."""

Q4_0_D16 = "d16"
"""q4_0's scale for quants upcast to s8 (``qgpu.upcast from = q4_0``: 16 · (code − 8)): d / 16."""
Q5_0_D8 = "d8"
"""q5_0's scale for codes upcast to s8 (``qgpu.upcast from = q5_0``: 8 · (code − 16)): d / 8."""
Q6K_D4 = "d4"
"""q6_K's scale for quants upcast to s8 (``qgpu.upcast from = q6_K``: 4 · (code − 32)): d / 4."""
MMQ_DS4, MMQ_DS4_PITCH, MMQ_QS = 0, 4, 16
"""block_q8_1_mmq (DS4): half2 ds4[4], the (d, s) of values 32i.. at byte 4i, then int8 qs[128]."""
Q6K_QL, Q6K_QH, Q6K_SCALES, Q6K_D = 0, 128, 192, 208
"""block_q6_K: uint8 ql[128] (low 4 bits), uint8 qh[64] (top 2 bits), int8 scales[16], fp16 d."""
Q3K_HMASK, Q3K_QS, Q3K_SCALES, Q3K_D = 0, 32, 96, 108
"""block_q3_K: uint8 hmask[32] (top bits), uint8 qs[64] (low 2 bits), uint8 scales[12] (sixteen 6-bit), fp16 d;
110 bytes, 2-aligned."""
Q2K_SCALES, Q2K_QS, Q2K_D, Q2K_DMIN = 0, 16, 80, 82
"""block_q2_K: uint8 scales[16] (scale | min << 4 per 16 values), uint8 qs[64] (2-bit codes, as q3_K's low
bits), fp16 d, fp16 dmin; 84 bytes, 4-aligned."""
Q3K_D32 = "d32"
"""q3_K's scale for quants upcast to s8 (``qgpu.upcast from = q3_K``: 32 · (code − 4)): d / 32."""
Q5K_D, Q5K_DMIN, Q5K_SCALES, Q5K_QH, Q5K_QS = 0, 2, 4, 16, 48
"""block_q5_K: fp16 d, fp16 dmin, uint8 scales[12] (packed as q4_K's), uint8 qh[32] (top bits), uint8 qs[128]."""

SPECS: dict[tuple[Format, str], PartSpec] = {
    (Format.Q8_1_MMQ, "qs"): PartSpec(128, True, i8, MMQ_QS),
    (Format.Q8_1_MMQ, "d"): PartSpec(4, False, f32, MMQ_DS4 + DS_D, MMQ_DS4_PITCH),
    (Format.Q8_1_MMQ, "s"): PartSpec(4, False, f32, MMQ_DS4 + DS_S, MMQ_DS4_PITCH),
    (Format.Q8_1, "qs"): PartSpec(32, True, i8, Q8_1_QS),
    (Format.Q8_1, "d"): PartSpec(1, False, f32, Q8_1_DS + DS_D),
    (Format.Q8_1, "s"): PartSpec(1, False, f32, Q8_1_DS + DS_S),
    (Format.Q8_0, "qs"): PartSpec(32, True, i8, Q8_0_QS),
    (Format.Q8_0, "d"): PartSpec(1, False, f32, Q8_0_D),
    (Format.Q4_0, "qs"): PartSpec(16, True, i8, Q4_0_QS),
    # d / 16: the upcast gives 16 · (code − 8) (a power of two: the fold rounds as with d)
    (Format.Q4_0, Q4_0_D16): PartSpec(1, False, f32, Q4_0_D, divisor=S8_FACTOR[RegFormat.Q4_0]),
    # q4_1: its codes upcast to u8 as they are (scale d), its + m per block taken against the other
    # side's sums by the fold, which subtracts its ``min`` part (q4_K's dmin · m): hence −m (exact)
    (Format.Q4_1, "qs"): PartSpec(16, True, i8, Q4_1_QS),
    (Format.Q4_1, "d"): PartSpec(1, False, f32, Q4_1_D),
    (Format.Q4_1, "min"): PartSpec(1, False, f32, Q4_1_M, divisor=-1),
    # q4_1's m term as the f16 mma fold: two k-slots per block, (−m, 0), against q8_1_mmq's ``s_pair``
    # — (s, 0) per 32 values — so that a K step's eight blocks fill one k16 (fp16 m is exact in f16)
    (Format.Q4_1, "m_pad"): PartSpec(2, False, f16, Q4_1_M, divisor=-1),
    (Format.Q8_1_MMQ, "s_pair"): PartSpec(8, False, f16, MMQ_DS4 + DS_S, MMQ_DS4_PITCH),
    # q5_0 / q5_1: q4_0's nibbles and the block's qh word, one i32 per 32 values (the upcast's high
    # operand); q5_0's d / 8 (its codes upcast as 8 · (code − 16)), q5_1's d and m as q4_1's
    (Format.Q5_0, "qs"): PartSpec(16, True, i8, Q5_0_QS),
    (Format.Q5_0, "qh"): PartSpec(1, False, i32, Q5_0_QH, field_bytes=4),
    (Format.Q5_0, Q5_0_D8): PartSpec(1, False, f32, Q5_0_D, divisor=S8_FACTOR[RegFormat.Q5_0]),
    (Format.Q5_1, "qs"): PartSpec(16, True, i8, Q5_1_QS),
    (Format.Q5_1, "qh"): PartSpec(1, False, i32, Q5_1_QH, field_bytes=4),
    (Format.Q5_1, "d"): PartSpec(1, False, f32, Q5_1_D),
    (Format.Q5_1, "min"): PartSpec(1, False, f32, Q5_1_M, divisor=-1),
    (Format.Q5_1, "m_pad"): PartSpec(2, False, f16, Q5_1_M, divisor=-1),
    # mxfp4: q4_0's nibble pairs of e2m1 codes (upcast to s8 as ggml's kvalues, twice the e2m1 value)
    # and the exponent byte as ggml's d = 2^(e − 128), half the E8M0 scale, which undoes the twice
    (Format.MXFP4, "qs"): PartSpec(16, True, i8, MXFP4_QS),
    (Format.MXFP4, "d"): PartSpec(1, False, f32, MXFP4_E, e8m0_half=True),
    # iq4_nl: q4_0's layout, each nibble an index into kvalues_iq4nl (upcast to s8 as the kvalue), d as it is
    (Format.IQ4_NL, "qs"): PartSpec(16, True, i8, IQ4NL_QS),
    (Format.IQ4_NL, "d"): PartSpec(1, False, f32, IQ4NL_D),
    # iq4_xs: eight iq4_nl nibble spans per super-block, each with its d · (ls − 32) (at most 11 + 5 significant
    # bits: SCALE_BITS holds)
    (Format.IQ4_XS, "qs"): PartSpec(128, True, i8, IQ4XS_QS),
    (Format.IQ4_XS, "scale"): PartSpec(8, False, f32, IQ4XS_D, codes_byte=IQ4XS_SCALES_H, split_codes=True),
    (Format.Q6_K, "ql"): PartSpec(128, True, i8, Q6K_QL),
    (Format.Q6_K, "qh"): PartSpec(64, True, i8, Q6K_QH),
    # the super-block's d / 4 per 32 values (the mma's per-block scale; the upcast gives 4 · (code − 32),
    # a power of two: the fold rounds as with d), and the int8 scale of each 16 values as i32: the
    # mma's integer factor per half block (``qgpu.mma … lhs_sub``)
    (Format.Q6_K, Q6K_D4): PartSpec(8, False, f32, Q6K_D, divisor=S8_FACTOR[RegFormat.Q6_K]),
    (Format.Q6_K, "sc"): PartSpec(16, False, i32, Q6K_SCALES, pitch=1),
    # q3_K: q6_K's plan with two low bits per value — its d / 32 per 32 values (the upcast gives
    # 32 · (code − 4)) and the 6-bit scale − 32 of each 16 values as i32, the mma's integer factor
    (Format.Q3_K, "qs"): PartSpec(64, True, i8, Q3K_QS),
    (Format.Q3_K, "hmask"): PartSpec(32, True, i8, Q3K_HMASK),
    (Format.Q3_K, Q3K_D32): PartSpec(8, False, f32, Q3K_D, divisor=S8_FACTOR[RegFormat.Q3_K]),
    (Format.Q3_K, "sc"): PartSpec(16, False, i32, None, codes_byte=Q3K_SCALES),
    # q2_K: its 2-bit codes (u8 0..3 when upcast), d and dmin per 32 values (the mma's block scale and
    # the fold factor of its min term), its 4-bit scale and min of each 16 values as bytes, four per
    # register (the upcast's integer scale; the mma's ``lhs_min``, a second s8 mma against the activations)
    (Format.Q2_K, "qs"): PartSpec(64, True, i8, Q2K_QS),
    (Format.Q2_K, "d"): PartSpec(8, False, f32, Q2K_D),
    (Format.Q2_K, "dmin"): PartSpec(8, False, f32, Q2K_DMIN),
    (Format.Q2_K, "sc"): PartSpec(16, False, i8, Q2K_SCALES, pitch=1, nibble=0),
    (Format.Q2_K, "mn"): PartSpec(16, False, i8, Q2K_SCALES, pitch=1, nibble=1),
    (Format.Q4_K, "qs"): PartSpec(128, True, i8, Q4K_QS),
    (Format.Q4_K, "scale"): PartSpec(8, False, f32, Q4K_D, codes_byte=Q4K_SCALES),
    # d · sc of sub-block j, divided by 16 for odd j: the scale of q4_K values upcast in place
    # (``qgpu.upcast … to = u8``), whose odd sub-blocks — the high nibbles — arrive as 16 · q.
    # A power of two: the product with the mma's s32 sum rounds as d · sc's would.
    (Format.Q4_K, Q4K_SCALE16): PartSpec(8, False, f32, Q4K_D, codes_byte=Q4K_SCALES),
    (Format.Q4_K, "min"): PartSpec(8, False, f32, Q4K_DMIN, codes_byte=Q4K_SCALES),
    # The dmin fold as one f16 mma per super-block: k = sub-block, padded to the mma's 16
    # (sub-blocks 0-3 at k 0-3, 4-7 at k 8-11, zeros elsewhere, so that a q8_1_mmq block
    # — four sub-blocks — covers k 0-7 of its half). ``m_pad`` is the 6-bit min m (exact in
    # f16), ``s_pad`` the q8_1 block sum, ``dmin`` the super-block's fp16 dmin widened.
    (Format.Q4_K, "m_pad"): PartSpec(16, False, f16, None, codes_byte=Q4K_SCALES),
    (Format.Q4_K, "dmin"): PartSpec(1, False, f32, Q4K_DMIN),
    (Format.Q8_1_MMQ, "s_pad"): PartSpec(8, False, f16, MMQ_DS4 + DS_S, MMQ_DS4_PITCH),
    # q5_K: q4_K's scales, mins and fold parts at their own offsets (its quants upcast to s8
    # codes 0..31, not in place, so its per-32 scale is the plain d · sc)
    (Format.Q5_K, "qs"): PartSpec(128, True, i8, Q5K_QS),
    (Format.Q5_K, "qh"): PartSpec(32, True, i8, Q5K_QH),
    (Format.Q5_K, "scale"): PartSpec(8, False, f32, Q5K_D, codes_byte=Q5K_SCALES),
    (Format.Q5_K, "min"): PartSpec(8, False, f32, Q5K_DMIN, codes_byte=Q5K_SCALES),
    (Format.Q5_K, "m_pad"): PartSpec(16, False, f16, None, codes_byte=Q5K_SCALES),
    (Format.Q5_K, "dmin"): PartSpec(1, False, f32, Q5K_DMIN),
}

SCALE_BITS = 17
"""Significant bits of every f32 scale part: ``d`` is an fp16 (11 bits), q4_K's ``scale`` an fp16 d
times a 6-bit sc (17), both exact in f32 — what lets qdot-lower-mma use its magic-number fold
(``qdot.scale_bits`` on the block dot's ``qgpu.mma``)."""

FOLD_PAD = 8
"""Padded positions per q8_1_mmq block in ``s_pad`` / per half super-block in ``m_pad`` (4 real)."""

FOLD_K = 2 * FOLD_PAD
"""k-slots of one f16 mma of the min fold: a K step of 256 values (a K-quant's super-block, eight
q4_1 blocks), whichever way its parts are padded."""


def padded_sub_block(index: int) -> int | None:
    """The q4_K sub-block at padded position ``index`` of ``m_pad`` (None: a zero)."""
    half, within = divmod(index, FOLD_PAD)
    return half * 4 + within if within < 4 else None


def view_value_axis(spec: PartSpec, value_dim: int) -> int:
    """The view dimension a part's values run along: ``value_dim`` for a raw part (it keeps the buffer's
    orientation), 1 for a derived one (always [rows, values], a ``#qgpu.dot_scale`` tensor's shape)."""
    return value_dim if spec.raw else 1


def part_spec(fmt: Format, part: str) -> PartSpec:
    spec = SPECS.get((fmt, part))
    if spec is None:
        parts = ", ".join(sorted(p for f, p in SPECS if f == fmt)) or "none"
        raise VerifyException(f"{fmt} blocks have no part '{part}'; parts: {parts}")
    return spec


@irdl_attr_definition
class BlockPartEncodingAttr(ParametrizedAttribute):
    """``#qgpu.block_part<{format = q4_K, part = qs, blocks = 1, valueDim = 1}>``: the encoding of a
    ``!qgpu.memdesc`` view of one part of a raw block buffer with ``blocks`` blocks per row;
    ``valueDim`` is the view dimension along which the part's values run (the blocks' dimension).
    ``first`` (printed when not 0): the view starts at that block of each row — a slice of a
    tile of several blocks along K, read one slice per mma sequence. ``rowPad`` (printed when not 0): bytes past
    each row of the parent buffer (its ``#qgpu.shared`` ``rowPad``), which the view's offsets step over.
    ``broadcast`` (printed when true): every row of the view reads the parent's row 0 — a one-token kernel's
    activation tile read as that token in all n columns, so an ldmatrix's eight row addresses are one (a single
    shared-memory wavefront) and the d / s reads one address per warp."""

    name = "qgpu.block_part"

    fmt: StringAttr
    part: StringAttr
    blocks: IntAttr
    valueDim: IntAttr
    first: IntAttr
    rowPad: IntAttr
    rowBroadcast: BoolAttr

    def __init__(self, fmt: Format | str, part: str, blocks: int, value_dim: int, first: int = 0, row_pad: int = 0,
                 broadcast: bool = False):
        super().__init__(StringAttr(str(fmt)), StringAttr(part), IntAttr(blocks), IntAttr(value_dim), IntAttr(first),
                         IntAttr(row_pad), BoolAttr.from_bool(broadcast))

    @property
    def format(self) -> Format:
        return Format(self.fmt.data)

    @property
    def part_name(self) -> str:
        return self.part.data

    @property
    def spec(self) -> PartSpec:
        return part_spec(self.format, self.part_name)

    @property
    def value_dim(self) -> int:
        return self.valueDim.data

    @property
    def num_blocks(self) -> int:
        return self.blocks.data

    @property
    def first_block(self) -> int:
        return self.first.data

    @property
    def row_pad(self) -> int:
        return self.rowPad.data

    @property
    def broadcast(self) -> bool:
        return bool(self.rowBroadcast.value.data)

    @property
    def value_axis(self) -> int:
        return view_value_axis(self.spec, self.value_dim)

    def verify_view(self, shape: Sequence[int], element_type: Attribute) -> None:
        """Check a ``!qgpu.memdesc`` of ``shape`` × ``element_type`` with this encoding against the part's
        ``PartSpec``: the lowering reads whatever bytes the offsets name, so a view wider than the row's blocks
        reads the next row's, and one of another element type reinterprets the part's bytes — both without
        an error, unless refused here."""
        if len(shape) != 2:
            raise VerifyException(f"a #qgpu.block_part view is 2-D, got rank {len(shape)}")
        check_positive_dims(shape)
        spec, what = self.spec, f"a #qgpu.block_part view of {self.fmt.data} '{self.part_name}'"
        if element_type != spec.element:
            raise VerifyException(f"{what} holds {spec.element} elements, got {element_type}")
        axis, per_block = self.value_axis, spec.values_per_block
        last = self.num_blocks - 1
        most = (self.num_blocks - self.first_block) * per_block
        extent = shape[axis]
        if extent % per_block or extent > most:
            raise VerifyException(
                f"{what}: dimension {axis} (its values) must be a multiple of {per_block} (values per block) up to "
                f"{most} (blocks {self.first_block} to {last} of each row), got {extent}")

    def verify(self) -> None:
        if self.fmt.data not in tuple(Format) or not format_info(self.fmt.data).is_block:
            raise VerifyException(f"#qgpu.block_part format must be a block format, got {self.fmt.data}")
        part_spec(self.format, self.part_name)
        if self.value_dim not in (0, 1):
            raise VerifyException(f"#qgpu.block_part valueDim must be 0 or 1, got {self.value_dim}")
        if self.num_blocks < 1:
            raise VerifyException(f"#qgpu.block_part needs at least one block per row, got {self.num_blocks}")
        if not 0 <= self.first_block < self.num_blocks:
            raise VerifyException(f"#qgpu.block_part first must be a block of the row (0 to {self.num_blocks - 1}), "
                                  f"got {self.first_block}")
        if self.row_pad < 0:
            raise VerifyException(f"#qgpu.block_part rowPad must not be negative, got {self.row_pad}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.block_part", {
            "format": Value.ATTR, "part": Value.ATTR, "blocks": Value.INT, "valueDim": Value.INT, "first": Value.INT,
            "rowPad": Value.INT, "broadcast": Value.BOOL}, optional=("first", "rowPad", "broadcast"))
        fmt, part = v["format"], v["part"]
        fmt_text = fmt.data if isinstance(fmt, StringAttr) else str(fmt)
        part_text = part.data if isinstance(part, StringAttr) else str(part)
        attr = build_checked(parser, start, lambda: cls(fmt_text, part_text, v["blocks"], v["valueDim"],  # type: ignore[arg-type]
                                                        v.get("first", 0), v.get("rowPad", 0),  # type: ignore[arg-type]
                                                        bool(v.get("broadcast", False))))
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        fields = [("format", StringAttr(self.fmt.data)), ("part", StringAttr(self.part.data)),
                  ("blocks", self.num_blocks), ("valueDim", self.value_dim)]
        fields += [("first", self.first_block)] if self.first_block else []
        fields += [("rowPad", self.row_pad)] if self.row_pad else []
        fields += [("broadcast", True)] if self.broadcast else []
        print_keyword_struct(printer, fields)


@dataclass(frozen=True)
class BlockPartLayout:
    """Byte offsets of a raw part inside its parent buffer (rows of ``blocks`` whole blocks).

    Shares the interface lowering uses of ``SharedLayout`` (``offset``, ``stage_rank``,
    ``fp4_padded``, ``tile_shape``, ``elem_bytes``).
    """

    shape: tuple[int, ...]
    format: Format
    part: str
    blocks: int
    value_dim: int
    first: int = 0
    """The row's block at which the view starts."""
    row_pad: int = 0
    """Bytes past each row's blocks (the parent buffer's ``rowPad``)."""
    broadcast: bool = False
    """Every row of the view reads the parent's row 0 (``#qgpu.block_part`` ``broadcast``)."""

    stage_rank: int = 0
    fp4_padded: bool = False
    elem_bytes: int = 1

    @property
    def spec(self) -> PartSpec:
        return part_spec(self.format, self.part)

    @property
    def block_bytes(self) -> int:
        return format_info(self.format).element_bytes

    @property
    def row_bytes(self) -> int:
        return self.blocks * self.block_bytes + self.row_pad

    @property
    def tile_shape(self) -> tuple[int, ...]:
        return self.shape

    @property
    def allocation_bytes(self) -> int:
        return 0  # a view: the parent allocation owns the bytes

    @property
    def buffer_bytes(self) -> int:
        rows = self.shape[1 - view_value_axis(self.spec, self.value_dim)]
        return rows * self.row_bytes

    def block_of(self, coords: Sequence[int]) -> tuple[int, int, int]:
        """(row, block, index within the block) of view element ``coords``.

        Raw parts keep the parent's orientation (values along ``value_dim``); derived
        parts are always [rows, values], the shape of a ``#qgpu.dot_scale`` tensor.
        """
        axis = view_value_axis(self.spec, self.value_dim)
        row, value = coords[1 - axis], coords[axis]
        block, index = divmod(value, self.spec.values_per_block)
        return 0 if self.broadcast else row, self.first + block, index

    def block_start(self, coords: Sequence[int]) -> int:
        row, block, _ = self.block_of(coords)
        return row * self.row_bytes + block * self.block_bytes

    def offset(self, coords: Sequence[int]) -> int:
        spec = self.spec
        if not spec.raw:
            raise ValueError(f"part '{self.part}' of {self.format} is computed when loaded; it has no byte offset")
        row, block, index = self.block_of(coords)
        assert spec.first_byte is not None
        return row * self.row_bytes + block * self.block_bytes + spec.first_byte + index


def block_part_layout(shape: Sequence[int], encoding: BlockPartEncodingAttr) -> BlockPartLayout:
    return BlockPartLayout(tuple(shape), encoding.format, encoding.part_name, encoding.num_blocks,
                           encoding.value_dim, encoding.first_block, encoding.row_pad, encoding.broadcast)


__all__ = ["FOLD_K", "FOLD_PAD", "BlockPartEncodingAttr", "BlockPartLayout", "PartSpec", "SPECS", "block_part_layout",
           "padded_sub_block", "part_spec", "view_value_axis",
           "ArrayAttr"]


# ---------------------------------------------------------------------------------------------
# The op

from xdsl.irdl import (  # noqa: E402
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.ir import Operation, SSAValue  # noqa: E402
from xdsl.traits import Pure  # noqa: E402

from dialects.qdot.types import BlockType  # noqa: E402
from dialects.qgpu.types import MemDescType, check_positive_dims  # noqa: E402


def block_part_type(source: MemDescType, part: str, first: int = 0, count: int | None = None,
                    broadcast: bool = False) -> MemDescType:
    """The view type of ``part`` of a 2-D raw block buffer (blocks along its contiguous dimension),
    or of ``count`` of its blocks from block ``first`` on; ``broadcast``: every row of it reads row 0."""
    if not source.is_shared:
        raise VerifyException(f"source must have a #qgpu.shared encoding (a view is taken of whole blocks in a "
                              f"buffer, not of another view), got {source.encoding}")
    block = source.element_type
    if not isinstance(block, BlockType):
        raise VerifyException(f"qgpu.block_part needs a buffer of !qdot.block elements, got {block}")
    if source.rank != 2:
        raise VerifyException(f"qgpu.block_part takes a 2-D buffer of blocks (one stage), got rank {source.rank}")
    fmt = block.fmt if hasattr(block, "fmt") else block.format
    fmt = Format(getattr(fmt, "data", fmt))
    spec = part_spec(fmt, part)
    value_dim = source.shared.dim_order[0]
    shape = list(source.get_shape())
    blocks = shape[value_dim]
    count = blocks - first if count is None else count
    if first < 0 or count < 1 or first + count > blocks:
        raise VerifyException(f"qgpu.block_part of blocks {first} to {first + count - 1} of rows of {blocks} blocks")
    if spec.raw:
        shape[value_dim] = count * spec.values_per_block
    else:  # derived parts: [rows, values], the shape of a #qgpu.dot_scale tensor
        shape = [shape[1 - value_dim], count * spec.values_per_block]
    return MemDescType(shape, spec.element, BlockPartEncodingAttr(fmt, part, blocks, value_dim, first,
                                                                  source.shared.row_pad, broadcast))


@irdl_op_definition
class BlockPartOp(IRDLOperation):
    """A view of one field of the ggml blocks in a shared buffer (``qgpu.block_part %m {part = "qs"}``).

    No data moves; ``qgpu.local_load`` of the view reads the field (raw parts) or
    computes it (derived parts, f32 per 32 values). See the module docstring.
    """

    name = "qgpu.block_part"

    src = operand_def(MemDescType)
    part = prop_def(StringAttr)
    first = opt_prop_def(IntegerAttr)
    """The first block of each row in the view (default 0)."""
    count = opt_prop_def(IntegerAttr)
    """Blocks per row in the view (default: the rest of the row)."""
    broadcast = opt_prop_def(UnitAttr)
    """Every row of the view reads the buffer's row 0 (its encoding's ``broadcast``)."""
    result = result_def(MemDescType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, part: str, first: int = 0, count: int | None = None,
                 broadcast: bool = False):
        source = SSAValue.get(src)
        assert isinstance(source.type, MemDescType)
        properties: dict[str, Attribute] = {"part": StringAttr(part)}
        if first:
            properties["first"] = IntegerAttr(first, i64)
        if count is not None:
            properties["count"] = IntegerAttr(count, i64)
        if broadcast:
            properties["broadcast"] = UnitAttr()
        super().__init__(operands=[source],
                         result_types=[block_part_type(source.type, part, first, count, broadcast)],
                         properties=properties)

    def verify_(self) -> None:
        src, result = self.src.type, self.result.type
        assert isinstance(src, MemDescType) and isinstance(result, MemDescType)
        first = self.first.value.data if self.first is not None else 0
        count = self.count.value.data if self.count is not None else None
        expected = block_part_type(src, self.part.data, first, count, self.broadcast is not None)
        if result != expected:
            raise VerifyException(f"result must be {expected}, got {result}")

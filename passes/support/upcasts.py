"""Lowering of ``qgpu.upcast``: register conversions of mma operands, exact.

Which source byte/nibble feeds each destination byte comes from the two layout
functions (an upcast never moves values between threads); the conversions are:

* e2m1 → s8 (value × 2) and e2m1 → e4m3: the signed 16-entry prmt table of
  reference/ptx.md §6.3 R1, four values per three ``prmt``;
* e2m1 → bf16: two 8-entry byte tables (bf16 low and high byte of each magnitude)
  looked up with ``prmt``, the sign bytes made by a sign-replicating ``prmt`` and OR-ed
  in, interleaved, then × 2^(s-127) for the ue8m0 block scale (``mul.rn.bf16x2``, exact);
* q6_K → s8 (4 · (code − 32)): its ``ql`` nibble and its ``qh`` bit pair shifted to bits 2-5 and
  6-7 of each byte, the pair masked with bit 7 flipped (one ``lop3``) and joined (another): four
  instructions per register of four values (the scale, d / 4, undoes the 4); q5_K → s8 (its code
  0..31): nibble and top bit at bits 0-3 and 4, masked and joined, three or four; q3_K → s8
  (32 · (code − 4)): its 2-bit field and its ``hmask`` bit shifted to bits 5-6 and 7, joined as q6_K's
  are; q5_0 → s8
  (8 · (code − 16)) and q5_1 → u8 (code): q4_0's nibbles and the fifth bits from the block's 32-bit
  qh word, spread to their bytes by a multiply, five or six per register;
* q4_K → s8 / u8 and q4_1 → u8: each nibble shifted down and masked (q4_K in place: masked where it
  sits); q2_K → u8 (code 0..3): its 2-bit field shifted down and masked, times its 4-bit scale where it
  has one (a ``scale`` operand: one multiply per register); q4_0 → s8 (16 · (code − 8)): masked into the high half of its byte, top bit flipped;
* mxfp4 → s8 (ggml's ``kvalues_mxfp4``, twice the e2m1 value): a source word's eight nibbles looked up at
  once in R1's table of positive codes, with and without their sign bits flipped (prmt's sign-replicating
  selector bit gives 0 for the other sign), subtracted bytewise, then its low and high nibbles' bytes
  gathered: two registers per 15 operations; iq4_nl → s8 (ggml's ``kvalues_iq4nl``): each four codes looked
  up in the table's two halves and the half picked per byte by a third ``prmt``, then gathered as mxfp4's,
  14 operations per two registers;
* e4m3 → bf16: §6.3 R2 (the e4m3 bits placed in a bf16, × 2^120), × the block scale;
* anything else: per value, the code's exponent and mantissa placed in an f32 and
  rebiased by an exact multiply, × the scale, then packed (``cvt.rn.bf16x2.f32``,
  ``cvt.rn.f16x2.f32``, ``cvt.rn.satfinite.e4m3x2.f32``) or rounded to an integer (s8).

NaN: the fast e4m3 → bf16 path turns the e4m3 NaN code into ±480·scale (as R2
does); every other path propagates NaN. Scales of code 0xFF (NaN) give NaN.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import MappingProxyType

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, TensorType, f32, i32
from xdsl.ir import SSAValue

from compiler.diagnostics import emit_error
from compiler.format_table import FORMATS, IQ4NL_KVALUES, MXFP4_KVALUES, ElementCoding, NanRule
from dialects.ptx.attrs import CvtKind
from dialects.ptx.ops import CvtOp, Lop3Op, PrmtOp
from dialects.qdot.formats import ScaleKind, scale_kind_of
from dialects.qgpu.distributed import BitField, CoordExpr
from dialects.qgpu.encodings import BlockedEncodingAttr, DotOperandEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout
from dialects.qgpu.ops import UpcastOp
from dialects.qgpu.register_formats import HIGH_BITS, HIGH_WORDS, RegFormat, low_bits, nibble_span, values_per_element
from passes.support.builder import Builder
from passes.support.distributed import FunctionState, from_regs, sum_of_bits, to_regs
from passes.support.group_registers import group_slot

# R1 tables (reference/ptx.md §6.3): codes 0-3, 4-7, 8-11, 12-15
S8_TABLE = (0x03020100, 0x0C080604, 0xFDFEFF00, 0xF4F8FAFC)
MAGNITUDES = tuple(int.from_bytes(bytes(MXFP4_KVALUES[i:i + 4]), "little") for i in (0, 4))
"""The kvalues of e2m1 codes 0-7 (their magnitudes, twice the e2m1 value) as two prmt table words, taken
from the format table's ``MXFP4_KVALUES`` (R1's ``S8_TABLE[:2]``, the same bytes)."""
E4M3_TABLE = (0x3C383000, 0x4C484440, 0xBCB8B080, 0xCCC8C4C0)
# bf16 of the e2m1 values by 3-bit magnitude code (0, .5, 1, 1.5, 2, 3, 4, 6): the low
# byte (sign-independent) and the high byte of the positive and of the negative value
BF16_LO = (0xC0800000, 0xC0804000)
BF16_HI_POS = (0x3F3F3F00, 0x40404040)
Q4_0_LUT = (0xF0 & 0xCC) ^ 0xAA
"""``lop3`` table of (a & b) ^ c: q4_0's nibble masked into the high half of its byte (b =
0xF0F0F0F0), top bit flipped (c = 0x80808080). One instruction: ptxas does not fuse an ``and``
and an ``xor`` of two immediates (a SASS LOP3 has one immediate slot) but keeps one mask in a register."""
SIGN_BYTES = 0x9D8C
"""prmt selector of ``_fp4_quad_to_bf16``'s sign bytes: bytes 4, 0, 5, 1 of (x, x << 4), sign-replicated."""



@dataclass(frozen=True)
class Source:
    reg: int
    byte: int
    nibble: int  # 0/1: the nibble (packed e2m1, ggml nibbles), else 0; a high operand's bit group (high_bits_of)


def lower_upcast(op: UpcastOp, state: FunctionState) -> None:
    src_t, dst_t = op.src.type, op.result.type
    assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
    src_l, dst_l = distributed_layout(src_t), distributed_layout(dst_t)
    packed = op.source is RegFormat.E2M1 and not (
        isinstance(src_t.encoding, DotOperandEncodingAttr) and src_t.encoding.fp4_unpacked)
    mapping = _mapping(op, src_l, dst_l, packed)
    b = Builder.before(op)
    src = to_regs(b, op.src)
    if op.high is not None and op.source in HIGH_WORDS:
        out_words = _word_high_registers(b, op, src, mapping, dst_l, state)
        op.result.replace_all_uses_with(from_regs(b, out_words, dst_t))
        op.detach()
        op.erase()
        return
    if op.high is not None:
        high_t = op.high.type
        assert isinstance(high_t, TensorType)
        high_map = _high_mapping(op, distributed_layout(high_t), dst_l)
        high = to_regs(b, op.high)
        out_two = [_high_register(b, op.source, src, high, _word_sources(op, mapping, reg),
                                  _word_sources(op, high_map, reg)) for reg in range(dst_l.regs_per_thread)]
        op.result.replace_all_uses_with(from_regs(b, out_two, dst_t))
        op.detach()
        op.erase()
        return
    if op.source in (RegFormat.MXFP4, RegFormat.IQ4_NL):
        looked_up: dict[int, tuple[SSAValue, SSAValue]] = {}  # source register → its (low, high) nibbles' s8
        register = _mxfp4_register if op.source is RegFormat.MXFP4 else _iq4nl_register
        out_mx = [register(b, src, _word_sources(op, mapping, reg), looked_up)
                  for reg in range(dst_l.regs_per_thread)]
        op.result.replace_all_uses_with(from_regs(b, out_mx, dst_t))
        op.detach()
        op.erase()
        return
    if nibble_span(op.source) is not None:
        in_place = op.source is RegFormat.Q4_K and op.target is RegFormat.U8  # q4_1's u8 codes are shifted down
        # q4_1 is q4_0's nibble pairs read as q4_K's are (codes 0..15 as u8: its m is a separate fold)
        out_q4 = [_q4k_register(b, src, sources, in_place) if op.source in (RegFormat.Q4_K, RegFormat.Q4_1)
                  else _q2k_register(b, src, sources) if op.source is RegFormat.Q2_K
                  else _q4_0_register(b, src, sources)
                  for sources in (_word_sources(op, mapping, reg) for reg in range(dst_l.regs_per_thread))]
        if op.scale is not None:  # q2_K's integer scale per 16 values, multiplied into four codes at once
            out_q4 = _integer_scaled(b, op, out_q4, dst_l)
        op.result.replace_all_uses_with(from_regs(b, out_q4, dst_t))
        op.detach()
        op.erase()
        return
    scales = _Scales(b, op, state) if op.scale is not None else None
    out: list[SSAValue] = []
    cache: dict[tuple[int, int], tuple[SSAValue, SSAValue]] = {}
    per_reg = dst_l.elements_per_register
    for reg in range(dst_l.regs_per_thread):
        sources = [mapping[(reg, byte)] for byte in range(0, 4, 4 // per_reg)]
        dst_slots = [(reg, byte) for byte in range(0, 4, 4 // per_reg)]
        out.append(_convert(b, op, src, sources, dst_slots, dst_l, scales, packed, cache))
    value = from_regs(b, out, dst_t)
    op.result.replace_all_uses_with(value)
    op.detach()
    op.erase()


def _mapping(op: UpcastOp, src_l, dst_l, packed: bool) -> dict[tuple[int, int], Source]:  # noqa: ANN001
    """Destination (reg, byte) -> the source register, byte and nibble holding its value."""
    k_dim = op.k_dim

    def locate(coords: tuple[int, ...]) -> tuple[list[int], int]:
        src_coords = list(coords)
        if nibble_span(op.source) is not None:
            src_coords[k_dim], nibble = nibble_of(op.source, coords[k_dim])
            return src_coords, nibble
        if packed:
            src_coords[k_dim] //= 2
            return src_coords, coords[k_dim] % 2
        return src_coords, 0

    return _owned(op, src_l, dst_l, locate, "value", "the source and result layouts must give every thread its own values")


def _high_mapping(op: UpcastOp, high_l, dst_l) -> dict[tuple[int, int], Source]:  # noqa: ANN001
    """Destination (reg, byte) -> the ``high`` register, byte and bit pair (``Source.nibble``) of its code's top bits."""
    k_dim = op.k_dim

    def locate(coords: tuple[int, ...]) -> tuple[list[int], int]:
        src_coords = list(coords)
        src_coords[k_dim], pair = high_bits_of(op.source, coords[k_dim])
        return src_coords, pair

    return _owned(op, high_l, dst_l, locate, "the top bits of value",
                  "the high operand's layout must give every thread its own values' bits")


def _owned(op: UpcastOp, src_l, dst_l, locate, what: str, rule: str) -> dict[tuple[int, int], Source]:  # noqa: ANN001
    """Destination (reg, byte) -> the slot of the same thread that ``locate`` (destination coordinates ->
    source coordinates and sub-index) names, checked on three lanes: an upcast never moves values
    between threads, and a mapping that differs between lanes is not one register program."""
    found: dict[tuple[int, int], Source] = {}
    for lane in (0, 5, 30):
        for reg, byte in dst_l.slots():
            coords = dst_l.coords(0, lane, reg, byte)
            assert coords is not None
            src_coords, sub = locate(tuple(coords))
            owners = [s for s in src_l.owners(tuple(src_coords)) if s.warp == 0 and s.lane == lane]
            if not owners:
                emit_error(op, f"upcast would move {what} {tuple(coords)} between threads; {rule}")
            src = Source(owners[0].reg, owners[0].byte, sub)
            if found.setdefault((reg, byte), src) != src:
                emit_error(op, "upcast register mapping depends on the lane; unsupported layout pair")
    return found


def _word_sources(op: UpcastOp, mapping: dict[tuple[int, int], Source], reg: int) -> list[Source]:
    """The sources of destination register ``reg``'s four bytes, which the nibble upcasts take word-wide:
    one source register, one nibble (or bit group), bytes in order. The verifier's layouts (kWidth 4 on
    a dot operand; whole spans per thread on a blocked one) always give that — no test, fuzzer or
    benchmark kernel ever built another (checked with the old byte-by-byte path trapped: the suite,
    decode fuzz seed 95) — so another is a diagnostic, not a slow path nobody runs."""
    sources = [mapping[(reg, byte)] for byte in range(4)]
    first = sources[0]
    if not all(s.reg == first.reg and s.nibble == first.nibble and s.byte == i for i, s in enumerate(sources)):
        emit_error(op, f"a {op.source} register must hold four consecutive values of one nibble half (or bit "
                       "group) of one source register; unsupported layout")
    return sources


def high_bits_of(fmt: RegFormat, k: int) -> tuple[int, int]:
    """(byte of the ``qh`` bytes, bit group) holding the top bits of value ``k`` (q6_K: a pair, q5_K: one bit).

    ggml keeps 32 ``qh`` bytes per group of 32 · 8 / bits values (``HIGH_BITS``): byte ``l`` holds the
    top bits of values l, l + 32, l + 64, … of its group in bit groups 0, 1, 2, … — q6_K
    (``dequantize_row_q6_K``): four pairs per byte, 128-value groups; q5_K (``dequantize_row_q5_K``):
    eight bits per byte, the whole 256-value super-block. So one 32-bit word holds the top bits of
    four consecutive values of each 32-value stretch of a group.
    """
    per_byte = 8 // HIGH_BITS[fmt]
    group, within = divmod(k, 32 * per_byte)
    bit_group, l = divmod(within, 32)
    return group * 32 + l, bit_group


def nibble_of(fmt: RegFormat, k: int) -> tuple[int, int]:
    """(byte of the ``qs`` bytes, nibble) holding value ``k`` of a ggml nibble format — or, for q3_K,
    (byte, 2-bit field).

    ggml packs each span of ``nibble_span(fmt)`` values (q4_K: a 64-value chunk,
    dequantize_row_q4_K; q4_0: a 32-value block, dequantize_row_q4_0) into half as many
    bytes: value ``p`` of the span's first half is the low nibble of byte ``p``, the same
    value of its second half the high nibble. q3_K packs its 128-value spans into a quarter as many
    (dequantize_row_q3_K): value ``p`` of the span's quarter i in bits 2i, 2i + 1 of byte ``p``. So one
    32-bit word holds four consecutive values of each half (quarter).
    """
    span = nibble_span(fmt)
    assert span is not None
    per_byte = values_per_element(fmt)
    group, within = divmod(k, span)
    part, p = divmod(within, span // per_byte)
    return group * (span // per_byte) + p, part


HIGH_LUT = (0xF0 & 0xCC) | 0xAA
"""``lop3`` table of (a & b) | c: a code's low four bits masked into place (b) and its top bits,
already masked into place (c), put beside them."""

FLIP_LUT = (0xF0 & 0xCC) ^ 0xAA
"""``lop3`` table of (a & b) ^ c: the top bits masked into place (b), the byte's bit 7 flipped (c)."""

HIGH_PLACEMENT = MappingProxyType({RegFormat.Q6_K: (2, 0x80), RegFormat.Q5_K: (0, 0), RegFormat.Q5_0: (3, 0x80),
                                   RegFormat.Q5_1: (0, 0), RegFormat.Q3_K: (5, 0x80)})
"""Where each two-part format's code sits in its byte, and which bits are then flipped: q6_K's 6-bit
code at bits 2-7 with bit 7 flipped — (code << 2) − 128 = 4 · (code − 32), ``S8_FACTOR`` 4 — q3_K's
3-bit code at bits 5-7 with bit 7 flipped — (code << 5) − 128 = 32 · (code − 4), ``S8_FACTOR`` 32 — q5_0's
5-bit code at bits 3-7 with bit 7 flipped — (code << 3) − 128 = 8 · (code − 16), ``S8_FACTOR`` 8 —
q5_K's and q5_1's 5-bit codes at bits 0-4 as they are (their mins are a separate fold)."""


def _high_register(b: Builder, fmt: RegFormat, low_regs: list[SSAValue], high: list[SSAValue], lows: list[Source],
                   highs: list[Source]) -> SSAValue:
    """Four codes of a two-part format as s8 bytes (``HIGH_PLACEMENT``): the low four bits from a
    nibble (q3_K: two from a 2-bit field, ``low_bits``), the top ``HIGH_BITS[fmt]`` from ``qh`` (bit
    group i), each shifted into place and
    masked — the top bits' mask and the flip one ``lop3``, the join another, no carries between
    bytes; word-wide: the four share their source registers, nibble and bit group in byte order
    (``_word_sources``)."""
    bits, low = HIGH_BITS[fmt], low_bits(fmt)
    place, flip = HIGH_PLACEMENT[fmt]
    low_mask, top_mask = ((1 << low) - 1) << place, ((1 << bits) - 1) << (place + low)
    lo0, hi0 = lows[0], highs[0]
    word = _shift(b, low_regs[lo0.reg], place - low * lo0.nibble)
    top = _shift(b, high[hi0.reg], place + low - bits * hi0.nibble)  # bit group i sits at bits bits·i..
    if flip:
        top = b.emit(Lop3Op(top, _word(b, top_mask), _word(b, flip), FLIP_LUT))
    else:
        top = b.and_(top, top_mask * 0x01010101)
    return b.emit(Lop3Op(word, _word(b, low_mask), top, HIGH_LUT))


SPREAD = 0x00204081
"""× this spreads bits 0-3 of a word to bits 0, 8, 16 and 24 (1 + 2^7 + 2^14 + 2^21: the sixteen
partial products land on distinct bits, so nothing carries into those four)."""


def _word_high_registers(b: Builder, op: UpcastOp, src: list[SSAValue], mapping: dict[tuple[int, int], Source],
                         dst_l, state: FunctionState) -> list[SSAValue]:  # noqa: ANN001
    """q5_0 / q5_1 codes as bytes: q4_0's nibble pairs (``mapping``) and, from the block's ``qh`` word
    (``op.high``, one i32 per 32 values in the dot-scale layout), bit j for value j. A register holds
    four values k..k+3 of one block; k mod 32 is 4 · (lane mod 4), plus 16 for a high-nibble
    register, in the mma operand layouts — the one lane-dependent shift, taken once per thread and
    block word. Per register: the four bits isolated (a shift and a mask), spread to the top of each
    byte by one multiply, masked (and flipped: q5_0's − 16) by one ``lop3`` and joined to the masked
    nibbles by another."""
    high_t = op.high.type
    assert isinstance(high_t, TensorType) and op.high is not None
    high_l = distributed_layout(high_t)
    words = to_regs(b, op.high)
    k_dim = op.k_dim
    place, flip = HIGH_PLACEMENT[op.source]
    low_mask, top_bit = 0xF << place, 1 << (place + 4)
    lane_shift = state.per_thread(("q5 qh lane shift",), lambda eb, ids: eb.shl(eb.and_(ids.lane, 3), 2))
    shifted: dict[int, SSAValue] = {}
    out = []
    for reg in range(dst_l.regs_per_thread):
        lo0 = _word_sources(op, mapping, reg)[0]
        word_reg, offset = _qh_slot(op, dst_l, high_l, reg, k_dim)
        if word_reg not in shifted:  # the thread's bits of the block: 4 · (lane mod 4) on
            shifted[word_reg] = b.lshr(words[word_reg], lane_shift)
        bits = b.and_(_shift(b, shifted[word_reg], -offset), 0xF)
        top = b.mul(bits, SPREAD * top_bit)
        if flip:
            top = b.emit(Lop3Op(top, _word(b, top_bit), _word(b, flip), FLIP_LUT))
        else:
            top = b.and_(top, top_bit * 0x01010101)
        nibbles = _shift(b, src[lo0.reg], place - 4 * lo0.nibble)
        out.append(b.emit(Lop3Op(nibbles, _word(b, low_mask), top, HIGH_LUT)))
    return out


def _qh_slot(op: UpcastOp, dst_l, high_l, reg: int, k_dim: int) -> tuple[int, int]:  # noqa: ANN001
    """(register of the ``qh`` word of ``reg``'s block, the register's bit offset past 4 · (lane mod 4)),
    both the same on every lane (checked), or a diagnostic."""
    found = None
    for lane in range(32):
        coords = dst_l.coords(0, lane, reg, 0)
        assert coords is not None
        k, mn = coords[k_dim], coords[1 - k_dim]
        owners = [s for s in high_l.owners((mn, k // 32)) if s.warp == 0 and s.lane == lane]
        if not owners:
            emit_error(op, f"the qh word of value {tuple(coords)} is not held by its thread; the high operand must "
                           "be in the dot-scale layout of the result's side")
        slot = (owners[0].reg, k % 32 - 4 * (lane % 4))
        if found is None:
            found = slot
        elif slot != found:
            emit_error(op, "the qh bits a register takes depend on the lane otherwise than by 4 · (lane mod 4); "
                           "unsupported layout")
    assert found is not None
    return found


def _shift(b: Builder, value: SSAValue, left: int) -> SSAValue:
    """``value`` shifted left by ``left`` bits (right by −left); none for 0."""
    return b.shl(value, left) if left >= 0 else b.lshr(value, -left)


def _word(b: Builder, byte: int) -> SSAValue:
    """``byte`` in each byte of an i32 constant."""
    word = byte * 0x01010101
    return b.const(word - (1 << 32) if word >= 1 << 31 else word)


def _q4_0_register(b: Builder, src: list[SSAValue], sources: list[Source]) -> SSAValue:
    """Four q4_0 values as s8 bytes 16 · (code − 8): the nibble moved to the high half of its byte
    (a low nibble shifted up 4, a high one where it sits), masked, top bit flipped — 16 · code − 128
    — one shift and one logical operation (``lop3``) on the four's one source word (``_word_sources``)."""
    first = sources[0]
    word = src[first.reg] if first.nibble else b.shl(src[first.reg], 4)
    return b.emit(Lop3Op(word, _word(b, 0xF0), _word(b, 0x80), Q4_0_LUT))


def _q4k_register(b: Builder, src: list[SSAValue], sources: list[Source], in_place: bool = False) -> SSAValue:
    """Four q4_K (or q4_1) nibbles as bytes: one shift and one 0x0F0F0F0F mask of the four's one
    source word (``_word_sources``). ``in_place`` (``to = u8``): each nibble masked where it sits — a
    high nibble is 16 · q and needs no shift (0xF0F0F0F0), which saves the shift of half the registers."""
    first = sources[0]
    if in_place:
        return b.and_(src[first.reg], 0xF0F0F0F0 if first.nibble else 0x0F0F0F0F)
    return b.and_(b.lshr(src[first.reg], 4 * first.nibble), 0x0F0F0F0F)


def _integer_scaled(b: Builder, op: UpcastOp, regs: list[SSAValue], dst_l) -> list[SSAValue]:  # noqa: ANN001
    """Each register of four u8 codes times its 16 values' integer scale (``INTEGER_SCALED``): the scale's
    byte moved to the bottom of a word by one ``prmt`` (once per scale), then one 32-bit multiply, as no
    byte's product reaches 256 (q2_K: 15 · 3) and so none carries into the next."""
    scale_t = op.scale.type if op.scale is not None else None
    assert isinstance(scale_t, TensorType)
    scale_l = distributed_layout(scale_t)
    factors = to_regs(b, op.scale)
    try:
        slots = [group_slot(dst_l, scale_l, reg) for reg in range(len(regs))]
    except LayoutError as err:
        emit_error(op, str(err))
    scalars: dict[tuple[int, int], SSAValue] = {}
    for reg, byte in slots:  # byte j alone: selector 0x444j takes the zero word's byte for the other three
        if (reg, byte) not in scalars:
            scalars[(reg, byte)] = b.emit(PrmtOp(factors[reg], b.const(0), b.const(0x4440 | byte)))
    return [b.mul(value, scalars[slot]) for value, slot in zip(regs, slots, strict=True)]


def _q2k_register(b: Builder, src: list[SSAValue], sources: list[Source]) -> SSAValue:
    """Four q2_K codes as u8 bytes 0..3: the four's 2-bit field (``nibble_of``: the same in each byte of
    the one source word) shifted down and masked with 0x03030303 — one mask alone for field 0."""
    first = sources[0]
    return b.and_(b.lshr(src[first.reg], 2 * first.nibble), 0x03030303)


def _mxfp4_register(b: Builder, src: list[SSAValue], sources: list[Source],
                    looked_up: dict[int, tuple[SSAValue, SSAValue]]) -> SSAValue:
    """Four mxfp4 values as s8 bytes, ggml's ``kvalues_mxfp4`` of their e2m1 codes (twice the value).

    A source word holds a thread's values p..p + 3 in its low nibbles and p + 16..p + 19 in its high
    ones — the two registers the thread needs of that block — so both are made at once, from the word's
    eight nibbles in place order (prmt reads four selector nibbles: the upper four shifted down 16):

    * ``prmt`` of the magnitude table (``MAGNITUDES``: the kvalues of codes 0-7) with the codes as they
      are gives each code's magnitude where the code is positive, and 0 where its top bit (the sign)
      makes prmt replicate the top bit of a table byte, which is 0; with the codes' top bits flipped,
      the magnitude where the code is negative and 0 elsewhere;
    * so per byte the value is the first minus the second, computed in one 32-bit subtraction with
      0x80 added to every byte first (magnitudes are at most 12: no borrow crosses a byte), and the
      0x80 taken out by an xor after the low and the high nibbles' bytes are gathered (two ``prmt``).

    Fifteen operations per eight values (an xor, two shifts, four ``prmt``, two adds and two subtractions
    — which ptxas may join into three-operand adds —, two gathering ``prmt`` and two xors), against one table
    of two words (llama.cpp's ``get_int_from_table_16``, fourteen from two tables and a third ``prmt`` per
    four — ``_iq4nl_register`` — was this function's first form: 5 % more SASS instructions in the decode
    kernel's K step, as ptxas copies each table word from a uniform register before every lookup, and 5 %
    slower: run 187)."""
    first = sources[0]
    if first.reg not in looked_up:
        word = src[first.reg]
        flipped = b.xor(word, _word(b, 0x88))
        biased = []  # 0x80 + the value, per byte, of nibbles 0-3 and of nibbles 4-7
        for positive, negative in ((word, flipped), (b.lshr(word, 16), b.lshr(flipped, 16))):
            pos = b.emit(PrmtOp(b.const(MAGNITUDES[0]), b.const(MAGNITUDES[1]), positive))
            neg = b.emit(PrmtOp(b.const(MAGNITUDES[0]), b.const(MAGNITUDES[1]), negative))
            biased.append(b.sub(b.add(pos, _word(b, 0x80)), neg))
        low = b.emit(PrmtOp(biased[0], biased[1], b.const(0x6420)))  # bytes 0, 2, 4, 6: the low nibbles'
        high = b.emit(PrmtOp(biased[0], biased[1], b.const(0x7531)))
        looked_up[first.reg] = (b.xor(low, _word(b, 0x80)), b.xor(high, _word(b, 0x80)))
    return looked_up[first.reg][first.nibble]


IQ4NL_TABLE = tuple(int.from_bytes(bytes(v & 0xFF for v in IQ4NL_KVALUES[i:i + 4]), "little") for i in range(0, 16, 4))
"""``kvalues_iq4nl`` (the format table's ``IQ4NL_KVALUES``) as four prmt table words, codes 0-3, 4-7, 8-11, 12-15."""


def _iq4nl_register(b: Builder, src: list[SSAValue], sources: list[Source],
                    looked_up: dict[int, tuple[SSAValue, SSAValue]]) -> SSAValue:
    """Four iq4_nl values as s8 bytes, ggml's ``kvalues_iq4nl`` of their codes.

    The table has 16 entries and no symmetry (mxfp4's sign trick does not apply), so, as llama.cpp's
    ``get_int_from_table_16``: each four codes of a source word (its eight nibbles in place order, the
    upper four shifted down 16) are looked up in entries 0-7 and in entries 8-15 with their top bits
    masked off (a selector's bit 3 would replicate a sign), and a third ``prmt`` picks, per byte, the
    second lookup where the code's top bit is set (selector i + 4 for byte i); then the low and the high
    nibbles' bytes are gathered as ``_mxfp4_register`` gathers them. Fourteen operations per eight values:
    a mask, a shift, a mask and an or for the selectors, two shifts for the upper four, six table ``prmt``
    and two gathering ones."""
    first = sources[0]
    if first.reg not in looked_up:
        word = src[first.reg]
        index = b.and_(word, 0x77777777)
        pick = b.or_(b.and_(b.lshr(word, 1), 0x44444444), 0x32103210)  # byte i: i, or i + 4 where bit 3 is set
        values = []
        for codes, picks in ((index, pick), (b.lshr(index, 16), b.lshr(pick, 16))):
            low = b.emit(PrmtOp(b.const(_signed(IQ4NL_TABLE[0])), b.const(_signed(IQ4NL_TABLE[1])), codes))
            high = b.emit(PrmtOp(b.const(_signed(IQ4NL_TABLE[2])), b.const(_signed(IQ4NL_TABLE[3])), codes))
            values.append(b.emit(PrmtOp(low, high, picks)))
        looked_up[first.reg] = (b.emit(PrmtOp(values[0], values[1], b.const(0x6420))),
                                b.emit(PrmtOp(values[0], values[1], b.const(0x7531))))
    return looked_up[first.reg][first.nibble]


def _signed(word: int) -> int:
    """A 32-bit word as the signed i32 constant that holds its bits."""
    return word - (1 << 32) if word >= 1 << 31 else word


class _Scales:
    """The block scale of each destination value, as bf16x2/f32 multipliers."""

    def __init__(self, b: Builder, op: UpcastOp, state: FunctionState):
        assert op.scale is not None
        self.b = b
        self.op = op
        self.state = state
        scale_t = op.scale.type
        assert isinstance(scale_t, TensorType)
        self.kind = scale_kind_of(scale_t.get_element_type())
        self.layout = distributed_layout(scale_t)
        self.regs = to_regs(b, op.scale)
        dst_t = op.result.type
        assert isinstance(dst_t, TensorType)
        self.dst_l = distributed_layout(dst_t)
        self.k_dim = op.k_dim
        # a #qgpu.dot_scale tensor is [rows, K/g]; a blocked one (cooperative dequantization)
        # is oriented like the values it scales, K along the same dimension
        self.scale_k_dim = self.k_dim if isinstance(scale_t.encoding, BlockedEncodingAttr) else 1
        self.group = dst_t.get_shape()[self.k_dim] // scale_t.get_shape()[self.scale_k_dim]
        self._codes: dict[tuple, SSAValue] = {}
        self._f32: dict[tuple, SSAValue] = {}
        self._bf16x2: dict[tuple, SSAValue] = {}
        self._owners: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
        self._field_sums: dict[tuple[BitField, ...], list[int]] = {}

    def slot(self, dst_reg: int, dst_byte: int) -> tuple:
        """(register, byte of lane 0, per-lane-bit byte steps) of a destination value's scale.

        The scale byte may depend on the lane: with ue4m3 (16 K-values per scale) lanes
        4g+2 and 4g+3 of an A operand hold k 16..31 of each 32-k chunk and need the next
        byte of the same register. The register must not depend on the lane.
        """
        found = []
        exprs = self.dst_l.coord_exprs(dst_reg, dst_byte)  # = coords(0, lane, ...) for every lane
        assert exprs is not None
        mn_values = self._lane_values(exprs[1 - self.k_dim])
        k_values = self._lane_values(exprs[self.k_dim])
        for lane in range(32):
            mn = mn_values[lane]
            kb = k_values[lane] // self.group
            key = (kb, mn) if self.scale_k_dim == 0 else (mn, kb)
            owners = self._owners.get(key)
            if owners is None:  # 32 lanes × every value: remember the inverse layout
                owners = self._owners[key] = _first_slot_per_lane(self.layout.owners(key))
            if lane not in owners:
                emit_error(self.op, "the scale layout does not give each thread the scales of its values")
            found.append(owners[lane])
        reg, byte0 = found[0]
        steps = tuple(found[1 << i][1] - byte0 for i in range(5))
        expected = [(reg, byte0 + step) for step in _lane_step_sums(steps)]
        if found != expected:
            emit_error(self.op, "the scale register of a value depends on the lane; unsupported layout pair")
        return reg, byte0, steps

    def _lane_values(self, expr: CoordExpr) -> list[int]:
        """``expr.evaluate(0, lane)`` for the 32 lanes. The lane and warp fields are the same
        for many registers (only the constant differs), so their sums are computed once per
        set of fields: ``slot`` runs for every destination value of a tile."""
        sums = self._field_sums.get(expr.fields)
        if sums is None:
            sums = self._field_sums[expr.fields] = [sum(f.value(0, lane) for f in expr.fields) for lane in range(32)]
        if expr.modulus is None:
            return [expr.constant + x for x in sums]
        return [(expr.constant + x) % expr.modulus for x in sums]

    def code(self, slot: tuple) -> SSAValue:
        if slot not in self._codes:
            reg, byte, steps = slot
            b = self.b
            if any(steps):
                shift = self.state.per_thread(("scale-shift", byte, steps), lambda eb, ids: eb.add(
                    sum_of_bits(eb, ids.lane, [8 * step for step in steps]), 8 * byte))
                self._codes[slot] = b.and_(b.lshr(self.regs[reg], shift), 0xFF)
            else:
                self._codes[slot] = b.and_(b.lshr(self.regs[reg], 8 * byte), 0xFF)
        return self._codes[slot]

    def as_f32(self, slot: tuple) -> SSAValue:
        if slot not in self._f32:
            b = self.b
            code = self.code(slot)
            if self.kind is ScaleKind.UE4M3:
                value = _decode_float(b, code, _coding("ue4m3"))
            else:
                bits = b.shl(code, 23)
                bits = b.select(b.cmp("eq", code, 0), b.const(0x00400000), bits)
                bits = b.select(b.cmp("eq", code, 0xFF), b.const(0x7FC00000), bits)
                value = b.emit(arith.BitcastOp(bits, f32))
            self._f32[slot] = value
        return self._f32[slot]

    def as_bf16x2(self, slot: tuple) -> SSAValue:
        """The scale in both halves of a bf16x2 (exact: ue8m0 is a power of two, ue4m3 has 4 bits)."""
        if slot not in self._bf16x2:
            b = self.b
            if self.kind is ScaleKind.UE4M3:
                f = self.as_f32(slot)
                packed = _to_i32(b, b.emit(CvtOp(CvtKind.BF16X2_F32, [f, f])))
            else:
                code = self.code(slot)
                bits = b.shl(code, 7)
                bits = b.select(b.cmp("eq", code, 0), b.const(0x0040), bits)
                bits = b.select(b.cmp("eq", code, 0xFF), b.const(0x7FC0), bits)
                packed = b.or_(bits, b.shl(bits, 16))
            self._bf16x2[slot] = packed
        return self._bf16x2[slot]


@functools.cache
def _lane_step_sums(steps: tuple[int, ...]) -> tuple[int, ...]:
    """Per lane, the sum of the ``steps`` of its set bits (bit i of the lane adds ``steps[i]``):
    the byte offset from lane 0 that ``_Scales.slot`` expects. A few distinct step tuples
    serve every value of a tile, so they are computed once."""
    return tuple(sum(step for i, step in enumerate(steps) if lane >> i & 1) for lane in range(32))


def _first_slot_per_lane(owners: list) -> dict[int, tuple[int, int]]:  # noqa: ANN001 - list[Slot]
    """lane → (reg, byte) of the first of ``owners`` (sorted slots) that warp 0 holds in that
    lane: what ``slot`` asks of each of 32 lanes, found in one pass over the owners."""
    first: dict[int, tuple[int, int]] = {}
    for owner in owners:
        if owner.warp == 0 and owner.lane not in first:
            first[owner.lane] = (owner.reg, owner.byte)
    return first


def _convert(b: Builder, op: UpcastOp, src: list[SSAValue], sources: list[Source],
             dst_slots: list[tuple[int, int]], dst_l, scales: _Scales | None, packed: bool,  # noqa: ANN001
             cache: dict[tuple[int, int], tuple[SSAValue, SSAValue]]) -> SSAValue:
    to, frm = op.target, op.source
    n = len(sources)
    same_reg = len({s.reg for s in sources}) == 1
    if n == 4 and packed and same_reg and to in (RegFormat.S8, RegFormat.E4M3):
        values = [s.byte * 2 + s.nibble for s in sources]
        if values in ([0, 1, 2, 3], [4, 5, 6, 7]):
            return _fp4_lut(b, src[sources[0].reg], values[0] // 4, S8_TABLE if to is RegFormat.S8 else E4M3_TABLE)
    if n == 2 and same_reg and to is RegFormat.BF16:
        scale_slot = scales.slot(*dst_slots[0]) if scales is not None else None
        same_scale = scales is None or scales.slot(*dst_slots[1]) == scale_slot
        if same_scale and packed and sources[0].byte == sources[1].byte and \
                (sources[0].nibble, sources[1].nibble) == (0, 1):
            key = (sources[0].reg, sources[0].byte // 2)
            if key not in cache:
                cache[key] = _fp4_quad_to_bf16(b, src[sources[0].reg], key[1])
            value = cache[key][sources[0].byte % 2]
            return _scale_bf16(b, value, scales, scale_slot)
        if same_scale and frm is RegFormat.E4M3 and sources[1].byte == sources[0].byte + 1 and \
                sources[0].byte % 2 == 0:
            value = _e4m3_pair_to_bf16(b, src[sources[0].reg], sources[0].byte)
            return _scale_bf16(b, value, scales, scale_slot)
    return _generic(b, op, src, sources, dst_slots, scales, packed)


def _fp4_lut(b: Builder, reg: SSAValue, half: int, table: tuple[int, int, int, int]) -> SSAValue:
    x = b.lshr(reg, 16 * half) if half else reg
    idx = b.and_(x, 0x7777)
    sel = b.or_(b.lshr(b.and_(x, 0x8888), 1), 0x3210)
    lo = b.emit(PrmtOp(b.const(table[0]), b.const(table[1]), idx))
    hi = b.emit(PrmtOp(b.const(table[2]), b.const(table[3]), idx))
    return b.emit(PrmtOp(lo, hi, sel))


def _fp4_quad_to_bf16(b: Builder, reg: SSAValue, half: int) -> tuple[SSAValue, SSAValue]:
    """The four e2m1 values of 16-bit half ``half`` → two bf16x2 (values 0,1 and 2,3), exactly.

    Byte tables through ``prmt`` give the low and the high byte of each magnitude's bf16;
    the sign bits become 0x00/0xFF bytes in one more ``prmt``, whose sign-replicate mode
    copies a byte's top bit: the top bit of byte i of the half is the sign of value 2i + 1,
    and after a shift by 4 that of value 2i. One OR puts the signs on the high bytes, and
    two ``prmt`` interleave low and high bytes: 8 instructions for 4 values, and only 4
    table registers, which matters when registers are short and ptxas rebuilds each table
    before each use.
    """
    x = b.lshr(reg, 16 * half) if half else reg
    idx = b.and_(x, 0x7777)
    lo4 = b.emit(PrmtOp(b.const(BF16_LO[0]), b.const(BF16_LO[1]), idx))
    hi4 = b.emit(PrmtOp(b.const(BF16_HI_POS[0]), b.const(BF16_HI_POS[1]), idx))
    # bytes [sign 0, sign 1, sign 2, sign 3] as 0x00/0xFF: from (x << 4).byte0, x.byte0,
    # (x << 4).byte1, x.byte1, each selector nibble with the sign-replicate bit (8) set
    signs = b.emit(PrmtOp(x, b.shl(x, 4), b.const(SIGN_BYTES)))
    hi4 = b.or_(hi4, b.and_(signs, 0x80808080))
    return b.emit(PrmtOp(lo4, hi4, b.const(0x5140))), b.emit(PrmtOp(lo4, hi4, b.const(0x7362)))


def _e4m3_pair_to_bf16(b: Builder, reg: SSAValue, byte: int) -> SSAValue:
    """Bytes ``byte``, ``byte+1`` (e4m3) → bf16x2, exact for finite codes (reference/ptx.md §6.3 R2)."""
    selector = 0x1404 if byte == 0 else 0x3424
    t = b.emit(PrmtOp(reg, b.const(0), b.const(selector)))
    sign = b.and_(t, 0x80008000)
    rest = b.and_(b.lshr(t, 4), 0x07F007F0)
    value = b.or_(sign, rest)
    bias = b.const(0x7B807B80)  # 2^120 in both halves
    return _mul_bf16x2(b, value, bias)


def _scale_bf16(b: Builder, value: SSAValue, scales: _Scales | None, slot: tuple | None) -> SSAValue:
    if scales is None or slot is None:
        return value
    return _mul_bf16x2(b, value, scales.as_bf16x2(slot))


def _mul_bf16x2(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    """x · y on two i32 registers holding bf16 pairs, as fma.rn.bf16x2(x, y, -0.0).

    The fma form exists from sm_80 (mul.rn.bf16x2 only from sm_90) and adding -0.0
    changes nothing, the sign of zero included; the products here are exact.
    """
    from dialects.ptx.base import BF16X2
    from dialects.ptx.ops import BitcastOp, FmaRnBf16x2Op

    xv = b.emit(BitcastOp(x, BF16X2))
    yv = b.emit(BitcastOp(y, BF16X2))
    minus_zero = b.emit(BitcastOp(b.const(0x80008000 - (1 << 32)), BF16X2))
    return b.emit(BitcastOp(b.emit(FmaRnBf16x2Op(xv, yv, minus_zero)), i32))


def _to_i32(b: Builder, value: SSAValue) -> SSAValue:
    from dialects.ptx.ops import BitcastOp

    return value if value.type == i32 else b.emit(BitcastOp(value, i32))


def _coding(fmt: str) -> ElementCoding:
    coding = FORMATS[fmt].coding
    assert coding is not None, fmt
    return coding


def _decode_float(b: Builder, code: SSAValue, coding: ElementCoding) -> SSAValue:
    """An 8-bit-container small float code → exact f32 (NaN and Inf codes as ``coding`` has them)."""
    exp_bits, mant_bits, bias = coding.exponent_bits, coding.mantissa_bits, coding.bias
    nan_code = coding.nan_code if coding.nan is NanRule.ALL_ONES else None
    inf_nan = coding.nan is NanRule.IEEE
    width = exp_bits + mant_bits
    magnitude = b.and_(code, (1 << width) - 1)
    sign = b.and_(code, 1 << width)
    bits = b.or_(b.shl(magnitude, 23 - mant_bits), b.shl(sign, 31 - width))
    value = b.emit(arith.MulfOp(b.emit(arith.BitcastOp(bits, f32)), b.fconst(2.0 ** (127 - bias))))
    if nan_code is not None:
        value = b.select(b.cmp("eq", magnitude, nan_code), b.fconst(float("nan")), value)
    if inf_nan:
        exp_all = ((1 << exp_bits) - 1) << mant_bits
        is_special = b.cmp("eq", b.and_(magnitude, exp_all), exp_all)
        is_inf = b.cmp("eq", magnitude, exp_all)
        inf = b.select(b.cmp("ne", sign, 0), b.fconst(float("-inf")), b.fconst(float("inf")))
        value = b.select(is_special, b.select(is_inf, inf, b.fconst(float("nan"))), value)
    return value


def _value_f32(b: Builder, op: UpcastOp, src: list[SSAValue], source: Source, packed: bool) -> SSAValue:
    frm = op.source
    reg = src[source.reg]
    shift = 8 * source.byte + (4 * source.nibble if packed else 0)
    if frm in (RegFormat.BF16, RegFormat.FP16):
        half = b.and_(b.lshr(reg, shift), 0xFFFF)
        if frm is RegFormat.BF16:
            return b.emit(arith.BitcastOp(b.shl(half, 16), f32))
        as_f16 = b.emit(arith.BitcastOp(b.cast_int(half, _i16()), _f16()))
        return b.emit(CvtOp(CvtKind.F32_F16, [as_f16]))
    if frm is RegFormat.S8:
        byte = b.and_(b.lshr(reg, shift), 0xFF)
        signed = b.sub(b.xor(byte, 0x80), 0x80)
        return b.emit(arith.SIToFPOp(signed, f32))
    code = b.and_(b.lshr(reg, shift), 0xF if (packed or frm is RegFormat.E2M1) else 0xFF)
    return _decode_float(b, code, _coding(frm.value))


def _generic(b: Builder, op: UpcastOp, src: list[SSAValue], sources: list[Source],
             dst_slots: list[tuple[int, int]], scales: _Scales | None, packed: bool) -> SSAValue:
    values = []
    for source, slot in zip(sources, dst_slots, strict=True):
        v = _value_f32(b, op, src, source, packed)
        if scales is not None:
            v = b.emit(arith.MulfOp(v, scales.as_f32(scales.slot(*slot))))
        values.append(v)
    to = op.target
    if to is RegFormat.BF16:
        return _to_i32(b, b.emit(CvtOp(CvtKind.BF16X2_F32, [values[1], values[0]])))
    if to is RegFormat.FP16:
        return _to_i32(b, b.emit(CvtOp(CvtKind.F16X2_F32, [values[1], values[0]])))
    if to is RegFormat.E4M3:
        lo = b.emit(CvtOp(CvtKind.E4M3X2_F32, [values[1], values[0]]))
        hi = b.emit(CvtOp(CvtKind.E4M3X2_F32, [values[3], values[2]]))
        return b.or_(b.cast_int(lo, i32), b.shl(b.cast_int(hi, i32), 16))
    if to is RegFormat.S8:
        from dialects.qgpu.register_formats import S8_FACTOR

        factor = float(S8_FACTOR.get(op.source, 1))
        out = b.const(0)
        for i, v in enumerate(values):
            if factor != 1.0:
                v = b.emit(arith.MulfOp(v, b.fconst(factor)))  # exact: the s8 value is value · 2^shift
            as_int = b.emit(arith.FPToSIOp(v, i32))
            out = b.or_(out, b.shl(b.and_(as_int, 0xFF), 8 * i))
        return out
    emit_error(op, f"no lowering for upcast from {op.source} to {to}")


def _i16():  # noqa: ANN202
    from xdsl.dialects.builtin import i16

    return i16


def _f16():  # noqa: ANN202
    from xdsl.dialects.builtin import f16

    return f16


__all__ = ["lower_upcast", "Float32Type"]

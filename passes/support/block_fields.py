"""Loading the derived fields of ggml blocks (scales, sums, mins) from shared memory as f32.

A ``qgpu.local_load`` of a derived ``#qgpu.block_part`` view (``d``/``s`` of q8_1 and
q8_1_mmq, ``d`` of q8_0 and of mxfp4, ``scale``/``min`` of q4_K) produces one f32 per 32 values
in a ``#qgpu.dot_scale`` layout (``d16`` of q4_0: d / 16). Each register needs the start of its block (affine
in the thread's lane and warp, like the raw views) and a field index fixed at
compile time; the fp16 fields are widened exactly, mxfp4's exponent byte e becomes 2^(e − 128), and
q4_K's 6-bit scales and mins are unpacked as ggml's ``get_scale_min_k4`` does (q6_K's ``sc``, i32 per
16 values, is its int8 scale, sign-extended; q3_K's is its 6-bit scale − 32, unpacked as
``dequantize_row_q3_K`` does — see ``_q3k_scale``; iq4_xs's ``scale`` is d · (ls − 32), see ``_iq4xs_scale``):

* sub-block j < 4: ``sc = q[j] & 63``, ``m = q[j + 4] & 63``;
* j ≥ 4: ``sc = (q[j + 4] & 15) | (q[j - 4] >> 6) << 4``, ``m = (q[j + 4] >> 4) | (q[j] >> 6) << 4``

with ``q`` the 12 ``scales`` bytes of the block; the field is ``d·sc`` (``scale``) or
``dmin·m`` (``min``). Byte offsets come from the part's ``PartSpec`` in
dialects/qgpu/block_parts.py (the one definition of those layouts): the fp16 field of
value i at ``first_byte + pitch·i``, the packed codes at ``codes_byte``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, VectorType, f16, f32, i8, i16, i32
from xdsl.ir import Attribute, SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import LdSharedOp, UnpackOp
from dialects.qdot.formats import Format
from dialects.qgpu.block_parts import Q4K_QS, Q4K_SCALE16, Q5K_QH, BlockPartLayout, padded_sub_block
from dialects.qgpu.layouts import distributed_layout
from dialects.qgpu.ops import LocalLoadOp
from passes.support.builder import Builder
from passes.support.distributed import FunctionState, LinearOffsets, element_coords, elements_per_thread, from_regs


HEADER_BYTES = 16
"""The header of a q4_K or q5_K block: d and dmin (fp16) and the 12 scale bytes, bytes 0-15 of its 144 or 176. Both
sizes are multiples of 16, and rows and stages of a block buffer are whole blocks in a 128-byte aligned allocation,
so every block's header is 16-aligned in shared memory and its fields come from one 16-byte load
(``ld.shared.v4.b32``). Read field by field, the 2- to 8-byte loads of lanes whose blocks are 144 bytes apart put
four lanes in one bank (run 306: 3-4 x the ideal wavefronts); 16-byte loads go a quarter-warp at a time, each lane
on its own four banks. Run 311 (an H100, this compiler against the previous one, MUL_MAT at the four decode
shapes): q4_K's one-token kernel 0.967-1.006 x, q5_K's 0.92-0.98 x, the M <= 8 kernel 0.984-1.006 x; see
``_reads_header`` for where it is not used."""
HEADER_ENDS = {Format.Q4_K: Q4K_QS, Format.Q5_K: Q5K_QH}
"""The first byte past d, dmin and the scales of each format, from the field table (dialects/qgpu/block_parts.py):
the header is one load only where that is ``HEADER_BYTES``."""


def _reads_header(shared: BlockPartLayout) -> bool:
    """A derived part whose fields all lie in a 16-aligned ``HEADER_BYTES`` block header (``HEADER_ENDS``), of
    blocks that are the mma's A side (``value_dim`` 1: the decode kernels' weights, a row of blocks per weight
    row). Where the blocks are the B side (the prefill kernel's weights, a column of blocks per weight row) the
    one 16-byte load made the repacked 64 × 128 prefill's MUL_MAT 1.035-1.041 x slower at M = 512 in run 311 (an
    H100); why is not known, so the B side keeps its field-by-field loads."""
    spec = shared.spec
    return HEADER_ENDS.get(shared.format) == HEADER_BYTES and spec.codes_byte is not None \
        and shared.block_bytes % HEADER_BYTES == 0 and shared.value_dim == 1


@dataclass
class _Census:
    """Warp 0's field loads of one ``qgpu.local_load`` for the bank-conflict census (``bank_conflicts``): each
    distinct (byte, width) once, as LLVM (-O3) keeps one of a thread's loads of one address, at the lane addresses
    ``lanes`` (the thread part) plus that byte. The loads as emitted here: where LLVM's load-store vectorizer later
    joins neighbours into one wider load (the one-token kernel's d and s of a block: one ``ld.shared.v2.b16``) the
    census counts them apart."""

    lanes: list[int]
    into: list[tuple[int, list[int]]]
    seen: set[tuple[int, int]] = field(default_factory=set)

    def note(self, byte: int, width: int) -> None:
        if (byte, width) not in self.seen:
            self.seen.add((byte, width))
            self.into.append((width, [byte + lane for lane in self.lanes]))


@dataclass(frozen=True)
class _BlockStart:
    """A block's first byte in shared memory: this thread's ``value``, of which ``offset`` is the compile-time part
    (the census's view of it, where ``census`` is kept)."""

    value: SSAValue
    offset: int
    census: _Census | None

    def load(self, b: Builder, byte: int, kind: Attribute) -> SSAValue:
        if self.census is not None:
            self.census.note(self.offset + byte, _bytes_of(kind))
        return b.emit(LdSharedOp(b.add(self.value, byte), kind))

    def moved(self, b: Builder, byte: int) -> _BlockStart:
        """The address ``byte`` further on, as one value that later loads add to."""
        return _BlockStart(b.add(self.value, byte), self.offset + byte, self.census)


def _bytes_of(kind: Attribute) -> int:
    if isinstance(kind, VectorType):
        return _bytes_of(kind.get_element_type()) * kind.element_count()
    return {i8: 1, i16: 2, i32: 4}[kind]


def lower_derived_load(load: LocalLoadOp, shared: BlockPartLayout, state: FunctionState,
                       census: list[tuple[int, list[int]]] | None = None) -> SSAValue:
    """The registers of ``load``, for the caller to put in its place. ``census`` (remarks only) gets each field
    load's width and warp 0's lane addresses (``_Census``)."""
    tensor = load.result.type
    assert isinstance(tensor, TensorType)
    layout = distributed_layout(tensor)
    element = tensor.get_element_type()
    if element != shared.spec.element or layout.elem_bytes not in (1, 2, 4):
        emit_error(load, f"part '{shared.part}' of {shared.format} loads as {shared.spec.element} registers, "
                         f"got {tensor}")
    elems = elements_per_thread(layout)
    warps = layout.num_warps

    coords = element_coords(load, tensor, layout)

    def index_of(elem: int, lane: int, warp: int) -> int:
        return shared.block_of(coords(elem, lane, warp))[2]

    check = [(e, lane, w) for e in range(elems) for lane in (0, 1, 6, 13, 31) for w in {0, warps - 1}]
    try:
        starts = LinearOffsets.derive(lambda e, lane, w: shared.block_start(coords(e, lane, w)), elems, warps,
                                      check, allow_additive=True)
    except ValueError as err:
        emit_error(load, f"block starts of {tensor} are not affine in the thread ({err})")
    if any(index_of(e, lane, w) != index_of(e, 0, 0) for e, lane, w in check):
        emit_error(load, f"the field index of {tensor} depends on the lane; unsupported layout")
    b = Builder.before(load)
    base = b.cast([load.src], [i32])[0]
    thread = state.per_thread(("offsets", *starts.key), lambda eb, ids: starts.thread_part(eb, ids))
    noted = _Census([starts.bits_at(starts.lane_bases, lane) for lane in range(32)], census) \
        if census is not None else None
    if layout.elem_bytes == 1:  # q2_K's 4-bit scales or mins: four consecutive fields per register
        regs = [_nibble_word(load, b, shared, _BlockStart(b.add(base, thread), 0, noted),
                             [(starts.elem_part(e), index_of(e, 0, 0)) for e in range(first, min(first + 4, elems))])
                for first in range(0, elems, 4)]
        return from_regs(b, regs, tensor)
    values = []
    headers: dict[int, Sequence[SSAValue]] = {}  # a block's header words, by the block's offset in the thread
    reads_header = _reads_header(shared)
    for elem in range(elems):
        offset = starts.elem_part(elem)
        start = _BlockStart(b.add(base, b.add(thread, offset)), offset, noted)
        if reads_header and offset not in headers:
            words = start.load(b, 0, VectorType(i32, [HEADER_BYTES // 4]))
            headers[offset] = b.insert(UnpackOp(words)).results
        values.append(_field(b, shared, start, index_of(elem, 0, 0), headers.get(offset)))
    if layout.elem_bytes == 4:
        regs = values
    else:  # f16 pairs: narrow (exact: the fields are fp16 values or 6-bit integers) and pack
        halves = [b.cast_int(b.emit(arith.BitcastOp(b.emit(arith.TruncFOp(v, f16)), i16)), i32) for v in values]
        regs = [b.or_(halves[i], b.shl(halves[i + 1], 16)) for i in range(0, len(halves), 2)]
    return from_regs(b, regs, tensor)


def _nibble_word(load: LocalLoadOp, b: Builder, shared: BlockPartLayout, thread_start: _BlockStart,
                 fields: list[tuple[int, int]]) -> SSAValue:
    """One register of byte fields (q2_K's ``sc`` / ``mn``: a nibble of each ``scales`` byte) from the
    fields' (block offset, index) pairs, which must be four consecutive bytes of one block at a 4-aligned
    place — the 16 groups of a super-block, four per register, as every q2_K view is: one 32-bit load and
    one mask (and a shift for the high nibbles) serve all four."""
    spec = shared.spec
    assert spec.first_byte is not None and spec.nibble is not None
    offset, index = fields[0]
    place = offset + spec.first_byte + spec.pitch * index
    consecutive = len(fields) == 4 and spec.pitch == 1 and all(f == (offset, index + i) for i, f in enumerate(fields))
    # the thread's own part of the address is whole rows and blocks of the buffer, so multiples of
    # block_bytes: 4-aligned with it
    if not consecutive or shared.block_bytes % 4 or place % 4:
        emit_error(load, f"part '{shared.part}' of {shared.format} loads four consecutive bytes of one block per "
                         "register, 4-aligned; this layout puts others together")
    word = thread_start.load(b, place, i32)
    return b.and_(b.lshr(word, 4 * spec.nibble), 0x0F0F0F0F)


def _field(b: Builder, shared: BlockPartLayout, start: _BlockStart, index: int,
           header: Sequence[SSAValue] | None = None) -> SSAValue:
    """The field as f32 (f16 parts are exact in f32 and narrowed by the caller), or as i32 for an
    int8 field (q6_K's ``sc``: ``ld.shared.s8``, sign-extended) or a word (q5_0's / q5_1's ``qh``). ``header``:
    the block's ``HEADER_BYTES`` as words, already loaded, where the fields come from them."""
    spec, part = shared.spec, shared.part
    if spec.element == i32 and spec.field_bytes == 4:  # q5_0 / q5_1's qh word
        assert spec.first_byte is not None
        at = start.moved(b, spec.first_byte + spec.pitch * index)
        if shared.block_bytes % 4 == 0 and spec.first_byte % 4 == 0:
            return at.load(b, 0, i32)
        low = b.cast_int(at.load(b, 0, i16), i32)  # q5_0's 22-byte blocks: 2-aligned
        high = b.cast_int(at.load(b, 2, i16), i32)
        return b.or_(low, b.shl(high, 16))
    if spec.element == i32 and spec.codes_byte is not None:  # q3_K's sc
        return b.sub(_q3k_scale(b, start, spec.codes_byte, index), 32)
    if spec.split_codes:  # iq4_xs's scale: d · (ls − 32)
        assert spec.first_byte is not None and spec.codes_byte is not None
        signed = b.sub(_iq4xs_scale(b, start, spec.codes_byte, index), 32)
        return b.mulf(_half(b, start, spec.first_byte), b.emit(arith.SIToFPOp(signed, f32)))
    if spec.element == i32:
        assert spec.first_byte is not None
        byte = start.load(b, spec.first_byte + spec.pitch * index, i8)
        return b.emit(arith.ExtSIOp(byte, i32))
    if part in ("m_pad", "s_pair") and spec.codes_byte is None:  # (−m, 0) of q4_1 / q5_1, (s, 0) of q8_1_mmq
        if index % 2:
            return b.fconst(0.0)
        index //= 2
    elif part == "m_pad":
        sub_block = padded_sub_block(index)
        if sub_block is None:
            return b.fconst(0.0)
        assert spec.codes_byte is not None
        return b.emit(arith.UIToFPOp(_q4k_scale_or_min(b, start, spec.codes_byte, sub_block, True, header), f32))
    if part == "s_pad":  # padded as m_pad is: positions 0-3 are the block's four (d, s) pairs
        pair = padded_sub_block(index)
        if pair is None:
            return b.fconst(0.0)
        index = pair
    assert spec.first_byte is not None
    if spec.e8m0_half:  # mxfp4's d: 2^(e − 128) from its exponent byte
        return _e8m0_half(b, start, spec.first_byte + spec.pitch * index)
    half = _half(b, start, spec.first_byte + spec.pitch * index, header)
    if spec.codes_byte is None:  # d, s, dmin: the fp16 field itself (q4_0's d16: / 16, q4_1's / q5_1's min: −m, exact)
        return b.mulf(half, b.fconst(1.0 / spec.divisor)) if spec.divisor != 1 else half
    # q4_K's scale / min: d · sc or dmin · m of sub-block ``index``
    code = _q4k_scale_or_min(b, start, spec.codes_byte, index, part == "min", header)
    if part == Q4K_SCALE16 and index % 2:  # 16 · q: the odd sub-blocks' nibbles used in place
        half = b.mulf(half, b.fconst(1.0 / 16))
    return _times_code(b, half, code)


CODE_MAGIC_BITS = 0x4B000000
"""The bits of the f32 2^23: OR-ed with an integer v < 2^23 they are the f32 2^23 + v."""


def _times_code(b: Builder, factor: SSAValue, code: SSAValue) -> SSAValue:
    """``factor · code`` rounded once, for a 6-bit ``code`` and an fp16 ``factor`` (or one sixteenth of one), with no
    integer-to-float conversion: ``fma(2^23 + code, factor, −2^23 · factor)``. −2^23 · factor is exact (a power of
    two times a value of 11 significant bits, far from the f32 range's ends), so the fma's one rounding is of the
    exact product code · factor — the bits of ``uitofp`` and ``mulf``, but for the sign of a zero (code 0 times a
    negative factor gives +0). It replaces an ``I2FP`` and, for the odd sub-blocks' scales, a second multiply per
    field. Run 313 (an H100, ``bench.experiments.compiler_ab``): the repacked 64 × 128 prefill kernel alone 0.985–0.995
    × the time (1817 SASS instructions per K step against 1874, 20 spilled bytes against 24), its MUL_MAT 0.986–1.005
    ×; on the one-token decode kernel, where it sits between the tile's barrier and the decoded scales', no
    measurable change (its PTX edit ``decode_chain_edits magic+d16``: 1.000–1.013 ×)."""
    as_float = b.emit(arith.BitcastOp(b.or_(code, CODE_MAGIC_BITS), f32))
    return b.fused_fma(as_float, factor, b.mulf(factor, b.fconst(-2.0 ** 23)))


def _half(b: Builder, start: _BlockStart, byte: int, header: Sequence[SSAValue] | None = None) -> SSAValue:
    """The fp16 at ``byte`` as f32: loaded, or the half of a header word (``byte`` even)."""
    if header is None:
        bits = start.load(b, byte, i16)
    else:
        bits = b.emit(arith.TruncIOp(b.lshr(header[byte // 4], 8 * (byte % 4)), i16))
    return b.emit(arith.ExtFOp(b.emit(arith.BitcastOp(bits, f16)), f32))


def _e8m0_half(b: Builder, start: _BlockStart, byte: int) -> SSAValue:
    """2^(e − 128) of the E8M0 byte e, as ggml's ``e8m0_to_fp32_half`` builds its bits: (e − 1) << 23
    (a normal float) for e ≥ 2, the subnormals 2^-128 and 2^-127 (0x00200000 << e) below."""
    e = b.cast_int(start.load(b, byte, i8), i32)  # zero-extended
    normal = b.shl(b.sub(e, 1), 23)
    small = b.shl(b.const(0x00200000), b.and_(e, 1))  # e & 1 = e where chosen; a shift by e >= 32 is poison
    bits = b.select(b.cmp("ult", e, 2), small, normal)
    return b.emit(arith.BitcastOp(bits, f32))


def _scale_byte(b: Builder, start: _BlockStart, codes_byte: int, i: int,
                header: Sequence[SSAValue] | None = None) -> SSAValue:
    """Byte ``i`` of ``scales`` (at ``codes_byte``, 4-aligned), from an aligned 32-bit load (shared by the fields of
    a block) or the block's header words."""
    at = codes_byte + 4 * (i // 4)
    word = header[at // 4] if header is not None else start.load(b, at, i32)
    return b.and_(b.lshr(word, 8 * (i % 4)), 0xFF)


def _q3k_scale(b: Builder, start: _BlockStart, codes_byte: int, s: int) -> SSAValue:
    """q3_K's 6-bit scale ``s`` (0..15) of ``scales[12]`` at ``codes_byte``, as ``dequantize_row_q3_K``'s
    ``aux`` words build it: the low four bits from the nibble s // 8 of byte s mod 8, the top two from
    bits 2 · (s // 4) of byte 8 + s mod 4. Byte loads: the 110-byte blocks leave ``scales`` 2-aligned."""
    def byte(i: int) -> SSAValue:
        return b.cast_int(start.load(b, codes_byte + i, i8), i32)  # zero-extended

    low = b.and_(b.lshr(byte(s % 8), 4 * (s // 8)), 15)
    high = b.and_(b.lshr(byte(8 + s % 4), 2 * (s // 4)), 3)
    return b.or_(low, b.shl(high, 4))


def _iq4xs_scale(b: Builder, start: _BlockStart, codes_byte: int, j: int) -> SSAValue:
    """iq4_xs's 6-bit ls of sub-block ``j`` (0..7), as ``dequantize_row_iq4_xs`` joins it: the nibble j % 2 of
    ``scales_l[j / 2]`` — nibble j of the little-endian ``scales_l`` word, 4-aligned at ``codes_byte`` + 2 in
    the 4-aligned 136-byte blocks — and bits 2j, 2j + 1 of the 16-bit ``scales_h`` at ``codes_byte``. The two
    loads are the same for every j of a block: emitted per j here, they are one word and, with d, one
    ``ld.shared.v2.b16`` in the PTX of a thread that decodes all eight (``_decode_once``; lit
    targets/ptx/mmq-iq4_xs.mlir)."""
    low_word = start.load(b, codes_byte + 2, i32)
    high_half = b.cast_int(start.load(b, codes_byte, i16), i32)  # zero-extended
    low = b.and_(b.lshr(low_word, 4 * j), 15)
    high = b.and_(b.lshr(high_half, 2 * j), 3)
    return b.or_(low, b.shl(high, 4))


def _q4k_scale_or_min(b: Builder, start: _BlockStart, codes_byte: int, j: int, is_min: bool,
                      header: Sequence[SSAValue] | None = None) -> SSAValue:
    if j < 4:
        return b.and_(_scale_byte(b, start, codes_byte, j + 4 if is_min else j, header), 63)
    low_src = _scale_byte(b, start, codes_byte, j + 4, header)
    low = b.lshr(low_src, 4) if is_min else b.and_(low_src, 15)
    high = b.shl(b.lshr(_scale_byte(b, start, codes_byte, j if is_min else j - 4, header), 6), 4)
    return b.or_(low, high)


__all__ = ["lower_derived_load"]

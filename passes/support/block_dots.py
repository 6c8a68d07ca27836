"""The ggml block dots of ``qdot-accelerate-matmul``: llama.cpp's MMQ design in ``qgpu`` ops.

A dot whose operands are ggml blocks (q8_1 / q8_1_mmq activations against q4_K, q5_K, q6_K, q3_K, q2_K, q4_0,
q4_1, q5_0, q5_1, q8_0, mxfp4, iq4_nl or iq4_xs weights) stages the raw blocks in shared memory, reads the int8
quants into the mma layout (nibbles masked or looked up at use, ``qgpu.upcast``) and each block's scales, sums and
mins as f32 per 32 values (``qgpu.block_part`` views), and lets the s8 mma rescale per block with the formats' min
terms as a rank-1 fold (``rewrite_block_dot``); a K step of several super-blocks is sliced into one mma and one fold
per super-block. The tables below say which part of which format plays which role; the pass's remarks read them
too. Split out of passes/accelerate_matmul.py, which calls ``rewrite_block_dot`` for every dot of ggml blocks.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, StringAttr, TensorType, f16, f32, i8, i32, i64
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.diagnostics import emit_error
from compiler.format_table import FORMATS
from dialects.qdot.formats import Format
from dialects.qdot.types import BlockType
from dialects.qdot.ops import DotScaledOp
from dialects.qgpu.block_parts import FOLD_K, Q3K_D32, Q4_0_D16, Q4K_SCALE16, Q5_0_D8, Q6K_D4, SCALE_BITS, BlockPartOp
from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    MmaEncodingAttr,
    SharedEncodingAttr,
)
from dialects.qgpu.layouts import distributed_layout, shared_encoding_for
from dialects.qgpu.shared_layout import BANK_GROUP_BYTES, shared_layout
from dialects.qgpu.ops import ConvertLayoutOp, LocalAllocOp, LocalLoadOp, MemDescTransOp, MmaOp, UpcastOp
from dialects.qgpu.register_formats import HIGH_WORDS, RegFormat, Rescale, values_per_element
from dialects.qgpu.types import MemDescType
from passes.support.dot_operands import (contiguous_dim, insert_at, kernel_warps, one_contiguous_run,
                                         stage_operands_first)
from passes.support.strategy import Plan


ROW_PAD_BYTES = BANK_GROUP_BYTES
"""The padding ``pad-block-rows`` puts after a row (``padded_row_bytes``): one 16-byte bank group."""


def padded_row_bytes(value: SSAValue, blocks_dim: int) -> int:
    """Bytes of padding after each row of a staged block tile under ``pad-block-rows``: 16 where its rows are an even
    number of 16-byte groups apart — two 144-byte blocks, the activation tile of every q8_1_mmq dot, are 18, so
    rows r and r + 4 of the eight an ldmatrix (or a quarter-warp's 16-byte loads) reads start on one bank group and
    the read takes two wavefronts; 19 groups apart, the eight are distinct. Not a tile that is one contiguous run of
    global memory (``one_contiguous_run``: W repacked by ``tile_weights``), whose copy stays one run, nor rows that
    are not whole 16-byte groups."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    element = tensor.get_element_type()
    assert isinstance(element, BlockType)
    row_bytes = tensor.get_shape()[blocks_dim] * element.info.element_bytes
    if row_bytes % BANK_GROUP_BYTES or (row_bytes // BANK_GROUP_BYTES) % 2 or one_contiguous_run(value):
        return 0
    return ROW_PAD_BYTES


def rewrite_block_dot(dot: DotScaledOp, plan: Plan, mma: MmaEncodingAttr, point: InsertPoint,
                       q4k_fold: str = "auto", note: Callable[[str], None] | None = None,
                       pad_rows: str | None = None, swizzle_folds: str | None = None,
                       broadcast_rhs: str | None = None) -> None:
    """ggml blocks (llama.cpp's MMQ design): stage the raw blocks in shared memory — q4_K
    keeps its nibbles packed, masked to int8 only at use (``qgpu.upcast from = q4_K``) —
    read the int8 quants into the ISA mma layout and each block's scales (and sums /
    mins) as f32 per 32 values, and let the s8 mma rescale per block with the dmin
    correction as a rank-1 fold: acc += (d_a·d_b)·C − fold_a·fold_b. q6_K's quants are
    joined from two raw parts at use (``qgpu.upcast … high``) and its int8 scale per 16
    values weights each half of a block's sum in s32 (the mma's ``lhs_sub`` / ``rhs_sub``). ``pad_rows`` /
    ``swizzle_folds``: who asked for padded tile rows / swizzled fold operands (the remarks name it), None: no one.
    ``broadcast_rhs``: who asked for the rhs tile's first row read as every column (``qdot.broadcast_rhs``: a
    one-token kernel, which stores column 0 alone), None: no one; every column of the result is then column 0's."""
    sides = []
    for op_idx, value, fmt in ((0, dot.a, plan.lhs.source), (1, dot.b, plan.rhs.source)):
        tensor = value.type
        assert isinstance(tensor, TensorType)
        shape = tensor.get_shape()
        contiguous = contiguous_dim(value)
        blocks_dim = 1 if op_idx == 0 else 0  # blocks run along K
        if contiguous is not None and contiguous != blocks_dim:
            emit_error(dot, f"{'lhs' if op_idx == 0 else 'rhs'} blocks must be contiguous along K in memory "
                            f"(stride 1 on dimension {blocks_dim} of its descriptor)")
        order = [blocks_dim, 1 - blocks_dim]
        pad = padded_row_bytes(value, blocks_dim) if pad_rows else 0
        shared = SharedEncodingAttr(1, 1, 1, order, row_pad=pad)
        staged = MemDescType(shape, tensor.get_element_type(), shared)
        mem = insert_at(point, LocalAllocOp(staged, value)).results[0]
        sides.append((op_idx, mem, fmt))
        if note is not None and pad:
            rows = shared_layout(staged)
            note(f"{'lhs' if op_idx == 0 else 'rhs'} {fmt} tile staged with its rows padded from {rows.data_row_bytes} "
                 f"to {rows.row_bytes} bytes ({pad_rows}: an ldmatrix's eight rows on distinct bank groups)")
    fold_by_mma = min_term_by_mma(tuple(fmt for _, _, fmt in sides), q4k_fold)
    broadcast = (False, broadcast_rhs is not None)
    if note is not None and broadcast_rhs:
        note(f"rhs {sides[1][2]} tile read as its first row in all {_tensor_shape(dot.acc)[1]} columns "
             f"({broadcast_rhs}: one address per ldmatrix and per d / s read; the result's columns are column 0's)")
    if note is not None:  # the remark (``--remarks``) on the decode-once buffers, if there are any
        text = decode_once_remark(dot, (sides[0][2], sides[1][2]), (sides[0][1], sides[1][1]), mma, fold_by_mma)
        if text is not None:
            note(text)
        if fold_by_mma and swizzle_folds:
            note(f"the dmin mma's f16 operand buffers swizzled ({swizzle_folds}: conflict-free stores and ldmatrix)")
    result: SSAValue | None = None
    for index, slices in enumerate(_k_slices(sides)):
        regs, scales, folds, subs, mins = _slice_operands(dot, sides, slices, mma, fold_by_mma, broadcast, point)
        if index == 0:
            stage_operands_first(dot, point)
            acc_type = dot.acc.type
            assert isinstance(acc_type, TensorType)
            mma_acc_type = TensorType(acc_type.get_element_type(), acc_type.get_shape(), mma)
            result = insert_at(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
        assert result is not None
        int_formats = [NIBBLE_UPCASTS[fmt][1] if fmt in NIBBLE_UPCASTS else RegFormat.S8 for _, _, fmt in sides]
        mma_op = insert_at(point, MmaOp(regs[0], regs[1], result, *int_formats, scales[0], scales[1],
                                      rescale=Rescale.PER_BLOCK, a_fold=folds[0], b_fold=folds[1],
                                      a_sub=subs[0], b_sub=subs[1], a_min=mins[0], b_min=mins[1]))
        mma_op.attributes["qdot.strategy"] = StringAttr(plan.strategy.value)
        # every ggml scale is an fp16 d (11 significant bits) or q4_K's d·sc (6-bit sc: 17), so
        # qdot-lower-mma may fold the s32 → f32 conversion into the scaling (its magic form)
        mma_op.attributes["qdot.scale_bits"] = IntegerAttr(SCALE_BITS, i64)
        result = mma_op.results[0]
        if fold_by_mma:
            result = _fold_mma(sides, slices, mma, result, kernel_warps(dot), point, swizzle_folds is not None,
                               broadcast)
    assert result is not None
    out = insert_at(point, ConvertLayoutOp(result, dot.result.type)).results[0]
    dot.result.replace_all_uses_with(out)
    Rewriter.erase_op(dot)


Q4K_SCALE_PART = Q4K_SCALE16
"""q4_K's quants are upcast in place (``to = u8``: a high nibble as 16 · q, no shift), so their
per-32 scale is the part that divides the odd sub-blocks' d · sc by 16 (exact)."""

NIBBLE_UPCASTS: dict[Format, tuple[RegFormat, RegFormat]] = {
    Format.Q4_K: (RegFormat.Q4_K, RegFormat.U8),
    Format.Q4_0: (RegFormat.Q4_0, RegFormat.S8),
    Format.Q4_1: (RegFormat.Q4_1, RegFormat.U8),
    Format.Q5_0: (RegFormat.Q5_0, RegFormat.S8),
    Format.Q5_1: (RegFormat.Q5_1, RegFormat.U8),
    Format.Q6_K: (RegFormat.Q6_K, RegFormat.S8),
    Format.Q5_K: (RegFormat.Q5_K, RegFormat.S8),
    Format.MXFP4: (RegFormat.MXFP4, RegFormat.S8),
    Format.Q3_K: (RegFormat.Q3_K, RegFormat.S8),
    Format.Q2_K: (RegFormat.Q2_K, RegFormat.U8),
    Format.IQ4_NL: (RegFormat.IQ4_NL, RegFormat.S8),
    Format.IQ4_XS: (RegFormat.IQ4_NL, RegFormat.S8),
}
"""The blocks whose quants are nibbles, packed in shared memory and upcast at use: q4_K's to u8 in
place (its dmin term is a separate fold), q4_0's to s8 as 16 · (code − 8) (its −8 is exact in s8),
q4_1's to u8 codes 0..15 (its m a separate fold), q5_0's to s8 as 8 · (code − 16) and q5_1's to u8 codes
0..31 with their fifth bits from the block's qh word, q6_K's to s8 as 4 · (code − 32) and q5_K's as its
code 0..31 and q3_K's (2-bit fields, four per byte) as 32 · (code − 4), each with its top bits from a second part
(``HIGH_BIT_PARTS``); mxfp4's e2m1 codes to s8 as ggml's ``kvalues_mxfp4`` (a table lookup); q2_K's 2-bit
codes (q3_K's low bits alone) to u8 sc · code (``SCALED_CODES``; its mins per 16 values: ``MINS_PER_16``);
iq4_nl's codes to s8 as ggml's ``kvalues_iq4nl`` (a 16-entry table lookup), and iq4_xs's (the same nibble
pairs per 32 values) the same way."""

BLOCK_SCALE_PARTS: dict[Format, tuple[str, str | None]] = {
    Format.Q4_K: (Q4K_SCALE_PART, "min"),
    Format.Q5_K: ("scale", "min"),
    Format.Q4_0: (Q4_0_D16, None),
    Format.Q4_1: ("d", "min"),
    Format.Q5_0: (Q5_0_D8, None),
    Format.Q5_1: ("d", "min"),
    Format.Q6_K: (Q6K_D4, None),
    Format.Q3_K: (Q3K_D32, None),
    Format.Q2_K: ("d", "dmin"),
    Format.Q8_0: ("d", None),
    Format.MXFP4: ("d", None),
    Format.IQ4_NL: ("d", None),
    Format.IQ4_XS: ("scale", None),
}
"""(per-32 scale, rank-1 fold factor) parts of each weight-side block; others (q8_1, q8_1_mmq):
("d", "s"), the sums read only against the mins of ``MIN_FORMATS`` (against q2_K: ("d", "d"), see
``MINS_PER_16``)."""

WORD_HIGHS = tuple(fmt for fmt, (reg, _) in NIBBLE_UPCASTS.items() if reg in HIGH_WORDS)
"""Blocks whose fifth bits come as one 32-bit ``qh`` word per 32 values (``register_formats.HIGH_WORDS``)."""

SUPER_BLOCKS = (Format.Q4_K, Format.Q5_K, Format.Q6_K, Format.Q3_K, Format.Q2_K, Format.IQ4_XS)
"""256-value weight blocks: a tile of several along K is read one super-block at a time."""

ONE_D_FORMATS = (Format.Q4_0, Format.Q4_1, Format.Q5_0, Format.Q5_1, Format.Q8_0, Format.MXFP4, Format.IQ4_NL)
"""32-value weight blocks with one fp16 d (q4_1, q5_1: and m; mxfp4: an exponent byte) each: widened where they
are read unless many threads read each (``DECODE_ONCE_READERS``)."""

MIN_FORMATS = tuple(fmt for fmt in Format if FORMATS[fmt.value].min_term)
"""The blocks with a min term (``FormatInfo.min_term``: q4_K and q5_K, d · sc · q − dmin · m per 32
values; q4_1 and q5_1, d · q + m): the rank-1 fold against the activations' block sums, by FMA or by one f16
mma per K step (``_fold_mma``)."""



HIGH_BIT_PARTS: dict[Format, tuple[str, str, str | None]] = {Format.Q6_K: ("ql", "qh", "sc"),
                                                             Format.Q5_K: ("qs", "qh", None),
                                                             Format.Q5_0: ("qs", "qh", None),
                                                             Format.Q5_1: ("qs", "qh", None),
                                                             Format.Q3_K: ("qs", "hmask", "sc")}
"""Blocks whose quants come in two raw parts, low bits and top bits, joined at use (``qgpu.upcast …
high``), and the part of the integer scale of each 16-value half where there is one (the mma's
``lhs_sub`` / ``rhs_sub``): q6_K's ql, qh and int8 scales; q3_K's qs, hmask and 6-bit scales; q5_K's qs and
qh (its scales are per 32); q5_0's and q5_1's qs and the block's qh word (an i32 per block, loaded as the
block scales are: ``HIGH_WORDS``)."""

SCALED_CODES: dict[Format, str] = {Format.Q2_K: "sc"}
"""Blocks whose integer scale per 16 values the upcast multiplies into the codes (``qgpu.upcast … scale``,
``register_formats.INTEGER_SCALED``), and its i8 part: q2_K's 4-bit scale times its 2-bit code stays below
256, so each 32-value block is one u8 mma whose sum the magic form converts — where q3_K's 6-bit scale − 32
times its code does not fit a byte, and its two half-block sums are weighted in s32 (``lhs_sub``)."""

MINS_PER_16: dict[Format, str] = {Format.Q2_K: "mn"}
"""Blocks with a min per 16 values, and its i8 part: q2_K's value is d · sc · q − dmin · m per 16 values,
and q8_1 keeps one sum per 32, so its min term cannot be the rank-1 fold of ``MIN_FORMATS``. Its mins go
to the mma as ``lhs_min`` / ``rhs_min`` (in the operand scale layout): a second s8 mma per k tile takes
Σ_k m[k/16] · a_k of the activations' int8 values, which the fold scales by dmin (the block's ``dmin`` part)
and the activations' d (the same value as their scale, given to the mma again as their fold operand) —
llama.cpp's MMQ takes this sum per 16 values with dp4a instead."""

PACKED_SCALES = (Format.IQ4_XS,)
"""Blocks without a min whose per-32 scale is a packed 6-bit code — iq4_xs's ls, a nibble and two bits of two
fields, eight instructions and two loads to join and scale where read — unpacked once per CTA into an f32
buffer (``_decode_once``), as q4_K's scales are (which its ``MIN_FORMATS`` membership decides)."""

PACKED_SUB_SCALES = (Format.Q3_K,)
"""Blocks whose integer scale per 16 values (``HIGH_BIT_PARTS``' third part) is packed — q3_K's 6-bit codes in
``scales[12]``, two byte loads and seven to nine more instructions each to unpack where read, by every thread
of its row (q6_K's int8 one is a single sign-extending load): unpacked once per CTA into an i32 buffer (``_decode_once``), as q4_K's scales are."""

SUB_BLOCKS_CONTIGUOUS_LHS = (Format.Q4_K,)
"""Weights whose scales, decoded once per CTA, are stored with a row's sub-blocks contiguous where the weights are
the mma's A side against at most ``SUB_BLOCKS_CONTIGUOUS_MAX_N`` columns (the M ≤ 8 and one-token kernels) and their
tile is one contiguous run (``dot_operands.one_contiguous_run``: W repacked by ``tile_weights``); elsewhere rows
contiguous. An A thread holds rows g and g + 8, never adjacent, so rows contiguous gives one 4-byte load per row and
sub-block; sub-blocks contiguous lets it read a row's sub-blocks of the K step in 16-byte loads — q4_K's one-token
loop 59 → 35 shared loads per step — at the cost of holding them all live. Runs 272–273 (kernel alone, W
repacked): q4_K's one-token kernel 5.5 % faster at 4096 × 14336 (0.99–1.01 × at the other decode shapes), its
M ≤ 8 kernel 3.1–4.0 % there and 2.4–2.8 % at 32768 × 8192; q5_K 0.97–1.01 ×, iq4_xs 0.99–1.02 ×, mxfp4
0.99–1.00 × (left rows contiguous); q3_K, whose i32 scales are per 16 values, 1.04–1.16 × slower (ptxas keeps two
of them in local memory); q4_K's 16-token kernel 1.01–1.07 × slower, the 32- and 64-token ones mixed (their
registers change the grid). Run 276, ggml's order, whose copies take one address per row: 96 → 128 and 109 → 153
registers, the M ≤ 8 kernel 1.03–1.06 × slower at 4096², the one-token kernel's grid changed — left rows
contiguous."""
SUB_BLOCKS_CONTIGUOUS_MAX_N = 8
"""The widest dot (columns: tokens) whose A-side scales ``SUB_BLOCKS_CONTIGUOUS_LHS`` stores sub-blocks contiguous:
one n8 mma tile, four accumulator registers per m16 tile, so the step's live scales cost little."""

Slices = tuple[tuple[int, int | None], ...]
"""Per side of a block dot: (first block, block count) along K of the staged tile (count None:
the whole tile)."""


def _k_slices(sides: list) -> list[Slices]:
    """The dot's K steps over the staged tiles: one per q4_K super-block when a q4_K tile holds
    several along K (``MmqConfig(k_blocks)``), so that each super-block's operands are read and
    rescaled right before its mma, not the whole tile's at once (which does not fit in
    registers); else one step over everything."""
    whole: list[Slices] = [tuple((0, None) for _ in sides)]
    formats = [fmt for _, _, fmt in sides]
    super_block = next((fmt for fmt in formats if fmt in SUPER_BLOCKS), None)
    if super_block is None:
        return whole
    k_blocks = []
    for op_idx, mem, _ in sides:
        mem_type = mem.type
        assert isinstance(mem_type, MemDescType)
        k_blocks.append(mem_type.get_shape()[1 if op_idx == 0 else 0])
    steps = k_blocks[formats.index(super_block)]
    if steps == 1 or any(blocks % steps for blocks in k_blocks):
        return whole
    return [tuple((step * blocks // steps, blocks // steps) for blocks in k_blocks) for step in range(steps)]


def _slice_operands(dot: DotScaledOp, sides: list, slices: Slices, mma: MmaEncodingAttr, fold_by_mma: bool,
                    broadcast: tuple[bool, bool], point: InsertPoint
                    ) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue | None], list[SSAValue | None],
                               list[SSAValue | None]]:
    """The s8 mma's operands for one K step: quants (q4_K nibbles upcast at use, q6_K's low and top
    bits joined), per-32-value scales, without the mma fold the dmin fold's factors, and q6_K's
    integer scales per 16 values. ``broadcast[op_idx]``: that side's views read its first row as every row."""
    # q4_K scales (and q4_0's / q8_0's d where many threads read each) are decoded into shared
    # memory first: the register → shared stores and their barrier then precede every operand
    # load of the step, so nothing has to be loaded early and kept live across them
    decoded: dict[tuple[int, str], SSAValue] = {}
    for (op_idx, mem, fmt), (first, count) in zip(sides, slices, strict=True):
        for part in decoded_parts(op_idx, mem, fmt, mma, fold_by_mma):
            view = _part(mem, part, first, count, broadcast[op_idx], point)
            decoded[(op_idx, part)] = _decode_once(view, kernel_warps(dot), point,
                                                   sub_blocks_contiguous(dot, op_idx, fmt))
    formats = (sides[0][2], sides[1][2])
    # only a dmin term reads the activations' block sums, and _fold_mma reads them itself
    minned = next((fmt for fmt in formats if fmt in MIN_FORMATS), None)
    needs_fold = minned is not None and not fold_by_mma
    per16 = next((fmt for fmt in formats if fmt in MINS_PER_16), None)
    if per16 is not None:
        minned, needs_fold = per16, True
    regs, scales, folds, subs, mins = [], [], [], [], []
    for (op_idx, mem, fmt), (first, count) in zip(sides, slices, strict=True):
        low_part, high_part, sub_part = HIGH_BIT_PARTS.get(fmt, ("qs", None, None))
        loaded = _raw_operand(mem, low_part, first, count, op_idx, mma, broadcast[op_idx], point)
        if fmt in NIBBLE_UPCASTS:  # two values per byte (q3_K: four): the upcast doubles (quadruples) K
            k_dim = 1 if op_idx == 0 else 0
            shape = list(_tensor_shape(loaded))
            shape[k_dim] *= values_per_element(NIBBLE_UPCASTS[fmt][0])
            high = None
            if fmt in WORD_HIGHS:  # one qh word per block, held by the threads of its operand values
                assert high_part is not None
                view = _part(mem, high_part, first, count, broadcast[op_idx], point)
                vt = view.type
                assert isinstance(vt, MemDescType)
                words = TensorType(i32, vt.get_shape(), DotScaleEncodingAttr(op_idx, mma, operand=True))
                high = insert_at(point, LocalLoadOp(view, words)).results[0]
            elif high_part:
                high = _raw_operand(mem, high_part, first, count, op_idx, mma, broadcast[op_idx], point)
            code_scale = _per_16_operand(mem, SCALED_CODES[fmt], first, count, op_idx, mma, broadcast[op_idx], point) \
                if fmt in SCALED_CODES else None
            source, target = NIBBLE_UPCASTS[fmt]
            loaded = insert_at(point, UpcastOp(loaded, source, target,
                                             TensorType(i8, shape, DotOperandEncodingAttr(op_idx, mma, 4)),
                                             scale=code_scale, high=high)).results[0]
        regs.append(loaded)
        scale_part, fold_part = BLOCK_SCALE_PARTS.get(fmt, ("d", "d" if per16 is not None else "s"))
        enc = DotScaleEncodingAttr(op_idx, mma)
        values: list[SSAValue | None] = []
        for index, part in enumerate((scale_part, fold_part)):
            if index == 1 and (not needs_fold or fold_part is None):  # q8_0 / q4_0 have no sums
                values.append(None)
                continue
            if index == 1 and part == scale_part:  # the activations' d, the fold factor of q2_K's mins
                values.append(values[0])
                continue
            view = decoded.get((op_idx, part)) or _part(mem, part, first, count, broadcast[op_idx], point)
            vt = view.type
            assert isinstance(vt, MemDescType)
            values.append(insert_at(point, LocalLoadOp(view, TensorType(f32, vt.get_shape(), enc))).results[0])
        scales.append(values[0])
        folds.append(values[1])
        sub = None
        if sub_part is not None:
            view = decoded.get((op_idx, sub_part)) or _part(mem, sub_part, first, count, broadcast[op_idx], point)
            vt = view.type
            assert isinstance(vt, MemDescType)
            sub = insert_at(point, LocalLoadOp(view, TensorType(i32, vt.get_shape(), enc))).results[0]
        subs.append(sub)
        mins.append(_per_16_operand(mem, MINS_PER_16[fmt], first, count, op_idx, mma, broadcast[op_idx], point)
                    if fmt in MINS_PER_16 else None)
    if needs_fold and minned is not None and folds[1 - formats.index(minned)] is None:
        emit_error(dot, f"{minned} pairs with q8_1 / q8_1_mmq activations: its dmin term needs their block sums")
    return regs, scales, folds, subs, mins


def _part(mem: SSAValue, part: str, first: int, count: int | None, broadcast: bool, point: InsertPoint) -> SSAValue:
    """The ``qgpu.block_part`` view of ``part`` of the staged blocks ``mem`` (``broadcast``: its first row as every
    row)."""
    return insert_at(point, BlockPartOp(mem, part, first, count, broadcast)).results[0]


def _per_16_operand(mem: SSAValue, part: str, first: int, count: int | None, op_idx: int, mma: MmaEncodingAttr,
                    broadcast: bool, point: InsertPoint) -> SSAValue:
    """An i8 part per 16 values (q2_K's scales and mins, four to a register) in the operand scale layout: each operand
    register's row (A) or column (B) in the thread that holds it (``passes.support.group_registers``)."""
    view = _part(mem, part, first, count, broadcast, point)
    vt = view.type
    assert isinstance(vt, MemDescType)
    operand_enc = DotScaleEncodingAttr(op_idx, mma, operand=True)
    return insert_at(point, LocalLoadOp(view, TensorType(i8, vt.get_shape(), operand_enc))).results[0]


def _raw_operand(mem: SSAValue, part: str, first: int, count: int | None, op_idx: int, mma: MmaEncodingAttr,
                 broadcast: bool, point: InsertPoint) -> SSAValue:
    """A raw part of the staged blocks (bytes as they are) read into the s8 mma's operand layout."""
    view = _part(mem, part, first, count, broadcast, point)
    view_type = view.type
    assert isinstance(view_type, MemDescType)
    return insert_at(point, LocalLoadOp(view, TensorType(i8, view_type.get_shape(),
                                                       DotOperandEncodingAttr(op_idx, mma, 4)))).results[0]


def _tensor_shape(value: SSAValue) -> tuple[int, ...]:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tuple(tensor.get_shape())


def min_term_by_mma(formats: tuple[Format, Format], q4k_fold: str) -> bool:
    """Whether the min term of q4_K, q5_K, q4_1 or q5_1 goes through ``_fold_mma`` (against q8_1_mmq
    only: the f16 mma needs q8_1_mmq's per-32 sums, exact in f16). ``auto`` takes it for the K-quants
    in both operand orders, prefill (q8_1_mmq × q4_K) and decode (q4_K × q8_1_mmq), and for q4_1 /
    q5_1 in the prefill order only: as the decode kernels' lhs their m went 1.2–1.6 × faster by FMA
    (run 181, M ≤ 8 kernel: q4_1 16.7 → 13.5 µs, q5_1 27.7 → 17.6 µs at 4096 × 14336)."""
    minned = next((fmt for fmt in MIN_FORMATS if set(formats) == {fmt, Format.Q8_1_MMQ}), None)
    if minned is None:
        return False
    if q4k_fold == "auto" and minned not in SUPER_BLOCKS and formats[0] is minned:
        return False
    return q4k_fold != "fma"


def _fold_mma(sides: list, slices: Slices, mma: MmaEncodingAttr, acc: SSAValue, warps: int,
              point: InsertPoint, swizzle: bool = False, broadcast: tuple[bool, bool] = (False, False)) -> SSAValue:
    """The dmin term of q4_K (or q5_K), −Σ_j s_j·(dmin·m_j), as one f16 mma per super-block.

    Per accumulator and 32-value block the rank-1 fold costs an FMA — as much as the
    rescale itself. Instead the eight (s_j, m_j) pairs of a super-block go through the
    tensor core: the q8_1 sums s (fp16) and q4_K's 6-bit mins m are exact in f16, their
    products exact in the f32 accumulator, and only dmin·(Σ s·m) is left per element,
    once per super-block: ``qgpu.mma`` with ``rescale = "per_block"`` over K = 16 (the
    eight sub-blocks, padded; see ``m_pad`` in dialects/qgpu/block_parts.py), scaled by
    −1 on the activation side and dmin on the weight side. q4_1's + Σ_j s_j·m_j goes the same
    way: its eight blocks of a K step pair (−m_j, 0) with q8_1_mmq's (s_j, 0) (``s_pair``), scaled
    by 1 on its side (q5_1's alike).
    """
    minned = next(fmt for _, _, fmt in sides if fmt in MIN_FORMATS)
    super_block = minned in SUPER_BLOCKS
    parts = {minned: "m_pad", Format.Q8_1_MMQ: "s_pad" if super_block else "s_pair"}
    # both decoded before either is read: the two copies share one barrier after their stores
    # (shared_stores.defer_trailing_barriers)
    decoded = [_decode_once(_part(mem, parts[fmt], first, count, broadcast[op_idx], point), warps, point,
                            swizzle_f16=swizzle)
               for (op_idx, mem, fmt), (first, count) in zip(sides, slices, strict=True)]
    operands, scales = [], []
    for (op_idx, mem, fmt), (first, count), view in zip(sides, slices, decoded, strict=True):
        if op_idx == 1:
            view = insert_at(point, MemDescTransOp(view, [1, 0])).results[0]
        vt = view.type
        assert isinstance(vt, MemDescType)
        operands.append(insert_at(point, LocalLoadOp(view, TensorType(f16, vt.get_shape(),
                                                                    DotOperandEncodingAttr(op_idx, mma, 2)))).results[0])
        rows, k_values = vt.get_shape()[0 if op_idx == 0 else 1], vt.get_shape()[1 if op_idx == 0 else 0]
        # one scale per K step: a tile of several along K has as many f16 mma k-blocks
        scale_type = TensorType(f32, [rows, k_values // FOLD_K], DotScaleEncodingAttr(op_idx, mma))
        if fmt is minned and super_block:
            dmin = _part(mem, "dmin", first, count, broadcast[op_idx], point)
            scales.append(insert_at(point, LocalLoadOp(dmin, scale_type)).results[0])
        else:  # −1 on the sums' side; q4_1's m_pad is −m already, so its side is 1
            sign = DenseIntOrFPElementsAttr.from_list(scale_type, [1.0 if fmt is minned else -1.0])
            scales.append(insert_at(point, arith.ConstantOp(sign)).results[0])
    fold = insert_at(point, MmaOp(operands[0], operands[1], acc, RegFormat.FP16, RegFormat.FP16, scales[0], scales[1],
                                rescale=Rescale.PER_BLOCK))
    fold.attributes["qdot.fold"] = StringAttr("dmin" if super_block else "m")
    return fold.results[0]


DECODE_ONCE_READERS = 8
"""Threads reading each per-block d of a 32-value block side (``ONE_D_FORMATS``) from which it is widened once per CTA
into an f32 buffer (``_decode_once``) rather than where it is read. As the prefill's N side
(8 lanes × 2 warps read each) it takes 288 of 2158 instructions out of the K step, and the
prefill ran 6–20 % faster with it and this session's two other q4_0 / q8_0 changes (run 154;
each change alone was not timed); as the decode kernels' M side (4 lanes of one warp) those
kernels ran 1–6 % slower with it than without at the L2-resident shapes (runs 154 and 155):
the stores and barrier are not paid back. 8 lies between the two measured cases."""

DECODE_ONCE_READERS_OF = {Format.MXFP4: 4}
"""Formats whose d costs more to decode where it is read than an fp16's one widening, with their own
``DECODE_ONCE_READERS``: mxfp4's 2^(e − 128) is six instructions per read (``block_fields._e8m0_half``),
paid back already by the 4 lanes of the decode kernels' M side — run 189: the decode kernels 2–14 % faster
at the goal shapes (the one-token K step 1021 → 947 SASS instructions), 2–3 % slower only at the small
L2-resident ones, as q4_0's were."""


def decode_once_readers(fmt: Format) -> int:
    return DECODE_ONCE_READERS_OF.get(fmt, DECODE_ONCE_READERS)


def _scale_readers(mem: SSAValue, op_idx: int, mma: MmaEncodingAttr) -> int:
    """Threads holding the same per-block scale of the staged block tile ``mem`` in the mma's
    scale layout (``#qgpu.dot_scale``: the accumulator's rows are shared by the 4 lanes of a quad
    and every warp along N, its columns by 8 lanes and every warp along M), asked of that layout."""
    mem_type = mem.type
    assert isinstance(mem_type, MemDescType)
    k_dim = 1 if op_idx == 0 else 0
    shape = mem_type.get_shape()  # one scale per block: [rows, blocks]
    scales = TensorType(f32, [shape[1 - k_dim], shape[k_dim]], DotScaleEncodingAttr(op_idx, mma))
    return len(distributed_layout(scales).owners((0, 0)))


def decoded_parts(op_idx: int, mem: SSAValue, fmt: Format, mma: MmaEncodingAttr, fold_by_mma: bool) -> tuple[str, ...]:
    """The block parts of one side that are decoded once per CTA into a shared buffer (``_decode_once``) rather
    than where each thread reads them: q4_K's and q5_K's 6-bit scales (and mins, where the min term is an FMA per
    block rather than an f16 mma), iq4_xs's packed scales, q3_K's per-16 ones, and a 32-value block's fp16 d where
    enough threads read each (``decode_once_readers``)."""
    scale_part, min_part = BLOCK_SCALE_PARTS.get(fmt, ("d", None))
    fold_parts = (min_part,) if fmt in MIN_FORMATS and not fold_by_mma else ()
    if (fmt in MIN_FORMATS and fmt in SUPER_BLOCKS) or fmt in PACKED_SCALES:  # 6-bit codes unpacked: always once
        return (scale_part, *fold_parts)
    if fmt in PACKED_SUB_SCALES:  # q3_K's 6-bit scales per 16 values: unpacked once too
        return (HIGH_BIT_PARTS[fmt][2],)
    if fmt in ONE_D_FORMATS and _scale_readers(mem, op_idx, mma) >= decode_once_readers(fmt):
        return (scale_part, *fold_parts)  # one fp16 d (and q4_1's / q5_1's m) per block: widened once
    return ()


def sub_blocks_contiguous(dot: DotScaledOp, op_idx: int, fmt: Format) -> bool:
    """Whether a side's decoded buffers keep a row's sub-blocks contiguous (``SUB_BLOCKS_CONTIGUOUS_LHS``)."""
    return (op_idx == 0 and fmt in SUB_BLOCKS_CONTIGUOUS_LHS
            and _tensor_shape(dot.acc)[1] <= SUB_BLOCKS_CONTIGUOUS_MAX_N and one_contiguous_run(dot.a))


def decode_once_remark(dot: DotScaledOp, formats: tuple[Format, Format], mems: tuple[SSAValue, SSAValue],
                       mma: MmaEncodingAttr, fold_by_mma: bool) -> str | None:
    """qdot-accelerate-matmul's remark on the buffers ``_decode_once`` fills for a block dot, and their order."""
    parts = []
    for op_idx, (fmt, mem) in enumerate(zip(formats, mems, strict=True)):
        decoded = decoded_parts(op_idx, mem, fmt, mma, fold_by_mma)
        if not decoded:
            continue
        side, columns = "lhs" if op_idx == 0 else "rhs", _tensor_shape(dot.acc)[1]
        if sub_blocks_contiguous(dot, op_idx, fmt):
            order = ("a row's sub-blocks contiguous (the A side of an n8 mma, its tile one contiguous run: each "
                     "thread reads its rows' scales of the K step in 16-byte loads), its 16-byte chunks swizzled "
                     "(conflict-free stores)")
        elif op_idx == 1:
            order = "rows contiguous (a B-side thread's two adjacent columns of a sub-block are one 8-byte load)"
        elif fmt not in SUB_BLOCKS_CONTIGUOUS_LHS:
            order = f"rows contiguous (sub-blocks contiguous was not faster for {fmt}, run 272)"
        elif columns > SUB_BLOCKS_CONTIGUOUS_MAX_N:
            order = f"rows contiguous ({columns} columns: more accumulators live than an n8 mma's)"
        else:
            order = "rows contiguous (the tile's rows lie apart in memory: its copies hold an address per row)"
        parts.append(f"{side} {fmt} {', '.join(decoded)}: {order}")
    return "scales decoded once per CTA into shared buffers: " + "; ".join(parts) if parts else None


def _decode_once(view: SSAValue, warps: int, point: InsertPoint, by_sub_blocks: bool = False,
                 swizzle_f16: bool = False) -> SSAValue:
    """Decode a q4_K scale/min view (or a 32-value block's d: q4_0's, q8_0's, mxfp4's; or q3_K's i32
    scales per 16 values) cooperatively into a shared buffer of the view's element type.

    In the mma layouts eight lanes (and every warp of an M row of warps) hold the
    same columns, so decoding the 6-bit scales where they are read would repeat the
    work 16 times or more (for an fp16 d the widening and q4_0's / 16: 320 → 80 instructions per
    K step of the 64×128 prefill tile). Instead each thread decodes one column's eight sub-blocks
    (a blocked layout over [columns, sub-blocks], so the column's 12 scale bytes are
    read once; threads past the last column repeat the first ones), writes them to
    shared memory, and the mma operands
    read plain f32 from there — llama.cpp's load_tiles does the same.
    """
    vt = view.type
    assert isinstance(vt, MemDescType)
    rows, values = vt.get_shape()
    blocked = BlockedEncodingAttr([1, values], [32, 1], [warps, 1], [1, 0])  # a column's sub-blocks per thread
    element = vt.get_element_type()
    decoded = insert_at(point, LocalLoadOp(view, TensorType(element, [rows, values], blocked))).results[0]
    # columns contiguous: an mma thread's two adjacent columns of one sub-block are one 8-byte
    # load, used in that sub-block's k step only (sub-blocks contiguous would load four k
    # steps' scales at once and keep them live), unless the caller asks for a row's sub-blocks
    # contiguous (by_sub_blocks, SUB_BLOCKS_CONTIGUOUS_LHS: an A side, whose threads hold no adjacent rows)
    # (f16 fold operands are read as mma fragments: rows of sub-blocks, contiguous)
    order = [1, 0] if element == f16 or by_sub_blocks else [0, 1]
    encoding = SharedEncodingAttr(1, 1, 1, order)
    if order == [1, 0] and (element != f16 or swizzle_f16):
        # thread t writes row t: rows of 32 bytes put a quarter-warp's eight 16-byte stores on each bank twice
        # (run 306: 6 % of the goal kernel's wavefronts, its L1/TEX unit the busiest); the conflict-free swizzle
        # moves whole 16-byte chunks, so the readers' 16-byte runs stay single loads (qdot-lower-local-load's
        # vector runs). Run 315: the one-token kernel 5–7 % faster at 4096 × 14336 and 4096². The f16 fold operands
        # (rows of 16 halves, read by ldmatrix, which the swizzle keeps) have the same 2-way stores and reads, but
        # take it only where asked (swizzle-fold-buffers, or the kernel's qdot.swizzle_fold_buffers): run 317 found
        # the 8-token decode kernel 0.91-1.01 x the time with it, the prefill kernel 1.00-1.01 x
        encoding = shared_encoding_for([rows, values], element, order)
    shared = MemDescType([rows, values], element, encoding)
    return insert_at(point, LocalAllocOp(shared, decoded)).results[0]


__all__ = ["MIN_FORMATS", "NIBBLE_UPCASTS", "SUPER_BLOCKS", "decode_once_readers", "decode_once_remark",
           "decoded_parts", "min_term_by_mma", "sub_blocks_contiguous",
           "rewrite_block_dot"]

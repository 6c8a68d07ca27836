"""qdot-accelerate-matmul: turn each ``qdot.dot_scaled`` into a tensor-core plan.

Decides, per dot and for the requested ``arch`` and ``strategy``
(``passes/support/strategy.py`` holds the table): the ``#qgpu.mma`` encoding and
how the warps tile the output; how each operand reaches registers — staged in
shared memory (``qgpu.local_alloc``, an ``fp4Padded`` layout for an fp4 operand
of a native mixed dot), read into a ``#qgpu.dot_op`` layout (``qgpu.local_load``,
``fp4Unpacked`` for that fp4 operand) and converted in registers
(``qgpu.upcast``: fp4 → s8/e4m3/bf16, fp8 → bf16, block scales folded in where
exact) — or, for a tile contiguous along K, converted once per CTA into a shared
buffer of the mma's type that ldmatrix reads (dequant-bf16; fp4/fp6 → s8 under
promote-int8; fp4 → e4m3 under promote-fp8 where that lets both sides use
ldmatrix); and where the block scales go (folded, rescaled per block in fp32, or
given to the block-scaled instruction; a side without scales under a per-block
rescale gets unit scales of the other side's type). The accumulator takes the
``#qgpu.mma`` layout through the K loop (``scf.for`` iter_args) up to its store —
also when the loop carries the ``arith.addf`` of each step's dot and the sum (a dot
started from zero, the sum promoted to f32 each K step); where it meets a plain (unencoded) tensor of
the qdot level — a function argument or result — the boundary is a ``builtin.unrealized_conversion_cast``
(``passes.support.accumulator_layouts``). A tile loaded only to be added and stored, not read by a
dot (the stream-K fix-up's partial tiles), takes a ``#qgpu.blocked`` layout of 16-byte runs per
thread, which the sums and their loop carry the same way (``passes.support.loaded_tiles``).

It leaves for later passes: how the global → shared copies are pipelined
(``qdot-pipeline``), which instruction loads shared memory (``qdot-lower-local-load``),
the mma instructions themselves (``qdot-lower-mma``) and everything else
(``qdot-to-llvm``). An illegal request (``native`` on sm_90, e4m3 under
``promote-int8``…) is a diagnostic at the dot.

Options: ``arch``, ``strategy`` (``auto`` by default) and ``q4k-fold`` (``auto``, ``mma`` or
``fma``: how a q4_K × q8_1_mmq dot — or q5_K's, which has the same term — applies its dmin term;
see ``AccelerateMatmulPass``).

Lit tests: ``tests/lit/qdot-accelerate-matmul/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    i64,
    Float32Type,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnknownLoc,
    f16,
    f32,
    i8,
    i32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from compiler import remarks
from compiler.diagnostics import emit_error
from compiler.format_table import FORMATS
from compiler.pipelines import PTX_ARCHES, Q4K_FOLDS
from dialects.qdot.dot import DotProblem
from dialects.qdot.formats import Format, format_info
from dialects.qdot.kernel import LoadOp, TransOp, is_kernel, num_warps
from dialects.qdot.ops import DotScaledOp
from dialects.qgpu.block_parts import FOLD_K, Q3K_D32, Q4_0_D16, Q4K_SCALE16, Q5_0_D8, Q6K_D4, SCALE_BITS, BlockPartOp
from dialects.ptx.arch import Arch, Feature
from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    WARP_GROUP,
    MmaEncodingAttr,
    SharedEncodingAttr,
)
from dialects.qgpu.layouts import distributed_layout, shared_encoding_for
from dialects.qgpu.ops import ConvertLayoutOp, LocalAllocOp, LocalLoadOp, MemDescTransOp, MmaOp, UpcastOp
from dialects.qgpu.register_formats import HIGH_WORDS, RegFormat, Rescale, element_type, values_per_element
from dialects.qgpu.types import MemDescType
from dialects.qgpu.warp_group_dot import WGMMA_FORMATS, WarpGroupDotOp
from dialects.qgpu.wgmma_operands import operand_descriptor, wgmma_shared_encoding
from passes.support.accumulator_layouts import has_layout, propagate_accumulator_layouts, refuse_plain_meetings
from passes.support.loaded_tiles import layout_register_loads
from passes.support.options import check_option_values
from passes.support.stored_tiles import layout_stored_tiles, unit_stride_dim
from passes.support.strategy import (
    FP8_MMA_NATIVE_ARCHES,
    STRATEGY_NAMES,
    OperandPlan,
    Plan,
    PlanError,
    Strategy,
    auto_not_asked,
    auto_order,
    choose_plan,
)


_SOURCE_REG = {
    Format.E4M3: RegFormat.E4M3, Format.E5M2: RegFormat.E5M2, Format.E2M3: RegFormat.E2M3,
    Format.E3M2: RegFormat.E3M2, Format.E2M1: RegFormat.E2M1, Format.BF16: RegFormat.BF16,
    Format.FP16: RegFormat.FP16, Format.I8: RegFormat.S8,
}


@dataclass(frozen=True)
class AccelerateMatmulPass(ModulePass):
    name = "qdot-accelerate-matmul"
    OPTION_VALUES: ClassVar[dict[str, tuple[str, ...]]] = {
        "arch": PTX_ARCHES, "strategy": STRATEGY_NAMES, "q4k_fold": Q4K_FOLDS}
    """What each option takes (the tools' --help lists it; ``apply`` refuses anything else)."""

    arch: str = "sm_90"
    strategy: str = "auto"
    q4k_fold: str = "auto"
    """How a q4_K (or q5_K) × q8_1_mmq dot applies the dmin term (``q4k-fold=``): ``mma``, one f16 mma
    per super-block over the block sums and mins staged in shared memory; ``fma``, one FMA per
    accumulator and 32-value block (no staging, no barriers); ``auto``, the one measured
    faster for the dot's shape (``_fold_by_mma``: for q4_1 and q5_1, whose m terms go either way too,
    the mma in the prefill order only). Against q8_1 (not q8_1_mmq) the term is always an FMA per block."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            warps = num_warps(func)
            laid_out: set[TensorType] = set()
            for dot in [d for d in func.walk() if isinstance(d, DotScaledOp)]:
                try:
                    with _located_at(dot):
                        _rewrite_dot(dot, self.arch, Strategy(self.strategy), warps, self.q4k_fold)
                    _check_layouts(func, laid_out)
                except VerifyException as err:  # LayoutError included
                    emit_error(dot, f"qdot-accelerate-matmul: this dot's tiles do not fit the register layouts of "
                                    f"its plan on {warps} warp{'s' if warps != 1 else ''}: "
                                    f"{str(err).splitlines()[0]}")
            layout_register_loads(func, warps)
            propagate_accumulator_layouts(func)
            layout_stored_tiles(func, warps)
            if is_kernel(func):
                refuse_plain_meetings(func)



@contextmanager
def _located_at(dot: DotScaledOp) -> Iterator[None]:
    """The ops that replace ``dot`` take its location, as MLIR's rewrite patterns give the ops
    they create the location of the op they rewrite: a later pass's diagnostic or remark about
    one of them (a ``qgpu.local_load``'s ldmatrix, a ``qgpu.mma``'s instruction) then points at
    the dot it came from, not at the loop or function around it."""
    block, before, after = dot.parent, dot.prev_op, dot.next_op
    location = dot.location
    try:
        yield
    finally:
        if block is not None:
            op = before.next_op if before is not None else block.first_op
            while op is not None and op is not after:
                if isinstance(op.location, UnknownLoc):
                    op.location = location
                op = op.next_op


def _check_layouts(func: FuncOp, laid_out: set[TensorType]) -> None:
    """Lay out every distributed tensor type of ``func`` not checked yet, so a tile that a plan's
    layouts cannot cover (a dimension that neither divides nor is a multiple of the CTA tile,
    a K shorter than the mma's k-span) fails here, at its dot, not in a later pass."""
    for inner in func.walk():
        for value in inner.results:
            tensor = value.type
            if isinstance(tensor, TensorType) and has_layout(tensor) and tensor not in laid_out:
                distributed_layout(tensor)
                laid_out.add(tensor)


# ---------------------------------------------------------------------------------------------
# One dot


def _rewrite_dot(dot: DotScaledOp, arch: str, strategy: Strategy, warps: int, q4k_fold: str = "auto") -> None:
    problem = dot.problem()
    try:
        plan = choose_plan(arch, strategy, problem.lhs, problem.rhs, problem.lhs_scale, problem.rhs_scale,
                           problem.lhs_k_pack, problem.rhs_k_pack)
    except PlanError as err:
        emit_error(dot, str(err))
    point = InsertPoint.before(dot)
    noting = remarks.enabled(AccelerateMatmulPass.name)
    if noting:
        remarks.remark(dot, AccelerateMatmulPass.name, _strategy_remark(plan, arch, strategy, problem))
    if _warp_group_plan(dot, plan, arch, warps, problem.m, problem.n):
        if noting:
            _remark_warp_group(dot, plan, warps, problem.n)
        _rewrite_warp_group_dot(dot, plan, warps, point)
        return
    mma = MmaEncodingAttr(_warp_grid(dot, problem.m, problem.n, warps))
    if format_info(problem.lhs).is_block:
        if noting:
            _remark_mma(dot, plan, mma, problem.m, problem.n, 4, _dmin_remark(plan, q4k_fold))
        _rewrite_block_dot(dot, plan, mma, point, q4k_fold)
        return
    plan, unstaged = _staged_fp8_plan(dot, plan, arch, mma, problem.m, problem.n)
    if noting and unstaged:
        remarks.remark(dot, AccelerateMatmulPass.name, f"e2m1 not converted to e4m3 once per CTA: {unstaged}")
    k_width = _k_width_values(plan)
    if _read_by_ldmatrix(dot, plan):
        # both operands come from shared buffers of the mma's type: the ISA arrangement, read by ldmatrix
        # (fp16 x fp16 took kWidth 4, and promote-fp8 with packed e2m1 kWidth 8, until the remarks
        # showed their operands falling back to scalar loads)
        k_width = 2 if plan.lhs.reg in (RegFormat.BF16, RegFormat.FP16) else 4
    if noting:
        _remark_mma(dot, plan, mma, problem.m, problem.n, k_width)

    a_reg = _operand(dot, dot.a, 0, plan.lhs, plan, mma, k_width, dot.a_scale, point)
    b_reg = _operand(dot, dot.b, 1, plan.rhs, plan, mma, k_width, dot.b_scale, point)
    a_scale, b_scale = _mma_scales(dot, plan, mma, problem.m, problem.n, problem.k, point)

    _allocs_first(dot, point)
    acc_type = dot.acc.type
    assert isinstance(acc_type, TensorType)
    acc_elem = acc_type.get_element_type()
    mma_acc_type = TensorType(acc_elem, acc_type.get_shape(), mma)
    acc_in = _insert(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
    mma_op = _insert(point, MmaOp(a_reg, b_reg, acc_in, plan.lhs.reg, plan.rhs.reg, a_scale, b_scale,
                                  rescale=plan.rescale if plan.rescale is not Rescale.NONE else None))
    mma_op.attributes["qdot.strategy"] = _str_attr(plan.strategy.value)
    if plan.lhs.exp or plan.rhs.exp:
        # register value = real value · 2^exp (promote-int8); the rescale undoes it exactly
        mma_op.attributes["qdot.exp"] = DenseArrayBase.from_list(i64, [plan.lhs.exp, plan.rhs.exp])
    out = _insert(point, ConvertLayoutOp(mma_op.results[0], dot.result.type)).results[0]
    dot.result.replace_all_uses_with(out)
    Rewriter.erase_op(dot)


def _warp_group_plan(dot: DotScaledOp, plan: Plan, arch: str, warps: int, m: int, n: int) -> bool:
    """Whether the dot runs on ``wgmma`` (``qgpu.warp_group_dot``) instead of ``mma.sync``.

    On sm_90a, a plan whose operands both end up as bf16 (f16) buffers in shared memory —
    dequantized once per CTA with their scales folded in, or bf16 inputs staged K-major —
    hands those buffers to the tensor cores directly: no ldmatrix, no operand registers,
    and one instruction per warpgroup, 64 rows and k16 step where ``mma.sync`` needs 2·N/8
    per warp. It needs whole warpgroups stacked along M (warps a multiple of 4, M a
    multiple of 16·warps), N ≤ 256 (one instruction spans the tile's N), and buffers in a
    layout a descriptor describes (``wgmma_operands``: K of 16, 32 or a multiple of 64 values). Anything
    else keeps ``mma.sync``, which every target has."""
    if not Arch.parse(arch).supports(Feature.WGMMA):
        return False
    if plan.lhs.reg is not plan.rhs.reg or plan.lhs.reg not in WGMMA_FORMATS or plan.rescale is not Rescale.NONE:
        return False
    if warps % WARP_GROUP or m % (16 * warps) or n % 8 or not 8 <= n <= 256:
        return False
    for op_idx, value, side in ((0, dot.a, plan.lhs), (1, dot.b, plan.rhs)):
        buffer = _wgmma_buffer_type(value, op_idx, side)
        if buffer is None or isinstance(operand_descriptor(buffer, op_idx), str):
            return False
    return True


def _wgmma_buffer_type(value: SSAValue, op_idx: int, side: OperandPlan) -> MemDescType | None:
    """The bf16 (f16) buffer the operand will be read from: its dequantize-once buffer, or its
    staging buffer when it is bf16 (f16) already and K-contiguous; None for anything else."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    shape = list(tensor.get_shape())
    k_dim = 1 if op_idx == 0 else 0
    contiguous = _staged_dim(value)
    if side.free_packed or contiguous != k_dim:
        return None
    out_elem = element_type(side.reg)
    order = [k_dim, 1 - k_dim]
    if _dequantized_once(value, op_idx, side):  # _dequantize_once(buffer=True) writes this
        shape[k_dim] *= 2 if side.source is Format.E2M1 else 1
        return MemDescType(shape, out_elem, wgmma_shared_encoding(shape, out_elem, order))
    if _SOURCE_REG[side.source] is not side.reg or side.fold_scale:
        return None
    return MemDescType(shape, out_elem, shared_encoding_for(shape, out_elem, order))  # _operand's staging


def _rewrite_warp_group_dot(dot: DotScaledOp, plan: Plan, warps: int, point: InsertPoint) -> None:
    problem = dot.problem()
    mma = MmaEncodingAttr([warps, 1], 3, 0, [16, problem.n, 16])
    buffers = [_operand(dot, value, op_idx, side, plan, mma, 0, scale, point, buffer=True)
               for op_idx, value, side, scale in ((0, dot.a, plan.lhs, dot.a_scale), (1, dot.b, plan.rhs, dot.b_scale))]
    _allocs_first(dot, point)
    # both dequantized tiles are stored after both are converted: the stores then share one
    # barrier before them (readers of the old contents) and the dot's barrier after them,
    # instead of two barriers each around every store with loads in between
    for value in buffers:
        owner = value.owner
        if isinstance(owner, LocalAllocOp) and owner.src is not None and isinstance(owner.src.owner, UpcastOp):
            owner.detach()
            Rewriter.insert_op(owner, point)
    acc_type = dot.acc.type
    assert isinstance(acc_type, TensorType)
    mma_acc_type = TensorType(acc_type.get_element_type(), acc_type.get_shape(), mma)
    acc_in = _insert(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
    op = _insert(point, WarpGroupDotOp(buffers[0], buffers[1], acc_in, plan.lhs.reg, plan.rhs.reg))
    op.attributes["qdot.strategy"] = _str_attr(plan.strategy.value)
    out = _insert(point, ConvertLayoutOp(op.results[0], dot.result.type)).results[0]
    dot.result.replace_all_uses_with(out)
    Rewriter.erase_op(dot)


def _rewrite_block_dot(dot: DotScaledOp, plan: Plan, mma: MmaEncodingAttr, point: InsertPoint,
                       q4k_fold: str = "auto") -> None:
    """ggml blocks (llama.cpp's MMQ design): stage the raw blocks in shared memory — q4_K
    keeps its nibbles packed, masked to int8 only at use (``qgpu.upcast from = q4_K``) —
    read the int8 quants into the ISA mma layout and each block's scales (and sums /
    mins) as f32 per 32 values, and let the s8 mma rescale per block with the dmin
    correction as a rank-1 fold: acc += (d_a·d_b)·C − fold_a·fold_b. q6_K's quants are
    joined from two raw parts at use (``qgpu.upcast … high``) and its int8 scale per 16
    values weights each half of a block's sum in s32 (the mma's ``lhs_sub`` / ``rhs_sub``)."""
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
        shared = SharedEncodingAttr(1, 1, 1, order)
        mem = _insert(point, LocalAllocOp(MemDescType(shape, tensor.get_element_type(), shared), value)).results[0]
        sides.append((op_idx, mem, fmt))
    fold_by_mma = _fold_by_mma(tuple(fmt for _, _, fmt in sides), q4k_fold)
    result: SSAValue | None = None
    for index, slices in enumerate(_k_slices(sides)):
        regs, scales, folds, subs, mins = _slice_operands(dot, sides, slices, mma, fold_by_mma, point)
        if index == 0:
            _allocs_first(dot, point)
            acc_type = dot.acc.type
            assert isinstance(acc_type, TensorType)
            mma_acc_type = TensorType(acc_type.get_element_type(), acc_type.get_shape(), mma)
            result = _insert(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
        assert result is not None
        int_formats = [NIBBLE_UPCASTS[fmt][1] if fmt in NIBBLE_UPCASTS else RegFormat.S8 for _, _, fmt in sides]
        mma_op = _insert(point, MmaOp(regs[0], regs[1], result, *int_formats, scales[0], scales[1],
                                      rescale=Rescale.PER_BLOCK, a_fold=folds[0], b_fold=folds[1],
                                      a_sub=subs[0], b_sub=subs[1], a_min=mins[0], b_min=mins[1]))
        mma_op.attributes["qdot.strategy"] = _str_attr(plan.strategy.value)
        # every ggml scale is an fp16 d (11 significant bits) or q4_K's d·sc (6-bit sc: 17), so
        # qdot-lower-mma may fold the s32 → f32 conversion into the scaling (its magic form)
        mma_op.attributes["qdot.scale_bits"] = IntegerAttr(SCALE_BITS, i64)
        result = mma_op.results[0]
        if fold_by_mma:
            result = _fold_mma(sides, slices, mma, result, _num_warps(dot), point)
    assert result is not None
    out = _insert(point, ConvertLayoutOp(result, dot.result.type)).results[0]
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
                    point: InsertPoint) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue | None],
                                                 list[SSAValue | None], list[SSAValue | None]]:
    """The s8 mma's operands for one K step: quants (q4_K nibbles upcast at use, q6_K's low and top
    bits joined), per-32-value scales, without the mma fold the dmin fold's factors, and q6_K's
    integer scales per 16 values."""
    # q4_K scales (and q4_0's / q8_0's d where many threads read each) are decoded into shared
    # memory first: the register → shared stores and their barrier then precede every operand
    # load of the step, so nothing has to be loaded early and kept live across them
    decoded: dict[tuple[int, str], SSAValue] = {}
    for (op_idx, mem, fmt), (first, count) in zip(sides, slices, strict=True):
        scale_part, min_part = BLOCK_SCALE_PARTS.get(fmt, ("d", None))
        fold_parts = (min_part,) if fmt in MIN_FORMATS and not fold_by_mma else ()
        if (fmt in MIN_FORMATS and fmt in SUPER_BLOCKS) or fmt in PACKED_SCALES:  # 6-bit codes unpacked: always once
            parts: tuple[str, ...] = (scale_part, *fold_parts)
        elif fmt in PACKED_SUB_SCALES:  # q3_K's 6-bit scales per 16 values: unpacked once too
            parts = (HIGH_BIT_PARTS[fmt][2],)
        elif fmt in ONE_D_FORMATS and _scale_readers(mem, op_idx, mma) >= decode_once_readers(fmt):
            parts = (scale_part, *fold_parts)  # one fp16 d (and q4_1's / q5_1's m) per block: widened once
        else:
            parts = ()
        for part in parts:
            view = _insert(point, BlockPartOp(mem, part, first, count)).results[0]
            decoded[(op_idx, part)] = _decode_once(view, _num_warps(dot), point)
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
        loaded = _raw_operand(mem, low_part, first, count, op_idx, mma, point)
        if fmt in NIBBLE_UPCASTS:  # two values per byte (q3_K: four): the upcast doubles (quadruples) K
            k_dim = 1 if op_idx == 0 else 0
            shape = list(_tensor_shape(loaded))
            shape[k_dim] *= values_per_element(NIBBLE_UPCASTS[fmt][0])
            high = None
            if fmt in WORD_HIGHS:  # one qh word per block, held by the threads of its operand values
                assert high_part is not None
                view = _insert(point, BlockPartOp(mem, high_part, first, count)).results[0]
                vt = view.type
                assert isinstance(vt, MemDescType)
                words = TensorType(i32, vt.get_shape(), DotScaleEncodingAttr(op_idx, mma, operand=True))
                high = _insert(point, LocalLoadOp(view, words)).results[0]
            elif high_part:
                high = _raw_operand(mem, high_part, first, count, op_idx, mma, point)
            code_scale = _per_16_operand(mem, SCALED_CODES[fmt], first, count, op_idx, mma, point) \
                if fmt in SCALED_CODES else None
            source, target = NIBBLE_UPCASTS[fmt]
            loaded = _insert(point, UpcastOp(loaded, source, target,
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
            view = decoded.get((op_idx, part)) or _insert(point, BlockPartOp(mem, part, first, count)).results[0]
            vt = view.type
            assert isinstance(vt, MemDescType)
            values.append(_insert(point, LocalLoadOp(view, TensorType(f32, vt.get_shape(), enc))).results[0])
        scales.append(values[0])
        folds.append(values[1])
        sub = None
        if sub_part is not None:
            view = decoded.get((op_idx, sub_part)) or \
                _insert(point, BlockPartOp(mem, sub_part, first, count)).results[0]
            vt = view.type
            assert isinstance(vt, MemDescType)
            sub = _insert(point, LocalLoadOp(view, TensorType(i32, vt.get_shape(), enc))).results[0]
        subs.append(sub)
        mins.append(_per_16_operand(mem, MINS_PER_16[fmt], first, count, op_idx, mma, point)
                    if fmt in MINS_PER_16 else None)
    if needs_fold and minned is not None and folds[1 - formats.index(minned)] is None:
        emit_error(dot, f"{minned} pairs with q8_1 / q8_1_mmq activations: its dmin term needs their block sums")
    return regs, scales, folds, subs, mins


def _per_16_operand(mem: SSAValue, part: str, first: int, count: int | None, op_idx: int, mma: MmaEncodingAttr,
                    point: InsertPoint) -> SSAValue:
    """An i8 part per 16 values (q2_K's scales and mins, four to a register) in the operand scale layout: each operand
    register's row (A) or column (B) in the thread that holds it (``passes.support.group_registers``)."""
    view = _insert(point, BlockPartOp(mem, part, first, count)).results[0]
    vt = view.type
    assert isinstance(vt, MemDescType)
    operand_enc = DotScaleEncodingAttr(op_idx, mma, operand=True)
    return _insert(point, LocalLoadOp(view, TensorType(i8, vt.get_shape(), operand_enc))).results[0]


def _raw_operand(mem: SSAValue, part: str, first: int, count: int | None, op_idx: int, mma: MmaEncodingAttr,
                 point: InsertPoint) -> SSAValue:
    """A raw part of the staged blocks (bytes as they are) read into the s8 mma's operand layout."""
    view = _insert(point, BlockPartOp(mem, part, first, count)).results[0]
    view_type = view.type
    assert isinstance(view_type, MemDescType)
    return _insert(point, LocalLoadOp(view, TensorType(i8, view_type.get_shape(),
                                                       DotOperandEncodingAttr(op_idx, mma, 4)))).results[0]


def _tensor_shape(value: SSAValue) -> tuple[int, ...]:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return tuple(tensor.get_shape())


def _fold_by_mma(formats: tuple[Format, Format], q4k_fold: str) -> bool:
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
              point: InsertPoint) -> SSAValue:
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
    decoded = [_decode_once(_insert(point, BlockPartOp(mem, parts[fmt], first, count)).results[0], warps, point)
               for (_op_idx, mem, fmt), (first, count) in zip(sides, slices, strict=True)]
    operands, scales = [], []
    for (op_idx, mem, fmt), (first, count), view in zip(sides, slices, decoded, strict=True):
        if op_idx == 1:
            view = _insert(point, MemDescTransOp(view, [1, 0])).results[0]
        vt = view.type
        assert isinstance(vt, MemDescType)
        operands.append(_insert(point, LocalLoadOp(view, TensorType(f16, vt.get_shape(),
                                                                    DotOperandEncodingAttr(op_idx, mma, 2)))).results[0])
        rows, k_values = vt.get_shape()[0 if op_idx == 0 else 1], vt.get_shape()[1 if op_idx == 0 else 0]
        # one scale per K step: a tile of several along K has as many f16 mma k-blocks
        scale_type = TensorType(f32, [rows, k_values // FOLD_K], DotScaleEncodingAttr(op_idx, mma))
        if fmt is minned and super_block:
            dmin = _insert(point, BlockPartOp(mem, "dmin", first, count)).results[0]
            scales.append(_insert(point, LocalLoadOp(dmin, scale_type)).results[0])
        else:  # −1 on the sums' side; q4_1's m_pad is −m already, so its side is 1
            sign = DenseIntOrFPElementsAttr.from_list(scale_type, [1.0 if fmt is minned else -1.0])
            scales.append(_insert(point, arith.ConstantOp(sign)).results[0])
    fold = _insert(point, MmaOp(operands[0], operands[1], acc, RegFormat.FP16, RegFormat.FP16, scales[0], scales[1],
                                rescale=Rescale.PER_BLOCK))
    fold.attributes["qdot.fold"] = _str_attr("dmin" if super_block else "m")
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


def _decode_once(view: SSAValue, warps: int, point: InsertPoint) -> SSAValue:
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
    decoded = _insert(point, LocalLoadOp(view, TensorType(element, [rows, values], blocked))).results[0]
    # columns contiguous: an mma thread's two adjacent columns of one sub-block are one 8-byte
    # load, used in that sub-block's k step only (sub-blocks contiguous would load four k
    # steps' scales at once and keep them live)
    # (f16 fold operands are read as mma fragments: rows of sub-blocks, contiguous)
    order = [1, 0] if element == f16 else [0, 1]
    shared = MemDescType([rows, values], element, SharedEncodingAttr(1, 1, 1, order))
    return _insert(point, LocalAllocOp(shared, decoded)).results[0]


def _num_warps(op: Operation) -> int:
    func = op.parent_op()
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op()
    assert isinstance(func, FuncOp)
    return num_warps(func)


def _allocs_first(dot: DotScaledOp, point: InsertPoint) -> None:
    """Stage every operand of the dot before reading any back, so all global → shared
    copies of a K step are issued together and the register loads follow them."""
    created: list[Operation] = []
    op = dot.prev_op
    while op is not None and isinstance(op, (LocalAllocOp, LocalLoadOp, UpcastOp, arith.ConstantOp, BlockPartOp)):
        created.append(op)
        op = op.prev_op
    created.reverse()
    first_load = next((o for o in created if not isinstance(o, LocalAllocOp)), None)
    if first_load is None:
        return
    staging = [o for o in created if isinstance(o, LocalAllocOp) and o.src is not None
               and not isinstance(o.src.owner, (LocalLoadOp, UpcastOp))]  # operands, not register → shared
    for alloc in staging:
        if created.index(alloc) > created.index(first_load):
            alloc.detach()
            Rewriter.insert_op(alloc, InsertPoint.before(first_load))


def _warp_grid(dot: DotScaledOp, m: int, n: int, warps: int) -> tuple[int, int]:
    """Split the warps over M × N so each warp tile is as square as possible."""
    best: tuple[float, int, int] | None = None
    wm = 1
    while wm <= warps:
        wn = warps // wm
        if wm * wn == warps and m % (16 * wm) == 0 and n % (8 * wn) == 0:
            ratio = max((m / wm) / (n / wn), (n / wn) / (m / wm))
            key = (ratio, -wm, wm)
            if best is None or key < best:
                best = key
        wm *= 2
    if best is None:
        emit_error(dot, f"the {m}×{n} output tile cannot be split over {warps} warps in 16×8 mma tiles "
                        f"(M must be a multiple of 16·warpsPerCTA[0] and N of 8·warpsPerCTA[1])")
    return best[2], warps // best[2]


_READ_AS_IS = {RegFormat.BF16: (Format.BF16, Format.FP16), RegFormat.FP16: (Format.FP16,),
               RegFormat.S8: (Format.I8,), RegFormat.E4M3: (Format.E4M3,), RegFormat.E5M2: (Format.E5M2,)}
"""Per mma register format, the source formats an operand's shared tile already holds it in."""


def _read_by_ldmatrix(dot: DotScaledOp, plan: Plan) -> bool:
    """Whether both operands come from shared buffers of the mma's register type (the raw tile,
    or the buffer a conversion once per CTA writes): the ISA arrangement then, which ldmatrix reads."""
    return all(_dequantized_once(value, op_idx, side) or side.source in _READ_AS_IS.get(side.reg, ())
               for op_idx, value, side in ((0, dot.a, plan.lhs), (1, dot.b, plan.rhs)))


STAGED_FP8_MAX_ACC_REGS = 64
"""Accumulator registers per thread up to which promote-fp8 stages its e2m1 side (see _staged_fp8_plan)."""


def _staged_fp8_plan(dot: DotScaledOp, plan: Plan, arch: str, mma: MmaEncodingAttr, m: int,
                     n: int) -> tuple[Plan, str]:
    """promote-fp8 with packed e2m1: convert it to e4m3 once per CTA where that lets ldmatrix read both sides.

    Unpacked in registers, 4 packed bytes give 8 values, so both operands took kWidth 8 — an
    arrangement no ldmatrix form delivers, and the fp8 side fell back to scalar ``ld.shared``
    (the remarks showed it). A K-contiguous e2m1 tile converted into an e4m3 buffer is read like
    an e4m3 input (kWidth 4), and so is the other side when its tile is contiguous along K (raw
    fp8, or fp6 bytes converted in registers after an ldmatrix). Where an e2m1 tile cannot be
    staged (not contiguous along K in whole 32-value runs) or the other side's tile is not
    contiguous along K (read byte by byte either way), staging would only move the scalar
    loads, so the plan stays as it is.

    The staged side reaches the mma as e4m3, twice the registers of the packed bytes it had, so
    staging is kept to warp tiles of at most 64 accumulator registers per thread and to archs whose
    fp8 mma is native: on sm_90 ptxas expands each fp8 mma into f16 HMMA with registers of its own,
    and there the staged 128×128×64 8-warp tile spilled 16 B (3–4 % faster on the H200 all the
    same, on average) and the 128×256×64 one 200 B instead of 84 B (10–14 % slower); on sm_89 the 4-warp
    128×128×128 tile (128 accumulators) spilled 712 B instead of 340 B (bench/RESULTS.md, run 148).

    Returns the plan and, where a packed e2m1 side stays in registers, why (for the remarks).
    """
    if plan.strategy is not Strategy.PROMOTE_FP8 or Format.E2M1 not in (plan.lhs.source, plan.rhs.source):
        return plan, ""
    if arch not in FP8_MMA_NATIVE_ARCHES:
        return plan, f"ptxas emulates the fp8 mma on {arch} with registers of its own; staged tiles spilled there"
    warps_m, warps_n = mma.warps_per_cta[:2]
    acc_regs = (m // warps_m) * (n // warps_n) // 32
    if acc_regs > STAGED_FP8_MAX_ACC_REGS:
        return plan, (f"the {m // warps_m}x{n // warps_n} warp tile holds {acc_regs} accumulator registers per "
                      f"thread (the e4m3 fragments fit beside at most {STAGED_FP8_MAX_ACC_REGS})")

    def staged(side: OperandPlan) -> OperandPlan:
        return replace(side, staged_fp8=True) if side.source is Format.E2M1 and not side.fold_scale else side

    candidate = replace(plan, lhs=staged(plan.lhs), rhs=staged(plan.rhs))
    sides = ((0, dot.a, candidate.lhs), (1, dot.b, candidate.rhs))
    if not all(_dequantized_once(value, op_idx, side) for op_idx, value, side in sides if side.staged_fp8):
        return plan, "the e2m1 tile is not contiguous along K in whole 32-value runs"
    if not all(_staged_dim(value) == (1 if op_idx == 0 else 0) for op_idx, value, side in sides if not side.staged_fp8):
        # its bytes are read one by one either way (8-bit ldmatrix has no transposed form)
        return plan, "the other operand's tile is not contiguous along K, so ldmatrix cannot read it either way"
    return candidate, ""


def _k_width_values(plan: Plan) -> int:
    """Consecutive K values per thread in the registers the mma reads (same on both sides).

    8-bit mma (k32 tiles): the ISA arrangement (4) unless a packed e2m1 operand is
    unpacked in registers — 4 packed bytes hold 8 values, so both sides take 8.
    16-bit mma (k16 tiles): an fp8/fp4 source converts to bf16 without moving values
    between threads, so the bf16 kWidth is the source's (in values): 8 when any
    operand is fp8-class, 4 for 16-bit sources only. Native fp4Unpacked and packed
    mxf4 operands use the ISA arrangement (4 values: 2 packed bytes / 4 unpacked).
    """
    if plan.rescale is Rescale.HW or plan.strategy is Strategy.NATIVE:
        return 8 if (plan.lhs.fp4_packed_mma and plan.rhs.fp4_packed_mma) else 4
    packed_unpack = any(p.source is Format.E2M1 and not p.staged_fp8 for p in (plan.lhs, plan.rhs))
    sixteen = plan.lhs.reg in (RegFormat.BF16, RegFormat.FP16)
    if sixteen:
        narrow = any(format_info(p.source).bits_per_value <= 8 for p in (plan.lhs, plan.rhs))
        if plan.block_k == 16 and plan.rescale is Rescale.PER_BLOCK:
            return 4
        return 8 if narrow else 4
    return 8 if packed_unpack else 4


def _operand(dot: DotScaledOp, value: SSAValue, op_idx: int, side: OperandPlan, plan: Plan,
             mma: MmaEncodingAttr, k_width: int, scale: SSAValue | None, point: InsertPoint,
             buffer: bool = False) -> SSAValue:
    """The operand as the mma reads it: registers in a ``#qgpu.dot_op`` layout, or with
    ``buffer`` (wgmma, ``_warp_group_plan`` said yes) the bf16 shared buffer itself."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    shape = tensor.get_shape()
    elem = tensor.get_element_type()
    source_reg = _SOURCE_REG[side.source]
    values_per_elem = 2 if (side.source is Format.E2M1 and not side.fp4_unpacked) else 1
    if side.fp4_unpacked:
        src_k_width = k_width // 2  # counted in packed bytes
    elif side.fp4_packed_mma:
        src_k_width = k_width // 2
    else:
        src_k_width = k_width // values_per_elem
    contiguous = _staged_dim(value)
    k_dim = 1 if op_idx == 0 else 0
    order = [contiguous, 1 - contiguous]
    shared = shared_encoding_for(shape, elem, order, fp4_padded=side.fp4_unpacked)
    mem = _insert(point, LocalAllocOp(MemDescType(shape, elem, shared), value)).results[0]
    if _dequantized_once(value, op_idx, side):
        return _dequantize_once(dot, mem, op_idx, source_reg, side.reg, mma, k_width,
                                scale if side.fold_scale else None, point, side.free_packed, buffer)
    if buffer:
        return mem
    if side.free_packed:
        free = "M" if op_idx == 0 else "N"
        emit_error(dot, f"{'lhs' if op_idx == 0 else 'rhs'} e2m1 packed along {free} must be loaded from a tile "
                        f"that is contiguous along {free} with a whole number of 32-value runs per row "
                        f"(a power of two of them, at most 32), got a tile of {list(shape)} bytes "
                        f"contiguous along dimension {contiguous}")
    src_enc = DotOperandEncodingAttr(op_idx, mma, src_k_width, side.fp4_unpacked)
    reg = _insert(point, LocalLoadOp(mem, TensorType(elem, shape, src_enc))).results[0]
    if side.reg is source_reg and not side.fold_scale:
        return reg
    if side.fp4_unpacked or side.fp4_packed_mma:
        return reg
    out_shape = list(shape)
    out_shape[k_dim] *= values_per_elem
    out_enc = DotOperandEncodingAttr(op_idx, mma, src_k_width * values_per_elem)
    upcast_scale = None
    if side.fold_scale and scale is not None:
        upcast_scale = _scale_regs(scale, DotScaleEncodingAttr(op_idx, mma, operand=op_idx == 1), point)
    return _insert(point, UpcastOp(reg, source_reg, side.reg, TensorType(element_type(side.reg), out_shape, out_enc),
                                   upcast_scale)).results[0]


DEQUANT_RUN = 32
"""Values one thread dequantizes at a time: a whole ue8m0 group (two ue4m3 groups), 16 bf16x2 registers."""


def _dequantized_once(value: SSAValue, op_idx: int, side: OperandPlan) -> bool:
    """Whether ``_dequantize_once`` handles this operand: a dequant-bf16 (or promote-int8
    fp4/fp6 → s8, promote-fp8 fp4 → e4m3) conversion of a K-contiguous tile whose K holds
    whole 32-value runs, a power of two of them per row up to 32 — its scale, if any, folded
    into the values or left to the per-block rescale at the mma — or an fp4 operand packed
    along M/N, contiguous along it."""
    tensor = value.type
    assert isinstance(tensor, TensorType)
    shape = tensor.get_shape()
    k_dim = 1 if op_idx == 0 else 0
    contiguous = _staged_dim(value)
    if side.free_packed:  # unpacked along its contiguous free dimension, never with a folded scale
        return contiguous == 1 - k_dim and _whole_runs(shape[1 - k_dim], DEQUANT_RUN // 2)
    if contiguous != k_dim or side.fp4_unpacked:
        return False
    if side.reg in (RegFormat.BF16, RegFormat.FP16):
        # a scale is either folded into the values here or applied to the accumulator per block
        if side.source in (Format.BF16, Format.FP16):
            return False
    elif side.reg is RegFormat.S8:  # promote-int8: e2m1 × 2 (e2m3 × 8) as exact s8; scales stay at the mma
        if side.source not in (Format.E2M1, Format.E2M3) or side.fold_scale:
            return False
    elif side.reg is RegFormat.E4M3:  # promote-fp8: packed e2m1 as e4m3 (exact); scales stay at the mma
        if not side.staged_fp8:
            return False
    else:
        return False
    return _whole_runs(shape[k_dim], DEQUANT_RUN // (2 if side.source is Format.E2M1 else 1))


def _whole_runs(extent: int, run_elems: int) -> bool:
    """Whether a dimension of ``extent`` elements splits into runs of ``run_elems``, a power of
    two of them up to 32 (the lanes of a warp along it)."""
    runs = extent // run_elems
    lanes = min(runs, 32)
    return extent % run_elems == 0 and runs > 0 and lanes & (lanes - 1) == 0


def _dequantize_once(dot: DotScaledOp, mem: SSAValue, op_idx: int, source: RegFormat, target: RegFormat,
                     mma: MmaEncodingAttr, k_width: int, scale: SSAValue | None, point: InsertPoint,
                     free_packed: bool = False, buffer: bool = False) -> SSAValue:
    """Convert the staged tile once per CTA, not once per warp that reads it (dequant-bf16, and
    promote-int8's fp4/fp6 → s8).

    Every warp of a row (column) of the warp grid needs the same A (B) values, so the
    per-warp register upcast repeats each conversion 2–4 times and dominates the loop
    (about 7 instructions per bf16x2 register for e4m3, with the scale). Here each thread
    takes runs of 32 values along K from the raw tile (a blocked layout), converts them
    with their block scale (``qgpu.upcast`` on the blocked layout), stores bf16 to a
    swizzled shared buffer (``qgpu.local_alloc`` of registers), and the mma operand is
    read from there with ``ldmatrix`` like a bf16 input (``_dequantized_once`` says when).

    An operand with fp4 packed along M or N (``free_packed``) runs the same way along that
    dimension, its contiguous one: the upcast unpacks along a blocked layout's ``order[0]``,
    and the bf16 buffer is then M- or N-contiguous, which ``ldmatrix .trans`` reads.
    """
    mem_type = mem.type
    assert isinstance(mem_type, MemDescType)
    shape = list(mem_type.get_shape())
    k_dim = 1 if op_idx == 0 else 0
    run_dim = 1 - k_dim if free_packed else k_dim
    per_elem = 2 if source is RegFormat.E2M1 else 1
    run_elems = DEQUANT_RUN // per_elem
    lanes = min(shape[run_dim] // run_elems, 32)  # whole runs, a power of two: _dequantized_once
    warps = _num_warps(dot)

    def blocked(run: int) -> BlockedEncodingAttr:
        spt, tpw, wpc = [1, 1], [1, 1], [1, 1]
        spt[run_dim], tpw[run_dim], tpw[1 - run_dim], wpc[1 - run_dim] = run, lanes, 32 // lanes, warps
        return BlockedEncodingAttr(spt, tpw, wpc, [run_dim, 1 - run_dim])

    elem = mem_type.get_element_type()
    raw = _insert(point, LocalLoadOp(mem, TensorType(elem, shape, blocked(run_elems)))).results[0]
    out_shape = list(shape)
    out_shape[run_dim] *= per_elem
    blocked_scale = None
    if scale is not None:
        scale_t = scale.type
        assert isinstance(scale_t, TensorType)
        scale_shape = list(scale_t.get_shape())  # [rows, K/group]
        group = out_shape[k_dim] // scale_shape[1]  # 32 (ue8m0) or 16 (ue4m3): whole groups per run
        if k_dim == 0:  # the scales are [N, K/g]; the B tile is [K, N]
            scale_shape = [scale_shape[1], scale_shape[0]]
        scale_elem = scale_t.get_element_type()
        scale_mem = _insert(point, LocalAllocOp(MemDescType(scale_t.get_shape(), scale_elem,
                                                            shared_encoding_for(scale_t.get_shape(), scale_elem,
                                                                                [1, 0])), scale)).results[0]
        if k_dim == 0:
            scale_mem = _insert(point, MemDescTransOp(scale_mem, [1, 0])).results[0]
        blocked_scale = _insert(point, LocalLoadOp(scale_mem, TensorType(scale_elem, scale_shape,
                                                                         blocked(DEQUANT_RUN // group)))).results[0]
    out_elem = element_type(target)
    up = _insert(point, UpcastOp(raw, source, target, TensorType(out_elem, out_shape, blocked(DEQUANT_RUN)),
                                 blocked_scale)).results[0]
    order = [run_dim, 1 - run_dim]
    encoding = (wgmma_shared_encoding if buffer else shared_encoding_for)(out_shape, out_elem, order)
    staged_type = MemDescType(out_shape, out_elem, encoding)
    staged = _insert(point, LocalAllocOp(staged_type, up)).results[0]
    if buffer:
        return staged
    operand = DotOperandEncodingAttr(op_idx, mma, k_width)  # the other operand's kWidth, in values
    return _insert(point, LocalLoadOp(staged, TensorType(out_elem, out_shape, operand))).results[0]


def _mma_scales(dot: DotScaledOp, plan: Plan, mma: MmaEncodingAttr, m: int, n: int, k: int,
                point: InsertPoint) -> tuple[SSAValue | None, SSAValue | None]:
    """The scale operands of the mma: the dot's scales in #qgpu.dot_scale layouts, and unit
    scales for a side without any (the mma takes scales in pairs of one element type).

    A side without scales gets 1.0 in the other side's scale type (ue8m0 / ue4m3, one per
    32 / 16 values), so the pair agrees and the per-block rescale keeps the other side's
    groups; with no scales at all (promote-int8 of unscaled operands) f32 ones per 32
    values, one per mma k tile. The block-scaled ("hw") instructions never get here with
    one side unscaled: the plan refuses that."""
    if plan.rescale is Rescale.NONE:
        return None, None
    operand_b = plan.rescale is Rescale.HW
    given = dot.a_scale if dot.a_scale is not None else dot.b_scale
    unit_elem: Attribute = f32
    group = 32
    if given is not None:
        given_type = given.type
        assert isinstance(given_type, TensorType)
        unit_elem = given_type.get_element_type()
        group = plan.block_k
    scales: list[SSAValue] = []
    for op_idx, value, rows in ((0, dot.a_scale, m), (1, dot.b_scale, n)):
        enc = DotScaleEncodingAttr(op_idx, mma, operand=operand_b and op_idx == 1)
        if value is not None:
            scales.append(_scale_regs(value, enc, point))
            continue
        unit = TensorType(unit_elem, [rows, k // group], enc)
        scales.append(_insert(point, arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(unit, [1.0]))).results[0])
    return scales[0], scales[1]


def _scale_regs(value: SSAValue, enc: DotScaleEncodingAttr, point: InsertPoint) -> SSAValue:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    shape, elem = tensor.get_shape(), tensor.get_element_type()
    shared = shared_encoding_for(shape, elem, [1, 0])
    mem = _insert(point, LocalAllocOp(MemDescType(shape, elem, shared), value)).results[0]
    return _insert(point, LocalLoadOp(mem, TensorType(elem, shape, enc))).results[0]


# ---------------------------------------------------------------------------------------------
# Facts about operand values


def contiguous_dim(value: SSAValue) -> int | None:
    """Which dimension of a loaded tile is contiguous in global memory (stride 1), if known."""
    owner = value.owner
    if isinstance(owner, TransOp):
        inner = contiguous_dim(owner.src)
        if inner is None:
            return None
        return list(owner.permutation()).index(inner)
    if isinstance(owner, LoadOp):
        return unit_stride_dim(owner.desc)
    return None


def _staged_dim(value: SSAValue) -> int:
    """The dimension an operand tile is staged contiguous along in shared memory: the global
    tile's unit-stride one, or, where that is not known (a function argument), its last."""
    contiguous = contiguous_dim(value)
    if contiguous is not None:
        return contiguous
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return len(tensor.get_shape()) - 1


# ---------------------------------------------------------------------------------------------
# Remarks (``--remarks``): built only when they are asked for


def _strategy_remark(plan: Plan, arch: str, asked: Strategy, problem: DotProblem) -> str:
    """The strategy taken and why: the rule of the formats, or for ``auto`` which strategies it
    does not ask on this arch and the refusals of those it asked first (the strategy table's
    own sentences)."""
    pair = f"{problem.lhs} × {problem.rhs}" + _dequant_note(plan)
    if plan.rule:
        overruled = asked not in (plan.strategy, Strategy.AUTO)
        return f"strategy {plan.strategy} for {pair}: {plan.rule}" + (f" (asked: {asked})" if overruled else "")
    if asked is not Strategy.AUTO:
        return f"strategy {plan.strategy} for {pair}, as asked"
    why = [f"{strategy} not asked ({reason})" for strategy, reason in
           auto_not_asked(arch, problem.lhs, problem.rhs, problem.lhs_scale, problem.rhs_scale)]
    why += [f"{strategy} refused ({reason})" for strategy, reason in plan.refused]
    order = ", ".join(auto_order(arch))
    return (f"strategy {plan.strategy} for {pair}: auto on {arch} asks {order} in turn and takes the first that "
            f"runs it" + (f"; {'; '.join(why)}" if why else ""))


def _dequant_note(plan: Plan) -> str:
    """What dequant-bf16 does here where its name would mislead: 16-bit float operands go to the
    mma as they are, and an fp16 operand makes the compute type fp16, not bf16."""
    if plan.strategy is not Strategy.DEQUANT_BF16:
        return ""
    sides = (plan.lhs, plan.rhs)
    if all(_unconverted(side) for side in sides):
        return (f" (16-bit float operands need no conversion: the {plan.lhs.reg} mma reads them as they are; "
                "nothing is dequantized)")
    if plan.lhs.reg is RegFormat.FP16:
        return " (converted to fp16, not bf16: an operand is fp16)"
    return ""


def _unconverted(side: OperandPlan) -> bool:
    """The operand reaches the mma in its own format, unscaled: no conversion at all."""
    return _SOURCE_REG.get(side.source) is side.reg and not side.fold_scale and not side.exp


def _remark_mma(dot: DotScaledOp, plan: Plan, mma: MmaEncodingAttr, m: int, n: int, k_width: int,
                extra: str = "") -> None:
    wm, wn = mma.warps_per_cta
    shape = "x".join(str(d) for d in mma.instr_shape)
    remarks.remark(dot, AccelerateMatmulPass.name,
                   f"mma.sync {plan.mma_kind} in {shape} tiles, warps {wm}x{wn} (a {m // wm}x{n // wn} tile each), "
                   f"kWidth {k_width}, {_scale_route(plan)}{extra}")
    _remark_operands(dot, plan)


def _remark_warp_group(dot: DotScaledOp, plan: Plan, warps: int, n: int) -> None:
    remarks.remark(dot, AccelerateMatmulPass.name,
                   f"wgmma m64n{n}k16 {plan.lhs.reg} (both operands {plan.lhs.reg} buffers in shared memory): "
                   f"{warps} warps as {warps // WARP_GROUP} warpgroups along M")
    _remark_operands(dot, plan)


def _dmin_remark(plan: Plan, q4k_fold: str) -> str:
    formats = (plan.lhs.source, plan.rhs.source)
    minned = next((fmt for fmt in formats if fmt in MIN_FORMATS), None)
    if minned is None:
        return ""
    by_mma = _fold_by_mma(formats, q4k_fold)
    term, step = ("dmin term", "super-block") if minned in SUPER_BLOCKS else ("m term", "K step")
    return f"; {minned} {term} {f'as an f16 mma per {step}' if by_mma else 'as an FMA per block'} (q4k-fold={q4k_fold})"


def _scale_route(plan: Plan) -> str:
    if plan.rescale is Rescale.HW:
        return "scales to the block-scaled mma"
    if plan.rescale is Rescale.PER_BLOCK:
        return f"scales applied to the f32 accumulator per {plan.block_k}-value block"
    if plan.lhs.fold_scale or plan.rhs.fold_scale:
        return "scales folded into the converted values"
    return "no scales"


_BLOCK_QUANTS_REMARK = {
    Format.Q4_K: "the packed nibbles masked to u8 at use",
    Format.Q4_0: "the packed nibbles made s8 (16 · (code − 8)) at use",
    Format.Q4_1: "the packed nibbles made u8 (codes 0..15) at use",
    Format.Q5_0: "the packed nibbles and the qh word's bits joined into s8 (8 · (code − 16)) at use",
    Format.Q5_1: "the packed nibbles and the qh word's bits joined into u8 (codes 0..31) at use",
    Format.Q6_K: "the ql nibbles and qh bit pairs joined into s8 (4 · (code − 32)) at use, its int8 scale per 16 values "
                 "weighting the two m16n8k16 halves of each block",
    Format.Q5_K: "the qs nibbles and qh bits joined into s8 (codes 0..31) at use",
    Format.MXFP4: "the packed e2m1 nibbles looked up as s8 (ggml's kvalues, twice the value) at use",
    Format.IQ4_NL: "the packed nibbles looked up as s8 in kvalues_iq4nl at use",
    Format.IQ4_XS: "the packed nibbles looked up as s8 in kvalues_iq4nl at use, d · (ls − 32) per 32 values",
    Format.Q3_K: "the qs bit pairs and hmask bits joined into s8 (32 · (code − 4)) at use, its 6-bit scale per 16 "
                 "values weighting the two m16n8k16 halves of each block",
    Format.Q2_K: "the qs bit pairs made u8 (codes 0..3) at use and multiplied by their 4-bit scale per 16 values, "
                 "its 4-bit min per 16 values a second mma against the other side",
}


def _remark_operands(dot: DotScaledOp, plan: Plan) -> None:
    """How each operand reaches the mma (the staging and conversion decisions of ``_operand``)."""
    parts = []
    for op_idx, value, side in ((0, dot.a, plan.lhs), (1, dot.b, plan.rhs)):
        if format_info(side.source).is_block:
            how = "whole blocks staged in shared memory, " + _BLOCK_QUANTS_REMARK.get(side.source, "the int8 quants read as s8")
        elif side.fp4_unpacked:
            how = "staged fp4Padded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma)"
        elif side.fp4_packed_mma:
            how = "packed, as the m16n8k64 mma reads it"
        elif _dequantized_once(value, op_idx, side):
            how = "converted once per CTA into a shared buffer" + (", unpacked along M/N" if side.free_packed else "")
        elif _SOURCE_REG[side.source] is side.reg and not side.fold_scale:
            how = "read as it is"
        else:
            how = "converted in registers after the load"
        if side.fold_scale:
            how += ", scale folded in"
        if side.exp:
            how += f", times 2^{side.exp}"
        name = "lhs" if op_idx == 0 else "rhs"
        reg = NIBBLE_UPCASTS[side.source][1] if side.source in NIBBLE_UPCASTS else side.reg  # q4_K, q4_1: u8
        if str(side.source) != str(reg):
            parts.append(f"{name} {side.source} → {reg}: {how}")
        elif how == "read as it is":
            parts.append(f"{name} {side.source}: no conversion, read as it is")
        else:  # the format stays, its arrangement changes (fp4Padded / packed)
            parts.append(f"{name} {side.source}: {how}")
    remarks.remark(dot, AccelerateMatmulPass.name, "; ".join(parts))


# ---------------------------------------------------------------------------------------------


def _insert(point: InsertPoint, op: Operation) -> Operation:
    Rewriter.insert_op(op, point)
    return op


def _str_attr(text: str) -> Attribute:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(text)


__all__ = ["AccelerateMatmulPass", "contiguous_dim", "Block", "BlockArgument", "Float32Type"]

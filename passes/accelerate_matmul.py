"""qdot-accelerate-matmul: turn each ``qdot.dot_scaled`` into a tensor-core plan.

Decides, per dot and for the requested ``arch`` and ``strategy``
(``passes/support/strategy.py`` holds the table): the ``#qgpu.mma`` encoding and
how the warps tile the output; how each operand reaches registers — staged in
shared memory (``qgpu.local_alloc``; an fp4 operand of a native mixed dot K-contiguous and
``fp4Padded``, as the fp4 ldmatrix reads it, unless its tile is loaded contiguous along M/N:
``_fp4_staging``), read into a ``#qgpu.dot_op`` layout (``qgpu.local_load``,
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
``promote-int8``…) is a diagnostic at the dot; an operand or scale that is not loaded
(computed or carried in registers) one at the op that makes it (``_check_operands_from_memory``).

Options: ``arch``, ``strategy`` (``auto`` by default), ``q4k-fold`` (``auto``, ``mma`` or
``fma``: how a q4_K × q8_1_mmq dot — or q5_K's, which has the same term — applies its dmin term;
see ``AccelerateMatmulPass``; under ``auto`` a kernel's ``qdot.q4k_fold`` attribute decides for its dots) and
``pad-block-rows`` (false by default: 16 bytes after each row of a staged ggml block tile whose row pitch is an
even number of 16-byte groups, ``block_dots.padded_row_bytes``) and ``swizzle-fold-buffers`` (false by default: the
dmin mma's f16 operands swizzled as the decoded scales are); false, a kernel's ``qdot.pad_block_rows`` /
``qdot.swizzle_fold_buffers`` asks for either for its own dots (``MmqConfig`` sets them where run 317 found them
faster). A kernel's ``qdot.broadcast_rhs`` (no option: it changes values) reads its block dots' rhs tiles as their
first row in every column, for kernels that store column 0 alone.

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
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    UnknownLoc,
    f32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from compiler import remarks
from compiler.diagnostics import emit_error, location_of
from compiler.pipelines import PTX_ARCHES, Q4K_FOLDS
from dialects.qdot.dot import DotProblem
from dialects.qdot.formats import Format, format_info
from dialects.qdot.kernel import LoadOp, TransOp
from dialects.qdot.kernel_attrs import (BROADCAST_RHS_ATTR, PAD_BLOCK_ROWS_ATTR, Q4K_FOLD_ATTR,
                                        SWIZZLE_FOLD_BUFFERS_ATTR, is_kernel, kernel_q4k_fold, num_warps)
from dialects.qdot.ops import DotScaledOp
from dialects.ptx.arch import Arch, Feature
from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    WARP_GROUP,
    MmaEncodingAttr,
)
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout, shared_encoding_for
from dialects.qgpu.ops import ConvertLayoutOp, LocalAllocOp, LocalLoadOp, MemDescTransOp, MmaOp, UpcastOp
from dialects.qgpu.register_formats import RegFormat, Rescale, element_type
from dialects.qgpu.types import MemDescType
from dialects.qgpu.warp_group_dot import WGMMA_FORMATS, WarpGroupDotOp
from dialects.qgpu.wgmma_operands import operand_descriptor, wgmma_shared_encoding
from passes.support.accumulator_layouts import has_layout, propagate_accumulator_layouts, refuse_plain_meetings
from passes.support.block_dots import MIN_FORMATS, NIBBLE_UPCASTS, SUPER_BLOCKS, min_term_by_mma, rewrite_block_dot
from passes.support.dot_operands import (
    contiguous_dim,
    insert_at,
    kernel_warps,
    stage_operands_first,
    staged_dim,
)
from passes.support.distributed import function_of
from passes.support.loaded_tiles import layout_register_loads
from passes.support.options import check_option_values
from passes.support.stored_tiles import layout_stored_tiles
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
    accumulator and 32-value block (no staging, no barriers); ``auto``, the kernel's ``qdot.q4k_fold`` where it has
    one, else the one measured faster for the dot's shape (``block_dots.min_term_by_mma``: for q4_1 and q5_1, whose
    m terms go either way too, the mma in the prefill order only). An explicit value applies to every kernel, its
    attribute or not. Against q8_1 (not q8_1_mmq) the term is always an FMA per block."""
    pad_block_rows: bool = False
    """Whether staged ggml block tiles whose rows are an even number of 16-byte groups apart get 16 bytes of padding
    per row (``block_dots.padded_row_bytes``: the activation tile's 288-byte rows put rows r and r + 4 of an
    ldmatrix on one bank slot; run 306 counted those reads at twice their ideal wavefronts). False: only the kernels
    that carry ``qdot.pad_block_rows`` (run 317: faster for some kernels, slower for others)."""
    swizzle_fold_buffers: bool = False
    """Whether the f16 operands of the q4_K / q5_K / q4_1 / q5_1 dmin mma (``q4k-fold=mma``), decoded once per CTA into
    rows of 16 halves, take the conflict-free swizzle of their 32-byte pitch, as the decoded f32 scales do (their
    stores and ldmatrix reads are 2-way conflicted unswizzled: ``--remarks`` counts them). False: only the kernels
    that carry ``qdot.swizzle_fold_buffers``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            warps = num_warps(func)
            fold = _kernel_fold(func, self.q4k_fold)
            laid_out: set[TensorType] = set()
            for dot in [d for d in func.walk() if isinstance(d, DotScaledOp)]:
                try:
                    with _located_at(dot):
                        _rewrite_dot(dot, self.arch, Strategy(self.strategy), warps, *fold,
                                     pad_block_rows=_asked(func, self.pad_block_rows, "pad-block-rows",
                                                           PAD_BLOCK_ROWS_ATTR),
                                     swizzle_fold_buffers=_asked(func, self.swizzle_fold_buffers,
                                                                 "swizzle-fold-buffers", SWIZZLE_FOLD_BUFFERS_ATTR),
                                     broadcast_rhs=_asked(func, None, "", BROADCAST_RHS_ATTR))
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


def _check_power_of_two_tile(dot: DotScaledOp, problem: DotProblem) -> None:
    """The mma.sync path's layouts (``dialects/qgpu``) are linear maps over the bits of an element's index, so a
    tile dimension that is not a power of two has none; said here, at the dot and in the user's terms, where it
    would otherwise surface as two layouts of an internal op that do not compose."""
    for name, size in (("M", problem.m), ("N", problem.n), ("K", problem.k)):
        if size & (size - 1):
            emit_error(dot, f"tile {name} = {size} is not a power of two: qdot's register and shared layouts map "
                            f"the bits of an index, so a dot's M, N and K per tile must be powers of two "
                            f"(M = {problem.m}, N = {problem.n}, K = {problem.k} here)")


def _check_operand_encodings(dot: DotScaledOp) -> None:
    """Refuse, at the dot, an operand or scale whose encoding is not a register layout of its tile (any encoding
    passes qdot.dot_scaled's verifier: a pass before this one may have laid the tiles out). Staging copies the tile
    to shared memory from that layout, so a foreign one (a string, a ``#qgpu.shared``, a layout of another rank)
    became a ``qgpu.local_alloc`` its verifier refused, reported as this pass's bug."""
    named = (("lhs operand", dot.a), ("rhs operand", dot.b), ("lhs scale", dot.a_scale), ("rhs scale", dot.b_scale))
    for name, value in named:
        if value is None or not isinstance(value.type, TensorType) or isinstance(value.type.encoding, NoneAttr):
            continue
        try:
            distributed_layout(value.type)
        except LayoutError as err:
            emit_error(dot, f"qdot-accelerate-matmul: its {name} {value.type} carries an encoding it cannot stage "
                            f"from ({err}); give it a qgpu register layout of its tile, or none")


def _check_operands_from_memory(dot: DotScaledOp) -> None:
    """Refuse, at the op that makes it, an operand or scale the dot cannot stage: anything but a ``qdot.load`` (or
    a ``qdot.trans`` of one) or, in a function that is not a kernel, the function's argument.

    Every plan stages each operand and scale in shared memory: a loaded tile by a global → shared copy, anything
    else by stores from registers, which need the tile's register layout. Only a dot's result and the tiles
    ``loaded_tiles`` lays out get one; an elementwise op on a loaded tile (``arith.andi`` of the packed bytes, a
    constant, a loop carrying the tile) gets none, and ``qdot-to-llvm`` used to stop at the first of them with
    "tensor has no qgpu layout encoding", on every strategy. Giving them layouts would need register loads and
    elementwise lowerings of 8-bit tiles, which nothing has yet. A function argument passes: it is what the pass's
    own tests feed a dot (such a function is not lowered to PTX)."""
    func = function_of(dot)
    named = (("lhs operand", dot.a), ("rhs operand", dot.b), ("lhs scale", dot.a_scale), ("rhs scale", dot.b_scale))
    unsupported = ("which a dot does not support: it stages each operand and scale in shared memory by copying a "
                   "qdot.load (or a qdot.trans of one) from global memory")
    for name, value in named:
        source = value
        while source is not None and isinstance(source.owner, TransOp):
            source = source.owner.src
        if source is None or isinstance(source.owner, LoadOp):
            continue
        if isinstance(source.owner, Operation):
            emit_error(source.owner, f"qdot-accelerate-matmul: its result is the {name} of the qdot.dot_scaled at "
                                     f"{location_of(dot)}, computed in registers, {unsupported}, and a tile computed "
                                     f"in registers has no register layout to store from; load it as the dot reads "
                                     f"it: apply the computation to the data before the kernel, or express it in the "
                                     f"dot's formats and scales")
        if source.owner is func.body.block:
            if not is_kernel(func):
                continue
            emit_error(dot, f"qdot-accelerate-matmul: its {name} is an argument of the kernel, a tile in registers, "
                            f"{unsupported}; pass a !qdot.ptr and qdot.load the tile")
        carrier = source.owner.parent_op() if isinstance(source.owner, Block) else None
        emit_error(dot, f"qdot-accelerate-matmul: its {name} is carried in registers (an argument of "
                        f"'{carrier.name if carrier is not None else 'a block'}'), {unsupported}, and a carried tile "
                        f"has no register layout to store from; load it in the iteration or branch that uses it")


def _kernel_fold(func: FuncOp, option: str) -> tuple[str, str]:
    """The ``q4k-fold`` a function's dots take, and the remark's words for where it comes from: an explicit option
    for every function; under ``auto`` the kernel's own ``qdot.q4k_fold`` where it has one."""
    own = kernel_q4k_fold(func)
    if option == "auto" and own is not None:
        return own, f"the kernel's {Q4K_FOLD_ATTR} = {own}"
    overriding = f", over the kernel's {Q4K_FOLD_ATTR} = {own}" if own is not None and own != option else ""
    return option, f"q4k-fold={option}{overriding}"


def _asked(func: FuncOp, option: bool | None, option_name: str, attr: str) -> str | None:
    """Who asks for a layout choice of a function's dots, in a remark's words (the pass option for every function,
    else the kernel's own attribute); None: nobody. ``option`` None: the choice has no pass option (``attr`` alone)."""
    if option:
        return f"{option_name}=true"
    return f"the kernel's {attr}" if attr in func.attributes else None


def _rewrite_dot(dot: DotScaledOp, arch: str, strategy: Strategy, warps: int, q4k_fold: str,
                 fold_origin: str, pad_block_rows: str | None = None, swizzle_fold_buffers: str | None = None,
                 broadcast_rhs: str | None = None) -> None:
    """``pad_block_rows`` / ``swizzle_fold_buffers`` / ``broadcast_rhs``: who asks for them (``_asked``), None where
    nobody does."""
    _check_operand_encodings(dot)
    _check_operands_from_memory(dot)
    problem = dot.problem()
    try:
        plan = choose_plan(arch, strategy, problem.lhs, problem.rhs, problem.lhs_scale, problem.rhs_scale,
                           problem.lhs_k_pack, problem.rhs_k_pack)
    except PlanError as err:
        emit_error(dot, str(err))
    if broadcast_rhs is not None and not format_info(problem.lhs).is_block:
        emit_error(dot, f"{broadcast_rhs} reads the rhs tile of a dot of ggml blocks as its first row; this dot's "
                        f"operands are {problem.lhs} and {problem.rhs}, not blocks (remove the attribute, or give the "
                        f"kernel only block dots)")
    point = InsertPoint.before(dot)
    noting = remarks.enabled(AccelerateMatmulPass.name)
    if noting:
        remarks.remark(dot, AccelerateMatmulPass.name, _strategy_remark(plan, arch, strategy, problem))
    if _warp_group_plan(dot, plan, arch, warps, problem.m, problem.n):
        if noting:
            _remark_warp_group(dot, plan, warps, problem.n)
        _rewrite_warp_group_dot(dot, plan, warps, point)
        return
    _check_power_of_two_tile(dot, problem)
    mma = MmaEncodingAttr(_warp_grid(dot, problem.m, problem.n, warps))
    if format_info(problem.lhs).is_block:
        if noting:
            _remark_mma(dot, plan, mma, problem.m, problem.n, 4, _dmin_remark(plan, q4k_fold, fold_origin))
        note = (lambda text: remarks.remark(dot, AccelerateMatmulPass.name, text)) if noting else None
        rewrite_block_dot(dot, plan, mma, point, q4k_fold, note, pad_block_rows, swizzle_fold_buffers, broadcast_rhs)
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

    stage_operands_first(dot, point)
    acc_type = dot.acc.type
    assert isinstance(acc_type, TensorType)
    acc_elem = acc_type.get_element_type()
    mma_acc_type = TensorType(acc_elem, acc_type.get_shape(), mma)
    acc_in = insert_at(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
    mma_op = insert_at(point, MmaOp(a_reg, b_reg, acc_in, plan.lhs.reg, plan.rhs.reg, a_scale, b_scale,
                                  rescale=plan.rescale if plan.rescale is not Rescale.NONE else None))
    mma_op.attributes["qdot.strategy"] = StringAttr(plan.strategy.value)
    if plan.lhs.exp or plan.rhs.exp:
        # register value = real value · 2^exp (promote-int8); the rescale undoes it exactly
        mma_op.attributes["qdot.exp"] = DenseArrayBase.from_list(i64, [plan.lhs.exp, plan.rhs.exp])
    out = insert_at(point, ConvertLayoutOp(mma_op.results[0], dot.result.type)).results[0]
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
    contiguous = staged_dim(value)
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
    stage_operands_first(dot, point)
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
    acc_in = insert_at(point, ConvertLayoutOp(dot.acc, mma_acc_type)).results[0]
    op = insert_at(point, WarpGroupDotOp(buffers[0], buffers[1], acc_in, plan.lhs.reg, plan.rhs.reg))
    op.attributes["qdot.strategy"] = StringAttr(plan.strategy.value)
    out = insert_at(point, ConvertLayoutOp(op.results[0], dot.result.type)).results[0]
    dot.result.replace_all_uses_with(out)
    Rewriter.erase_op(dot)








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
    if not all(staged_dim(value) == (1 if op_idx == 0 else 0) for op_idx, value, side in sides if not side.staged_fp8):
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
    k_dim = 1 if op_idx == 0 else 0
    contiguous = staged_dim(value, k_dim if side.fp4_unpacked else None)
    order = [contiguous, 1 - contiguous]
    fp4_padded = side.fp4_unpacked and _fp4_padded(value, op_idx)
    shared = shared_encoding_for(shape, elem, order, fp4_padded=fp4_padded)
    mem = insert_at(point, LocalAllocOp(MemDescType(shape, elem, shared), value)).results[0]
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
    fallback = side.fp4_unpacked and not fp4_padded  # no ldmatrix reads it: the byte loads, asked for
    reg = insert_at(point, LocalLoadOp(mem, TensorType(elem, shape, src_enc), fallback=fallback)).results[0]
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
    return insert_at(point, UpcastOp(reg, source_reg, side.reg, TensorType(element_type(side.reg), out_shape, out_enc),
                                   upcast_scale)).results[0]


def _fp4_padded(value: SSAValue, op_idx: int) -> bool:
    """Whether a native fp4Unpacked operand is staged fp4Padded: where its tile is K-contiguous in shared
    memory, the only order the fp4 ldmatrix reads (``staged_dim`` with K as the free choice). One decision for
    ``_operand``'s staging and ``_fp4_staging``'s remark, so that the remark says what was done."""
    k_dim = 1 if op_idx == 0 else 0
    return staged_dim(value, k_dim) == k_dim


def _fp4_staging(value: SSAValue, op_idx: int) -> str:
    """How ``_operand`` stages a native fp4Unpacked operand, and why, for its remark.

    The fp4 ldmatrix (``.m8n16 .b8x16.b4x16_p64``) reads rows of 8 packed bytes along K, each padded to 16 bytes
    (``fp4Padded``): Triton's SM120 path keeps the packed K axis contiguous in shared memory (``allowTranspose =
    false``) so that it always applies. A tile loaded contiguous along K is copied as it is, padded. A tile whose
    order is not known (a function argument: pass-level IR, since a kernel's operands must be loaded,
    ``_check_operands_from_memory``) is written by register stores, which take any order: K, padded. A tile loaded
    contiguous along M or N is copied by cp.async, which moves runs of bytes and cannot transpose them; no ldmatrix
    reads that order (a row of ``.b4x16_p64`` would mix K and N), so padding would only double the buffer: it is
    staged unpadded, as loaded, and read by the single-byte ``ld.shared`` fallback (the local load's ``fallback``),
    one nibble per register byte — the same registers, slower."""
    read = "read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma)"
    if _fp4_padded(value, op_idx):
        if contiguous_dim(value) is None:
            return (f"staged fp4Padded, {read}, K-contiguous: its order in memory is not known, so the stores from "
                    f"registers take the one the fp4 ldmatrix reads")
        return f"staged fp4Padded, {read}, K-contiguous as loaded: the order the fp4 ldmatrix reads"
    free = "M" if op_idx == 0 else "N"
    return (f"staged unpadded, {read} by single-byte ld.shared loads (fallback), {free}-contiguous as loaded: "
            f"cp.async cannot transpose it to the K-contiguous rows the fp4 ldmatrix reads, so fp4Padded would only "
            f"double its shared memory")


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
    contiguous = staged_dim(value)
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
    warps = kernel_warps(dot)

    def blocked(run: int) -> BlockedEncodingAttr:
        spt, tpw, wpc = [1, 1], [1, 1], [1, 1]
        spt[run_dim], tpw[run_dim], tpw[1 - run_dim], wpc[1 - run_dim] = run, lanes, 32 // lanes, warps
        return BlockedEncodingAttr(spt, tpw, wpc, [run_dim, 1 - run_dim])

    elem = mem_type.get_element_type()
    raw = insert_at(point, LocalLoadOp(mem, TensorType(elem, shape, blocked(run_elems)))).results[0]
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
        scale_mem = insert_at(point, LocalAllocOp(MemDescType(scale_t.get_shape(), scale_elem,
                                                            shared_encoding_for(scale_t.get_shape(), scale_elem,
                                                                                [1, 0])), scale)).results[0]
        if k_dim == 0:
            scale_mem = insert_at(point, MemDescTransOp(scale_mem, [1, 0])).results[0]
        blocked_scale = insert_at(point, LocalLoadOp(scale_mem, TensorType(scale_elem, scale_shape,
                                                                         blocked(DEQUANT_RUN // group)))).results[0]
    out_elem = element_type(target)
    up = insert_at(point, UpcastOp(raw, source, target, TensorType(out_elem, out_shape, blocked(DEQUANT_RUN)),
                                 blocked_scale)).results[0]
    order = [run_dim, 1 - run_dim]
    encoding = (wgmma_shared_encoding if buffer else shared_encoding_for)(out_shape, out_elem, order)
    staged_type = MemDescType(out_shape, out_elem, encoding)
    staged = insert_at(point, LocalAllocOp(staged_type, up)).results[0]
    if buffer:
        return staged
    operand = DotOperandEncodingAttr(op_idx, mma, k_width)  # the other operand's kWidth, in values
    return insert_at(point, LocalLoadOp(staged, TensorType(out_elem, out_shape, operand))).results[0]


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
        scales.append(insert_at(point, arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(unit, [1.0]))).results[0])
    return scales[0], scales[1]


def _scale_regs(value: SSAValue, enc: DotScaleEncodingAttr, point: InsertPoint) -> SSAValue:
    tensor = value.type
    assert isinstance(tensor, TensorType)
    shape, elem = tensor.get_shape(), tensor.get_element_type()
    shared = shared_encoding_for(shape, elem, [1, 0])
    mem = insert_at(point, LocalAllocOp(MemDescType(shape, elem, shared), value)).results[0]
    return insert_at(point, LocalLoadOp(mem, TensorType(elem, shape, enc))).results[0]




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
                   f"{warps} warps as {warps // WARP_GROUP} warpgroup{'s' if warps > WARP_GROUP else ''} along M")
    _remark_operands(dot, plan)


def _dmin_remark(plan: Plan, q4k_fold: str, origin: str) -> str:
    formats = (plan.lhs.source, plan.rhs.source)
    minned = next((fmt for fmt in formats if fmt in MIN_FORMATS), None)
    if minned is None:
        return ""
    by_mma = min_term_by_mma(formats, q4k_fold)
    term, step = ("dmin term", "super-block") if minned in SUPER_BLOCKS else ("m term", "K step")
    return f"; {minned} {term} {f'as an f16 mma per {step}' if by_mma else 'as an FMA per block'} ({origin})"


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
            how = _fp4_staging(value, op_idx)
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


__all__ = ["AccelerateMatmulPass", "Block", "BlockArgument", "Float32Type"]

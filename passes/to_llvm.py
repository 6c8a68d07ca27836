"""qdot-to-llvm: everything left becomes LLVM-ready IR (func, arith, cf and ptx ops).

What this pass decides: the kernel signature (``!qdot.ptr`` arguments become i64
addresses; ``qdot.arg_kinds`` records what the runner must pass), the shared
memory map (every ``qgpu.local_alloc`` gets an offset in the kernel's dynamic
shared memory; the total goes to ``qdot.shared_bytes``, and more than one CTA of ``arch`` may
have is a diagnostic: ptxas would not notice, the launch would fail), and the per-thread code
of the remaining tile-level ops: program ids, global → shared copies
(``cp.async`` with zero fill and the kernel's ``qdot.l2_prefetch`` hint, barriers
around synchronous staging), register → shared copies (one barrier after consecutive copies
whose readers all follow the last, ``shared_stores.defer_trailing_barriers``), register
upcasts, stores with bounds (pairs of elements in one store where N's parity allows, proven
or tested at run time: ``stores.py``), ``qdot.last_arrival`` (the arrival of CUDA's grid barrier:
``passes/support/last_arrival.py``), ``qdot.barrier`` (``bar.sync 0``), constants and the K loop, whose
tensor-valued ``iter_args`` become the registers of their layouts before ``scf`` → ``cf``. Option
``epilogue=staged``: an f32 tile stored after the K loop goes out through shared memory in 16-byte row pieces where
that is legal (``passes/support/staged_stores.py``); the default stores from the registers.

The result is what ``targets/ptx/llvm_ir.py`` translates to LLVM IR; ``qdot-lower-local-load``
and ``qdot-lower-mma`` must have run (a ``qgpu.local_load`` or ``qgpu.mma`` left here
is a diagnostic). Lit tests: ``tests/lit/qdot-to-llvm/``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float32Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrealizedConversionCastOp,
    f32,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from compiler import remarks
from compiler.diagnostics import QdotError, emit_error
from compiler.pipelines import PTX_ARCHES
from dialects.ptx.arch import Arch
from dialects.ptx.attrs import SpecialReg
from dialects.ptx.ops import BarSyncOp, CpAsyncCommitOp, CpAsyncWaitOp, GridDepLaunchDependentsOp, GridDepWaitOp, \
    SpecialRegOp
from dialects.qdot.kernel import (
    BarrierOp,
    LastArrivalOp,
    LoadOp,
    MakeDescOp,
    NumProgramsOp,
    PrefetchOp,
    ProgramIdOp,
    StoreOp,
)
from dialects.qdot.kernel_attrs import (
    ARG_KINDS_ATTR,
    LAUNCH_DEPENDENTS_ATTR,
    NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR,
    SHARED_BYTES_ATTR,
    WAIT_PREVIOUS_GRID_ATTR,
    is_kernel,
    not_written_by_previous_grid,
    num_warps,
)
from dialects.qdot.types import DescType, PtrType
from dialects.qgpu.block_parts import BlockPartOp
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.qgpu.ops import (
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    ConvertLayoutOp,
    LocalAllocOp,
    LocalLoadOp,
    LocalStoreOp,
    MemDescIndexOp,
    MemDescTransOp,
    MmaOp,
    UpcastOp,
)
from dialects.qgpu.types import MemDescType
from passes.support.builder import Builder
from passes.support.copies import copy_tile, global_tile, l2_prefetch_hint, made_desc
from passes.support.float_casts import lower_truncf
from passes.support.grid_wait import wait_position
from passes.support.last_arrival import lower_last_arrival
from passes.support.prefetches import prefetch_tile
from passes.support.tensor_sums import lower_addf
from passes.support.distributed import FunctionState, from_regs, num_regs, reg_type, to_regs
from passes.support.accumulator_layouts import has_layout
from passes.support.options import check_option_values
from passes.support.register_loads import lower_register_load
from passes.support.shared_stores import defer_trailing_barriers, register_staged, store_registers
from passes.support.stores import lower_store
from passes.support.upcasts import lower_upcast
from passes.support.warp_group import ALIGN_ATTR
from passes.support.walk import ops_in

SHARED_ALIGN = 128
EPILOGUES = ("direct", "staged")
"""Values of ``qdot-to-llvm``'s ``epilogue`` option."""


@dataclass(frozen=True)
class ToLLVMPass(ModulePass):
    name = "qdot-to-llvm"
    OPTION_VALUES: ClassVar[dict[str, tuple[str, ...]]] = {"arch": PTX_ARCHES, "epilogue": EPILOGUES}
    """What each option takes (the tools' --help lists it; ``apply`` refuses anything else)."""

    arch: str = "sm_90"
    epilogue: str = "direct"
    """``direct``: tiles are stored from their registers; ``staged``: an f32 tile stored after
    the K loop goes through shared memory as 16-byte row-contiguous stores where that is
    legal (``passes/support/staged_stores.py``, which says when; run 76 measured it faster
    for some kernels and slower for others, so it is not the default)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        for func in [f for f in ops_in(op) if isinstance(f, FuncOp)]:
            if is_kernel(func):
                _lower_kernel(func, Arch(self.arch), staged=self.epilogue == "staged")
            else:
                _refuse_tensor_code_outside_kernels(func)
        _convert_scf(op)
        _resolve_casts(op)


def _refuse_tensor_code_outside_kernels(func: FuncOp) -> None:
    """Tensors live in a kernel's registers and shared memory, which only a kernel has: a plain
    function that takes or computes tensors (the form the DESIGN's one-op examples are written
    in, fine for qdot-opt) cannot become GPU code, and without this check the first sign of it
    was an internal cast reported at the top of the file."""
    if any(isinstance(t, TensorType) for t in (*func.function_type.inputs, *func.function_type.outputs)):
        emit_error(func, f"@{func.sym_name.data} takes or returns tensors, so it cannot be GPU code: qdot-to-llvm "
                         "lowers kernels (func.func with the qdot.kernel attribute, pointer and scalar arguments, "
                         "tiles moved by qdot.make_desc / qdot.load / qdot.store; examples/mx_gemm_e4m3_e2m1.mlir "
                         "shows the form)")
    for inner in ops_in(func):
        if any(isinstance(r.type, TensorType) for r in inner.results):
            emit_error(inner, f"computes a tensor in @{func.sym_name.data}, which is not a kernel: qdot-to-llvm "
                              "lowers tensor code only in functions with the qdot.kernel attribute")


def _lower_kernel(func: FuncOp, arch: Arch, staged: bool = False) -> None:
    for leftover in ops_in(func):
        if isinstance(leftover, LocalLoadOp):
            emit_error(leftover, "qgpu.local_load must be lowered by qdot-lower-local-load before qdot-to-llvm")
        if isinstance(leftover, MmaOp):
            emit_error(leftover, "qgpu.mma must be lowered by qdot-lower-mma before qdot-to-llvm")
        if (rank := _moved_tile_rank(leftover)) not in (None, 2):
            emit_error(leftover, f"qdot-to-llvm moves 2-D tiles between global memory and shared memory or "
                                 f"registers; this tile has rank {rank} (a tile with unit dimensions, such as "
                                 "1xN, moves the same elements)")
    state = FunctionState(func)
    warps = num_warps(func)
    l2_prefetch_hint(func)  # a malformed qdot.l2_prefetch is reported even without copies
    _grid_dependency(func)
    pointers = _lower_signature(func)
    bases = _allocate_shared(func, arch)
    for block in {op.parent: None for op in ops_in(func) if register_staged(op)}:
        defer_trailing_barriers(block)
    for op in ops_in(func):
        if op.parent is None:
            continue
        try:
            _lower_op(op, state, warps, pointers, bases, staged)
        except LayoutError as err:  # a tensor the earlier passes left without a usable layout
            emit_error(op, str(err))
    _expand_structured(func)
    from passes.support.schedule import drop_redundant_barriers, sink_mma_operands

    # One walk of the lowered function feeds the clean-ups below: they only erase ops and
    # replace uses, so the ops they look at are the ones this walk finds (each walk of a
    # lowered kernel costs several milliseconds, and there were six).
    dead_candidates: list[Operation] = []
    casts: list[UnrealizedConversionCastOp] = []
    mma_blocks: dict[Block, None] = {}  # insertion-ordered: deterministic
    for op in ops_in(func):
        if _is_dead_kind(type(op)):
            dead_candidates.append(op)
        elif type(op) is UnrealizedConversionCastOp:
            casts.append(op)
        elif op.name in ("ptx.mma_sync", "ptx.wgmma") and op.parent is not None:
            mma_blocks[op.parent] = None
    _erase_dead(dead_candidates)
    _refuse_unlowered_users(dead_candidates)
    _fold_cast_pairs(casts)
    _erase_dead_casts([cast for cast in casts if cast.parent is not None])
    for block in mma_blocks:
        sink_mma_operands(block)
        drop_redundant_barriers(block)


# ---------------------------------------------------------------------------------------------
# Signature and shared memory


def _moved_tile_rank(op: Operation) -> int | None:
    """The rank of the global tile ``op`` copies or stores, None for other ops (the copies and
    stores are written for 2-D tiles: a rank-1 one was an internal error)."""
    if isinstance(op, LocalAllocOp) and op.src is not None and isinstance(op.src.owner, LoadOp):
        op = op.src.owner
    if isinstance(op, (StoreOp, AsyncCopyOp, LoadOp)) and isinstance(op.desc.type, DescType):
        return op.desc.type.rank
    return None


def _grid_dependency(func: FuncOp) -> None:
    """``griddepcontrol.launch_dependents`` and / or ``griddepcontrol.wait`` where the kernel's
    attributes ask for them (dialects/qdot/kernel_attrs.py). Launch_dependents is the first instruction;
    the wait too, unless arguments are marked ``qdot.not_written_by_previous_grid``: then it goes
    after the reads of those arrays that come first, before the first access of any other memory
    (``grid_wait.wait_position``), so no access of this kernel can race the previous one."""
    block = func.body.blocks[0]
    if WAIT_PREVIOUS_GRID_ATTR in func.attributes:
        before, early = wait_position(func)
        wait = GridDepWaitOp(not_written_by_previous_grid(func))
        wait.location = func.location
        if before is None:
            block.add_op(wait)
        else:
            block.insert_op_before(wait, before)
        if remarks.enabled(ToLLVMPass.name) and not_written_by_previous_grid(func):
            remarks.remark(before or func, ToLLVMPass.name, lambda: _wait_remark(func, before, early))
    _drop_argument_attr(func, NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR)  # used up; the arguments become i64
    if LAUNCH_DEPENDENTS_ATTR in func.attributes:
        op = GridDepLaunchDependentsOp()
        op.location = func.location
        if block.first_op is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, block.first_op)


def _drop_argument_attr(func: FuncOp, name: str) -> None:
    if func.arg_attrs is not None and any(name in attrs.data for attrs in func.arg_attrs.data):
        func.arg_attrs = ArrayAttr([DictionaryAttr({key: value for key, value in attrs.data.items() if key != name})
                                    for attrs in func.arg_attrs.data])


def _wait_remark(func: FuncOp, before: Operation | None, early: list[Operation]) -> str:
    """Said at the operation the wait goes before (the kernel where it closes the entry block)."""
    args = func.body.blocks[0].args
    names = {arg: f"%{arg.name_hint or arg.index}" for arg in args}
    marked = ", ".join(names[args[index]] for index in not_written_by_previous_grid(func))
    where = ("at the end of the entry block: nothing else in it may touch memory the previous grid writes"
             if before is None or before.has_trait(IsTerminator)
             else f"before this {before.name}, the first operation that may touch memory the previous grid writes")
    if not early:
        return (f"@{func.sym_name.data}: griddepcontrol.wait {where}; no read of {marked} "
                "(qdot.not_written_by_previous_grid) comes before it")
    read = ", ".join(sorted({names[op.desc.owner.ptr] for op in early}))
    count = f"{len(early)} read{'s' if len(early) != 1 else ''}"
    return (f"@{func.sym_name.data}: griddepcontrol.wait after {count} of {read} "
            f"(qdot.not_written_by_previous_grid), {where}")


def _lower_signature(func: FuncOp) -> dict[SSAValue, SSAValue]:
    """``!qdot.ptr`` arguments become i64 addresses; records the argument kinds."""
    kinds: list[str] = []
    block = func.body.blocks[0]
    new_inputs: list[Attribute] = []
    for arg in list(block.args):
        t = arg.type
        if isinstance(t, PtrType):
            Rewriter.replace_value_with_new_type(arg, i64)
            kinds.append("ptr")
            new_inputs.append(i64)
        elif isinstance(t, IndexType):
            kinds.append("index")
            new_inputs.append(t)
        elif isinstance(t, IntegerType) and t.width.data in (32, 64):
            kinds.append(f"i{t.width.data}")
            new_inputs.append(t)
        elif isinstance(t, Float32Type):
            kinds.append("f32")
            new_inputs.append(t)
        else:
            # (the launchers pass i32 and i64 scalars; a narrower one would need a parameter size of its own)
            emit_error(func, f"kernel argument {arg.index} has type {t}; kernels take !qdot.ptr, index, i32, i64 "
                             f"and f32")
    func.function_type = FunctionType.from_lists(new_inputs, list(func.function_type.outputs.data))
    func.attributes[ARG_KINDS_ATTR] = ArrayAttr([StringAttr(k) for k in kinds])
    return {}


def _allocate_shared(func: FuncOp, arch: Arch) -> dict[SSAValue, SSAValue]:
    """Give every local_alloc an offset in dynamic shared memory (i32 constants at entry). A
    kernel that needs more than one CTA of ``arch`` may have is refused here: it would compile
    (ptxas does not check dynamic shared memory) and then fail at every launch."""
    state_builder = Builder.at_start(func.body.blocks[0])
    offset = 0
    bases: dict[SSAValue, SSAValue] = {}
    for alloc in [op for op in ops_in(func) if isinstance(op, LocalAllocOp)]:
        memdesc = alloc.result.type
        assert isinstance(memdesc, MemDescType)
        layout = shared_layout(memdesc)
        align = SHARED_ALIGN
        if ALIGN_ATTR in alloc.attributes:  # a wgmma operand (passes/support/warp_group.py)
            requested = alloc.attributes[ALIGN_ATTR]
            assert isinstance(requested, IntegerAttr)
            align = max(align, requested.value.data)
        offset = -(-offset // align) * align
        bases[alloc.result] = state_builder.const(offset, i32)
        alloc.attributes["qdot.offset"] = IntegerAttr(offset, i64)
        offset += layout.allocation_bytes
    needed = -(-offset // 16) * 16
    if needed > arch.max_shared_bytes:
        emit_error(func, f"the kernel needs {needed} B of shared memory per CTA (its staged tiles and "
                         f"buffers); {arch.value} allows at most {arch.max_shared_bytes} B: fewer pipeline "
                         "stages (num-stages) or smaller tiles fit")
    func.attributes[SHARED_BYTES_ATTR] = IntegerAttr(needed, i64)
    if remarks.enabled(ToLLVMPass.name):
        count = len(bases)
        remarks.remark(func, ToLLVMPass.name, f"@{func.sym_name.data}: {needed} B of shared memory per CTA in {count} "
                       f"buffer{'s' if count != 1 else ''} ({arch.value} allows {arch.max_shared_bytes} B)")
    return bases


def _memdesc_base(value: SSAValue, bases: dict[SSAValue, SSAValue], b: Builder) -> SSAValue:
    if value in bases:
        return bases[value]
    owner = value.owner
    if isinstance(owner, (MemDescTransOp, BlockPartOp)):  # views: same bytes, other coordinates
        bases[value] = _memdesc_base(owner.src, bases, b)
        return bases[value]
    if isinstance(owner, MemDescIndexOp):
        parent = _memdesc_base(owner.src, bases, b)
        src_type = owner.src.type
        assert isinstance(src_type, MemDescType)
        stage_bytes = shared_layout(src_type).buffer_bytes
        index = b.emit(arith.IndexCastOp(owner.index, i32))
        result = b.add(parent, b.mul(index, stage_bytes))
        bases[value] = result
        return result
    if not isinstance(owner, Operation):  # said at the op that uses it (the LayoutError handler of _lower_kernel)
        raise LayoutError("shared-memory buffers must come from qgpu.local_alloc or qgpu.memdesc_index; this one "
                          "is a block argument (a buffer carried through a loop or a branch)")
    raise QdotError(owner, "shared-memory buffers must come from qgpu.local_alloc or qgpu.memdesc_index")


# ---------------------------------------------------------------------------------------------
# Ops


_LOWERED = (ProgramIdOp, NumProgramsOp, LocalAllocOp, AsyncCopyOp, AsyncCommitOp, AsyncWaitOp, UpcastOp, StoreOp,
            ConvertLayoutOp, arith.ConstantOp, LocalStoreOp, MemDescIndexOp, MemDescTransOp, BlockPartOp,
            UnrealizedConversionCastOp, arith.TruncFOp, arith.AddfOp, LoadOp, PrefetchOp, LastArrivalOp, BarrierOp)
"""Every class ``_lower_op`` looks at; ops of other classes are left as they are."""


@functools.cache
def _may_lower(cls: type[Operation]) -> bool:
    """Whether ``_lower_op`` has a branch for ``cls``: asked once per class instead of a
    dozen ``isinstance`` tests (against xDSL's ABC classes) per op of the kernel."""
    return issubclass(cls, _LOWERED)


def _lower_op(op: Operation, state: FunctionState, warps: int, pointers: dict, bases: dict,
              staged: bool = False) -> None:
    if not _may_lower(type(op)):
        return
    if isinstance(op, ProgramIdOp):
        reg = {0: SpecialReg.CTAID_X, 1: SpecialReg.CTAID_Y, 2: SpecialReg.CTAID_Z}[op.axis.index]
        _replace_with_index(op, SpecialRegOp(reg))
    elif isinstance(op, NumProgramsOp):
        reg = {0: SpecialReg.NCTAID_X, 1: SpecialReg.NCTAID_Y, 2: SpecialReg.NCTAID_Z}[op.axis.index]
        _replace_with_index(op, SpecialRegOp(reg))
    elif isinstance(op, LocalAllocOp):
        _lower_alloc(op, state, warps, bases)
    elif isinstance(op, LastArrivalOp):
        lower_last_arrival(op)
    elif isinstance(op, BarrierOp):
        Rewriter.replace_op(op, [BarSyncOp(0)], [])
    elif isinstance(op, AsyncCopyOp):
        b = Builder.before(op)
        desc = made_desc(op.desc, op)
        tile = global_tile(op.desc, desc.ptr, tuple(op.offsets), op.in_bounds_dims())
        memdesc = op.dst.type
        assert isinstance(memdesc, MemDescType)
        copy_tile(b, state, tile, shared_layout(memdesc), _memdesc_base(op.dst, bases, b), warps, op,
                  _landing_point(op), op.active)
        _erase(op)
    elif isinstance(op, PrefetchOp):
        b = Builder.before(op)
        desc = made_desc(op.desc, op)
        desc_type = op.desc.type
        assert isinstance(desc_type, DescType)
        shape = tuple(desc_type.get_shape())
        each = prefetch_tile(b, state, global_tile(op.desc, desc.ptr, tuple(op.offsets)), shape, warps, op)
        if remarks.enabled(ToLLVMPass.name):
            tile_text = "x".join(str(d) for d in shape) + f"x{desc_type.element_type}"
            remarks.remark(op, ToLLVMPass.name, f"prefetch of a {tile_text} tile: {each} prefetch.global.L2 per "
                           "thread, one per 128-byte line it touches")
        _erase(op)
    elif isinstance(op, AsyncCommitOp):
        Rewriter.replace_op(op, [CpAsyncCommitOp()], [])
    elif isinstance(op, AsyncWaitOp):
        b = Builder.before(op)
        b.insert(CpAsyncWaitOp(op.pending_count if hasattr(op, "pending_count") else _pending(op)))
        b.insert(BarSyncOp(0))
        _erase(op)
    elif isinstance(op, UpcastOp):
        lower_upcast(op, state)
    elif isinstance(op, arith.TruncFOp):
        if isinstance(op.input.type, TensorType):
            lower_truncf(op)
    elif isinstance(op, arith.AddfOp):
        if isinstance(op.lhs.type, TensorType):
            lower_addf(op)
    elif isinstance(op, StoreOp):
        lower_store(op, made_desc(op.desc, op).ptr, state, staged)
    elif isinstance(op, LoadOp):
        if has_layout(op.result.type):  # a tile loaded into registers (a staged one is its local_alloc's copy)
            lower_register_load(op, made_desc(op.desc, op).ptr, state)
    elif isinstance(op, ConvertLayoutOp):
        if op.src.type != op.result.type:
            src, dst = op.src.type, op.result.type
            assert isinstance(src, TensorType) and isinstance(dst, TensorType)
            if not (distributed_layout(src) == distributed_layout(dst)):
                emit_error(op, "qgpu.convert_layout between different layouts is not supported by qdot-to-llvm yet")
        op.result.replace_all_uses_with(op.src)
        _erase(op)
    elif isinstance(op, arith.ConstantOp) and isinstance(op.result.type, TensorType):
        _lower_splat(op)
    elif isinstance(op, LocalStoreOp):
        store_registers(op, state, _memdesc_base(op.dst, bases, Builder.before(op)), _store_note(op))
        _erase(op)
    elif isinstance(op, (MemDescIndexOp, MemDescTransOp, BlockPartOp)):
        return  # folded into the users' base offsets
    elif isinstance(op, UnrealizedConversionCastOp) and len(op.inputs) == 1 \
            and isinstance(op.inputs[0].type, MemDescType):
        b = Builder.before(op)
        op.results[0].replace_all_uses_with(_memdesc_base(op.inputs[0], bases, b))
        _erase(op)


def _landing_point(copy: AsyncCopyOp) -> Builder | None:
    """Where the shared stores of a synchronous fallback copy may go: the data of a
    ``qgpu.async_copy`` has to be there only once a ``qgpu.async_wait`` says so. In a loop body
    (a pipelined K loop: the copy fills a ring slot read iterations later) that is before the
    next wait in the body or, without one, before the yield; elsewhere the stores follow their
    loads."""
    block = copy.parent
    if block is None or not isinstance(block.last_op, scf.YieldOp):
        return None
    op = copy.next_op
    while op is not None and not isinstance(op, (AsyncWaitOp, scf.YieldOp)) and not op.regions:
        op = op.next_op
    return Builder.before(op) if op is not None else None


def _pending(op: AsyncWaitOp) -> int:
    value = op.properties.get("pending")
    assert isinstance(value, IntegerAttr)
    return int(value.value.data)


def _replace_with_index(op: Operation, special: SpecialRegOp) -> None:
    b = Builder.before(op)
    value = b.emit(special)
    index = b.emit(arith.IndexCastOp(value, IndexType()))
    op.results[0].replace_all_uses_with(index)
    _erase(op)


def _store_note(op: Operation):  # noqa: ANN202 - Callable[[str], None] | None
    """Where ``store_registers`` says a register → shared store's wavefronts: a remark at ``op``, when asked for."""
    if not remarks.enabled(ToLLVMPass.name):
        return None
    return lambda text: remarks.remark(op, ToLLVMPass.name, text)


def _lower_alloc(op: LocalAllocOp, state: FunctionState, warps: int, bases: dict) -> None:
    src = op.src
    if src is None:
        return
    b = Builder.before(op)
    memdesc = op.result.type
    assert isinstance(memdesc, MemDescType)
    if register_staged(op):
        store_registers(op, state, bases[op.result], _store_note(op))
        return
    load = src.owner
    assert isinstance(load, LoadOp)
    desc = made_desc(load.desc, load)
    # earlier readers of this buffer (previous loop iteration) must be done before it is overwritten
    b.insert(BarSyncOp(0))
    tile = global_tile(load.desc, desc.ptr, tuple(load.offsets), load.in_bounds_dims())
    copy_tile(b, state, tile, shared_layout(memdesc), bases[op.result], warps, op)
    b.insert(CpAsyncCommitOp())
    b.insert(CpAsyncWaitOp(0))
    b.insert(BarSyncOp(0))


def _lower_splat(op: arith.ConstantOp) -> None:
    tensor = op.result.type
    assert isinstance(tensor, TensorType)
    if tensor.encoding is None:
        return
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr) or not value.is_splat():
        emit_error(op, "only splat tensor constants can be distributed")
    b = Builder.before(op)
    scalar = value.get_values()[0]
    layout = distributed_layout(tensor)
    rtype = reg_type(tensor)
    if rtype == f32:
        reg = b.fconst(float(scalar))
    else:
        elem = tensor.get_element_type()
        per = layout.elements_per_register
        width = 32 // per
        code = (int(scalar) & ((1 << width) - 1) if isinstance(elem, IntegerType)
                else _float_bits(float(scalar), elem, op))
        word = 0
        for i in range(per):
            word |= code << (width * i)
        reg = b.const(word - (1 << 32) if word >= 1 << 31 else word)
    out = from_regs(b, [reg] * layout.regs_per_thread, tensor)
    op.result.replace_all_uses_with(out)
    _erase(op)


_SPLAT_FORMATS = {"bf16": "bf16", "f16": "fp16", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2", "f6E2M3FN": "e2m3",
                  "f6E3M2FN": "e3m2", "f4E2M1FN": "e2m1", "f8E8M0FNU": "ue8m0"}
"""The element types a splat constant's value is encoded in, by ``compiler.numerics`` (fp8, fp6 and fp4 were an
internal error)."""


def _float_bits(value: float, elem: Attribute, op: Operation) -> int:
    """The code of ``value`` in ``elem``. The parser has already put the value in the type (rounded to nearest
    even, saturated or NaN as the type's conversion does), so encoding it is exact."""
    import numpy as np

    from compiler.numerics import encode

    fmt = _SPLAT_FORMATS.get(str(elem))
    if fmt is None:
        emit_error(op, f"qdot-to-llvm: no register encoding for a splat of {elem}")
    return int(encode(fmt, np.array([value], dtype=np.float64))[0])


def _erase(op: Operation) -> None:
    op.detach()
    op.erase(safe_erase=False)


# ---------------------------------------------------------------------------------------------
# Loops: tensor iter_args become registers


def _expand_structured(func: FuncOp) -> None:
    """Tensor results of ``scf.if`` and tensor ``iter_args`` of ``scf.for`` become the registers
    of their layouts (a persistent kernel's tile end: store the accumulator and yield zeros, or
    yield it; the K loop); each branch yields its value's registers. One walk finds both: a
    lowered kernel has thousands of ops."""
    structured = [op for op in ops_in(func) if type(op) in (scf.IfOp, scf.ForOp)]
    for branch in structured:
        if type(branch) is scf.IfOp and any(isinstance(r.type, TensorType) for r in branch.results):
            _located(branch, _expand_branch)
    for loop in structured:
        if type(loop) is scf.ForOp and any(isinstance(a.type, TensorType) for a in loop.iter_args):
            _located(loop, _expand_loop)


def _located(op: Operation, expand: Callable[[Operation], None]) -> None:
    """``expand(op)``, a tensor it carries that has no register layout reported at ``op`` (a value the earlier
    passes left plain, such as a tile passed through a loop that nothing in it changes)."""
    try:
        expand(op)
    except LayoutError as err:
        emit_error(op, f"qdot-to-llvm: this '{op.name}' carries a tensor without a register layout: "
                       f"{str(err).splitlines()[0]}")


def _expand_branch(branch: scf.IfOp) -> None:
    new_yields = [_yield_registers(region.block.last_op) for region in branch.regions]
    new_branch = scf.IfOp(branch.cond, [v.type for v in new_yields[0]], branch.detach_region(0),
                          branch.detach_region(0))
    Rewriter.insert_op(new_branch, InsertPoint.before(branch))
    _rebuild_results(branch.results, new_branch.results, Builder(InsertPoint.after(new_branch)))
    branch.detach()
    branch.erase(safe_erase=False)


def _expand_loop(loop: scf.ForOp) -> None:
    b = Builder.before(loop)
    old_body = loop.body.block
    new_inits: list[SSAValue] = []
    for init in loop.iter_args:
        new_inits += to_regs(b, init) if isinstance(init.type, TensorType) else [init]
    new_block = Block(arg_types=[old_body.args[0].type] + [v.type for v in new_inits])
    old_body.args[0].replace_all_uses_with(new_block.args[0])
    _rebuild_results(old_body.args[1:], new_block.args[1:], Builder.at_start(new_block))
    for op in list(old_body.ops):
        op.detach()
        new_block.add_op(op)
    _yield_registers(new_block.last_op)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, new_inits, Region([new_block]))
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    _rebuild_results(loop.results, new_loop.results, Builder(InsertPoint.after(new_loop)))
    loop.detach()
    loop.erase(safe_erase=False)


def _yield_registers(yield_op: Operation | None) -> list[SSAValue]:
    """Replace an ``scf.yield`` of tensors by one of their registers; returns its operands."""
    assert isinstance(yield_op, scf.YieldOp)
    b = Builder.before(yield_op)
    values: list[SSAValue] = []
    for value in yield_op.operands:
        values += to_regs(b, value) if isinstance(value.type, TensorType) else [value]
    Rewriter.replace_op(yield_op, scf.YieldOp(*values))
    return values


def _rebuild_results(old: Sequence[SSAValue], scalars: Sequence[SSAValue], b: Builder) -> None:
    """The users of each old value (a tensor or a scalar) get it rebuilt, in order, from its
    share of ``scalars`` (a tensor's registers, a scalar itself)."""
    position = 0
    for value in old:
        count = num_regs(value.type) if isinstance(value.type, TensorType) else 1
        part = list(scalars[position:position + count])
        position += count
        value.replace_all_uses_with(from_regs(b, part, value.type) if isinstance(value.type, TensorType)
                                    else part[0])


_DEAD_KINDS = (LoadOp, MakeDescOp, LocalAllocOp, MemDescIndexOp, MemDescTransOp, BlockPartOp)
"""The tile-level ops that lowering leaves unused (descriptors, loads, buffers and views)."""


@functools.cache
def _is_dead_kind(cls: type[Operation]) -> bool:
    """``isinstance(op, _DEAD_KINDS)`` asked once per class (see ``_may_lower``)."""
    return issubclass(cls, _DEAD_KINDS)


def _erase_dead(candidates: list[Operation]) -> None:
    """Erase the unused ones of ``candidates`` (``_DEAD_KINDS`` ops in walk order), users
    before producers (one pass over those ops instead of walking the whole function until
    nothing changes)."""
    changed = True
    while changed:
        changed = False
        for op in reversed(candidates):
            if op.parent is not None and all(not r.uses for r in op.results):
                _erase(op)
                changed = True
        candidates = [op for op in candidates if op.parent is not None]


def _refuse_unlowered_users(candidates: list[Operation]) -> None:
    """A descriptor, load or buffer still used after lowering has a user this pass does not
    lower (an op of another dialect, such as the lit tests' ``test.op``): its operand would be
    left a tile-level value, and the kernel's pointers are already addresses."""
    for op in candidates:
        if op.parent is None:
            continue
        for result in op.results:
            for use in result.uses:
                if _is_dead_kind(type(use.operation)):
                    continue  # itself kept alive by a user found below
                emit_error(use.operation, f"operand #{use.index} is a '{op.name}' value, which qdot-to-llvm "
                                          "lowers only for the qdot and qgpu ops that read it")


def _fold_cast_pairs(casts: list[UnrealizedConversionCastOp]) -> None:
    """regs → tensor → regs casts become the registers themselves (``casts``: the function's
    casts in walk order)."""
    for cast in casts:
        if cast.parent is None or len(cast.inputs) != 1 or not isinstance(cast.inputs[0].type, TensorType):
            continue
        producer = cast.inputs[0].owner
        if isinstance(producer, UnrealizedConversionCastOp) and len(producer.results) == 1:
            regs = list(producer.inputs)
            if len(regs) == len(cast.results) and all(r.type == o.type for r, o in zip(regs, cast.results, strict=True)):
                for r, o in zip(regs, cast.results, strict=True):
                    o.replace_all_uses_with(r)
                _erase(cast)


def _erase_dead_casts(casts: list[UnrealizedConversionCastOp]) -> None:
    """Register ↔ tensor casts whose tensor side is no longer used (their consumers were
    lowered), to a fixpoint. Erasing creates no casts, so the sweeps go over ``casts`` (the
    function's casts in walk order) instead of walking the function again."""
    changed = True
    while changed:
        changed = False
        for cast in casts:
            if cast.parent is not None and all(not r.uses for r in cast.results):
                _erase(cast)
                changed = True
        casts = [cast for cast in casts if cast.parent is not None]


def _convert_scf(module: ModuleOp) -> None:
    """``convert-scf-to-cf`` on the scf ops alone, with the dead-code elimination its greedy
    driver did on the side: the driver walks every op of the module twice, a tenth of a
    second on a lowered kernel. Outer ops first, as the driver does; the patterns move the
    nested ops, never copy them."""
    from xdsl.pattern_rewriter import PatternRewriter
    from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

    patterns = {scf.ForOp: ForLowering(), scf.IfOp: IfLowering(), scf.IndexSwitchOp: SwitchLowering()}
    structured: list[Operation] = []
    _erase_trivially_dead(module, lambda op: type(op) in patterns, structured)
    for op in structured:
        if module.is_ancestor(op):  # not inside an op the sweep erased
            patterns[type(op)].match_and_rewrite(op, PatternRewriter(op))
    _erase_trivially_dead(module)


def _erase_trivially_dead(module: ModuleOp, wanted: Callable[[Operation], bool] | None = None,
                          found: list[Operation] | None = None) -> None:
    """Erase every op without effects whose results are unused, to a fixpoint: one sweep
    for the unused ops, then a worklist of the producers that erasing them frees. The sweep
    also appends the ops ``wanted`` accepts to ``found`` (walk order), which saves the
    caller a walk of the module."""
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

    worklist = []
    for op in ops_in(module):
        for result in op.results:
            if result.first_use is not None:
                break
        else:  # no result is used
            worklist.append(op)
        if wanted is not None and found is not None and wanted(op):
            found.append(op)
    while worklist:
        op = worklist.pop()
        if op.parent is None or any(r.first_use is not None for r in op.results) \
                or not would_be_trivially_dead(op):
            continue
        producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        _erase(op)
        worklist.extend(producers)


def _resolve_casts(module: ModuleOp) -> None:
    """Fold tensor ↔ register casts pairwise; a memdesc cast resolves to its base offset."""
    # Folding and erasing create no casts, so the sweeps go over the casts of one walk
    # (in walk order, as a fresh walk would give the survivors).
    casts = [op for op in ops_in(module) if type(op) is UnrealizedConversionCastOp]
    changed = True
    while changed:
        changed = False
        for cast in casts:
            if cast.parent is None:
                continue
            inputs = list(cast.inputs)
            if len(inputs) == 1 and len(cast.results) == 1 and inputs[0].type == cast.results[0].type:
                cast.results[0].replace_all_uses_with(inputs[0])  # e.g. a pointer already made i64
                _erase(cast)
                changed = True
                continue
            if len(inputs) == 1 and isinstance(inputs[0].type, TensorType):
                producer = inputs[0].owner
                if isinstance(producer, UnrealizedConversionCastOp) and len(producer.results) == 1:
                    regs = list(producer.inputs)
                    if len(regs) == len(cast.results) and all(
                            r.type == o.type for r, o in zip(regs, cast.results, strict=True)):
                        for r, o in zip(regs, cast.results, strict=True):
                            o.replace_all_uses_with(r)
                        _erase(cast)
                        changed = True
                        continue
            if all(not r.uses for r in cast.results):
                _erase(cast)
                changed = True
    for cast in casts:
        if cast.parent is None:
            continue
        types = [v.type for v in (*cast.inputs, *cast.results)]
        if any(isinstance(t, (TensorType, MemDescType)) for t in types):
            raise QdotError(cast, "a distributed tensor or shared buffer survived qdot-to-llvm "
                                  "(an op it feeds has no lowering)")


__all__ = ["ToLLVMPass", "f32", "i32", "i64", "to_regs"]

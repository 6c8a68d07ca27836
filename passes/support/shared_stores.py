"""Registers → shared memory: the lowering of ``qgpu.local_alloc`` of a register tensor (and of
``qgpu.local_store`` into a buffer, the same stores).

Each thread writes the elements its layout gives it to the byte offsets the shared
layout gives them (both from their one layout function, composed into per-bit
constants like every other access); replicated elements are written by every thread
holding them, with the same value. A barrier before the stores protects readers of
the buffer's previous contents (the last K step) — unless the store says a barrier
already does (``qdot.readers_synced``: a wgmma ring slot, or a buffer of a pipelined K loop,
``mark_readers_synced_by``) — one after makes the stores visible, unless something later does
(``qdot.reader_syncs``: the wgmma's fence and barrier, or the next buffer's barrier when every
reader comes after it, ``defer_trailing_barriers``); ``qdot-to-llvm`` drops barriers that end up
with only stores on both sides.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Block, Operation, SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import BarSyncOp, PackOp, StSharedOp
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.qdot.kernel import LoadOp
from dialects.qgpu.ops import LocalAllocOp, LocalStoreOp
from dialects.qgpu.types import MemDescType
from dialects.qgpu.warp_group_dot import WarpGroupDotOp
from passes.support.bank_conflicts import Wavefronts, access_wavefronts
from passes.support.builder import Builder
from passes.support.warp_group_pipeline import READER_SYNCS_ATTR, READERS_SYNCED_ATTR
from passes.support.distributed import (
    FunctionState,
    LinearOffsets,
    combine,
    element_coords,
    elements_per_thread,
    to_regs,
)


def store_registers(op: LocalAllocOp | LocalStoreOp, state: FunctionState, base: SSAValue,
                    note: Callable[[str], None] | None = None) -> None:
    """``qgpu.local_alloc %tensor`` or ``qgpu.local_store %tensor, %buffer`` (``base``: its offset). ``note``
    (remarks only) gets the stores' shared-memory wavefronts per warp (``bank_conflicts``: run 306 found the decoded
    scales' stores at twice their ideal by Nsight Compute; this says so at compile time)."""
    value = op.src if isinstance(op, LocalAllocOp) else op.value
    memdesc = op.result.type if isinstance(op, LocalAllocOp) else op.dst.type
    assert value is not None
    tensor = value.type
    assert isinstance(tensor, TensorType) and isinstance(memdesc, MemDescType)
    layout = distributed_layout(tensor)
    shared = shared_layout(memdesc)
    if layout.elem_bytes not in (1, 2, 4):
        emit_error(op, f"register → shared copies handle 8-, 16- and 32-bit elements, got {tensor.get_element_type()}")
    elems = elements_per_thread(layout)
    warps = layout.num_warps

    coords = element_coords(op, tensor, layout)

    def offset_of(elem: int, lane: int, warp: int) -> int:
        return shared.offset(coords(elem, lane, warp))

    check = [(e, lane, w) for e in range(elems) for lane in (1, 5, 18, 31) for w in {0, warps - 1}]
    try:
        offsets = LinearOffsets.derive(offset_of, elems, warps, check, allow_additive=True)
    except ValueError as err:
        emit_error(op, f"register layout and shared layout do not compose linearly ({err})")
    b = Builder.before(op)
    regs = to_regs(b, value)
    thread = state.per_thread(("offsets", *offsets.key), lambda eb, ids: offsets.thread_part(eb, ids))
    per_reg = elems // len(regs)
    if READERS_SYNCED_ATTR not in op.attributes:
        b.insert(BarSyncOp(0))
    for reg in range(len(regs)):
        first = reg * per_reg
        steps = [offsets.at(first + i, lane, w) - offsets.at(first, lane, w)
                 for i in range(per_reg) for lane, w in ((0, 0), (7, warps - 1))]
        if any(step != (i // 2) * layout.elem_bytes for i, step in enumerate(steps)) or offsets.elem_part(first) % 4:
            emit_error(op, f"the elements of a register of {tensor} are not contiguous in shared memory")
    reg = 0
    traffic, stores = Wavefronts(), 0
    while reg < len(regs):
        count = _vector_run(offsets, reg, per_reg, len(regs), warps) if per_reg * layout.elem_bytes == 4 else 1
        if note is not None:
            width = count * per_reg * layout.elem_bytes
            traffic = traffic + access_wavefronts([offsets.at(reg * per_reg, lane, 0) for lane in range(32)], width)
            stores += 1
        address = b.add(base, combine(b, thread, offsets.thread_mask, offsets.elem_part(reg * per_reg)))
        value = regs[reg] if count == 1 else b.emit(PackOp(regs[reg:reg + count]))
        b.insert(StSharedOp(address, value))
        reg += count
    if READER_SYNCS_ATTR not in op.attributes:
        b.insert(BarSyncOp(0))
    if note is not None:
        note(f"{tensor} into shared memory: {stores} st.shared per thread; {traffic.phrase()} per warp")


def _vector_run(offsets: LinearOffsets, reg: int, per_reg: int, regs: int, warps: int) -> int:
    """How many 32-bit registers from ``reg`` one store can take: 4 (``st.shared.v4``) when they
    are the consecutive 16 bytes of a 16-byte aligned chunk for every thread, else 1.

    Four 4-byte stores of a swizzled layout cost a warp four times the shared-memory
    wavefronts of one 16-byte store whenever lanes with the same swizzle phase share a
    quarter-warp — the dequantized bf16 tiles had 4-way conflicts (RESULTS run 19).

    The offsets are linear: a thread's part is an XOR (or sum) of its lane and warp bases, so
    it is a multiple of 16 for every thread exactly when every base is; then the four
    registers are contiguous and aligned for every thread exactly when their compile-time
    parts are ``e, e + 4, e + 8, e + 12`` with ``e`` a multiple of 16 (the XOR with a
    multiple of 16 leaves the low four bits alone)."""
    if reg % 4 or reg + 4 > regs:
        return 1
    if any(base % 16 for base in (*offsets.lane_bases, *offsets.warp_bases)):
        return 1
    start = offsets.elem_part(reg * per_reg)
    if start % 16 or any(offsets.elem_part((reg + i) * per_reg) != start + 4 * i for i in range(1, 4)):
        return 1
    return 4



# ---------------------------------------------------------------------------------------------
# Which of a register → shared copy's two barriers are already provided elsewhere


def register_staged(op: Operation) -> bool:
    """``qgpu.local_alloc`` of a register tensor (a fresh buffer whose stores ``store_registers``
    lowers), as opposed to an empty ring or a global → shared copy."""
    return isinstance(op, LocalAllocOp) and op.src is not None and not isinstance(op.src.owner, LoadOp)


def buffer_readers(buffer: SSAValue) -> list[Operation]:
    """The ops that read ``buffer``, through any chain of views (index, transpose, block part)."""
    readers: list[Operation] = []
    pending = [buffer]
    while pending:
        for use in pending.pop().uses:
            views = [r for r in use.operation.results if isinstance(r.type, MemDescType)]
            if views:
                pending.extend(views)
            else:
                readers.append(use.operation)
    return readers


def _position_in(block: Block, op: Operation, position: dict[Operation, int]) -> int | None:
    """Where ``op``, or the op of ``block`` that contains it, stands in ``block``."""
    while op is not None and op.parent is not block:
        op = op.parent_op()
    return None if op is None else position[op]


def mark_readers_synced_by(barrier: Operation, block: Block) -> None:
    """Register-staged buffers after ``barrier`` (a CTA barrier at the top of a loop body) need no
    barrier of their own in front of their stores.

    Each such buffer is written and read within one iteration (its readers are SSA users, so in
    this block), and it has its own shared memory (``qdot-to-llvm`` gives every allocation its own
    offset): the readers of its previous contents are the previous iteration's, all before
    ``barrier``. A ``qgpu.warp_group_dot`` reader is left alone — an asynchronous wgmma may still
    read after its iteration ends.
    """
    position = {op: i for i, op in enumerate(block.ops)}
    for op in block.ops:
        if position[op] <= position[barrier] or not register_staged(op):
            continue
        readers = buffer_readers(op.results[0])
        if any(isinstance(r, WarpGroupDotOp) or _position_in(block, r, position) is None for r in readers):
            continue
        op.attributes[READERS_SYNCED_ATTR] = UnitAttr()


def defer_trailing_barriers(block: Block) -> None:
    """A register-staged buffer whose readers all come after the next one's stores shares that
    one's trailing barrier (``qdot.reader_syncs``): the barrier orders both buffers' stores before
    every read of either.

    The q4_K kernels stage their decoded scales and fold operands this way — decoded where
    ``qdot-accelerate-matmul`` put them, one after another, before the mma that reads them all.
    A chain defers to its last buffer; a buffer read before the next one's barrier (its readers
    between the two) keeps its own.
    """
    position = {op: i for i, op in enumerate(block.ops)}
    staged = [op for op in block.ops if register_staged(op)]
    barrier_at: int | None = None  # where the barrier the next staged buffer relies on stands
    for op in reversed(staged):
        own = None if READER_SYNCS_ATTR in op.attributes else position[op]
        readers = buffer_readers(op.results[0])
        at = [_position_in(block, r, position) for r in readers]
        if (barrier_at is not None and readers and all(p is not None and p > barrier_at for p in at)
                and not any(isinstance(r, WarpGroupDotOp) for r in readers)):
            op.attributes[READER_SYNCS_ATTR] = UnitAttr()
            continue  # barrier_at stays: this buffer's stores come before it too
        barrier_at = own


__all__ = ["buffer_readers", "defer_trailing_barriers", "mark_readers_synced_by", "register_staged", "store_registers"]

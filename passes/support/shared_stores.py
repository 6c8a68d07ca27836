"""Registers → shared memory: the lowering of ``qgpu.local_alloc`` of a register tensor (and of
``qgpu.local_store`` into a buffer, the same stores).

Each thread writes the elements its layout gives it to the byte offsets the shared
layout gives them (both from their one layout function, composed into per-bit
constants like every other access); replicated elements are written by every thread
holding them, with the same value. A barrier before the stores protects readers of
the buffer's previous contents (the last K step) — unless the store says a barrier
already does (``qdot.readers_synced``, a wgmma ring slot) — one after makes the stores
visible, unless the reader does that itself (``qdot.reader_syncs``: the wgmma's fence and
barrier); ``qdot-to-llvm`` drops barriers that end up with only stores on both sides.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import BarSyncOp, PackOp, StSharedOp
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.qgpu.ops import LocalAllocOp, LocalStoreOp
from dialects.qgpu.types import MemDescType
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


def store_registers(op: LocalAllocOp | LocalStoreOp, state: FunctionState, base: SSAValue) -> None:
    """``qgpu.local_alloc %tensor`` or ``qgpu.local_store %tensor, %buffer`` (``base``: its offset)."""
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
    while reg < len(regs):
        count = _vector_run(offsets, reg, per_reg, len(regs), warps) if per_reg * layout.elem_bytes == 4 else 1
        address = b.add(base, combine(b, thread, offsets.thread_mask, offsets.elem_part(reg * per_reg)))
        value = regs[reg] if count == 1 else b.emit(PackOp(regs[reg:reg + count]))
        b.insert(StSharedOp(address, value))
        reg += count
    if READER_SYNCS_ATTR not in op.attributes:
        b.insert(BarSyncOp(0))


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


__all__ = ["store_registers"]

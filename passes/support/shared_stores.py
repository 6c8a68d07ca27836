"""Registers → shared memory: the lowering of ``qgpu.local_alloc`` of a register tensor.

Each thread writes the elements its layout gives it to the byte offsets the shared
layout gives them (both from their one layout function, composed into per-bit
constants like every other access); replicated elements are written by every thread
holding them, with the same value. A barrier before the stores protects readers of
the buffer's previous contents (the last K step), one after makes the stores
visible; ``qdot-to-llvm`` drops barriers that end up with only stores on both sides.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import BarSyncOp, StSharedOp
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.qgpu.ops import LocalAllocOp
from dialects.qgpu.types import MemDescType
from passes.support.builder import Builder
from passes.support.distributed import (
    FunctionState,
    LinearOffsets,
    combine,
    element_coords,
    elements_per_thread,
    to_regs,
)


def store_registers(op: LocalAllocOp, state: FunctionState, base: SSAValue) -> None:
    assert op.src is not None
    tensor, memdesc = op.src.type, op.result.type
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
    regs = to_regs(b, op.src)
    thread = state.per_thread(("offsets", *offsets.key), lambda eb, ids: offsets.thread_part(eb, ids))
    per_reg = elems // len(regs)
    b.insert(BarSyncOp(0))
    for reg, value in enumerate(regs):
        first = reg * per_reg
        steps = [offsets.at(first + i, lane, w) - offsets.at(first, lane, w)
                 for i in range(per_reg) for lane, w in ((0, 0), (7, warps - 1))]
        if any(step != (i // 2) * layout.elem_bytes for i, step in enumerate(steps)) or offsets.elem_part(first) % 4:
            emit_error(op, f"the elements of a register of {tensor} are not contiguous in shared memory")
        address = b.add(base, combine(b, thread, offsets.thread_mask, offsets.elem_part(first)))
        b.insert(StSharedOp(address, value))
    b.insert(BarSyncOp(0))


__all__ = ["store_registers"]

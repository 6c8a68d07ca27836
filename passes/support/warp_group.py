"""``qgpu.warp_group_dot`` → wgmma (sm_90a), the part of ``qdot-lower-mma`` for warpgroups.

Per dot: the threads that wrote the operand buffers publish their stores to the async
proxy (``fence.proxy.async``) and meet at a barrier; ``wgmma.fence`` orders the
accumulator registers; then each warpgroup issues, for each of its 64-row slices of A
(``rep_m`` of them: warpgroup g owns rows 64·g + 64·G·r, G warpgroups, the rows of its
warps in the ``#qgpu.mma`` layout) and each k16 step, one ``wgmma m64nNk16`` chained on
the slice's N/2 accumulator registers; one ``commit_group`` and ``wait_group 0`` close
the dot, so its result is complete where the IR uses it and the buffers may be
overwritten after the next barrier — or ``wait_group 1`` for a dot with ``pendings = 1``
(``qdot-pipeline`` overlapped it with the next K step; ``qgpu.warp_group_dot_wait`` after
the loop becomes the ``wait_group 0``). Descriptor fields come from
``dialects.qgpu.wgmma_operands`` (the verifier checked the buffers against them).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i32, i64
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from dialects.ptx.attrs import MmaType
from dialects.ptx.ops import BarSyncOp
from dialects.ptx.wgmma import WGMMA_M, FenceProxyAsyncOp, WgmmaCommitOp, WgmmaFenceOp, WgmmaOp, WgmmaWaitOp
from dialects.qgpu.encodings import WARP_GROUP
from dialects.qgpu.layouts import distributed_layout
from dialects.qgpu.memory_ops import LocalAllocOp
from dialects.qgpu.mma_layouts import MmaLayout
from dialects.qgpu.warp_group_dot import WarpGroupDotOp, WarpGroupDotWaitOp
from passes.support.builder import Builder
from passes.support.distributed import FunctionState, from_regs, to_regs

WGMMA_BUFFER_ALIGN = 1024
"""Byte alignment of a buffer wgmma reads: the 128-byte swizzle pattern repeats every 8 rows."""

ALIGN_ATTR = "qdot.align"
"""``qgpu.local_alloc`` attribute: the alignment ``qdot-to-llvm`` gives its offset."""

def lower_warp_group_dot(op: WarpGroupDotOp, state: FunctionState, a_type: MmaType, b_type: MmaType) -> None:
    """``a_type``/``b_type``: the PTX types of the operand formats (``qdot-lower-mma``'s one table)."""
    view_a, view_b = op.operands_view()
    acc_type = op.c.type
    assert isinstance(acc_type, TensorType)
    layout = distributed_layout(acc_type)
    assert isinstance(layout, MmaLayout)
    n = acc_type.get_shape()[1]
    k = view_a.k
    groups = layout.warps_m // WARP_GROUP
    per_slice = n // 2  # accumulator registers of one m64nN instruction
    for value in (op.a, op.b):
        _align_buffer(value)
    b = Builder.before(op)
    a_base = b.cast([op.a], [i32])[0]
    b_base = b.cast([op.b], [i32])[0]
    slice_rows = view_a.row_offset(WGMMA_M)
    group_offset = state.per_thread(("wgmma-slice", slice_rows),
                                    lambda eb, ids: eb.mul(eb.lshr(ids.warp, 2), slice_rows))
    acc = to_regs(b, op.c)
    b.insert(FenceProxyAsyncOp())
    b.insert(BarSyncOp(0))
    b.insert(WgmmaFenceOp())
    a_group = b.add(a_base, group_offset)
    for rm in range(layout.rep_m):
        a_slice = b.add(a_group, rm * groups * slice_rows) if rm else a_group
        chunk = acc[rm * per_slice:(rm + 1) * per_slice]
        for step in range(k // 16):
            a_addr = b.add(a_slice, view_a.k_step_offset(step)) if step else a_slice
            b_addr = b.add(b_base, view_b.k_step_offset(step)) if step else b_base
            mma = b.insert(WgmmaOp(n, a_type, b_type, a_addr, b_addr, chunk, view_a.desc, view_b.desc))
            chunk = list(mma.results)
        acc[rm * per_slice:(rm + 1) * per_slice] = chunk
    b.insert(WgmmaCommitOp())
    b.insert(WgmmaWaitOp(op.pending_count))
    out = from_regs(b, acc, acc_type)
    op.result.replace_all_uses_with(out)
    Rewriter.erase_op(op)


def warp_group_remark(op: WarpGroupDotOp) -> str:
    """What ``lower_warp_group_dot`` emits for ``op``, for qdot-lower-mma's remark."""
    view_a, _ = op.operands_view()
    acc_type = op.c.type
    assert isinstance(acc_type, TensorType)
    layout = distributed_layout(acc_type)
    assert isinstance(layout, MmaLayout)
    n, k = acc_type.get_shape()[1], view_a.k
    return (f"{layout.rep_m * (k // 16)} × wgmma.mma_async m64n{n}k16 {op.lhs} per warpgroup ({layout.rep_m} "
            f"64-row slice{'s' if layout.rep_m != 1 else ''} × {k // 16} k16 steps), operands by shared-memory "
            f"descriptor, then wgmma.wait_group {op.pending_count}")


def lower_warp_group_wait(op: WarpGroupDotWaitOp) -> None:
    """The wait of an asynchronous dot: the accumulator registers are the same values."""
    Builder.before(op).insert(WgmmaWaitOp(op.pending_count))
    op.result.replace_all_uses_with(op.acc)
    Rewriter.erase_op(op)


def _align_buffer(value: SSAValue) -> None:
    """Ask ``qdot-to-llvm`` for a 1024-byte aligned offset for the allocation behind ``value``."""
    owner = value.owner
    while not isinstance(owner, LocalAllocOp):
        src = getattr(owner, "src", None)
        if src is None:
            return  # the verifier of the lowered kernel reports buffers of unknown origin
        owner = src.owner
    owner.attributes[ALIGN_ATTR] = IntegerAttr(WGMMA_BUFFER_ALIGN, i64)


__all__ = ["ALIGN_ATTR", "WGMMA_BUFFER_ALIGN", "lower_warp_group_dot", "lower_warp_group_wait"]

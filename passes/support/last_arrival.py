"""Lowering of ``qdot.last_arrival``: the arrival protocol of CUDA's grid barrier, without its wait.

The programs sharing a counter store their parts before the op; the last to arrive reads all of them after
it. What makes that read safe on a GPU is a release by every writer and an acquire by the reader, chained
through the counter — the sequence cooperative groups' ``grid.sync()`` uses to arrive, in the PTX memory
model's terms:

1. ``bar.sync 0``: every thread's stores are done, in causality order, before what thread 0 does next;
2. ``fence.acq_rel.gpu``: thread 0's release fence, cumulative over the CTA's stores the barrier ordered
   before it (every thread executes it: fences take no predicate here, and each then also waits for its own
   stores);
3. ``atom.global.add.u32`` by thread 0 on the counter — with the fence before it, a release pattern; the old
   value says how many programs arrived before: old = count − 1 makes this one the last;
4. ``fence.acq_rel.gpu``: after the atomic, thread 0's acquire pattern (again in every thread);
5. the verdict, and thread 0 of the last program stores 0 into the counter for the next launch (nobody else
   touches it in this one: all ``count`` programs have arrived);
6. ``bar.red.or.pred`` on thread 0's verdict: a barrier that hands every thread the same answer and orders its
   later loads after thread 0's acquire — they see what every program that arrived earlier stored before its
   step 1.

No program waits for another (the grid barrier's spin is what needs every program resident), so the grid
may be any size. Thread 0 is the thread whose ``tid.x`` is 0; kernels here are one-dimensional blocks.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32, i64

from compiler import remarks
from dialects.ptx.attrs import SpecialReg
from dialects.ptx.ops import AtomGlobalAddOp, BarRedOrOp, BarSyncOp, FenceAcqRelGpuOp, SpecialRegOp, StGlobalOp
from dialects.qdot.kernel import LastArrivalOp
from passes.support.builder import Builder
from passes.support.copies import REMARKS_PASS


def lower_last_arrival(op: LastArrivalOp) -> None:
    if remarks.enabled(REMARKS_PASS):
        remarks.remark(op, REMARKS_PASS, "last arrival: bar.sync, fence.acq_rel.gpu, thread 0's atom.global.add.u32 on "
                       "the counter, fence.acq_rel.gpu, bar.red.or.pred of its verdict; the last program's thread 0 "
                       "sets the counter back to 0")
    b = Builder.before(op)
    b.insert(BarSyncOp(0))
    b.insert(FenceAcqRelGpuOp())
    first = b.cmp("eq", b.emit(SpecialRegOp(SpecialReg.TID_X)), b.const(0, i32))
    address = b.add(op.counters, b.mul(b.cast_int(op.index, i64), 4))
    old = b.emit(AtomGlobalAddOp(address, b.const(1, i32), first))
    b.insert(FenceAcqRelGpuOp())
    last_here = b.and_i1(first, b.cmp("eq", old, b.sub(b.cast_int(op.count, i32), 1)))
    assert last_here is not None
    b.insert(StGlobalOp(address, b.const(0, i32), last_here))
    last = b.emit(BarRedOrOp(last_here))
    op.result.replace_all_uses_with(last)
    op.detach()
    op.erase()


__all__ = ["lower_last_arrival"]

"""Where a kernel's ``griddepcontrol.wait`` goes: after the reads the previous grid cannot race.

A kernel launched programmatically (``qdot.wait_previous_grid``) may start while the previous
kernel of the stream still runs; until ``griddepcontrol.wait`` returns, whatever that kernel writes
may not be there yet. As the kernel's first instruction the wait is always right, but it holds back
reads that need no waiting: a decode GEMM's weights are not what the quantize kernel before it
writes, they were final before it started. The arguments marked ``qdot.not_written_by_previous_grid``
say so, and their reads may go first — the prologue's weight copies (every stage's: qdot-pipeline
issues a waiting kernel's marked tiles first) then stream from DRAM while the quantize kernel
finishes, instead of after it.

The wait goes before the first operation of the kernel's entry block that could touch memory the
previous grid may write, or whose effects are unknown; everything before it is an operation without
memory effects, a shared-memory allocation, or a copy, load or prefetch from a descriptor over a
marked argument. So the rule is a prefix of the entry block in program order: nothing is moved, and the
later lowering keeps the order (the wait is an instruction with side effects, which LLVM does not
move memory accesses across). An operation with a region (a loop, a branch) is taken whole: where
anything inside it could race, the wait goes before it.
"""

from __future__ import annotations

from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator, RecursiveMemoryEffect, is_side_effect_free

from dialects.qdot.kernel import LoadOp, MakeDescOp, PrefetchOp
from dialects.qdot.kernel_attrs import not_written_by_previous_grid
from dialects.qgpu.memory_ops import AsyncCopyOp, LocalAllocOp


def wait_position(func: FuncOp) -> tuple[Operation | None, list[Operation]]:
    """The entry-block operation the wait goes before, and the reads of marked arguments that go
    ahead of it. Without a marked argument, the first operation: no read goes ahead. Where nothing
    but such reads comes first, the block's terminator (None: a block without one)."""
    block = func.body.blocks[0]
    marked = marked_arguments(func)
    early: list[Operation] = []
    if not marked:
        return block.first_op, early
    for op in block.ops:
        reads = None if op.has_trait(IsTerminator) else _marked_reads(op, marked)
        if reads is None:
            return op, early
        early.extend(reads)
    return None, early


def _marked_reads(op: Operation, marked: set[BlockArgument]) -> list[Operation] | None:
    """The reads of marked arrays in ``op`` (and in its regions), or None where ``op`` could touch
    any other global memory or has effects nobody declared (a terminator of the entry block too)."""
    if isinstance(op, (AsyncCopyOp, LoadOp, PrefetchOp)):
        return [op] if over_marked(op.desc, marked) else None
    if isinstance(op, LocalAllocOp):
        return []  # this program's own shared memory
    if op.regions and op.has_trait(RecursiveMemoryEffect):
        reads: list[Operation] = []
        for inner in (inner for region in op.regions for block in region.blocks for inner in block.ops):
            found = _marked_reads(inner, marked)
            if found is None:
                return None
            reads.extend(found)
        return reads
    return [] if is_side_effect_free(op) else None


def marked_arguments(func: FuncOp) -> set[BlockArgument]:
    """The entry-block arguments marked ``qdot.not_written_by_previous_grid``."""
    block = func.body.blocks[0]
    return {block.args[index] for index in not_written_by_previous_grid(func)}


def over_marked(desc: SSAValue, marked: set[BlockArgument]) -> bool:
    """Whether ``desc`` is a descriptor made over one of the ``marked`` arguments."""
    owner = desc.owner
    return isinstance(owner, MakeDescOp) and owner.ptr in marked

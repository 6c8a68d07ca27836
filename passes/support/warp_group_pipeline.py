"""Overlapping a K loop's wgmma with the next step's dequantization (part of ``qdot-pipeline``).

A ``qgpu.warp_group_dot`` that waits for itself leaves the tensor cores idle while the
warps convert the next K step's operands. When both of its operands are register →
shared buffers written in the loop (the dequantize-once bf16 tiles) and its accumulator
is only carried to the next iteration, the loop can run one dot behind:

    loop i:  store operands of step i into slot i mod 2 of two-slot buffers
             dot(slot i mod 2) {pendings = 1}     -- returns while dot i still runs, after dot i-1 ended
    after:   qgpu.warp_group_dot_wait {pendings = 0}

Slot i mod 2 was last read by dot i-2, which ended before iteration i-1 returned from
its dot, and the barrier of the ``cp.async`` wait at the top of iteration i orders every
warp after that (so the stores need no barrier of their own in front); dot i-1 reads
the other slot. Chained wgmma on one accumulator may be in flight together, so
carrying the unfinished accumulator into the next dot is legal. Operands read from the
``cp.async`` ring are left alone: the ring slot a dot reads is overwritten one iteration
later, while the dot may still be running.

A persistent kernel's accumulator reaches the next iteration through an ``scf.if`` that
stores a finished tile and yields zeros, or else yields the accumulator. That is carrying
too: the branch that yields it passes the unfinished value on, and the branch that reads it
(the store) starts with ``qgpu.warp_group_dot_wait {pendings = 0}``, so only a tile's last
K step waits for its dot.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, UnitAttr, i64
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue, Use
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.qgpu.memory_ops import LocalAllocOp, LocalStoreOp, MemDescIndexOp
from dialects.qgpu.types import MemDescType
from dialects.qgpu.warp_group_dot import WarpGroupDotOp, WarpGroupDotWaitOp
from passes.support.loops import add_iter_args

SLOTS = 2

READERS_SYNCED_ATTR = "qdot.readers_synced"
"""On a ``qgpu.local_store``: a barrier already separates the buffer's previous readers from
this store, so its lowering needs none in front of it (``shared_stores.store_registers``)."""

READER_SYNCS_ATTR = "qdot.reader_syncs"
"""On a ``qgpu.local_store``: the buffer's reader orders the stores before itself (a
``qgpu.warp_group_dot`` fences and waits at a barrier), so no barrier is needed after them."""


def can_overlap(loop: scf.ForOp) -> bool:
    """Whether ``overlap_warp_group_dots`` applies: one dot, its accumulator only carried, both
    operands register → shared buffers written in the loop."""
    body = loop.body.block
    dots = [op for op in body.ops if isinstance(op, WarpGroupDotOp)]
    if len(dots) != 1 or _carried_position(loop, dots[0]) is None:
        return False
    allocs = [value.owner for value in (dots[0].a, dots[0].b)]
    return all(isinstance(a, LocalAllocOp) and a.src is not None and a.parent is body for a in allocs)


def overlap_warp_group_dots(loop: scf.ForOp) -> None:
    if not can_overlap(loop):
        return
    body = loop.body.block
    dot = next(op for op in body.ops if isinstance(op, WarpGroupDotOp))
    position = _carried_position(loop, dot)
    assert position is not None
    allocs = [value.owner for value in (dot.a, dot.b)]
    before = InsertPoint.before(loop)
    rings = []
    for alloc in allocs:
        assert isinstance(alloc, LocalAllocOp)
        memdesc = alloc.result.type
        assert isinstance(memdesc, MemDescType)
        ring = LocalAllocOp(MemDescType([SLOTS, *memdesc.get_shape()], memdesc.element_type, memdesc.encoding,
                                        mutable=True))
        Rewriter.insert_op(ring, before)
        rings.append(ring.result)
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    Rewriter.insert_op(zero, before)

    def next_slot(args: list[BlockArgument], at_yield: InsertPoint) -> list[SSAValue]:
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        flipped = arith.XOrIOp(args[0], one.result)
        Rewriter.insert_op(one, at_yield)
        Rewriter.insert_op(flipped, at_yield)
        return [flipped.result]

    new_loop, (slot,) = add_iter_args(loop, [zero.result], next_slot)
    for alloc, ring in zip(allocs, rings, strict=True):
        assert isinstance(alloc, LocalAllocOp) and alloc.src is not None
        view = MemDescIndexOp(ring, slot)
        Rewriter.insert_op(view, InsertPoint.before(alloc))
        store = LocalStoreOp(alloc.src, view.result)
        # the slot's previous reader, dot i-2, was retired by every warpgroup before the
        # barrier of the loop's cp.async wait at the top of this iteration
        store.attributes[READERS_SYNCED_ATTR] = UnitAttr()
        # and its reader, the dot, publishes the stores itself (fence.proxy.async; bar.sync)
        store.attributes[READER_SYNCS_ATTR] = UnitAttr()
        Rewriter.insert_op(store, InsertPoint.before(alloc))
        alloc.result.replace_all_uses_with(view.result)
        Rewriter.erase_op(alloc)
    dot.properties["pendings"] = IntegerAttr(1, i64)
    _wait_in_readers(new_loop.body.block, dot)
    result = new_loop.results[position]
    wait = WarpGroupDotWaitOp(result, 0)
    Rewriter.insert_op(wait, InsertPoint.after(new_loop))
    for use in list(result.uses):
        if use.operation is not wait:
            use.operation.operands[use.index] = wait.result


def _carried_position(loop: scf.ForOp, dot: WarpGroupDotOp) -> int | None:
    """The iter_arg position of the dot's accumulator, if the dot reads the loop-carried value
    and its result is used only to carry it to the next iteration — directly, or through an
    ``scf.if`` of the loop body (``_branch_readers``)."""
    body = loop.body.block
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    uses = list(dot.result.uses)
    if len(uses) == 1 and uses[0].operation is terminator:
        position = uses[0].index
    else:
        carried = _branch_carry(body, dot)
        if carried is None:
            return None
        position = carried
    if dot.c is not body.args[1 + position]:
        return None
    return position


def _branch_carry(body: Block, dot: WarpGroupDotOp) -> int | None:
    """The position at which ``body``'s terminator yields an ``scf.if`` result that one branch
    yields the dot's result for (``_branch_readers``); None if there is no such carry."""
    found = _branch_readers(body, dot)
    if found is None:
        return None
    branch, index, _readers = found
    result_uses = list(branch.results[index].uses)
    if len(result_uses) != 1 or result_uses[0].operation is not body.last_op:
        return None
    return result_uses[0].index


def _branch_readers(body: Block, dot: WarpGroupDotOp) -> tuple[scf.IfOp, int, list[Use]] | None:
    """(the ``scf.if`` of ``body``, the result position, the other uses) when one branch of the
    ``scf.if`` yields the dot's result and every other use of it is inside the other branch;
    None otherwise."""
    yields = [use for use in dot.result.uses if isinstance(use.operation, scf.YieldOp)]
    if len(yields) != 1:
        return None
    yield_op = yields[0].operation
    branch = yield_op.parent_op()
    if not isinstance(branch, scf.IfOp) or branch.parent is not body:
        return None
    readers = []
    for use in dot.result.uses:
        if use is yields[0]:
            continue
        region = _region_in(branch, use.operation)
        if region is None or region is yield_op.parent_region():
            return None
        readers.append(use)
    return branch, yields[0].index, readers


def _region_in(branch: scf.IfOp, op: Operation) -> Region | None:
    """The region of ``branch`` that holds ``op`` (at any depth), if any."""
    while op.parent_op() is not None and op.parent_op() is not branch:
        op = op.parent_op()
    return op.parent_region() if op.parent_op() is branch else None


def _wait_in_readers(body: Block, dot: WarpGroupDotOp) -> None:
    """Where the dot's result is carried through an ``scf.if``: its readers in the other branch
    get the value after ``qgpu.warp_group_dot_wait {pendings = 0}`` at the top of that branch."""
    found = _branch_readers(body, dot)
    if found is None:
        return
    branch, _index, readers = found
    waited: dict[Region, SSAValue] = {}
    for use in readers:
        region = _region_in(branch, use.operation)
        assert region is not None
        if region not in waited:
            wait = WarpGroupDotWaitOp(dot.result, 0)
            Rewriter.insert_op(wait, InsertPoint.at_start(region.block))
            waited[region] = wait.result
        use.operation.operands[use.index] = waited[region]


__all__ = ["READERS_SYNCED_ATTR", "READER_SYNCS_ATTR", "can_overlap", "overlap_warp_group_dots"]

"""Operand sinking: place each mma's operand computation right before the mma.

The tile-level ops are lowered where they stood — all shared-memory loads of a
K tile, then all conversions, then all mma instructions — so every converted
operand of the tile would be live at once (hundreds of registers, spills). This
moves the loads and conversions that feed an mma's A and B registers down to
just before the first mma that reads them, mma by mma, so only one k step's
operands are live. Shared loads may move past barriers and ``cp.async`` waits
(those only order earlier writes) but never past a shared-memory or global write
or an async copy; everything that is not an operand producer keeps its place.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.ptx.ops import (
    BitcastOp,
    CpAsyncOp,
    CvtOp,
    LdmatrixOp,
    LdSharedOp,
    Lop3Op,
    MmaSyncOp,
    MulRnBf16x2Op,
    PrmtOp,
    StGlobalOp,
    StSharedOp,
)

_PURE = (arith.ConstantOp, BitcastOp, CvtOp, Lop3Op, MulRnBf16x2Op, PrmtOp, UnrealizedConversionCastOp)
_READS = (LdmatrixOp, LdSharedOp)
_WRITES = (CpAsyncOp, StSharedOp, StGlobalOp)


def _movable(op: Operation) -> bool:
    if isinstance(op, _READS):
        return True
    if isinstance(op, _PURE):
        return True
    return op.dialect_name() == "arith"


def sink_mma_operands(block: Block) -> None:
    """Move every movable op to just before the first mma that (transitively) needs it.

    Each op gets a target: the earliest mma among its users' targets (an mma targets
    itself). An op stays where it is if it is not movable, if a user that stays lies
    before the target, or (for shared loads) if a write lies between it and the target.
    Moved ops keep their original relative order, so every value is still defined
    before its uses.
    """
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    write_positions = [position[op] for op in ops if isinstance(op, _WRITES)]
    mmas = [op for op in ops if isinstance(op, MmaSyncOp)]
    if not mmas:
        return
    stay = -1
    target: dict[Operation, int] = {}  # op -> position of its target mma, or stay
    for op in reversed(ops):
        if isinstance(op, MmaSyncOp):
            target[op] = position[op]
            continue
        if not _movable(op):
            target[op] = stay
            continue
        best: int | None = None
        blocked = False
        earliest_stayer: int | None = None
        for result in op.results:
            for use in result.uses:
                user = use.operation
                if user.parent is not block:
                    blocked = True
                    continue
                t = target.get(user, stay)
                if t == stay:
                    p = position[user]
                    earliest_stayer = p if earliest_stayer is None else min(earliest_stayer, p)
                else:
                    best = t if best is None else min(best, t)
        if blocked or best is None or (earliest_stayer is not None and earliest_stayer < best):
            target[op] = stay
            continue
        if isinstance(op, _READS) and any(position[op] < w < best for w in write_positions):
            target[op] = stay
            continue
        target[op] = best
    by_target: dict[int, list[Operation]] = {}
    for op in ops:
        t = target[op]
        if t != stay and not isinstance(op, MmaSyncOp) and t > position[op]:
            by_target.setdefault(t, []).append(op)
    anchors = {position[m]: m for m in mmas}
    for t, moved in by_target.items():
        anchor = anchors[t]
        for op in moved:
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(anchor))

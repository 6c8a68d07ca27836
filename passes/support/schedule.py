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

import functools
from bisect import bisect_right
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Block, Operation

from dialects.ptx.ops import (
    BarSyncOp,
    BitcastOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    CvtOp,
    LdGlobalOp,
    LdmatrixOp,
    LdSharedOp,
    Lop3Op,
    MmaSyncOp,
    MulRnBf16x2Op,
    PrmtOp,
    StGlobalOp,
    StSharedOp,
    WgmmaOp,
)

_PURE = (arith.ConstantOp, BitcastOp, CvtOp, Lop3Op, MulRnBf16x2Op, PrmtOp, UnrealizedConversionCastOp)
_LOADS = (LdmatrixOp, LdSharedOp)
"""Shared reads into registers: movable to their first user."""
_READS = (*_LOADS, WgmmaOp)
"""Every shared read a barrier may have to order (a wgmma reads its operands from shared memory,
but it is never moved)."""
_WRITES = (CpAsyncOp, StSharedOp, StGlobalOp)
_OTHER_MEMORY = (CpAsyncOp, CpAsyncWaitOp, StGlobalOp, LdGlobalOp)


@dataclass(frozen=True)
class _Kind:
    """What scheduling needs to know of an op class (the ``isinstance`` tests against xDSL's
    ABC-based classes, made once per class instead of once per op: a K-loop body has
    thousands of ops and a handful of classes)."""

    mma: bool
    reads: bool
    writes: bool
    other_memory: bool
    movable_class: bool
    """A shared load or a pure conversion; ops of the arith dialect are movable too."""


@functools.cache
def _kind(cls: type[Operation]) -> _Kind:
    return _Kind(issubclass(cls, MmaSyncOp), issubclass(cls, _READS), issubclass(cls, _WRITES),
                 issubclass(cls, _OTHER_MEMORY), issubclass(cls, (*_LOADS, *_PURE)))


def _movable(op: Operation) -> bool:
    return _kind(type(op)).movable_class or op.dialect_name() == "arith"


def sink_mma_operands(block: Block) -> None:
    """Move every movable op down to just before its first user.

    Ops computed from an mma's result (the per-block rescale that follows each mma)
    stay where lowering put them, right after their mma; everything upstream — shared
    loads, conversions, scale decoding — sinks to its first user, so a k step's
    operands and scales are live only around that step. An op also stays when a
    user lies in another block, or (shared loads) when a write lies between it and
    its first user. Moved ops keep their original relative order before their
    anchor, so every value is still defined before its uses.

    The K-loop body of a large tile holds thousands of ops, so the bookkeeping is keyed
    by ``id(op)`` (IRDL ops hash through a Python ``__hash__``) and the writes between an
    op and its first user are found by bisection.
    """
    ops = list(block.ops)
    kinds = [_kind(type(op)) for op in ops]
    if not any(kind.mma for kind in kinds):
        return
    write_positions = [i for i, kind in enumerate(kinds) if kind.writes]
    downstream: set[int] = set()
    for op, kind in zip(ops, kinds, strict=True):
        if kind.mma or any(id(o.owner) in downstream for o in op.operands):
            downstream.add(id(op))
    target: dict[int, int] = {}  # id(op) -> position of the op it is placed before (itself: stays)
    for here in range(len(ops) - 1, -1, -1):
        op = ops[here]
        if id(op) in downstream or not _movable(op):
            target[id(op)] = here
            continue
        first: int | None = None
        blocked = False
        for result in op.results:
            for use in result.uses:
                user = use.operation
                if user.parent is not block:
                    blocked = True
                    continue
                t = target[id(user)]
                first = t if first is None else min(first, t)
        if blocked or first is None:
            target[id(op)] = here
            continue
        if kinds[here].reads and _write_between(write_positions, here, first):
            target[id(op)] = here
            continue
        target[id(op)] = first
    by_target: dict[int, list[Operation]] = {}
    for here, op in enumerate(ops):
        t = target[id(op)]
        if t > here and target[id(ops[t])] == t:
            by_target.setdefault(t, []).append(op)
    for t, moved in by_target.items():
        anchor = ops[t]
        for op in moved:
            op.detach()
            block.insert_op_before(op, anchor)


def _write_between(write_positions: list[int], lo: int, hi: int) -> bool:
    """Whether a position of the sorted ``write_positions`` lies strictly between lo and hi."""
    index = bisect_right(write_positions, lo)
    return index < len(write_positions) and write_positions[index] < hi


def drop_redundant_barriers(block: Block) -> None:
    """Remove a ``bar.sync`` whose neighbourhood holds only shared-memory stores.

    Each register → shared copy brings its own barriers (one before, for readers of
    the old contents; one after, for readers of the new). Two copies in a row give
    ``bar; st A; bar; bar; st B; bar``: a barrier with nothing but stores between it
    and the barriers on either side orders no read against any write, so it goes —
    leaving ``bar; st A; st B; bar``. Only stores to distinct buffers are lowered back
    to back, so dropping it cannot merge two writes of one address.
    """
    barriers = [op for op in block.ops if isinstance(op, BarSyncOp)]
    if len(barriers) < 3:
        return
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}

    def only_stores(lo: int, hi: int) -> bool:
        return not any(_kind(type(op)).reads or _kind(type(op)).other_memory for op in ops[lo + 1:hi])

    kept = [barriers[0]]
    for current, following in zip(barriers[1:], barriers[2:]):
        previous = kept[-1]
        if only_stores(position[previous], position[current]) and only_stores(position[current],
                                                                               position[following]):
            current.detach()
            current.erase()
            continue
        kept.append(current)

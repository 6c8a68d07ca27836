"""agx-allocate-registers: place every fragment in a register pair within r0..r95.

Decides where each ``!agx.frag`` value lives, by a linear scan over the
straight-line tile: a fragment occupies an even-aligned pair (rN_rN+1 for
fp32; rNl_rNh of the even register rN for fp16, so both readings of the
seed's "odd register" refusal hold, A8) from its definition to its last use;
the lowest free pair is taken; an MMA's D takes C's pair when C dies there
(in-place accumulate, A13) and never A's or B's. Registers are written into
the value types (``!agx.frag<fp32, r8>``). When a fragment would be live
beyond the 48 pairs, the pass fails with a diagnostic on the op where the file
ran out, counting the fragments that would be live there, that one included.
Hints and waits are left to ``agx-hints-and-waits``. Lit tests:
tests/lit/agx-allocate-registers/.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.agx.ops import DequantFragOp, LoadFragOp, Mma8Op, StoreTileOp
from dialects.agx.types import FragType
from targets.agx.mma8 import MAX_REGISTER

PAIRS = (MAX_REGISTER + 1) // 2
"""Even-aligned register pairs in r0..r95: each holds one fragment."""

_AGX_OPS = (LoadFragOp, DequantFragOp, Mma8Op, StoreTileOp)


def _role(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, Mma8Op):
        return "C/D"
    if isinstance(owner, LoadFragOp | DequantFragOp):
        return {"lhs": "A", "rhs": "B", "acc": "C/D"}[owner.operand.data]
    return "other"


class _Scan:
    """Linear-scan state for one function: free pairs and who holds the others."""

    def __init__(self, ops: list[Operation]):
        self.index = {op: i for i, op in enumerate(ops)}
        self.free: set[int] = set(range(PAIRS))
        self.holder: dict[int, SSAValue] = {}
        self.placed: dict[SSAValue, int] = {}

    def last_use(self, value: SSAValue) -> int:
        uses = [self.index[use.operation] for use in value.uses if use.operation in self.index]
        return max(uses, default=self.index[value.owner])  # type: ignore[index]

    def take(self, value: SSAValue, op: Operation, preferred: int | None = None) -> None:
        assert isinstance(value.type, FragType)
        pinned = value.type.reg
        if pinned is not None:
            pair = pinned // 2
            if pair not in self.free:
                emit_error(op, f"fragment pinned to r{pinned} but r{pinned} still holds a live fragment")
        elif preferred is not None and preferred in self.free:
            pair = preferred
        elif self.free:
            pair = min(self.free)
        else:
            # The count includes the fragment this op defines: it is the one that finds no pair.
            live = Counter(_role(v) for v in [*self.holder.values(), value])
            parts = ", ".join(f"{live[r]} {r}" for r in ("C/D", "A", "B") if live[r])
            emit_error(op, f"the tile does not fit the register file: {len(self.holder) + 1} fragments would be "
                           f"live here ({parts}), one register pair each, but r0..r{MAX_REGISTER} hold only "
                           f"{PAIRS} pairs; use a smaller M x N per simdgroup")
        self.free.discard(pair)
        self.holder[pair] = value
        self.placed[value] = pair

    def release(self, value: SSAValue) -> int | None:
        pair = self.placed.get(value)
        if pair is not None and self.holder.get(pair) is value:
            del self.holder[pair]
            self.free.add(pair)
        return pair


def allocate(func: FuncOp) -> None:
    block = func.body.blocks[0]
    for op in func.walk():
        if isinstance(op, _AGX_OPS) and op.parent_block() is not block:
            emit_error(op, "agx-allocate-registers handles straight-line tiles; this op is inside a nested region")
    ops = list(block.ops)
    scan = _Scan(ops)
    for index, op in enumerate(ops):
        if isinstance(op, Mma8Op):
            preferred = None
            # D takes C's pair only where C dies here and is not also A or B, whose pairs D may never share (A13)
            if op.c is not None and scan.last_use(op.c) == index and op.c not in (op.a, op.b):
                preferred = scan.release(op.c)
            scan.take(op.result, op, preferred)
            for source in (op.a, op.b, op.c):
                if source is not None and scan.last_use(source) == index:
                    scan.release(source)
        elif isinstance(op, LoadFragOp | DequantFragOp):
            scan.take(op.result, op)
        else:
            continue
        if scan.last_use(op.results[0]) == index:
            scan.release(op.results[0])
    if remarks.enabled(AgxAllocateRegistersPass.name):
        remarks.remark(func, AgxAllocateRegistersPass.name, lambda: _remark(func, ops, scan))
    for value, pair in scan.placed.items():
        assert isinstance(value.type, FragType)
        if value.type.reg != 2 * pair:
            Rewriter.replace_value_with_new_type(value, value.type.placed(2 * pair))


def _remark(func: FuncOp, ops: list[Operation], scan: _Scan) -> str:
    pairs = sorted(set(scan.placed.values()))
    mmas = [op for op in ops if isinstance(op, Mma8Op)]
    in_place = sum(1 for op in mmas if op.c is not None and scan.placed.get(op.c) == scan.placed.get(op.result))
    used = f"r0..r{2 * pairs[-1] + 1}" if pairs else "none"
    return (f"@{func.sym_name.data}: {len(scan.placed)} fragments in {len(pairs)} of the {PAIRS} register pairs "
            f"({used}); D takes C's pair in place in {in_place} of {len(mmas)} mma8")


@dataclass(frozen=True)
class AgxAllocateRegistersPass(ModulePass):
    name = "agx-allocate-registers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if any(isinstance(inner, _AGX_OPS) for inner in func.walk()):
                allocate(func)

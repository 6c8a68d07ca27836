"""agx-hints-and-waits{hints=false waits=all}: scoreboard waits on each MMA (on every slot by default),
register-cache hints only with hints=true.

Decides two things per ``agx.mma8`` in a straight-line tile:

* **Waits (A14).** Every fragment load is asynchronous: loads get scoreboard
  slots round-robin over the form's slots (6 on agx3b, 8 on agx3c, from the
  function's ``agx.form``; agx3b when absent). An MMA needs a wait when a slot
  has a pending load of its A, B or C (or into D's registers). ``waits=all``
  (the default) then waits on every slot of the form, retiring everything
  pending: all wait bits are set together, so the stream means the same
  whichever bit is which slot (A3). ``waits=needed`` waits on just the slots
  it needs, a wait retiring every load of its slot; fewer stalls, but a wrong
  A3 would wait on the wrong loads.
* **Hints.** ``hints=false`` (the default) emits none: hints are performance
  only, and which of the seven stated hint bits means cache and which discard
  is an assumption (A4), so a wrong A4 could turn a cache into a discard of a
  register read again. ``hints=true`` gives each source ``discard`` on the
  last read of its fragment (nothing reads that register's value again, so the
  register cache may drop it) and ``cache`` when a later instruction reads it
  again; D gets ``d_cache`` when a later MMA reads it as C.

The defaults keep the unknown orderings out of what the stream means (the
AGX reference notes, section 2.5): the bytes still rest on other assumptions
(A1, A2, A6, ...), but none of the wait and hint bits depends on A3 or A4.
``{hints=true waits=needed}`` is the liveness-based stream, for a user who
accepts A3 and A4.

It works on SSA values, so it may run before or after register allocation;
with registers placed, a fragment's value and its register's value are the same
thing, and a D written over a register a pending load fills waits for that load.
What it cannot order is refused at the load: a second load into a register whose
load is still in flight (loads carry no waits), and, before registers are placed,
a load nothing reads (no wait follows it, and allocation may hand its register on
while it is in flight). Lit tests: tests/lit/agx-hints-and-waits/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntAttr, ModuleOp, StringAttr, UnitAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.agx.ops import DequantFragOp, LoadFragOp, Mma8Op, StoreTileOp, form_of
from dialects.agx.types import FragType
from passes.support.options import check_option_values
from targets.agx.forms import FORMS, FormName
from targets.agx.mma8 import Hint

_AGX_OPS = (LoadFragOp, DequantFragOp, Mma8Op, StoreTileOp)

WAIT_MODES = ("all", "needed")
"""``waits=``: every slot of the form once any is needed (A3-free), or the needed slots only."""


def _read_later(value: SSAValue, reader: Operation, index: dict[Operation, int]) -> bool:
    here = index[reader]
    return any(index.get(use.operation, -1) > here for use in value.uses)


def _set(op: Operation, name: str, attr: object | None) -> None:
    if attr is None:
        op.properties.pop(name, None)
    else:
        op.properties[name] = attr  # type: ignore[assignment]


def _hints(ops: list[Operation], index: dict[Operation, int], enabled: bool) -> None:
    for op in ops:
        if not isinstance(op, Mma8Op):
            continue
        for name, value in (("a", op.a), ("b", op.b), ("c", op.c)):
            hint = None
            if enabled and value is not None:
                hint = Hint.CACHE if _read_later(value, op, index) else Hint.DISCARD
            _set(op, f"{name}_hint", StringAttr(str(hint)) if hint is not None else None)
        reread = any(isinstance(use.operation, Mma8Op) for use in op.result.uses)
        _set(op, "d_cache", UnitAttr() if enabled and reread else None)


def _registers(value: SSAValue) -> set[int]:
    return set(value.type.registers) if isinstance(value.type, FragType) else set()


def _waits(ops: list[Operation], slots: int, every_slot: bool) -> None:
    pending: dict[SSAValue, int] = {}
    issued = 0
    for op in ops:
        if isinstance(op, LoadFragOp | DequantFragOp):
            assert isinstance(op.result.type, FragType)
            if not op.result.uses and op.result.type.reg is None:
                emit_error(op, "loads a fragment nothing reads, before registers are placed: no mma8 waits on its "
                               "slot, and agx-allocate-registers may then give its register to a later load or D "
                               "while it is still in flight; remove it, or place registers first")
            landing = _registers(op.result)
            clash = next(((value, slot) for value, slot in pending.items() if _registers(value) & landing), None)
            if clash is not None:  # no op between the two waits (loads carry none): which lands last is unknown
                emit_error(op, f"loads into r{min(_registers(clash[0]) & landing)} while the load in slot {clash[1]} "
                               f"into it is still in flight and no mma8 between them waits on it; remove the "
                               f"earlier load or place this one elsewhere")
            op.properties["slot"] = IntAttr(issued % slots)
            pending[op.result] = issued % slots
            issued += 1
        elif isinstance(op, Mma8Op):
            needed = {pending[v] for v in (op.a, op.b, op.c) if v is not None and v in pending}
            written = _registers(op.result)
            needed |= {slot for value, slot in pending.items() if _registers(value) & written}
            if needed and every_slot:
                needed = set(range(slots))
            pending = {value: slot for value, slot in pending.items() if slot not in needed}
            _set(op, "wait", DenseArrayBase.from_list(i64, sorted(needed)) if needed else None)
        elif isinstance(op, StoreTileOp):
            for value in op.fragments:
                if value in pending:
                    emit_error(op, f"stores a fragment whose load in slot {pending[value]} nothing waited on; "
                                   f"store tiles hold MMA results")


def _remark(func: FuncOp, ops: list[Operation], form: str, slots: int, hints: bool, waits: str) -> str:
    mmas = [op for op in ops if isinstance(op, Mma8Op)]
    loads = sum(1 for op in ops if isinstance(op, LoadFragOp | DequantFragOp))
    waiting = [op.properties["wait"] for op in mmas if "wait" in op.properties]
    slot_waits = sum(len(w.get_values()) for w in waiting if isinstance(w, DenseArrayBase))
    which = "on every slot" if waits == "all" else "on the slots they need"
    text = (f"@{func.sym_name.data}: {loads} fragment loads round-robin over {form}'s {slots} wait slots; "
            f"waits={waits}: {len(waiting)} of {len(mmas)} mma8 wait {which} ({slot_waits} slot waits)")
    if not hints:
        return text + "; hints=false: no register-cache hints"
    counts = {name: 0 for name in ("discard", "cache")}
    for op in mmas:
        for operand in ("a", "b", "c"):
            hint = op.properties.get(f"{operand}_hint")
            if isinstance(hint, StringAttr) and hint.data in counts:
                counts[hint.data] += 1
    reread = sum(1 for op in mmas if "d_cache" in op.properties)
    return text + f"; hints: {counts['discard']} discard, {counts['cache']} cache, {reread} d_cache"


@dataclass(frozen=True)
class AgxHintsAndWaitsPass(ModulePass):
    name = "agx-hints-and-waits"
    OPTION_VALUES: ClassVar[dict[str, tuple[str, ...]]] = {"waits": WAIT_MODES}
    """What ``waits`` takes (the tools' --help lists it; ``apply`` refuses anything else)."""

    hints: bool = False
    waits: str = "all"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if not any(isinstance(inner, _AGX_OPS) for inner in func.walk()):
                continue
            block = func.body.blocks[0]
            for inner in func.walk():
                if isinstance(inner, _AGX_OPS) and inner.parent_block() is not block:
                    emit_error(inner, "agx-hints-and-waits handles straight-line tiles; "
                                      "this op is inside a nested region")
            form = form_of(func) or FormName.AGX3B
            if form not in FORMS:
                emit_error(func, f"agx.form must be one of {', '.join(FORMS)}, got '{form}'")
            ops = list(block.ops)
            index = {inner: i for i, inner in enumerate(ops)}
            _hints(ops, index, self.hints)
            _waits(ops, FORMS[form].wait_slots, self.waits == "all")
            if remarks.enabled(self.name):
                remarks.remark(func, self.name,
                               _remark(func, ops, form, FORMS[form].wait_slots, self.hints, self.waits))

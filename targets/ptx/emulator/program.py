"""A kernel prepared for execution, and how one CTA executes it.

`prepare` turns a ``func.func`` kernel into a `Kernel`: every SSA value gets a slot,
every op a handler (ops.py) with its operand and result slots, every block its list
of steps and its terminator; constants are materialised once. `Kernel.run_cta`
executes the blocks for one CTA, each step computing its results for all threads at
once (arrays of shape [threads] or [threads, lanes]). Branches must be uniform: a
``cf.cond_br`` whose condition differs between threads of the CTA is an error (our
kernels' loops are uniform by design, and the lockstep model cannot follow divergent
threads).

Warpgroup MMA results are asynchronous (wgmma.py, rule 3): while its group has not been
retired, a wgmma's result may only be the C operand of another wgmma. `run_cta` keeps the
slots that hold such results (``CtaState.wgmma``), carries the mark through block arguments,
checks every step's operands against it, and checks at ``func.return`` that nothing is pending.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.dialects.cf import BranchOp, ConditionalBranchOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.printer import Printer

from compiler.diagnostics import location_of
from dialects.ptx.grid_dependency import GridDepWaitOp
from targets.ptx.emulator.arith_ops import constant, contracted_fma, fused_multiply_add
from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.ops import Handler, async_roles, handler
from targets.ptx.emulator.state import CtaState
from targets.ptx.emulator.values import reg_type

Observer = Callable[[Operation, int, tuple[np.ndarray, ...]], None]
"""Called after every executed op with (op, cta, result arrays): for experiments and debugging."""


@dataclass(frozen=True)
class Step:
    op: Operation
    fn: Handler
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    async_inputs_from: int
    """Operands from this index on may hold a not-yet-retired wgmma result (len(inputs): none may)."""
    async_results: bool
    """The op is a wgmma: its results stay unretired until a wgmma.wait_group retires its group."""
    feeds_wgmma: bool
    """A result flows (directly or through block arguments) into a wgmma C operand."""


@dataclass(frozen=True)
class Edge:
    """A branch target and the slots its block arguments take their values from."""

    block: int
    sources: tuple[int, ...]


@dataclass(frozen=True)
class BlockCode:
    steps: tuple[Step, ...]
    terminator: Operation
    condition: int | None  # slot of a cond_br condition
    edges: tuple[Edge, ...]  # () for return; one for br; (then, else) for cond_br
    histogram: tuple[tuple[str, int], ...]


def describe(op: Operation) -> str:
    """The op's source location (when the IR has one) and the op as it prints, on one shortened line."""
    out = io.StringIO()
    try:
        Printer(stream=out).print_op(op)
        text = " ".join(out.getvalue().split())
    except Exception:  # noqa: BLE001 - printing is best effort inside an error message
        text = op.name
    text = text if len(text) <= 240 else text[:237] + "..."
    where = location_of(op)
    return f"{where}: {text}" if where and where != "<unknown>" else text


def _attr_int(func: FuncOp, name: str) -> int:
    attr = func.attributes.get(name)
    if not isinstance(attr, IntegerAttr):
        raise EmulationError(f"kernel @{func.sym_name.data} has no integer attribute {name}")
    return attr.value.data


@dataclass(frozen=True)
class Kernel:
    """A prepared kernel: slots, constants and block code; reusable across launches."""

    func: FuncOp
    threads: int
    shared_bytes: int
    arg_slots: tuple[int, ...]
    arg_kinds: tuple[str, ...]
    constants: dict[int, np.ndarray]
    blocks: tuple[BlockCode, ...]
    block_args: tuple[tuple[int, ...], ...]
    slot_count: int
    read_before_wait: tuple[int, ...] | None = None
    """The argument positions a CTA may access before its ``griddepcontrol.wait`` (the wait's
    ``not_written_by_previous_grid``); None for a kernel without the wait (memory.py's gate)."""

    @property
    def name(self) -> str:
        return self.func.sym_name.data

    def run_cta(self, cta: CtaState, args: Sequence[np.ndarray], observer: Observer | None,
                counts: Counter[str], max_steps: int) -> None:
        env: list[Any] = [None] * self.slot_count
        for slot, value in self.constants.items():
            env[slot] = value
        for slot, value in zip(self.arg_slots, args, strict=True):
            env[slot] = value
        block_index = 0
        executed = 0
        wgmma = cta.wgmma
        while True:
            code = self.blocks[block_index]
            for name, n in code.histogram:
                counts[name] += n
            executed += len(code.steps)
            if executed > max_steps:
                raise EmulationError(f"CTA {cta.cta} ran more than {max_steps} ops: runaway loop?")
            for step in code.steps:
                try:
                    if wgmma.pending_slots:
                        wgmma.check_reads(step.inputs, step.async_inputs_from)
                    if step.async_results and wgmma.unfenced_slots:
                        wgmma.check_accumulators(step.inputs, step.async_inputs_from)
                    result = step.fn(cta, *[env[i] for i in step.inputs])
                except EmulationError as err:
                    raise EmulationError(f"{describe(step.op)}\n  in @{self.name}, CTA {cta.cta}: {err}") from None
                if len(step.outputs) == 1:
                    env[step.outputs[0]] = result[0] if isinstance(result, tuple) else result
                elif step.outputs:
                    for slot, value in zip(step.outputs, result, strict=True):
                        env[slot] = value
                if wgmma.pending_slots or step.async_results or step.feeds_wgmma:
                    wgmma.define(step.outputs, step.async_results, step.feeds_wgmma)
                if observer is not None:
                    observer(step.op, cta.cta, tuple(env[i] for i in step.outputs))
            if not code.edges:
                try:
                    wgmma.finish()
                except EmulationError as err:
                    raise EmulationError(f"{describe(code.terminator)}\n  in @{self.name}, CTA {cta.cta}: {err}") \
                        from None
                return
            edge = code.edges[0]
            if code.condition is not None:
                cond = env[code.condition]
                taken = bool(cond[0])
                if (cond != taken).any():
                    first = int(np.flatnonzero(cond != taken)[0])
                    raise EmulationError(f"{describe(code.terminator)}\n  in @{self.name}, CTA {cta.cta}: "
                                         f"branch condition is not uniform (thread 0: {taken}, thread {first}: "
                                         f"{not taken}); the lockstep emulator needs uniform control flow")
                edge = code.edges[0] if taken else code.edges[1]
            values = [env[i] for i in edge.sources]  # read all before writing any (swaps)
            for slot, value in zip(self.block_args[edge.block], values, strict=True):
                env[slot] = value
            if wgmma.pending_slots or wgmma.unfenced_slots:
                wgmma.copy(edge.sources, self.block_args[edge.block])
            block_index = edge.block


def _successor_args(term: Operation) -> list[tuple[Block, Sequence[SSAValue]]]:
    if isinstance(term, BranchOp):
        return [(term.successor, term.arguments)]
    if isinstance(term, ConditionalBranchOp):
        return [(term.then_block, term.then_arguments), (term.else_block, term.else_arguments)]
    return []


def _accumulator_sources(blocks: Sequence[Block]) -> set[SSAValue]:
    """The values that flow into a wgmma C operand, directly or through block arguments (for the
    wgmma.fence rule on accumulators, wgmma.py)."""
    feeds: set[SSAValue] = set()
    for block in blocks:
        for op in block.ops:
            first, _ = async_roles(op)
            feeds.update(op.operands[first:])
    changed = bool(feeds)
    while changed:
        changed = False
        for block in blocks:
            if block.last_op is None:
                continue
            for successor, values in _successor_args(block.last_op):
                for value, arg in zip(values, successor.args, strict=True):
                    if arg in feeds and value not in feeds:
                        feeds.add(value)
                        changed = True
    return feeds


def prepare(func: FuncOp) -> Kernel:
    """Slots and handlers for every op of `func` (EmulationError for what cannot run)."""
    if "qdot.kernel" not in func.attributes:
        raise EmulationError(f"@{func.sym_name.data} is not a kernel (no qdot.kernel attribute)")
    warps = _attr_int(func, "qdot.num_warps")
    threads = 32 * warps
    shared_bytes = _attr_int(func, "qdot.shared_bytes") if "qdot.shared_bytes" in func.attributes else 0
    kinds_attr = func.attributes.get("qdot.arg_kinds")
    slots: dict[SSAValue, int] = {}

    def slot(value: SSAValue) -> int:
        if value not in slots:
            slots[value] = len(slots)
        return slots[value]

    blocks: list[Block] = list(func.body.blocks)
    index_of = {id(b): i for i, b in enumerate(blocks)}
    entry_args = tuple(slot(a) for a in blocks[0].args)
    for arg in blocks[0].args:
        reg_type(arg.type)
    if isinstance(kinds_attr, ArrayAttr):
        kinds = tuple(k.data if isinstance(k, StringAttr) else str(k) for k in kinds_attr.data)
    else:  # without qdot.arg_kinds, any i64 parameter may be a pointer
        kinds = tuple("ptr-or-scalar" for _ in blocks[0].args)
    if len(kinds) != len(entry_args):
        raise EmulationError(f"qdot.arg_kinds has {len(kinds)} entries for {len(entry_args)} arguments")
    feeds = _accumulator_sources(blocks)
    constants: dict[int, np.ndarray] = {}
    codes: list[BlockCode] = []
    block_args: list[tuple[int, ...]] = []
    for block in blocks:
        block_args.append(tuple(slot(a) for a in block.args))
        steps: list[Step] = []
        histogram: Counter[str] = Counter()
        ops = list(block.ops)
        if not ops:
            raise EmulationError("empty block")
        for op in ops[:-1]:
            histogram[op.name] += 1
            if op.name == "arith.constant":
                try:
                    constants[slot(op.results[0])] = constant(op, threads)
                except EmulationError as err:
                    raise EmulationError(f"{describe(op)}: {err}") from None
                continue
            operands = tuple(op.operands)
            fused = contracted_fma(op)
            try:
                if fused is not None:  # what LLVM makes of it: one FMA, one rounding
                    operands, fma = fused, fused_multiply_add()
                    fn = lambda cta, *values, fma=fma: fma(*values)  # noqa: E731
                else:
                    fn = handler(op)
            except EmulationError as err:
                raise EmulationError(f"{describe(op)}\n  in @{func.sym_name.data}: {err}") from None
            async_from, async_results = async_roles(op)
            steps.append(Step(op, fn, tuple(slot(v) for v in operands), tuple(slot(r) for r in op.results),
                              async_from, async_results, any(r in feeds for r in op.results)))
        term = ops[-1]
        histogram[term.name] += 1
        if isinstance(term, ReturnOp):
            if term.operands:
                raise EmulationError("a kernel returns nothing; func.return has operands")
            codes.append(BlockCode(tuple(steps), term, None, (), tuple(sorted(histogram.items()))))
        elif isinstance(term, BranchOp):
            edge = Edge(index_of[id(term.successor)], tuple(slot(v) for v in term.arguments))
            codes.append(BlockCode(tuple(steps), term, None, (edge,), tuple(sorted(histogram.items()))))
        elif isinstance(term, ConditionalBranchOp):
            then = Edge(index_of[id(term.then_block)], tuple(slot(v) for v in term.then_arguments))
            other = Edge(index_of[id(term.else_block)], tuple(slot(v) for v in term.else_arguments))
            codes.append(BlockCode(tuple(steps), term, slot(term.cond), (then, other),
                                   tuple(sorted(histogram.items()))))
        else:
            raise EmulationError(f"{describe(term)}: terminator {term.name} is not emulated (func.return, cf.br, "
                                 "cf.cond_br)")
    waits = [op for op in func.walk() if isinstance(op, GridDepWaitOp)]
    return Kernel(func, threads, shared_bytes, entry_args, kinds, constants, tuple(codes), tuple(block_args),
                  len(slots), waits[0].read_before_wait() if waits else None)

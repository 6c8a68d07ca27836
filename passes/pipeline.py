"""qdot-pipeline: software pipelining of the global → shared copies of a K loop.

Decides, for every ``qgpu.local_alloc(qdot.load(desc[offsets]))`` inside an
``scf.for`` whose descriptor is defined outside the loop, to keep ``num-stages``
buffers in flight: the tile is copied ``num-stages - 1`` iterations ahead with
``qgpu.async_copy`` into a multi-buffered allocation, so an iteration waits only
for its own tile (``qgpu.async_wait {pending = num-stages - 2}``, which also
synchronises the CTA) while the copies of the next ones proceed.

    prologue:  copy tile(lb + s·step) → stage s            for s < num-stages - 1
    loop i:    wait until tile i has landed; barrier
               copy tile(i + num-stages - 1) → stage (i - 1) mod S   (read by iteration i - 1,
                                                                      which every thread has finished)
    (a loop over a K split's share copies a declared tile only at positions it runs, below)
               compute on stage i mod S
               (a wgmma dot of the compute runs one iteration behind where it can:
               passes/support/warp_group_pipeline.py)
    epilogue:  wait for all copies

The wait's barrier also orders a register → shared buffer of the loop body (the q4_K
kernels' decoded scales) after the previous iteration's readers, so such a buffer is marked
``qdot.readers_synced`` and its stores get no barrier in front (``shared_stores``).

A kernel launched programmatically (``qdot.wait_previous_grid``) whose pipelined loop is in its entry
block and stages tiles of both kinds — over an argument marked ``qdot.not_written_by_previous_grid``
and over others — gets its prologue's copies of the marked tiles first, every stage's, and the
others' after them: ``qdot-to-llvm`` puts ``griddepcontrol.wait`` after the leading marked reads
(passes/support/grid_wait.py), so with three stages the weights of two K steps, not one, stream
while the previous kernel finishes. The first commit group then holds every marked prologue tile;
a wait for group s still finds stage s's tiles landed (groups complete in order, and the later
stages' marked tiles only land earlier than they would have).

A loop whose block stores to global memory ahead of it (the one-launch decode GEMM quantizing its activations
into a scratch, ``MmqConfig(quantize_in_gemm=True)``) gets the prologue copies of its tiles over arrays the kernel
never stores to — the weights — before the first of those stores, wherever their descriptor, offsets and the
loop's bounds are already defined: they stream from DRAM while the stores' work runs, instead of after it. The
scratch tiles' copies stay at the loop, after the stores and the barrier that orders them.

The last iterations' copies ahead, and a short loop's prologue, copy tiles past the loop's end.
In a loop from the constant 0 (a K loop over its whole tensor) those lie past the tensor too: they
are zero-filled copies (descriptor bounds), so no predicate is needed; a load declared ``in_bounds``
has no bounds tests to rely on, so its copies ahead in the loop's last iterations take a tile the
loop runs instead (``_ahead_in_loop``), and its prologue copies keep their tests. A K loop over a
program's share of K (a K split's: from a run-time position, not inside another loop) finds them
inside the tensor, where they read for nothing — the one-token decode program of the goal row read 5
tiles of W for its 4 K steps, the fifth again its own last (``_ahead_in_loop``; in ggml's order, the
next split's first: the emulator counts each byte's reads, tests/emulator/test_weights_read_once.py)
— so there a load declared ``in_bounds`` (``tile_weights``'
W tiles, X's K) is copied only where the loop runs the copy's K position (``qgpu.async_copy … if
%runs``), which keeps the declaration true on every copy; ``_copy_group`` says why a load with bounds
tests is left as it was, and ``_guarded`` why stream-K's segment loops are; ``guard-copies=false`` leaves every
loop as it was (A/B runs), and a kernel's ``qdot.unguarded_copies`` its own (a kernel where the test does not
pay, compiled by the default pipeline). With ``num-stages=1``
the pass changes nothing (synchronous staging). The loads and the compute keep their order;
``qdot-lower-local-load`` and ``qdot-to-llvm`` lower the result.

Lit tests: ``tests/lit/qdot-pipeline/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler import remarks
from compiler.diagnostics import QdotError
from compiler.pipelines import MAX_STAGES
from dialects.qdot.kernel import (
    LoadOp,
    MakeDescOp,
)
from dialects.qdot.kernel_attrs import (
    NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR,
    UNGUARDED_COPIES_ATTR,
    WAIT_PREVIOUS_GRID_ATTR,
)
from dialects.qgpu.ops import (
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    LocalAllocOp,
    MemDescIndexOp,
    MemDescTransOp,
    WarpGroupDotOp,
    transposed_memdesc,
)
from dialects.qgpu.types import MemDescType
from passes.support.distributed import function_of
from passes.support.grid_wait import marked_arguments, over_marked
from passes.support.loops import add_iter_args
from passes.support.options import check_option_values
from passes.support.shared_stores import mark_readers_synced_by
from passes.support.warp_group_pipeline import can_overlap, overlap_warp_group_dots


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    name = "qdot-pipeline"

    OPTION_MINIMUM: ClassVar[dict[str, int]] = {"num_stages": 1}
    """1: no pipelining (the tools' --help lists the options; ``apply`` refuses less)."""
    OPTION_MAXIMUM: ClassVar[dict[str, int]] = {"num_stages": MAX_STAGES}

    num_stages: int = 3
    guard_copies: bool = True
    """``guard-copies=false`` keeps a K split's loop from testing that it runs a declared tile's K position
    (``_guarded``): its copies ahead take the share's last tile again, as a loop from 0's do. For A/B runs and
    for kernels where the test costs more than the tile it spares (bench/RESULTS.md, run 290); one kernel asks the
    same of the default pipeline with ``qdot.unguarded_copies``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        noting = remarks.enabled(self.name)
        if self.num_stages == 1 and not noting:
            return
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            unguarded = ("guard-copies=false" if not self.guard_copies
                         else f"the kernel's {UNGUARDED_COPIES_ATTR}" if UNGUARDED_COPIES_ATTR in func.attributes
                         else None)
            for loop in [o for o in func.walk() if isinstance(o, scf.ForOp)]:
                if self.num_stages == 1:
                    remarks.remark(loop, self.name, "not pipelined: num-stages=1 (each tile staged synchronously)")
                    continue
                _pipeline(loop, self.num_stages, noting, unguarded)


def _candidates(loop: scf.ForOp) -> list[LocalAllocOp]:
    """The body's stagings of a tile it loads (``qgpu.local_alloc`` of a ``qdot.load`` in the body)."""
    body = loop.body.block
    return [op for op in body.ops if isinstance(op, LocalAllocOp) and op.src is not None
            and isinstance(op.src.owner, LoadOp) and op.src.owner.parent is body]


def _stageable(loop: scf.ForOp) -> list[LocalAllocOp]:
    if _loop_problem(loop) is not None:
        return []
    written = _written_by(loop)
    return [alloc for alloc in _candidates(loop) if _stage_problem(loop, alloc, written) is None]


def _not_stageable(loop: scf.ForOp) -> str:
    """Why ``_stageable`` finds nothing to pipeline in ``loop``, for the remark: the loop's reason, or the first
    staging's."""
    if (problem := _loop_problem(loop)) is not None:
        return problem
    staged = _candidates(loop)
    if not staged:
        return "its body stages no global tile in shared memory (no qgpu.local_alloc of a qdot.load)"
    problem = _stage_problem(loop, staged[0], _written_by(loop))
    assert problem is not None
    return problem


def _loop_problem(loop: scf.ForOp) -> str | None:
    iv_type = loop.body.block.args[0].type
    if not isinstance(iv_type, IndexType):  # the ring's positions and stage counters are index arithmetic
        return f"its induction variable is {iv_type}, not index"
    return None


def _stage_problem(loop: scf.ForOp, alloc: LocalAllocOp, written: set[SSAValue]) -> str | None:
    """Why the tile ``alloc`` stages cannot be copied iterations ahead (None: it can). ``written``: the kernel
    arguments the loop's own stores write (``_written_by``)."""
    load = alloc.src.owner if alloc.src is not None else None
    assert isinstance(load, LoadOp)
    desc = load.desc.owner
    if isinstance(desc, Operation) and loop.is_ancestor(desc):
        return "the descriptor of its tiles is made inside the loop, so a later tile's cannot be known ahead"
    if not isinstance(desc, MakeDescOp):
        return ("the descriptor of its tiles is not a qdot.make_desc outside the loop (it comes through a block "
                "argument), so a later tile's cannot be known ahead")
    if any(use.operation is not alloc for use in load.result.uses):
        return "its loaded tiles have other users than their staging (the copy ahead would not replace them)"
    if _carried_offset(loop, load):
        return ("a tile's offset comes from a value the loop carries (an iter_arg), not from its induction "
                "variable alone, so a later tile's position cannot be computed ahead")
    if _escapes(alloc.result, loop):
        return ("a staged tile is used after its iteration (yielded, or read after the loop), where a copy ahead "
                "would overwrite its ring slot")
    if _arguments_of(desc.ptr) & written:
        return ("the loop stores to the array its tiles come from, so a copy ahead would read a tile before the "
                "stores of the iterations between")
    return None


def _carried_offset(loop: scf.ForOp, load: LoadOp) -> bool:
    """Whether an offset of ``load`` is computed, in the body, from one of its block arguments other than the
    induction variable (an iter_arg: a K position advanced by the body, Triton's habit)."""
    body = loop.body.block
    iv = body.args[0]
    return any(arg.block is body and arg is not iv for arg in _block_arguments_behind(load.offsets, loop))


def _escapes(buffer: SSAValue, loop: scf.ForOp) -> bool:
    """Whether ``buffer`` or a view of it (any op of it whose result is a buffer too) is yielded by the loop or
    used outside it."""
    for use in buffer.uses:
        user = use.operation
        if isinstance(user, scf.YieldOp) and user.parent_op() is loop or not loop.is_ancestor(user):
            return True
        if any(isinstance(r.type, MemDescType) and _escapes(r, loop) for r in user.results):
            return True
    return False


def _tile_name(alloc: LocalAllocOp) -> str:
    memdesc = alloc.result.type
    assert isinstance(memdesc, MemDescType)
    return "x".join(str(d) for d in memdesc.get_shape()) + f"x{memdesc.element_type}"


def _slice(values: list[SSAValue], body: Block) -> list[Operation]:
    """The ops of ``body`` that compute ``values`` (from the induction variable and outside values)."""
    needed: set[Operation] = set()
    stack = [v.owner for v in values]
    while stack:
        op = stack.pop()
        if not isinstance(op, Operation) or op.parent is not body or op in needed:
            continue
        if not (op.dialect_name() == "arith"):
            raise QdotError(op, "qdot-pipeline: tile offsets must be computed with arith from the loop variable")
        needed.add(op)
        stack.extend(v.owner for v in op.operands)
    return [op for op in body.ops if op in needed]


def _guarded(loop: scf.ForOp, loads: list[LoadOp]) -> bool:
    """Whether the loop's copies of tiles declared in bounds test that it runs their K position: a K loop
    over a program's share of K (it starts at a run-time position, the K split's) and not inside another
    loop, with a staged load that declares ``in_bounds`` (``_copy_group``: the others keep their form).
    A loop from the constant 0 covers its tensor's K, so a copy past its end is past the tensor too and
    zero-filled by its bounds tests: a test there only costs registers (the q4_0 MMQ kernel spilled 4
    bytes with one). A K loop inside another loop — stream-K's segments, one per output tile a program
    touches — is left as it was too: the test saves one tile per segment and cost the 255-register
    stream-K prefill kernels 8–64 bytes more spill stores (q4_K's in ggml's order 60 → 84; ptxas 13.0,
    forty-fourth session), where the split-K decode kernels' declared copies took from 8 registers fewer
    (q3_K's M ≤ 8) to 5 more (q2_K's) and, in the goal row's kernel, 32 instructions fewer per K step."""
    if not any(load.in_bounds is not None for load in loads):
        return False
    lb = loop.lb.owner
    if isinstance(lb, arith.ConstantOp) and isinstance(lb.value, IntegerAttr) and lb.value.value.data == 0:
        return False
    parent = loop.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return False
        parent = parent.parent_op()
    return True


def _runs(guarded: bool, loop: scf.ForOp, k: SSAValue, point: InsertPoint) -> SSAValue | None:
    """For a guarded loop (``_guarded``): whether it runs K position ``k`` (one of lb + j · step),
    ``k < ub``; None otherwise."""
    if not guarded:
        return None
    runs = arith.CmpiOp(k, loop.ub, "ult")
    Rewriter.insert_op(runs, point)
    return runs.result


def _copy_group(buffers: list, iv: SSAValue, k: SSAValue, stage: SSAValue, point: InsertPoint,
                runs: SSAValue | None, in_bounds_k: SSAValue | None = None, commit: bool = True) -> None:
    """One commit group: each pipelined load's tile for K position ``k`` (its offsets cloned with
    ``iv`` replaced by ``k``) copied into ring slot ``stage`` of its buffer.

    With ``runs`` (``_runs``: a loop over a K split's share) a load that declares ``in_bounds`` is copied
    only if the loop runs ``k`` (``qgpu.async_copy``'s ``if``: source size 0 for every chunk where it is
    false, the addresses left as they were), which keeps the declaration true on every copy, the
    prologue's included, and replaces ``_ahead_in_loop``'s re-copy of a tile the loop runs (a position past
    the share's end lies inside the tensor, so the loop's last tile was read again for nothing). A load
    whose bounds are all tested is copied as in a loop from 0 (past the share's end it still reads the
    next split's first tile): the test ANDed into each chunk's bounds cost the ggml-order decode kernels
    up to 20 registers per thread (the lookup formats' M ≤ 8 kernels 128 → 144–148; ptxas 13.0, forty-fourth
    session) where the declared copies' one source size per iteration cost −8 to +5. The commit stays
    unconditional, so every iteration's group count is the same.

    Without (``runs`` None) a position past the end is past the tensor and its copy is zero-filled by
    the bounds tests. A load that declares ``in_bounds`` has no bounds tests, so it keeps its declaration
    only where ``in_bounds_k`` is given (the loop's copies ahead): its tile is then the one of
    ``in_bounds_k``, a position the loop runs (``_ahead_in_loop``); the prologue's copies, which may lie
    past an empty loop's end, test their bounds."""
    for _alloc, load, buf, slice_ops in buffers:
        if runs is not None:
            at, declared = k, load.in_bounds is not None
        else:
            declared = load.in_bounds is not None and in_bounds_k is not None
            at = in_bounds_k if declared else k
        offsets = _clone_offsets(list(load.offsets), slice_ops, iv, at, point)
        dst = MemDescIndexOp(buf, stage)
        Rewriter.insert_op(dst, point)
        copy = AsyncCopyOp(load.desc, offsets, dst.result, load.in_bounds if declared else None,
                           runs if declared else None)  # runs is None outside a guarded loop
        copy.location = load.location  # where qdot-to-llvm's remark on the copy's form points
        Rewriter.insert_op(copy, point)
    if commit:
        Rewriter.insert_op(AsyncCommitOp(), point)


def _clone_offsets(offsets: list[SSAValue], slice_ops: list[Operation], iv: SSAValue, new_iv: SSAValue,
                   point: InsertPoint) -> list[SSAValue]:
    mapping: dict[SSAValue, SSAValue] = {iv: new_iv}
    for op in slice_ops:
        clone = op.clone()
        for index, operand in enumerate(op.operands):
            if operand in mapping:
                clone.operands[index] = mapping[operand]
        Rewriter.insert_op(clone, point)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
    return [mapping.get(v, v) for v in offsets]


def _index_const(value: int, point: InsertPoint) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(op, point)
    return op.result


def _binary(cls, a: SSAValue, b: SSAValue, point: InsertPoint) -> SSAValue:  # noqa: ANN001
    op = cls(a, b)
    Rewriter.insert_op(op, point)
    return op.result


def _pipeline(loop: scf.ForOp, stages: int, noting: bool = False, unguarded: str | None = None) -> None:
    """Pipelines ``loop``; ``unguarded`` names what keeps a K split's copies ahead unguarded (the pass option
    or the kernel's attribute), None where nothing does."""
    allocs = _stageable(loop)
    if not allocs:
        if noting:
            remarks.remark(loop, PipelinePass.name, f"not pipelined: {_not_stageable(loop)}")
        return
    # a dot reading a tile the ring now stages keeps its wgmma synchronous: overlap_warp_group_dots
    # needs both operands register-staged, and the ring slot would be overwritten under it
    dot_tiles = {value.owner for op in loop.body.block.ops if isinstance(op, WarpGroupDotOp) for value in (op.a, op.b)}
    overlap = can_overlap(loop) and not dot_tiles.intersection(allocs)
    guardable = _guarded(loop, [alloc.src.owner for alloc in allocs])
    guarded = guardable and unguarded is None
    if noting:
        tiles = ", ".join(_tile_name(alloc) for alloc in allocs)
        remarks.remark(loop, PipelinePass.name,
                       f"{stages} stages: {len(allocs)} tile{'s' if len(allocs) != 1 else ''} ({tiles}) copied "
                       f"{stages - 1} iteration{'s' if stages != 2 else ''} ahead by cp.async into rings of {stages} "
                       f"buffers; each iteration waits with {stages - 2} group{'s' if stages != 3 else ''} in flight"
                       + ("; its wgmma runs one iteration behind" if overlap else "")
                       + ("; a loop over a share of K (from a run-time position): a tile declared in bounds copied "
                          "only if the loop runs its K position" if guarded else "")
                       + (f"; a loop over a share of K, but {unguarded}: a tile declared in bounds copied ahead "
                          "past the share's end takes its last tile again" if guardable and not guarded else "")
                       + "".join(f"; {_tile_name(alloc)} staged each iteration: {_stage_problem(loop, alloc, written)}"
                                 for alloc in _candidates(loop) if alloc not in allocs
                                 for written in [_written_by(loop)]))
    body = loop.body.block
    iv = body.args[0]
    before = InsertPoint.before(loop)
    buffers: list[tuple[LocalAllocOp, LoadOp, SSAValue, list[Operation]]] = []
    for alloc in allocs:
        load = alloc.src.owner
        assert isinstance(load, LoadOp)
        memdesc = alloc.result.type
        assert isinstance(memdesc, MemDescType)
        multi = MemDescType([stages, *memdesc.get_shape()], memdesc.element_type, memdesc.encoding, mutable=True)
        buf = LocalAllocOp(multi)
        Rewriter.insert_op(buf, before)
        buffers.append((alloc, load, buf.result, _slice(list(load.offsets), body)))
    # prologue: tiles lb .. lb + (S-2)·step
    hoisted, hoist_point = _ahead_of_own_stores(loop, buffers, guarded)
    early = _ahead_of_grid_wait(loop, buffers) if stages > 2 and not hoisted else []
    if hoisted:
        assert hoist_point is not None
        if noting:
            remarks.remark(loop, PipelinePass.name,
                           f"prologue: the copies of {', '.join(_tile_name(b[0]) for b in hoisted)} for the first "
                           f"{stages - 1} K step{'s' if stages > 2 else ''} (an array the kernel never stores to) go "
                           "before the kernel's stores to global memory ahead of the loop, so they stream meanwhile; "
                           "the other tiles' at the loop")
        late = [b for b in buffers if b not in hoisted]
        for _alloc, _load, ring, _slice_ops in hoisted:  # their rings, allocated where their copies now go
            ring_op = ring.owner
            assert isinstance(ring_op, Operation)
            ring_op.detach()
            Rewriter.insert_op(ring_op, hoist_point)
        for s in range(stages - 1):  # committed with the first of the others' groups, as the grid wait's
            k = _prologue_k(loop, s, hoist_point)
            _copy_group(hoisted, iv, k, _index_const(s, hoist_point), hoist_point, _runs(guarded, loop, k, hoist_point),
                        commit=not late)
        for s in range(stages - 1):
            k = _prologue_k(loop, s, before)
            _copy_group(late, iv, k, _index_const(s, before), before, _runs(guarded, loop, k, before))
    elif early:
        if noting:
            remarks.remark(loop, PipelinePass.name,
                           f"prologue: the {stages - 1} stages' copies of {', '.join(_tile_name(b[0]) for b in early)} "
                           f"({NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR}) first, so that they go ahead of the kernel's "
                           "griddepcontrol.wait; the other tiles' after them")
        late = [b for b in buffers if b not in early]
        positions = [(k, _index_const(s, before), _runs(guarded, loop, k, before))
                     for s, k in enumerate(_prologue_k(loop, s, before) for s in range(stages - 1))]
        for k, stage, runs in positions:
            _copy_group(early, iv, k, stage, before, runs, commit=False)
        for k, stage, runs in positions:
            _copy_group(late, iv, k, stage, before, runs)
    else:
        for s in range(stages - 1):
            k = _prologue_k(loop, s, before)
            _copy_group(buffers, iv, k, _index_const(s, before), before, _runs(guarded, loop, k, before))
    # the loop carries the stage to read and the stage to write
    zero = _index_const(0, before)
    last = _index_const(stages - 1, before)

    def next_stages(args: list, at_yield: InsertPoint) -> list[SSAValue]:
        one = _index_const(1, at_yield)
        count = _index_const(stages, at_yield)
        return [_binary(arith.RemUIOp, _binary(arith.AddiOp, stage, one, at_yield), count, at_yield)
                for stage in args]

    new_loop, (read_stage, write_stage) = add_iter_args(loop, [zero, last], next_stages)
    new_block = new_loop.body.block
    new_iv = new_block.args[0]
    first = new_block.first_op
    assert first is not None
    top = InsertPoint.before(first)
    wait = AsyncWaitOp(stages - 2)
    Rewriter.insert_op(wait, top)
    ahead = _binary(arith.AddiOp, new_iv,
                    _binary(arith.MuliOp, loop.step, _index_const(stages - 1, top), top), top)
    runs = _runs(guarded, new_loop, ahead, top)
    declared = runs is None and any(load.in_bounds is not None for _, load, _, _ in buffers)
    _copy_group(buffers, new_iv, ahead, write_stage, top, runs,
                _ahead_in_loop(ahead, new_loop, top) if declared else None)
    for alloc, load, buf, slice_ops in buffers:
        view = MemDescIndexOp(buf, read_stage)
        Rewriter.insert_op(view, InsertPoint.before(alloc))
        alloc.result.replace_all_uses_with(view.result)
        _retype_views(view.result)
        Rewriter.erase_op(alloc)
        if not load.result.uses:
            Rewriter.erase_op(load)
    Rewriter.insert_op(AsyncWaitOp(0), InsertPoint.after(new_loop))
    _drop_dead_slices(new_block)
    mark_readers_synced_by(wait, new_block)
    if overlap:
        overlap_warp_group_dots(new_loop)


def _prologue_k(loop: scf.ForOp, s: int, point: InsertPoint) -> SSAValue:
    """The K position of prologue stage ``s``: lb + s · step."""
    if s == 0:
        return loop.lb
    return _binary(arith.AddiOp, loop.lb, _binary(arith.MuliOp, loop.step, _index_const(s, point), point), point)


def _ahead_of_own_stores(loop: scf.ForOp, buffers: list, guarded: bool) -> tuple[list, InsertPoint | None]:
    """The staged tiles whose prologue copies may go before the kernel's own global stores that precede the loop in
    its block (the activations a one-launch decode GEMM quantizes into its scratch, ``quantize_in_gemm``), and where:
    tiles over arguments none of the kernel's stores writes (``_written_by``: no hazard inside the kernel, the
    copies read what the stores cannot change), whose descriptor, offsets' outside values and the loop's bounds are
    all defined before the first such store. None where no store precedes the loop, so every other kernel keeps its
    order."""
    from xdsl.ir import BlockArgument

    block = loop.parent
    if block is None:
        return [], None
    ahead: list[Operation] = []
    for op in block.ops:
        if op is loop:
            break
        ahead.append(op)
    first_store = next((op for op in ahead if any(_stores(inner) for inner in op.walk())), None)
    if first_store is None:
        return [], None
    written = _written_by(function_of(loop))
    defined_late = {result for op in ahead[ahead.index(first_store):] for result in op.results}

    def early_enough(value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) or value not in defined_late

    iv = loop.body.block.args[0]
    hoisted = []
    for buffer in buffers:
        _alloc, load, _buf, slice_ops = buffer
        desc = load.desc.owner
        if not isinstance(desc, MakeDescOp) or _arguments_of(desc.ptr) & written:
            continue  # a pointer chosen among arguments (arith.select) is over each of them
        outside = [v for op in slice_ops for v in op.operands if v.owner not in slice_ops and v is not iv]
        outside += [v for v in load.offsets if v.owner not in slice_ops and v is not iv]
        # a guarded loop's copies test their position against ub there too (_runs)
        bounds = [loop.lb, loop.step, loop.ub] if guarded else [loop.lb, loop.step]
        if all(early_enough(v) for v in [load.desc, *bounds, *outside]):
            hoisted.append(buffer)
    return (hoisted, InsertPoint.before(first_store)) if hoisted else ([], None)


def _stores(op: Operation) -> SSAValue | None:
    """What ``op`` stores through, if it writes global memory: a ``qdot.store``'s descriptor, a
    ``qdot.last_arrival``'s counters, or the address of the ``ptx`` store, reduction or atomic
    ``qdot-lower-quantize`` leaves of a store (it runs first)."""
    from dialects.ptx.ops import AtomGlobalAddOp, RedGlobalAddOp, StGlobalOp
    from dialects.qdot.kernel import LastArrivalOp, StoreOp

    if isinstance(op, StoreOp):
        return op.desc
    if isinstance(op, LastArrivalOp):
        return op.counters
    if isinstance(op, (StGlobalOp, RedGlobalAddOp, AtomGlobalAddOp)):
        return op.address
    return None


def _written_by(scope: Operation) -> set[SSAValue]:
    """The kernel arguments the addresses of the stores in ``scope`` (the kernel, or a loop) are computed from (a
    superset of the arrays they write)."""
    found: set[SSAValue] = set()
    for op in scope.walk():
        if (target := _stores(op)) is not None:
            found |= _arguments_of(target)
    return found


def _arguments_of(value: SSAValue) -> set[SSAValue]:
    """The arguments of its function's entry block that ``value`` is computed from."""
    found = set()
    for arg in _block_arguments_behind([value]):
        owner = arg.block.parent_op()
        if isinstance(owner, FuncOp) and arg.block is owner.body.blocks[0]:
            found.add(arg)
    return found


def _block_arguments_behind(values: list[SSAValue], within: Operation | None = None) -> set[SSAValue]:
    """The block arguments ``values`` are computed from, walking back through the ops that compute them (only
    those inside ``within``, where it is given)."""
    from xdsl.ir import BlockArgument

    found: set[SSAValue] = set()
    seen: set[SSAValue] = set()
    pending = list(values)
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, BlockArgument):
            found.add(value)
        elif within is None or within.is_ancestor(value.owner):
            pending.extend(value.owner.operands)
    return found


def _ahead_of_grid_wait(loop: scf.ForOp, buffers: list) -> list:
    """The staged tiles whose prologue copies go first: those over arguments marked
    ``qdot.not_written_by_previous_grid``, when the loop is in the entry block of a kernel that waits
    for the previous grid and some other tile is staged too (else the order changes nothing)."""
    func = loop.parent_op()
    if not isinstance(func, FuncOp) or WAIT_PREVIOUS_GRID_ATTR not in func.attributes:
        return []
    if loop.parent is not func.body.blocks[0]:
        return []
    marked = marked_arguments(func)
    early = [buffer for buffer in buffers if over_marked(buffer[1].desc, marked)]
    return early if 0 < len(early) < len(buffers) else []


def _ahead_in_loop(ahead: SSAValue, loop: scf.ForOp, point: InsertPoint) -> SSAValue:
    """In a loop that is not guarded (``_guarded``: from 0, or stream-K's nested segments), the K position
    whose tile a copy ahead of an ``in_bounds`` load takes: ``ahead`` while the loop runs it, else one the
    loop runs (the last S − 1 iterations copy such a tile again into a slot nobody reads, where a copy past
    the end could read past the tensor the load declares it stays in). With a constant step that is the
    loop's last position, lb + ⌊(ub − lb − 1) / step⌋ · step, computed before the loop (one ``minui`` per
    iteration); with a run-time step it is the iteration's own, ``ahead < ub ? ahead : iv`` (a compare and a
    select, where the last position would cost a division)."""
    body = loop.body.block
    if not isinstance(loop.step.owner, arith.ConstantOp):
        runs = arith.CmpiOp(ahead, loop.ub, "ult")
        Rewriter.insert_op(runs, point)
        select = arith.SelectOp(runs.result, ahead, body.args[0])
        Rewriter.insert_op(select, point)
        return select.result
    before = InsertPoint.before(loop)
    span = _binary(arith.SubiOp, _binary(arith.SubiOp, loop.ub, loop.lb, before), _index_const(1, before), before)
    last = _binary(arith.AddiOp, loop.lb, _binary(arith.MuliOp, _binary(arith.DivUIOp, span, loop.step, before),
                                                  loop.step, before), before)
    return _binary(arith.MinUIOp, ahead, last, point)


def _retype_views(value: SSAValue) -> None:
    """Re-type the transposed views of a buffer that became a stage of the ring.

    A view's type is a function of its source's (``qgpu.memdesc_trans`` keeps the
    source's mutability), so a view made of the immutable single buffer must follow
    it to the mutable stage, and so on through views of views.
    """
    for use in list(value.uses):
        view = use.operation
        if not isinstance(view, MemDescTransOp):
            continue
        source = view.src.type
        assert isinstance(source, MemDescType)
        retyped = transposed_memdesc(source, view.permutation())
        if view.result.type != retyped:
            Rewriter.replace_value_with_new_type(view.result, retyped)
            _retype_views(view.results[0])


def _drop_dead_slices(block: Block) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(block.ops):
            if op.dialect_name() == "arith" and all(not r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True

"""Lowering of ``qdot.store`` from a distributed layout: predicated ``st.global`` per element.

Each thread writes the elements its registers hold (coordinates from the
layout's ``coord_exprs``: a per-register constant plus per-thread bit fields,
computed once at function entry); elements outside the tensor are not written.
Consecutive elements along the tile's unit-stride dimension (a row of a row-major tile, a column of a
column-major one: ``unit_stride_run_dim``) become one wider store where that is provably aligned (the
run's first element a multiple of its length in every thread; the row pitch, N and the tile's column
origin multiples of it — for a column-major tile the column pitch, M and the row origin —, e.g.
``qdot.divisibility`` on N): two 16-bit elements that share a register — a
bf16 accumulator tile's pairs — one 4-byte store (``_halves_in_registers``); two f32 columns in
consecutive registers — the mma accumulator's pair (2t, 2t + 1) — one 8-byte
``st.global.v2``, four — a blocked layout's 16-byte runs (a stored splat, a sum of loaded tiles) — one
``st.global.v4`` (``register_runs``): a half or a quarter of the store instructions and
no half-written 32-byte sectors per instruction. Where that alignment is not provable but a
run's layout is, one uniform run-time test of N, the pitch and the origin modulo the run
predicates each run's store, and its negation the run's single stores. The base pointer is
assumed 16-byte aligned, as for every vector load of the operands.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type, Float16Type, Float32Type, IndexType, IntegerType, TensorType, f32, i1, i8, i16, i32, i64)
from xdsl.ir import SSAValue

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.ptx.ops import PackOp, RedGlobalAddOp, StGlobalOp
from dialects.qdot.kernel import StoreOp
from dialects.qgpu.distributed import DistributedLayout
from dialects.qgpu.layouts import distributed_layout
from passes.support.builder import Builder, constant_value
from passes.support.copies import REMARKS_PASS, element_bytes, global_tile
from passes.support.distributed import FunctionState, as_i32, field_sum, register_runs, side_by_side, to_regs
from passes.support.staged_stores import (RUN_TERM_NAMES, VECTOR, StagingPlan, lower_staged_store, run_terms,
                                         runs_aligned, staging_decision, unit_stride_run_dim)


def coordinate(b: Builder, state: FunctionState, layout, reg: int, byte: int, dim: int) -> SSAValue:  # noqa: ANN001
    exprs = layout.coord_exprs(reg, byte)
    assert exprs is not None
    expr = exprs[dim]
    key = ("fields", tuple(expr.fields))
    thread = state.per_thread(key, lambda eb, ids: field_sum(eb, ids, expr))
    value = b.add(thread, expr.constant)
    if expr.modulus is not None:
        m = expr.modulus
        value = b.and_(value, m - 1) if m & (m - 1) == 0 else b.urem(value, m)
    return value


def tile_bounds(b: Builder, tile) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue]]:  # noqa: ANN001
    """(limits, origin, strides) of a ``GlobalTile`` as per-element code takes them: the shape and the tile's origin
    as i32 (coordinates are compared with the shape), the strides as i64 (for byte addresses)."""
    limits = [b.cast_int(d, i32) if not isinstance(d.type, IndexType) else b.emit(arith.IndexCastOp(d, i32))
              for d in tile.dims]
    origin = [b.emit(arith.IndexCastOp(o, i32)) for o in tile.offsets]
    strides = [b.emit(arith.IndexCastOp(s, i64)) for s in tile.strides]
    return limits, origin, strides


def element_address(b: Builder, base: SSAValue, coords: list[SSAValue], strides: list[SSAValue],
                    eb: int) -> SSAValue:
    """The i64 byte address of the element at ``coords`` (i32 row and column) of a tile at ``base``."""
    linear = b.add(b.mul(b.cast_int(coords[0], i64), strides[0]), b.mul(b.cast_int(coords[1], i64), strides[1]))
    return b.add(base, b.mul(linear, eb))


def lower_store(op: StoreOp, base: SSAValue, state: FunctionState, staged: bool = False) -> None:
    """``staged``: an f32 tile may go through shared memory (``passes/support/staged_stores.py``)."""
    tensor = op.value.type
    assert isinstance(tensor, TensorType)
    if tensor.encoding is None:
        emit_error(op, "qdot.store of a tensor without a layout: run qdot-accelerate-matmul first")
    layout = distributed_layout(tensor)
    b = Builder.before(op)
    tile = global_tile(op.desc, base, tuple(op.offsets))
    regs = to_regs(b, op.value)
    decision = staging_decision(layout, tile, op, state.func) if staged else None
    plan = decision if isinstance(decision, StagingPlan) else None
    if plan is not None:
        if remarks.enabled(REMARKS_PASS):
            remarks.remark(op, REMARKS_PASS, f"epilogue staged: each warp's {plan.rows}x{plan.cols} "
                           f"{_element_name(tensor)} rectangle through shared memory, {plan.chunk} columns at a time, "
                           "stored as 16-byte row vectors")
        lower_staged_store(op, layout, tile, regs, state, plan)
        op.detach()
        op.erase()
        return
    eb = element_bytes(tensor.get_element_type())
    limits, origin, strides = tile_bounds(b, tile)
    dim = unit_stride_run_dim(tile)  # runs along the rows of a row-major tile, down the columns of a column-major one
    paired = dim == 1 and _halves_in_registers(layout, eb)  # both 16-bit halves of a register at once
    layout_widths = _layout_widths(layout, eb, op, dim)  # f32 registers per vector store the layout allows
    layout_runs = paired or bool(layout_widths)
    width = _store_width((2,) if paired else layout_widths, tile, dim)
    words = width if not paired else 1  # f32 registers per store (4: st.global.v4, 2: st.global.v2)
    paired = paired and width == 2
    run_test = None
    if width > 1 and not runs_aligned(tile, width, dim):
        # Runs are legal exactly when the pitch, the extent and the origin (run_terms) are multiples of the run.
        # Unproven at compile time, that is one uniform test at run time, and each run's store
        # and its single stores, predicated on the test either way: no branch, and the
        # addresses and bounds tests are shared (two versions behind a branch cost ptxas 9
        # registers in a 128×128 wgmma tile, and with them its second CTA per SM).
        bits = [b.cast_int(v, i64) for v in run_terms(tile, dim)]
        low = b.and_(b.or_(b.or_(bits[0], bits[1]), bits[2]), b.const(width - 1, i64))
        run_test = b.cmp("eq", low, b.const(0, i64))
    if remarks.enabled(REMARKS_PASS):
        remarks.remark(op, REMARKS_PASS, _direct_remark(op, layout, paired, words, layout_runs, run_test is not None,
                                                        decision if callable(decision) else None, dim))
    is_float = isinstance(tensor.get_element_type(), Float32Type)
    singles_too = run_test is not None  # set only where the layout holds runs
    no_runs = b.xor(run_test, b.const(1, i1)) if singles_too else None
    # An element's address is its thread's address of the register-constant-free coordinates
    # (one per distinct set of lane/warp fields, computed once) plus c0·stride0·eb + c1·stride1·eb,
    # one product per distinct register constant: ~2 adds per store instead of a 64-bit
    # multiply-add chain per store, which LLVM's straight-line strength reduction otherwise
    # compares pairwise (quadratic) and ptxas keeps (~500 SASS instructions per 128 stores).
    thread_addresses: dict[tuple, SSAValue] = {}
    steps: dict[tuple[int, int], SSAValue] = {}
    absolute: dict[tuple, tuple[SSAValue, SSAValue]] = {}
    """Per distinct coordinate expression, the coordinate in the tensor and its bounds test: a
    thread's elements share a few rows and columns, so the epilogue builds a handful of tests
    instead of two per element (IR that LLVM deduplicated anyway: the same SASS, a warm compile
    of the MX example ~5 % faster)."""
    for reg, byte in layout.slots():
        lead = not ((paired and byte == 2) or reg % words)  # a run's first element, or no runs
        if not lead and not singles_too:  # stored with the element before it
            continue
        exprs = layout.coord_exprs(reg, byte)
        assert exprs is not None
        ok = None
        coords = []
        for d in range(2):
            key = (d, tuple(exprs[d].fields), exprs[d].constant, exprs[d].modulus)
            if key not in absolute:
                at = b.add(origin[d], coordinate(b, state, layout, reg, byte, d))
                absolute[key] = (at, b.cmp("ult", at, limits[d]))
            at, test = absolute[key]
            coords.append(at)
            ok = b.and_i1(ok, test)
        if any(expr.modulus is not None for expr in exprs[:2]):  # wrapping coordinates: no shared base
            address = element_address(b, base, coords, strides, eb)
        else:
            key = (exprs[0].fields, exprs[1].fields)
            if key not in thread_addresses:
                thread = [b.add(origin[d], state.per_thread(("fields", tuple(exprs[d].fields)),
                                                           lambda eb_, ids, e=exprs[d]: field_sum(eb_, ids, e)))
                          for d in range(2)]
                thread_addresses[key] = element_address(b, base, thread, strides, eb)
            address = thread_addresses[key]
            for d in range(2):
                constant = exprs[d].constant
                if constant:
                    if (d, constant) not in steps:
                        steps[(d, constant)] = b.mul(strides[d], constant * eb)
                    address = b.add(address, steps[(d, constant)])
        value = regs[reg]
        if singles_too:  # this element alone, where runs are off
            _store(b, op, address, _element(b, value, byte, eb, is_float), b.and_i1(ok, no_runs))
            if not lead:
                continue
            ok = b.and_i1(ok, run_test)
        if words > 1:
            stored = b.emit(PackOp([as_i32(b, regs[reg + j]) for j in range(words)]))
        elif paired:  # both 16-bit halves of the register at once
            stored = b.emit(arith.BitcastOp(value, i32)) if value.type == f32 else value
        else:
            stored = _element(b, value, byte, eb, is_float)
        _store(b, op, address, stored, ok)
    op.detach()
    op.erase()


def _direct_remark(op: StoreOp, layout: DistributedLayout, paired: bool, words: int, layout_runs: bool,
                   tested: bool, not_staged: Callable[[], str] | None, dim: int) -> str:
    """``not_staged``: under ``epilogue=staged``, why this store is not staged. ``dim``: the dimension runs go
    along (0 for a column-major tile's)."""
    elements = sum(1 for _ in layout.slots())
    instruction = "red.global.add" if op.reduce is not None else "st.global"
    tensor = op.value.type
    assert isinstance(tensor, TensorType)
    element = _element_name(tensor)
    pitch, extent, origin = RUN_TERM_NAMES[dim]
    terms = f"{extent}, {pitch} and {origin}"
    if op.reduce is not None:
        text = f"epilogue direct: {elements} single {instruction} per thread (a reduction is stored element by element)"
    elif words == VECTOR:
        what = f"st.global.v4.b32 per run of four {element} registers{'' if dim == 1 else ' down a column'}"
        when = (f"under a run-time test that {terms} are multiples of {VECTOR} (single stores otherwise)" if tested
                else f"{terms} proven multiples of {VECTOR}")
        text = f"epilogue direct: {what}, {when}"
    elif words > 1 or paired:
        what = (f"st.global.v2.b32 per pair of {element} registers{'' if dim == 1 else ' down a column'}" if words > 1
                else f"4-byte st.global per register of {element} pairs")
        when = (f"under a run-time test that {terms} are even (single stores otherwise)" if tested
                else f"{terms} proven even")
        text = f"epilogue direct: {what}, {when}"
    elif layout_runs:
        text = (f"epilogue direct: {elements} single {instruction} per thread: {pitch}, {extent} or {origin} is "
                "known odd (or the columns not unit-stride), so no pairs")
    else:
        text = f"epilogue direct: {elements} single {instruction} per thread (the layout holds no side-by-side pairs)"
    return text + (f"; not staged (epilogue=staged): {not_staged()}" if not_staged is not None else "")


def _element_name(tensor: TensorType) -> str:
    """The tile's element type as the IR spells it (f32, i32, bf16, ...)."""
    elem = tensor.get_element_type()
    if isinstance(elem, IntegerType):
        return f"i{elem.width.data}"
    return {Float32Type: "f32", Float16Type: "f16", BFloat16Type: "bf16"}.get(type(elem), str(elem))


def _element(b: Builder, value: SSAValue, byte: int, eb: int, is_float: bool) -> SSAValue:
    """The element at ``byte`` of a 32-bit register, as the store writes it."""
    if eb == 4:
        return b.emit(arith.BitcastOp(value, i32)) if not is_float and value.type == f32 else value
    part = b.lshr(value, 8 * byte) if byte else value
    return b.emit(arith.TruncIOp(part, {1: i8, 2: i16}[eb]))


def _store(b: Builder, op: StoreOp, address: SSAValue, value: SSAValue, ok: SSAValue | None) -> None:
    if op.reduce is not None:  # verified: "add" of f32
        b.insert(RedGlobalAddOp(address, value, ok))
    else:
        b.insert(StGlobalOp(address, value, ok))


def _layout_widths(layout, eb: int, op: StoreOp, dim: int) -> tuple[int, ...]:  # noqa: ANN001 - DistributedLayout
    """The runs of consecutive f32 registers along ``dim`` the layout holds, widest first: 4 (a blocked layout's
    16-byte runs, one ``st.global.v4``), 2 (the mma accumulator's pair (2t, 2t + 1), one ``st.global.v2``). A
    reduction is stored element by element (``red.global.add`` has no vector form here)."""
    if op.reduce is not None or eb != 4:
        return ()
    return tuple(n for n in (VECTOR, 2) if register_runs(layout, n, dim))


def _store_width(widths: tuple[int, ...], tile, dim: int) -> int:  # noqa: ANN001 - GlobalTile
    """Elements per store: the widest run proven aligned, else the widest not known misaligned (tested at run
    time), else 1. A known odd N keeps single stores; a known N of 2 mod 4 keeps pairs."""
    if constant_value(tile.strides[dim]) != 1:
        return 1
    proven = [n for n in widths if runs_aligned(tile, n, dim)]
    if proven:
        return proven[0]
    possible = [n for n in widths if not any((constant_value(v) or 0) % n for v in run_terms(tile, dim))]
    return possible[0] if possible else 1


def _halves_in_registers(layout, eb: int) -> bool:  # noqa: ANN001 - DistributedLayout
    """Whether every register of a 16-bit tile holds a side-by-side pair: then, where the pair
    is aligned, each register is one 4-byte store, bounds-tested by its low half."""
    return eb == 2 and all(side_by_side(layout.coord_exprs(reg, 0), layout.coord_exprs(reg, 2))
                           for reg in range(layout.regs_per_thread))


__all__ = ["coordinate", "element_address", "lower_store", "tile_bounds"]

"""Lowering of ``qdot.store`` from a distributed layout: predicated ``st.global`` per element.

Each thread writes the elements its registers hold (coordinates from the
layout's ``coord_exprs``: a per-register constant plus per-thread bit fields,
computed once at function entry); elements outside the tensor are not written.
Side-by-side elements become one wider store where that is provably aligned (the
column even in every thread; the row pitch, N and the tile's column origin even, e.g.
``qdot.divisibility`` on N): two 16-bit elements that share a register — a bf16
accumulator tile's pairs — one 4-byte store (``_paired_halves``); two f32 columns in
consecutive registers — the mma accumulator's pair (2t, 2t + 1) — one 8-byte
``st.global.v2`` (``_paired_words``): half the store instructions of the epilogue and
no half-written 32-byte sectors per instruction. The base pointer is assumed 16-byte
aligned, as for every vector load of the operands.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IndexType, TensorType, f32, i8, i16, i32, i64
from xdsl.ir import SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import PackOp, RedGlobalAddOp, StGlobalOp
from dialects.qdot.kernel import StoreOp
from dialects.qgpu.layouts import distributed_layout
from passes.support.analysis import known_divisor
from passes.support.builder import Builder, constant_value
from passes.support.copies import element_bytes, global_tile
from passes.support.distributed import FunctionState, as_i32, field_sum, register_pairs, side_by_side, to_regs
from passes.support.staged_stores import lower_staged_store, staging_plan


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
    plan = staging_plan(layout, tile, op, state.func) if staged else None
    if plan is not None:
        lower_staged_store(op, layout, tile, regs, state, plan)
        op.detach()
        op.erase()
        return
    eb = element_bytes(tensor.get_element_type())
    limits = [b.cast_int(d, i32) if not isinstance(d.type, IndexType) else b.emit(arith.IndexCastOp(d, i32))
              for d in tile.dims]
    origin = [b.emit(arith.IndexCastOp(o, i32)) for o in tile.offsets]
    strides = [b.emit(arith.IndexCastOp(s, i64)) for s in tile.strides]
    is_float = isinstance(tensor.get_element_type(), Float32Type)
    # An element's address is its thread's address of the register-constant-free coordinates
    # (one per distinct set of lane/warp fields, computed once) plus c0·stride0·eb + c1·stride1·eb,
    # one product per distinct register constant: ~2 adds per store instead of a 64-bit
    # multiply-add chain per store, which LLVM's straight-line strength reduction otherwise
    # compares pairwise (quadratic) and ptxas keeps (~500 SASS instructions per 128 stores).
    thread_addresses: dict[tuple, SSAValue] = {}
    steps: dict[tuple[int, int], SSAValue] = {}
    paired = _paired_halves(layout, tile, eb)
    words = op.reduce is None and _paired_words(layout, tile, eb)
    for reg, byte in layout.slots():
        if paired and byte == 2:  # stored with its register's low half
            continue
        if words and reg % 2:  # stored with the register before it
            continue
        exprs = layout.coord_exprs(reg, byte)
        assert exprs is not None
        coords = [coordinate(b, state, layout, reg, byte, d) for d in range(2)]
        absolute = [b.add(origin[d], coords[d]) for d in range(2)]
        ok = None
        for d in range(2):
            ok = b.and_i1(ok, b.cmp("ult", absolute[d], limits[d]))
        if any(expr.modulus is not None for expr in exprs[:2]):  # wrapping coordinates: no shared base
            linear = b.add(b.mul(b.cast_int(absolute[0], i64), strides[0]),
                           b.mul(b.cast_int(absolute[1], i64), strides[1]))
            address = b.add(base, b.mul(linear, eb))
        else:
            key = (exprs[0].fields, exprs[1].fields)
            if key not in thread_addresses:
                thread = [b.add(origin[d], state.per_thread(("fields", tuple(exprs[d].fields)),
                                                           lambda eb_, ids, e=exprs[d]: field_sum(eb_, ids, e)))
                          for d in range(2)]
                linear = b.add(b.mul(b.cast_int(thread[0], i64), strides[0]),
                               b.mul(b.cast_int(thread[1], i64), strides[1]))
                thread_addresses[key] = b.add(base, b.mul(linear, eb))
            address = thread_addresses[key]
            for d in range(2):
                constant = exprs[d].constant
                if constant:
                    if (d, constant) not in steps:
                        steps[(d, constant)] = b.mul(strides[d], constant * eb)
                    address = b.add(address, steps[(d, constant)])
        value = regs[reg]
        if eb == 4 or paired:  # a 4-byte element, or both 16-bit halves of the register at once
            stored = value
        else:
            part = b.lshr(value, 8 * byte) if byte else value
            stored = b.emit(arith.TruncIOp(part, {1: i8, 2: i16}[eb]))
        if (eb == 4 or paired) and not is_float and value.type == f32:
            stored = b.emit(arith.BitcastOp(value, i32))
        if words:  # c even and N even: c < N implies c + 1 < N, so the pair shares one bounds test
            stored = b.emit(PackOp([as_i32(b, regs[reg]), as_i32(b, regs[reg + 1])]))
        if op.reduce is not None:  # verified: "add" of f32
            b.insert(RedGlobalAddOp(address, stored, ok))
        else:
            b.insert(StGlobalOp(address, stored, ok))
    op.detach()
    op.erase()


def _even_pairs(tile) -> bool:  # noqa: ANN001 - GlobalTile
    """Unit-stride columns with the row pitch, N and the tile's column origin even: a pair
    (c, c + 1) with c even is then aligned to twice the element, and c < N means c + 1 < N."""
    return constant_value(tile.strides[1]) == 1 and not (
        known_divisor(tile.strides[0]) % 2 or known_divisor(tile.dims[1]) % 2 or known_divisor(tile.offsets[1]) % 2)


def _paired_halves(layout, tile, eb: int) -> bool:  # noqa: ANN001 - DistributedLayout, GlobalTile
    """Whether every register of a 16-bit tile holds a side-by-side pair: then each register
    is one aligned 4-byte store, bounds-tested by its low half."""
    if eb != 2 or not _even_pairs(tile):
        return False
    return all(side_by_side(layout.coord_exprs(reg, 0), layout.coord_exprs(reg, 2))
               for reg in range(layout.regs_per_thread))


def _paired_words(layout, tile, eb: int) -> bool:  # noqa: ANN001 - DistributedLayout, GlobalTile
    """Whether the registers of a 32-bit tile, taken two by two, hold side-by-side pairs:
    then each register pair is one aligned 8-byte store, bounds-tested by its first."""
    return eb == 4 and _even_pairs(tile) and register_pairs(layout)


__all__ = ["coordinate", "lower_store"]

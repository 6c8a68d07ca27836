"""Lowering of ``qdot.load`` into a distributed layout: each thread reads its own elements.

A tile that no dot reads (``passes/support/loaded_tiles.py``: the stream-K fix-up's partial
tiles) needs no shared memory: every thread loads the elements its registers hold straight from
global memory, at the coordinates of the layout's ``coord_exprs``, as ``passes/support/stores.py``
stores them. Elements outside the descriptor's shape read 0 (a predicated load), as ``qdot.load``
promises. Where each thread holds runs of four side-by-side 32-bit elements along the tile's unit-stride
dimension (the blocked layout's 16-byte runs: along a row, or down a column of a column-major tile) and the runs
are provably 16-byte aligned and never straddle the tile's edge (the row pitch, N and the tile's column origin
multiples of 4, or for a column-major tile the column pitch, M and the row origin: ``vectors_aligned``), a run
is one ``ld.global.v4.b32``: one instruction per 16 bytes, each warp instruction reading 512 contiguous
bytes; otherwise one ``ld.global`` per element, and the remark says why.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, VectorType, f32, i32
from xdsl.ir import SSAValue

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.ptx.ops import LdGlobalOp, UnpackOp
from dialects.qdot.kernel import LoadOp
from dialects.qgpu.distributed import DistributedLayout
from dialects.qgpu.layouts import distributed_layout
from passes.support.builder import Builder
from passes.support.copies import REMARKS_PASS, element_bytes, global_tile
from passes.support.distributed import FunctionState, from_regs, reg_type, register_runs
from passes.support.staged_stores import VECTOR, unaligned_reason, unit_stride_run_dim, vectors_aligned
from passes.support.stores import coordinate, element_address, tile_bounds


def lower_register_load(op: LoadOp, base: SSAValue, state: FunctionState) -> None:
    tensor = op.result.type
    assert isinstance(tensor, TensorType)
    layout = distributed_layout(tensor)
    eb = element_bytes(tensor.get_element_type())
    if eb != 4:
        emit_error(op, f"qdot-to-llvm loads tiles of 32-bit elements into registers, not {tensor.get_element_type()}")
    b = Builder.before(op)
    tile = global_tile(op.desc, base, tuple(op.offsets))
    limits, origin, strides = tile_bounds(b, tile)
    dim = unit_stride_run_dim(tile)
    runs = register_runs(layout, VECTOR, dim)
    vectors = runs and vectors_aligned(tile, dim)
    if remarks.enabled(REMARKS_PASS):
        remarks.remark(op, REMARKS_PASS, _remark(layout, runs, vectors, tile, dim))
    register = reg_type(tensor)
    regs: list[SSAValue] = []
    for reg in range(0, layout.regs_per_thread, VECTOR if vectors else 1):
        ok = None
        coords = []
        for d in range(2):
            at = b.add(origin[d], coordinate(b, state, layout, reg, 0, d))
            coords.append(at)
            ok = b.and_i1(ok, b.cmp("ult", at, limits[d]))
        address = element_address(b, base, coords, strides, eb)
        if vectors:  # the run is inside N or wholly past it: one bounds test for its four elements
            vector = b.emit(LdGlobalOp(address, VectorType(i32, [VECTOR]), ok))
            words = b.insert(UnpackOp(vector)).results
            regs += [w if register == i32 else b.emit(arith.BitcastOp(w, f32)) for w in words]
        else:
            regs.append(b.emit(LdGlobalOp(address, register, ok)))
    op.result.replace_all_uses_with(from_regs(b, regs, tensor))
    op.detach()
    op.erase()


def _remark(layout: DistributedLayout, runs: bool, vectors: bool, tile, dim: int) -> str:  # noqa: ANN001 - GlobalTile
    regs = layout.regs_per_thread
    if vectors:
        along = "" if dim == 1 else ", down the columns"
        return (f"register load: {regs // VECTOR} ld.global.v4.b32 per thread (16-byte runs of the layout{along}, "
                "aligned)")
    why = unaligned_reason(tile, dim) if runs else \
        "the layout holds no runs of four side-by-side elements per thread"
    return f"register load: {regs} single ld.global per thread: {why}"


__all__ = ["lower_register_load"]

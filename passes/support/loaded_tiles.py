"""Layouts for tiles loaded into registers: a ``qdot.load`` that no dot stages in shared memory.

A dot's operands reach it through shared memory (``qgpu.local_alloc`` of the load), and
``qdot.quantize`` reads its tile its own way (``qdot-lower-quantize``). A kernel may also
load a tile only to add it and store the sum — the stream-K fix-up
(``compiler/mmq_fixup.py``'s ``mmq_fixup_kernel``) sums the partial tiles its GEMM left in
a workspace, in program order, so that Y is the same bits at every launch. Such a tile goes
straight from global memory into registers (``passes/support/register_loads.py``), each thread
reading the elements it holds, in the blocked layout a stored splat gets
(``stored_tiles.default_blocked``: 16-byte runs along the contiguous dimension, so that each
thread's run is one ``ld.global.v4``). The load's result takes that layout with a
``qgpu.convert_layout`` back to the plain type after it; ``propagate_accumulator_layouts`` then
carries the layout through the sums, the loop that carries them and into the store, as it
carries a dot's accumulator.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FixedBitwidthType, NoneAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from compiler.diagnostics import emit_error
from dialects.qdot.kernel import LoadOp, StoreOp
from passes.support.accumulator_layouts import encode_result
from passes.support.stored_tiles import blocked_tile

REGISTER_USERS = (arith.AddfOp, StoreOp, scf.YieldOp, scf.ForOp)
"""What a register tile may feed: the ops whose lowering takes any distributed layout (a loop: as the start of
a value it carries, as the fix-up's first piece starts the one it loads ahead). A load with
another user is left as it is (a dot's operand, staged in shared memory or transposed first)."""
REGISTER_LOAD_BITS = 32
"""The element width a register load takes: one element per 32-bit register (f32, i32), as the sums
of partial tiles need; narrower elements would share registers, which no user of such a load needs yet."""


def layout_register_loads(func: FuncOp, warps: int) -> None:
    """Give every plain ``qdot.load`` that only sums, stores or loops carry a blocked layout."""
    for load in [op for op in func.walk() if isinstance(op, LoadOp)]:
        tile = load.result.type
        if not isinstance(tile, TensorType) or not isinstance(tile.encoding, NoneAttr) or not load.result.uses:
            continue
        if not all(isinstance(use.operation, REGISTER_USERS) for use in load.result.uses):
            continue  # a dot's operand (staged, transposed), or a quantize's tile: not a register tile
        encoded = _register_tile(load, tile, warps)
        encode_result(load, 0, encoded)


def _register_tile(load: Operation, tile: TensorType, warps: int) -> TensorType:
    shape = tuple(tile.get_shape())
    elem = tile.get_element_type()
    if len(shape) != 2 or any(d & (d - 1) for d in shape) or not isinstance(elem, FixedBitwidthType) \
            or elem.bitwidth != REGISTER_LOAD_BITS:
        emit_error(load, f"qdot-accelerate-matmul: a tile loaded into registers (not read by a dot or a quantize) "
                         f"must be 2-D, with power-of-two dimensions and {REGISTER_LOAD_BITS}-bit elements; "
                         f"got {tile}")
    assert isinstance(load, LoadOp)
    return blocked_tile(load, tile, load.desc, warps, "loaded")


__all__ = ["REGISTER_LOAD_BITS", "layout_register_loads"]

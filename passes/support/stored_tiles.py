"""Layouts for stored splat constants: the one stored tile that no dot and no quantize produced.

A dot's result gets its ``#qgpu.mma`` layout from the dot's plan, and the tiles
``qdot.quantize`` reads and writes get theirs from ``qdot-lower-quantize``. A kernel may
also store a splat constant — zeroing an output that a split-K kernel will add into,
from a kernel that runs anyway before it. That tile needs a register layout before
``qdot-to-llvm`` can store it; here it gets the blocked layout Triton's default layout
would give it: 16-byte runs along the destination's contiguous dimension, the lanes of
a warp along it, the warps across it where the tile has rows for them and along it
otherwise, so that no two threads hold the same element.

A tile loaded into registers has its layout already (``passes/support/loaded_tiles.py``),
and so has a sum of such tiles. Anything else stored without a layout (a product of loaded
tiles: no lowering multiplies distributed tensors) is a diagnostic at the store, not a
failure deep in the lowering.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FixedBitwidthType, IntegerType, NoneAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.diagnostics import emit_error
from dialects.qdot.kernel import MakeDescOp, StoreOp
from dialects.qgpu.encodings import BlockedEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout
from passes.support.analysis import unit_stride

VECTOR_BYTES = 16


def default_blocked(shape: tuple[int, ...], elem_bits: int, warps: int, contiguous: int) -> BlockedEncodingAttr:
    """The blocked layout of a 2-D tile stored along ``contiguous``: 16-byte runs (or the whole
    dimension, if shorter), lanes along it first, warps across it while the tile has rows
    for them. For power-of-two dimensions, the only ones stored splats may have: a dimension
    too short for the lanes or warps left for it is covered by several threads, which then
    store the same constant."""
    other = 1 - contiguous
    run = max(1, min(VECTOR_BYTES * 8 // elem_bits, shape[contiguous]))
    lanes_c = _pow2_at_most(max(1, shape[contiguous] // run), 32)
    lanes_o = 32 // lanes_c
    spt, tpw, wpc = [1, 1], [1, 1], [1, 1]
    spt[contiguous], tpw[contiguous], tpw[other] = run, lanes_c, lanes_o
    warps_o = _pow2_at_most(max(1, shape[other] // lanes_o), warps)
    wpc[other], wpc[contiguous] = warps_o, warps // warps_o
    return BlockedEncodingAttr(spt, tpw, wpc, [contiguous, other])


def _pow2_at_most(value: int, limit: int) -> int:
    result = 1
    while result * 2 <= min(value, limit):
        result *= 2
    return result


def layout_stored_tiles(func: FuncOp, warps: int) -> None:
    """Give every plain (unencoded) splat constant a ``qdot.store`` stores a default blocked
    layout; report any other plain stored tile at its store."""
    for store in [op for op in func.walk() if isinstance(op, StoreOp)]:
        tile = store.value.type
        if not isinstance(tile, TensorType) or not isinstance(tile.encoding, NoneAttr):
            continue
        shape = tuple(tile.get_shape())
        elem = tile.get_element_type()
        if len(shape) != 2 or not isinstance(elem, FixedBitwidthType) or any(d & (d - 1) for d in shape):
            emit_error(store, f"qdot-accelerate-matmul: cannot give the stored {tile} a register layout "
                              f"(2-D tiles of integers or floats with power-of-two dimensions only){_unlowered(func)}")
        source = store.value.owner
        if not (isinstance(source, arith.ConstantOp) and isinstance(source.value, DenseIntOrFPElementsAttr)
                and source.value.is_splat()):
            what = f"the result of '{source.name}'" if isinstance(source, Operation) else "a block argument"
            emit_error(store, "qdot-accelerate-matmul: the stored tile has no register layout; a kernel stores "
                              f"a dot's result, a quantized tile, a loaded tile, a sum of them or a splat constant, "
                              f"not {what}{_unlowered(func)}")
        encoded = blocked_tile(store, tile, store.desc, warps, "stored")
        store.operands[len(store.operands) - 1] = _splat(source, encoded, store)
        if not source.result.uses:
            Rewriter.erase_op(source)


def _unlowered(func: FuncOp) -> str:
    """Why a quantized tile has no layout yet, where that is the cause: ``qdot.quantize`` is left for this
    pass only when ``qdot-lower-quantize`` did not run first (``qdot-opt -p qdot-accelerate-matmul``)."""
    if not any(op.name == "qdot.quantize" for op in func.walk()):
        return ""
    return "; qdot.quantize is lowered by qdot-lower-quantize, which the default pipeline runs before " \
           "qdot-accelerate-matmul"


def blocked_tile(op: Operation, tile: TensorType, desc: SSAValue, warps: int, what: str) -> TensorType:
    """``tile`` in the ``default_blocked`` layout along ``desc``'s unit-stride dimension (the last where none is),
    checked to fit ``warps`` warps; where it does not, a diagnostic at ``op`` about the ``what`` (stored, loaded)
    tile. The one layout choice of a tile that no dot and no quantize lays out."""
    shape = tuple(tile.get_shape())
    elem = tile.get_element_type()
    assert isinstance(elem, FixedBitwidthType)
    contiguous = unit_stride_dim(desc)
    encoded = TensorType(elem, shape, default_blocked(shape, elem.bitwidth, warps,
                                                      1 if contiguous is None else contiguous))
    try:
        distributed_layout(encoded)
    except LayoutError as err:
        emit_error(op, f"qdot-accelerate-matmul: no register layout for the {what} {tile} on {warps} warps: "
                       f"{str(err).splitlines()[0]}")
    return encoded


def unit_stride_dim(desc: SSAValue) -> int | None:
    """The one dimension of a ``qdot.make_desc`` descriptor with a constant stride of 1, if any."""
    owner = desc.owner
    return unit_stride(owner.strides) if isinstance(owner, MakeDescOp) else None


def _splat(const: arith.ConstantOp, encoded: TensorType, store: StoreOp) -> SSAValue:
    """The splat ``const`` re-encoded, just before the store (other users keep the plain one)."""
    value = const.value.get_values()[0]
    elem = encoded.get_element_type()
    data = int(value) if isinstance(elem, IntegerType) else float(value)
    new = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(encoded, [data]))
    Rewriter.insert_op(new, InsertPoint.before(store))
    return new.results[0]


__all__ = ["blocked_tile", "default_blocked", "layout_stored_tiles", "unit_stride_dim"]

"""qdot-lower-quantize: a kernel's ``qdot.load`` → ``qdot.quantize`` → ``qdot.store`` becomes per-thread code.

What this pass decides: how the threads of a program share the tile, and the exact
instruction sequence that reproduces llama.cpp's CUDA ``quantize_q8_1`` — that is,
``compiler.numerics.quantize(fmt, x)`` with its default method ``"cuda"`` — bit for bit.
It runs first in the PTX pipeline and leaves only ``ptx`` ops, ``arith`` on scalars and
(for tiles larger than one step) an ``scf.for``, which ``qdot-to-llvm`` already handles
together with the kernel's own ``qdot.program_id`` and index arithmetic. The chain's
``qdot.make_desc`` ops are erased once nothing else uses them.

**Thread mapping.** Eight lanes own one group of 32 values (one (d, s) pair); a warp
owns four groups per step: one q8_1_mmq block, or four q8_1 blocks. Lane ``l`` (0..7)
of a group holds values ``l, l+8, l+16, l+24``. With that assignment the sum ggml
computes — ``warp_reduce_sum<32>``, xor shuffles 16, 8, 4, 2, 1 over one value per lane
(``f32ops.butterfly_sum``) — is ``(v0 + v2) + (v1 + v3)`` in registers followed by xor
shuffles 4, 2, 1: the same additions in the same order. Four consecutive values per
lane (one 16-byte load) would need twelve shuffles to keep that order. Loads stay
coalesced: for each ``j`` the eight lanes of a group read eight consecutive floats.
A tile with more groups than ``4 · num_warps`` is walked by an ``scf.for``.

**Arithmetic, per group of 32 values** (module ``compiler/numerics/quantize.py``, method "cuda"):

* ``amax = max |x|``, taken on the bit patterns with the sign cleared: for finite
  non-negative floats the integer order is the float order, so the maximum is exact and
  needs no NaN or signed-zero rules; xor shuffles 4, 2, 1 reduce it over the group.
* ``d = amax / 127`` with ``arith.divf`` (LLVM ``fdiv`` without fast-math flags:
  ``div.rn.f32``); ``q = roundf(x / d)`` with a real division per value — ``x · (1/d)``
  rounds differently. ``roundf`` rounds halves away from zero (``cvt.rni`` would round
  them to even), so it is built as ``t = fptosi(v)`` (truncation), ``f = v - t`` (exact),
  ``t ± 1`` when ``|f| ≥ 0.5``.
* ``d = 0`` (all values zero, or ``amax`` so small that ``amax / 127`` underflows):
  ggml divides by zero, giving +Inf, -Inf or NaN, which CUDA's float → int8 conversion
  (saturating int32, low byte) turns into -1, 0 and 0. The pass selects those bytes
  (``x > 0 ? -1 : 0``) and converts only finite quotients, since LLVM's ``fptosi`` of
  a non-finite value is poison.
* ``s = Σ x`` in the butterfly order above; ``(d, s)`` are rounded to f16 by one
  ``cvt.rn.f16x2.f32`` (nearest even, no flush to zero) and stored as one 32-bit word.

Nothing carries fast-math flags, so no step flushes subnormals.

**Bounds.** Values outside the load descriptor's shape read as 0 (predicated
``ld.global``) and blocks outside the store descriptor's shape are not written
(predicated ``st.global``), as ``qdot.load`` / ``qdot.store`` promise. A ragged K tail is
therefore quantized as if padded with zeros, the way ggml pads activation rows.

Global addresses start from the kernel's pointer argument through a
``builtin.unrealized_conversion_cast`` to i64, which becomes an identity cast once
``qdot-to-llvm`` retypes the arguments. Lit tests: ``tests/lit/qdot-lower-quantize/``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType, f32, i8, i32, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from compiler.diagnostics import emit_error
from dialects.ptx.attrs import CvtKind, ShflMode
from dialects.ptx.ops import BitcastOp, CvtOp, LdGlobalOp, ShflSyncOp, StGlobalOp
from dialects.qdot.formats import Format, format_info
from dialects.qdot.kernel import LoadOp, MakeDescOp, QuantizeOp, StoreOp, is_kernel, num_warps
from passes.support.builder import Builder
from passes.support.copies import GlobalTile, global_tile
from passes.support.distributed import FunctionState

GROUP_VALUES = 32
"""Values per (d, s) pair in q8_1 and q8_1_mmq (``Q8_GROUP`` of compiler/numerics/blocks.py)."""
LANES_PER_GROUP = 8
VALUES_PER_LANE = GROUP_VALUES // LANES_PER_GROUP
GROUPS_PER_WARP = 32 // LANES_PER_GROUP
SIGN_CLEAR = 0x7FFFFFFF
FULL_WARP = -1  # shfl.sync membermask 0xffffffff
SHFL_CLAMP = 0x1F  # c operand of shfl.sync: the whole warp is one segment


@dataclass(frozen=True)
class Q8BlockLayout:
    """Byte positions inside a q8_1 / q8_1_mmq block.

    Both are an f16 ``(d, s)`` pair per 32 values followed by ``int8 qs[block_values]``
    (ggml-common.h ``block_q8_1``; mmq.cuh ``block_q8_1_mmq`` in its DS4 layout,
    ``half2 ds4[4]``), so the header is what the block holds beyond its quants.
    """

    block_values: int
    block_bytes: int

    @staticmethod
    def of(fmt: Format) -> Q8BlockLayout:
        info = format_info(fmt)
        layout = Q8BlockLayout(info.values_per_element, info.element_bytes)
        assert layout.header_bytes == 4 * layout.groups, f"{fmt}: expected one f16 (d, s) pair per 32 values"
        return layout

    @property
    def groups(self) -> int:
        return self.block_values // GROUP_VALUES

    @property
    def header_bytes(self) -> int:
        return self.block_bytes - self.block_values

    @property
    def quants_offset(self) -> int:
        """Where ``qs`` starts: right after the (d, s) pairs."""
        return self.header_bytes


@dataclass(frozen=True)
class TileAccess:
    """One descriptor's tile as i32 coordinates and i64 byte addresses (built before the lowering)."""

    base: SSAValue  # i64 address of element [0, 0]
    origin: tuple[SSAValue, SSAValue]  # i32 tile origin, in elements
    limits: tuple[SSAValue, SSAValue]  # i32 global shape, in elements
    strides: tuple[SSAValue, SSAValue]  # i64 strides, in elements
    element_bytes: int

    @staticmethod
    def of(b: Builder, tile: GlobalTile) -> TileAccess:
        def i32_of(value: SSAValue) -> SSAValue:
            return b.cast_int(value, i32)

        return TileAccess(
            tile.base,
            (i32_of(tile.offsets[0]), i32_of(tile.offsets[1])),
            (i32_of(tile.dims[0]), i32_of(tile.dims[1])),
            (b.cast_int(tile.strides[0], i64), b.cast_int(tile.strides[1], i64)),
            tile.elem_bytes,
        )

    def row(self, b: Builder, row: SSAValue) -> TileRow:
        """Row ``row`` of the tile: its bounds check and the address of its element 0."""
        absolute = b.add(self.origin[0], row)
        start = b.add(self.base, b.mul(b.mul(b.cast_int(absolute, i64), self.strides[0]), self.element_bytes))
        return TileRow(self, b.cmp("ult", absolute, self.limits[0]), start)


@dataclass(frozen=True)
class TileRow:
    tile: TileAccess
    inside: SSAValue  # i1
    start: SSAValue  # i64

    def element(self, b: Builder, col: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(address, in-bounds predicate) of element ``col`` of the row (a tile coordinate)."""
        tile = self.tile
        absolute = b.add(tile.origin[1], col)
        inside = b.and_i1(self.inside, b.cmp("ult", absolute, tile.limits[1]))
        offset = b.mul(b.mul(b.cast_int(absolute, i64), tile.strides[1]), tile.element_bytes)
        assert inside is not None
        return b.add(self.start, offset), inside


@dataclass(frozen=True)
class QuantizePlan:
    """How the program's threads walk a [rows, cols] tile of f32 values."""

    rows: int
    cols: int
    warps: int
    block: Q8BlockLayout

    @property
    def groups_per_row(self) -> int:
        return self.cols // GROUP_VALUES

    @property
    def groups(self) -> int:
        return self.rows * self.groups_per_row

    @property
    def groups_per_step(self) -> int:
        return GROUPS_PER_WARP * self.warps

    @property
    def steps(self) -> int:
        return -(-self.groups // self.groups_per_step)


@dataclass(frozen=True)
class LowerQuantizePass(ModulePass):
    name = "qdot-lower-quantize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            quantizes = [q for q in func.walk() if isinstance(q, QuantizeOp)]
            if not quantizes:
                continue
            if not is_kernel(func):
                emit_error(quantizes[0], f"is lowered inside kernels only: @{func.sym_name.data} has no "
                                         "qdot.kernel attribute")
            state = FunctionState(func)
            for quantize in quantizes:
                _lower(quantize, state, num_warps(func))


# ---------------------------------------------------------------------------------------------
# The pattern


def _chain(quantize: QuantizeOp) -> tuple[LoadOp, StoreOp]:
    """The load that feeds ``quantize`` and the store that consumes it, or a diagnostic."""
    load = quantize.src.owner
    if not isinstance(load, LoadOp):
        emit_error(quantize, f"source must come straight from a qdot.load of the f32 tile, got "
                             f"{_producer(quantize.src)}")
    uses = list(quantize.result.uses)
    store = uses[0].operation if len(uses) == 1 else None
    if not isinstance(store, StoreOp) or store.value is not quantize.result:
        users = ", ".join(sorted({f"'{u.operation.name}'" for u in uses})) or "none"
        emit_error(quantize, f"result must have exactly one use, as the value of a qdot.store; got {len(uses)} "
                             f"use(s) ({users})")
    rank = len(load.result.type.get_shape())
    if rank != 2:
        emit_error(quantize, f"source must be a 2-D tile [rows, K]; got rank {rank}")
    for role, desc in (("source", load.desc), ("result", store.desc)):
        if not isinstance(desc.owner, MakeDescOp):
            emit_error(quantize, f"the {role}'s descriptor must come straight from qdot.make_desc, got "
                                 f"{_producer(desc)}")
    return load, store


def _producer(value: SSAValue) -> str:
    owner = value.owner
    return f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"


def _lower(quantize: QuantizeOp, state: FunctionState, warps: int) -> None:
    load, store = _chain(quantize)
    source = load.result.type
    assert isinstance(source, TensorType)
    rows, cols = source.get_shape()
    plan = QuantizePlan(rows, cols, warps, Q8BlockLayout.of(quantize.format.data))
    b = Builder.before(store)
    x = TileAccess.of(b, global_tile(load.desc, _address_of(b, load.desc), tuple(load.offsets)))
    q = TileAccess.of(b, global_tile(store.desc, _address_of(b, store.desc), tuple(store.offsets)))
    if plan.steps == 1:
        _emit_step(b, state, plan, x, q, None)
    else:
        body = Block(arg_types=[IndexType()])
        _emit_step(Builder.at_end(body), state, plan, x, q, body.args[0])
        body.add_op(scf.YieldOp())
        index = IndexType()
        b.insert(scf.ForOp(b.const(0, index), b.const(plan.steps, index), b.const(1, index), [], Region([body])))
    for op in (store, quantize, load):
        op.detach()
        op.erase()
    for desc in (load.desc, store.desc):
        owner = desc.owner
        if isinstance(owner, MakeDescOp) and not owner.result.uses:
            owner.detach()
            owner.erase()


def _address_of(b: Builder, desc: SSAValue) -> SSAValue:
    """The i64 address of the descriptor's pointer (an identity cast after qdot-to-llvm)."""
    make = desc.owner
    assert isinstance(make, MakeDescOp)  # _chain checked it
    return b.cast([make.ptr], [i64])[0]


# ---------------------------------------------------------------------------------------------
# One step: every warp quantizes four groups of 32 values


def _split(b: Builder, value: SSAValue, divisor: int) -> tuple[SSAValue, SSAValue]:
    """(value / divisor, value % divisor) for non-negative i32 values."""
    if divisor == 1:
        return value, b.const(0)
    if divisor & (divisor - 1) == 0:
        return b.lshr(value, divisor.bit_length() - 1), b.and_(value, divisor - 1)
    return b.udiv(value, divisor), b.urem(value, divisor)


def _emit_step(b: Builder, state: FunctionState, plan: QuantizePlan, x: TileAccess, q: TileAccess,
               step: SSAValue | None) -> None:
    slot = state.per_thread(("quantize-group-slot",), lambda eb, ids: eb.add(
        eb.mul(ids.warp, GROUPS_PER_WARP), eb.lshr(ids.lane, LANES_PER_GROUP.bit_length() - 1)))
    lane_in_group = state.per_thread(("quantize-lane-in-group",),
                                     lambda eb, ids: eb.and_(ids.lane, LANES_PER_GROUP - 1))
    group = slot if step is None else b.add(b.mul(b.cast_int(step, i32), plan.groups_per_step), slot)
    real = None if plan.groups % plan.groups_per_step == 0 else b.cmp("ult", group, plan.groups)
    row, group_col = _split(b, group, plan.groups_per_row)

    x_row = x.row(b, row)
    first_col = b.add(b.mul(group_col, GROUP_VALUES), lane_in_group)
    values: list[SSAValue] = []
    for j in range(VALUES_PER_LANE):
        address, inside = x_row.element(b, b.add(first_col, j * LANES_PER_GROUP))
        values.append(b.emit(LdGlobalOp(address, f32, b.and_i1(real, inside))))

    d, s = _scale_and_sum(b, values)
    zero_scale = b.emit(arith.CmpfOp(d, b.fconst(0.0), "oeq"))
    quants = [_quant(b, v, d, zero_scale) for v in values]
    _store_group(b, plan, q, row, group_col, lane_in_group, real, d, s, quants)


def _xor_shuffle(b: Builder, value: SSAValue, mask: int) -> SSAValue:
    return b.emit(ShflSyncOp(ShflMode.BFLY, value, b.const(mask), b.const(SHFL_CLAMP), b.const(FULL_WARP)))


def _scale_and_sum(b: Builder, values: list[SSAValue]) -> tuple[SSAValue, SSAValue]:
    """(d, s) of the lane's group, the same in all eight lanes of it."""
    magnitudes = [b.and_(b.emit(arith.BitcastOp(v, i32)), SIGN_CLEAR) for v in values]
    amax = b.emit(arith.MaxUIOp(b.emit(arith.MaxUIOp(magnitudes[0], magnitudes[1])),
                                b.emit(arith.MaxUIOp(magnitudes[2], magnitudes[3]))))
    # the sum in warp_reduce_sum<32>'s order: offsets 16 and 8 are in registers
    total = b.emit(arith.AddfOp(b.emit(arith.AddfOp(values[0], values[2])),
                                b.emit(arith.AddfOp(values[1], values[3]))))
    for mask in (4, 2, 1):
        amax = b.emit(arith.MaxUIOp(amax, _xor_shuffle(b, amax, mask)))
        total = b.emit(arith.AddfOp(total, _xor_shuffle(b, total, mask)))
    d = b.emit(arith.DivfOp(b.emit(arith.BitcastOp(amax, f32)), b.fconst(127.0)))
    return d, total


def _quant(b: Builder, value: SSAValue, d: SSAValue, zero_scale: SSAValue) -> SSAValue:
    """The int8 ``(int8_t) roundf(value / d)`` as CUDA computes it, for d ≥ 0 (``zero_scale``: d = 0)."""
    quotient = b.emit(arith.DivfOp(value, d))
    finite = b.select(zero_scale, b.fconst(0.0), quotient)
    truncated = b.emit(arith.FPToSIOp(finite, i32))
    fraction = b.emit(arith.SubfOp(finite, b.emit(arith.SIToFPOp(truncated, f32))))
    up = b.emit(arith.CmpfOp(fraction, b.fconst(0.5), "oge"))
    down = b.emit(arith.CmpfOp(fraction, b.fconst(-0.5), "ole"))
    step = b.select(up, b.const(1), b.select(down, b.const(-1), b.const(0)))
    rounded = b.add(truncated, step)
    # x / 0: +Inf -> 0x7fffffff -> byte 0xff; -Inf and NaN -> byte 0
    positive = b.emit(arith.CmpfOp(value, b.fconst(0.0), "ogt"))
    overflowed = b.select(positive, b.const(-1), b.const(0))
    return b.emit(arith.TruncIOp(b.select(zero_scale, overflowed, rounded), i8))


def _store_group(b: Builder, plan: QuantizePlan, q: TileAccess, row: SSAValue, group_col: SSAValue,
                 lane_in_group: SSAValue, real: SSAValue | None, d: SSAValue, s: SSAValue,
                 quants: list[SSAValue]) -> None:
    block_col, group_in_block = _split(b, group_col, plan.block.groups)
    block_address, inside = q.row(b, row).element(b, block_col)
    writes = b.and_i1(real, inside)
    pair = b.emit(BitcastOp(b.emit(CvtOp(CvtKind.F16X2_F32, [s, d])), i32))  # d in the low half
    first_lane = b.cmp("eq", lane_in_group, 0)
    pair_address = b.add(block_address, b.cast_int(b.mul(group_in_block, 4), i64))
    b.insert(StGlobalOp(pair_address, pair, b.and_i1(writes, first_lane)))
    quant_byte = b.add(b.mul(group_in_block, GROUP_VALUES), lane_in_group)
    quants_address = b.add(block_address, b.add(b.cast_int(quant_byte, i64), plan.block.quants_offset))
    for j, quant in enumerate(quants):
        b.insert(StGlobalOp(b.add(quants_address, j * LANES_PER_GROUP), quant, writes))


__all__ = ["LowerQuantizePass", "Q8BlockLayout", "QuantizePlan"]

"""qdot-lower-quantize: a kernel's ``qdot.load`` → ``qdot.quantize`` → ``qdot.store`` becomes per-thread code.

What this pass decides: how the threads of a program share the tile, how the values
reach them, and the exact instruction sequence that reproduces llama.cpp's CUDA
``quantize_q8_1`` — that is, ``compiler.numerics.quantize(fmt, x)`` with its default
method ``"cuda"`` — bit for bit. It runs first in the PTX pipeline and leaves ``ptx``
ops, ``arith`` on scalars, ``scf.for`` / ``scf.if`` and (for the staged strategy) one
``qgpu.local_alloc`` with a cast to its shared offset, which ``qdot-to-llvm`` already
handles together with the kernel's own ``qdot.program_id`` and index arithmetic. The
chain's ``qdot.make_desc`` ops are erased once nothing else uses them.

**The order of the sum.** ggml's ``s`` is ``warp_reduce_sum<32>`` over the 32 values of a
group, one per lane: xor shuffles 16, 8, 4, 2, 1 (``f32ops.butterfly_sum``). After the
step with offset ``o`` lane ``i`` holds ``v[i] + v[i ^ o]`` and, float addition being
commutative, every lane ends with the same tree: ``t = v[:16] + v[16:]``, ``t = t[:8] +
t[8:]``, ... . Whoever holds the values must add them in that tree.

**Two strategies** (``Strategy``, chosen from the tile by ``QuantizePlan``):

* ``staged`` — one thread per group of 32 values, for tiles with at least as many
  groups as threads (large M: the throughput kernel). The CTA first copies a wave of
  ``threads`` groups into shared memory with 16-byte ``cp.async`` (each warp
  instruction reads 512 contiguous bytes; out-of-bounds chunks are zero-filled through
  the source size), waits, and each thread reads its group back with 128-bit
  ``ld.shared`` (two i64 loads at a 16-byte-aligned offset, which LLVM's load-store
  vectorizer merges). The buffer is ``[threads, 36] f32`` unswizzled: each group's 128
  bytes are followed by 16 unused ones, and with that 144-byte pitch the eight lanes of a
  quarter-warp hit eight different bank groups both when the copy writes one group's
  eight chunks and when eight threads read chunk ``k`` of eight groups, while every
  address stays a constant offset from the thread's first (no per-chunk XOR). The
  thread then has all 32 values and computes the whole tree in registers: no shuffles,
  ``d`` once per group, and the quants leave as packed words (``prmt``), 8-byte stores
  for q8_1_mmq (whose 144-byte blocks keep every group's 32 quants 16-byte aligned),
  4-byte ones for q8_1. 16-byte copies need 16-byte aligned rows: unless the row stride,
  the tile's column origin and K are known multiples of 4 (``qdot.divisibility``), a
  uniform ``scf.if`` checks them at run time and falls back to 4-byte ``cp.async``.
  More groups than threads are walked in waves by an ``scf.for`` (a barrier before each
  wave's copy keeps it from overwriting values still being read).
* ``lanes`` — eight lanes per group, for small tiles (``compiler/quantize_template.py``
  uses one-row tiles up to M = 32: decode, where spreading few rows over many threads
  matters more than instruction count). Lane ``l`` (0..7) of a group holds values
  ``l, l+8, l+16, l+24``: the sum is ``(v0 + v2) + (v1 + v3)`` in registers followed by
  xor shuffles 4, 2, 1 — the same additions in the same order. Loads are predicated
  4-byte ``ld.global`` straight from global memory; for each ``j`` the eight lanes of a
  group read eight consecutive floats. A warp owns four groups per step; more groups
  than ``4 · num_warps`` take several steps: up to ``UNROLLED_LANES_STEPS`` of them one
  after another, every step's loads first (the mid tile's two steps then wait for memory
  once: up to 10 % faster at M = 33–512 and K ≤ 8192, run 270), more in an ``scf.for``.

**Arithmetic, per group of 32 values** (module ``compiler/numerics/quantize.py``, method "cuda"):

* ``amax = max |x|``: ``|x|`` is ``maximumf(x, -x)``, which LLVM turns into ``fabs`` and
  ptxas into an operand modifier of the ``FMNMX`` taking the maximum; the maximum of
  non-negative finite floats is exact and needs no NaN rules. ``amax + 0.0`` makes a
  -0.0 maximum +0.0 (the GPU never produces one, an emulator's ``maximumf(+0, -0)`` may).
* ``d = amax / 127`` with ``arith.divf`` (LLVM ``fdiv`` without fast-math flags:
  ``div.rn.f32``); ``q = roundf(x / d)`` with a real division per value — ``x · (1/d)``
  rounds differently. ``roundf`` rounds halves away from zero (``cvt.rni`` would round
  them to even); it is ``fptosi(q + copysign(0.49999997, q))``: adding the largest float
  below one half and truncating equals ``floor(|q| + 0.5)`` for every float ``|q| < 2^22``
  (checked exhaustively; 0.5 itself fails for ``|q| = 0.49999997``, where the sum rounds
  up to 1), and ``|q| ≤ 190.5`` here (a subnormal ``d`` rounds ``amax / 127`` down by up to
  a third). The sign comes from ``x > 0`` (``q``'s sign, as ``d > 0``; ±0 round to 0 with
  either), off the division's critical path: ``FSETP``, ``FSEL``, ``FADD``, ``F2I``.
* ``d = 0`` (all values zero, or ``amax`` so small that ``amax / 127`` underflows):
  ggml divides by zero, giving +Inf, -Inf or NaN, which CUDA's float → int8 conversion
  (saturating int32, low byte) turns into -1, 0 and 0. LLVM's ``fptosi`` of a non-finite
  value is poison, so the pass divides by 1 instead (``|x| < 2^-142``) and gives positive
  values -1.5 in place of 0.49999997: they truncate to -1 (byte 0xff), the others to 0.
  The group's two constants are selected once; the values pay nothing for it.
* ``x = ±0``: the pass divides the divisor by itself instead (a ``select`` of the numerator): the
  quotient 1 plus the non-positive offset -0.49999997 truncates to 0, as ``0 / d`` does. ptxas's
  ``div.rn.f32`` sends a zero numerator to its full-range subroutine (``FCHK``), and a group of
  zeros — a tile's zero-filled rows past M, zero activations — then took twice as long: the
  kernel at M = 33 6.2 → 3.2 µs, all-zero X at M = 512, K = 14336 19.7 → 10.6 µs, random X
  unchanged (run 203). Two instructions per value.
* ``s = Σ x`` in the butterfly order above; ``(d, s)`` are rounded to f16 by one
  ``cvt.rn.f16x2.f32`` (nearest even, no flush to zero) and stored as one 32-bit word.

Nothing carries fast-math flags, so no step flushes subnormals.

**Bounds.** Values outside the load descriptor's shape read as 0 (predicated
``ld.global``, or ``cp.async`` with source size 0) and blocks outside the store
descriptor's shape are not written (predicated ``st.global``), as ``qdot.load`` /
``qdot.store`` promise. A ragged K tail is therefore quantized as if padded with zeros,
the way ggml pads activation rows.

The staged copies carry the kernel's ``qdot.l2_prefetch`` hint, as every cp.async of such a
kernel does (``dialects/qdot/kernel_attrs.py``); the quantize template sets none.

Global addresses start from the kernel's pointer argument through a
``builtin.unrealized_conversion_cast`` to i64, which becomes an identity cast once
``qdot-to-llvm`` retypes the arguments; pointer arguments are 16-byte aligned
(``passes/support/copies.py``, ``ASSUMED_BASE_ALIGNMENT``). With ``--remarks`` the pass says at each
``qdot.quantize`` which strategy its tile took and why, how the steps or waves are emitted and how
wide the copies and quant stores are (``_plan_remark``). Lit tests: ``tests/lit/qdot-lower-quantize/``
(``remarks.mlir`` for the remarks).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType, f32, i8, i32, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass

from compiler import remarks
from compiler.diagnostics import emit_error
from compiler.format_table import Q8_GROUP
from dialects.ptx.attrs import CacheOp, CvtKind, ShflMode
from dialects.ptx.ops import (
    BarSyncOp,
    BitcastOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    CvtOp,
    LdGlobalOp,
    LdSharedOp,
    PrmtOp,
    ShflSyncOp,
    StGlobalOp,
)
from dialects.qdot.formats import Format, format_info
from dialects.qdot.kernel import BarrierOp, LoadOp, MakeDescOp, QuantizeOp, StoreOp
from dialects.qdot.kernel_attrs import is_kernel, num_warps
from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.ops import LocalAllocOp
from dialects.qgpu.shared_layout import SharedLayout, allocation_bytes, shared_layout
from dialects.qgpu.types import MemDescType
from passes.support.analysis import known_divisor
from passes.support.builder import Builder, constant_value
from passes.support.copies import GlobalTile, element_offset, global_tile, l2_prefetch_hint, made_desc, producer_of
from passes.support.distributed import FunctionState

LANES_PER_GROUP = 8
"""The lanes strategy: lanes per group (values l, l+8, l+16, l+24 of lane l)."""
VALUES_PER_LANE = Q8_GROUP // LANES_PER_GROUP
GROUPS_PER_WARP = 32 // LANES_PER_GROUP
UNROLLED_LANES_STEPS = 4
"""The most steps of the ``lanes`` strategy emitted one after another instead of as an ``scf.for``, every step's loads
first: the mid tile's two steps then wait for memory once, not twice (run 270); X is only read and Q only written,
so the later steps' loads may go before the earlier steps' stores."""
CHUNK_BYTES = 16
"""One ``cp.async`` of the staged strategy: four f32."""
CHUNK_VALUES = CHUNK_BYTES // 4
CHUNKS_PER_GROUP = Q8_GROUP // CHUNK_VALUES
STAGING_LIMIT = 48 * 1024
"""Dynamic shared memory a kernel gets without an opt-in attribute: the largest staged wave."""
STAGING_PAD_VALUES = CHUNK_VALUES
"""Each group's 128 bytes are followed by 16 unused ones: a 144-byte pitch (module docstring)."""
STAGING_ENCODING = SharedEncodingAttr(1, 1, 1, [1, 0])
"""Unswizzled rows: the pitch alone spreads a quarter-warp over the eight bank groups."""
BELOW_HALF: float = struct.unpack("<f", struct.pack("<I", 0x3EFFFFFF))[0]
"""0.49999997f, the largest float below 0.5: ``roundf(q) = trunc(q + copysign(BELOW_HALF, q))``."""
FULL_WARP = -1  # shfl.sync membermask 0xffffffff
SHFL_CLAMP = 0x1F  # c operand of shfl.sync: the whole warp is one segment
PACK_LOW_BYTES = 0x0040
"""prmt selector: byte 0 of a, byte 0 of b (then don't-care bytes)."""
PACK_HALVES = 0x5410
"""prmt selector: bytes 0, 1 of a, then bytes 0, 1 of b."""


class Strategy(StrEnum):
    """How a program's threads share its groups (module docstring)."""

    STAGED = "staged"
    LANES = "lanes"


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
        return self.block_values // Q8_GROUP

    @property
    def header_bytes(self) -> int:
        return self.block_bytes - self.block_values

    @property
    def quants_offset(self) -> int:
        """Where ``qs`` starts: right after the (d, s) pairs."""
        return self.header_bytes

    @property
    def store_bytes(self) -> int:
        """The widest store that keeps every group's quants aligned (pointers are 16-byte aligned)."""
        if self.block_bytes % 8 == 0 and self.quants_offset % 8 == 0:
            return 8
        return 4


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

    def column_bytes(self, b: Builder, columns: int) -> SSAValue:
        """The i64 byte distance of ``columns`` columns (a constant for contiguous rows)."""
        stride = constant_value(self.strides[1])
        if isinstance(stride, int):
            return b.const(stride * columns * self.element_bytes, i64)
        return b.mul(b.mul(self.strides[1], columns), self.element_bytes)

    def row(self, b: Builder, row: SSAValue) -> TileRow:
        """Row ``row`` of the tile: its bounds check and the address of its element 0."""
        absolute = b.add(self.origin[0], row)
        start = b.add(self.base, b.mul(b.mul(b.cast_int(absolute, i64), self.strides[0]), self.element_bytes))
        return TileRow(self, b.cmp("ult", absolute, self.limits[0]), start)

    def row_below(self, b: Builder, above: TileRow, row: SSAValue, rows: int) -> TileRow:
        """Row ``row + rows``, its address stepped from ``above`` (row ``row``'s) by a multiple of the stride."""
        absolute = b.add(self.origin[0], b.add(row, rows))
        step = b.mul(b.mul(self.strides[0], rows), self.element_bytes)
        return TileRow(self, b.cmp("ult", absolute, self.limits[0]), b.add(above.start, step))


@dataclass(frozen=True)
class TileRow:
    tile: TileAccess
    inside: SSAValue  # i1
    start: SSAValue  # i64

    def column(self, b: Builder, col: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(absolute column, in-bounds predicate) of tile column ``col``."""
        absolute = b.add(self.tile.origin[1], col)
        inside = b.and_i1(self.inside, b.cmp("ult", absolute, self.tile.limits[1]))
        assert inside is not None
        return absolute, inside

    def address(self, b: Builder, absolute: SSAValue) -> SSAValue:
        tile = self.tile
        return b.add(self.start, b.mul(b.mul(b.cast_int(absolute, i64), tile.strides[1]), tile.element_bytes))

    def element(self, b: Builder, col: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(address, in-bounds predicate) of element ``col`` of the row (a tile coordinate)."""
        absolute, inside = self.column(b, col)
        return self.address(b, absolute), inside


@dataclass(frozen=True)
class QuantizePlan:
    """How the program's threads walk a [rows, cols] tile of f32 values."""

    rows: int
    cols: int
    warps: int
    block: Q8BlockLayout

    @property
    def threads(self) -> int:
        return 32 * self.warps

    @property
    def groups_per_row(self) -> int:
        return self.cols // Q8_GROUP

    @property
    def groups(self) -> int:
        return self.rows * self.groups_per_row

    @property
    def strategy(self) -> Strategy:
        """Staged when every thread gets a group of its own and a wave fits in shared memory."""
        if self.groups >= self.threads and allocation_bytes(self.staging) <= STAGING_LIMIT:
            return Strategy.STAGED
        return Strategy.LANES

    @property
    def groups_per_step(self) -> int:
        """Groups the program quantizes at once: a staged wave, or four per warp."""
        return self.threads if self.strategy is Strategy.STAGED else GROUPS_PER_WARP * self.warps

    @property
    def steps(self) -> int:
        return -(-self.groups // self.groups_per_step)

    @property
    def ragged(self) -> bool:
        """Whether the last step has slots without a group."""
        return self.groups % self.groups_per_step != 0

    @property
    def staging(self) -> MemDescType:
        """The staged strategy's buffer: one 144-byte row per thread, 128 of them values."""
        return MemDescType([self.threads, Q8_GROUP + STAGING_PAD_VALUES], f32, STAGING_ENCODING, True)


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
            kernel = KernelState(FunctionState(func))
            for quantize in quantizes:
                _lower(quantize, kernel, num_warps(func))


@dataclass
class KernelState:
    """Per-kernel lowering state: thread ids, and one staging buffer shared by all staged chains."""

    threads: FunctionState
    _staging: dict[MemDescType, tuple[SSAValue, SharedLayout]] = field(default_factory=dict)

    def staging(self, memdesc: MemDescType) -> tuple[SSAValue, SharedLayout, bool]:
        """(i32 shared offset, layout, reused) of the staging buffer, allocated at the kernel's entry.

        Staged chains of one kernel share it: ``reused`` says an earlier chain had it, so
        this one's first copy must wait at a barrier until every thread has read the
        earlier chain's values.
        """
        reused = memdesc in self._staging
        if not reused:
            entry = self.threads.entry
            alloc = entry.emit(LocalAllocOp(memdesc))
            self._staging[memdesc] = (entry.cast([alloc], [i32])[0], shared_layout(memdesc))
        return (*self._staging[memdesc], reused)


# ---------------------------------------------------------------------------------------------
# The pattern


def _chain(quantize: QuantizeOp) -> tuple[LoadOp, StoreOp]:
    """The load that feeds ``quantize`` and the store that consumes it, or a diagnostic."""
    load = quantize.src.owner
    if not isinstance(load, LoadOp):
        emit_error(quantize, f"source must come straight from a qdot.load of the f32 tile, got "
                             f"{producer_of(quantize.src)}")
    uses = list(quantize.result.uses)
    store = uses[0].operation if len(uses) == 1 else None
    if not isinstance(store, StoreOp) or store.value is not quantize.result:
        users = ", ".join(sorted({f"'{u.operation.name}'" for u in uses})) or "none"
        emit_error(quantize, f"result must have exactly one use, as the value of a qdot.store; got {len(uses)} "
                             f"use(s) ({users})")
    rank = len(load.result.type.get_shape())
    if rank != 2:
        emit_error(quantize, f"source must be a 2-D tile [rows, K]; got rank {rank}")
    for role, desc in (("the source's", load.desc), ("the result's", store.desc)):
        made_desc(desc, quantize, role)
    return load, store


def _repeats_unbarriered(store: StoreOp) -> bool:
    """Whether the chain of ``store`` runs more than once in its kernel (inside a loop) with no barrier between
    its runs, where a staged chain's copies of one iteration would overwrite what threads still read of the one
    before. A ``qdot.barrier`` after the store in the loop's body (``quantize_in_gemm``'s) is one."""
    parent = store.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if isinstance(parent, (scf.ForOp, scf.WhileOp)):
            block = store.parent_block()
            after = store.next_op
            while after is not None:
                if isinstance(after, BarrierOp) and block is not None and block.parent_op() is parent:
                    return False
                after = after.next_op
            return True
        parent = parent.parent_op()
    return False


def _lower(quantize: QuantizeOp, kernel: KernelState, warps: int) -> None:
    load, store = _chain(quantize)
    source = load.result.type
    assert isinstance(source, TensorType)
    rows, cols = source.get_shape()
    plan = QuantizePlan(rows, cols, warps, Q8BlockLayout.of(quantize.format.data))
    b = Builder.before(store)
    x_tile = global_tile(load.desc, _address_of(b, load.desc), tuple(load.offsets))
    x = TileAccess.of(b, x_tile)
    q = TileAccess.of(b, global_tile(store.desc, _address_of(b, store.desc), tuple(store.offsets)))
    if remarks.enabled(LowerQuantizePass.name):
        remarks.remark(quantize, LowerQuantizePass.name, _plan_remark(plan, quantize.format.data, x_tile))
    if plan.strategy is Strategy.STAGED:
        smem, layout, reused = kernel.staging(plan.staging)
        staged = StagedAccess(smem, layout, _vector_copies(x_tile), plan.steps > 1 or reused or _repeats_unbarriered(store))
        emit: Callable[[Builder, SSAValue | None], None] = (
            lambda eb, step: _emit_wave(eb, kernel.threads, plan, x, q, staged, step))
    else:
        emit = lambda eb, step: _emit_lanes_step(eb, kernel.threads, plan, x, q, step)  # noqa: E731
    if plan.steps == 1:
        emit(b, None)
    elif plan.strategy is Strategy.LANES and plan.steps <= UNROLLED_LANES_STEPS:
        groups = [_lanes_loads(b, kernel.threads, plan, x, b.const(step, IndexType())) for step in range(plan.steps)]
        for group in groups:
            _lanes_quantize(b, plan, q, group)
    else:
        body = Block(arg_types=[IndexType()])
        emit(Builder.at_end(body), body.args[0])
        body.add_op(scf.YieldOp())
        index = IndexType()
        b.insert(scf.ForOp(b.const(0, index), b.const(plan.steps, index), b.const(1, index), [], Region([body])))
    for op in (store, quantize, load):
        if op is load and load.result.uses:  # the tile has other users (another quantize of it): they keep it
            continue
        op.detach()
        op.erase()
    for desc in (load.desc, store.desc):
        owner = desc.owner
        if isinstance(owner, MakeDescOp) and not owner.result.uses:
            owner.detach()
            owner.erase()


def _plan_remark(plan: QuantizePlan, fmt: Format, x_tile: GlobalTile) -> str:
    """``--remarks``: the strategy the tile took and why, how the values arrive and how the steps are emitted."""
    head = (f"{fmt} from a {plan.rows}x{plan.cols} f32 tile, {plan.groups} group{'s' if plan.groups != 1 else ''} "
            f"of {Q8_GROUP} values for {plan.threads} threads: ")
    if plan.strategy is Strategy.STAGED:
        copies = _vector_copies(x_tile)
        how = ("16-byte cp.async" if copies is True else "4-byte cp.async (X's columns are not unit-stride)"
               if copies is False else "16-byte cp.async where a uniform run-time test finds X's rows 16-byte "
                                       "aligned, 4-byte ones otherwise")
        waves = f"{plan.steps} waves of {plan.threads} groups, a barrier between" if plan.steps > 1 else "one wave"
        return (head + f"staged (a group per thread and a wave fits in shared memory): {waves}, copied into shared "
                f"memory by {how}; quants stored {plan.block.store_bytes} bytes at a time")
    why = ("fewer groups than threads" if plan.groups < plan.threads
           else "a wave of them would not fit the staging limit")
    if plan.steps == 1:
        steps = "one step"
    elif plan.steps <= UNROLLED_LANES_STEPS:
        steps = f"{plan.steps} steps one after another, every step's loads first"
    else:
        steps = f"{plan.steps} steps in an scf.for"
    return (head + f"lanes ({why}): {LANES_PER_GROUP} lanes per group, {GROUPS_PER_WARP * plan.warps} groups per "
            f"step, {steps}; predicated 4-byte loads from global memory")


def _address_of(b: Builder, desc: SSAValue) -> SSAValue:
    """The i64 address of the descriptor's pointer (an identity cast after qdot-to-llvm)."""
    make = desc.owner
    assert isinstance(make, MakeDescOp)  # _chain checked it
    return b.cast([make.ptr], [i64])[0]


def _split(b: Builder, value: SSAValue, divisor: int) -> tuple[SSAValue, SSAValue]:
    """(value / divisor, value % divisor) for non-negative i32 values."""
    if divisor == 1:
        return value, b.const(0)
    if divisor & (divisor - 1) == 0:
        return b.lshr(value, divisor.bit_length() - 1), b.and_(value, divisor - 1)
    return b.udiv(value, divisor), b.urem(value, divisor)


def _first_group(b: Builder, plan: QuantizePlan, step: SSAValue | None) -> SSAValue | None:
    """The step's first group number (i32), None for the only step."""
    return None if step is None else b.mul(b.cast_int(step, i32), plan.groups_per_step)


# ---------------------------------------------------------------------------------------------
# Group arithmetic, shared by both strategies


def _tree_sum(b: Builder, values: Sequence[SSAValue]) -> SSAValue:
    """The butterfly's additions over values at group positions ``p, p + n, p + 2n, ...``:
    halves first (offset 16 before offset 8, ...), as ``warp_reduce_sum`` adds them."""
    level = list(values)
    while len(level) > 1:
        half = len(level) // 2
        level = [b.addf(level[i], level[i + half]) for i in range(half)]
    return level[0]


def _magnitude(b: Builder, value: SSAValue) -> SSAValue:
    """|value| as ``maximumf(value, -value)``, which LLVM turns into ``fabs`` and ptxas into an
    operand modifier of the ``FMNMX`` that takes the maximum: no instruction of its own."""
    return b.emit(arith.MaximumfOp(value, b.emit(arith.NegfOp(value))))


def _tree_max(b: Builder, values: Sequence[SSAValue]) -> SSAValue:
    """The maximum as a balanced tree (any order gives the same exact maximum; a tree keeps
    the dependency chain short)."""
    level = list(values)
    while len(level) > 1:
        half = (len(level) + 1) // 2
        level = [level[i] if i + half >= len(level) else b.emit(arith.MaxnumfOp(level[i], level[i + half]))
                 for i in range(half)]
    return level[0]


def _xor_shuffle(b: Builder, value: SSAValue, mask: int) -> SSAValue:
    return b.emit(ShflSyncOp(ShflMode.BFLY, value, b.const(mask), b.const(SHFL_CLAMP), b.const(FULL_WARP)))


@dataclass(frozen=True)
class GroupScale:
    """A group's scale ``d``, the divisor its quants use (1 when ``d = 0``) and what positive
    quotients add before truncation (``quant``)."""

    d: SSAValue
    divisor: SSAValue
    positive_offset: SSAValue

    @staticmethod
    def of(b: Builder, amax: SSAValue) -> GroupScale:
        # + 0.0 turns a -0.0 maximum into +0.0 (and changes nothing else): |x| is never -0.0
        # on the GPU, but an emulator may keep either zero of maximumf(+0, -0)
        d = b.emit(arith.DivfOp(b.addf(amax, b.fconst(0.0)), b.fconst(127.0)))
        zero = b.emit(arith.CmpfOp(d, b.fconst(0.0), "oeq"))
        return GroupScale(d, b.select(zero, b.fconst(1.0), d),
                          b.select(zero, b.fconst(-1.5), b.fconst(BELOW_HALF)))

    def quant(self, b: Builder, value: SSAValue) -> SSAValue:
        """The i32 whose low byte is CUDA's ``(int8_t) roundf(value / d)``.

        ``roundf(q) = trunc(q + copysign(0.49999997, q))``, the sign taken from ``value > 0``
        (``q``'s, as ``d > 0``; ±0 truncate to 0 with either sign). For ``d = 0`` the divisor is 1,
        so ``q = value`` is below 2^-142 in magnitude, and a positive value gets -1.5 instead
        of 0.49999997: ``trunc(-1.5 + value) = -1``, the byte 0xff of CUDA's +Inf; the others
        truncate to 0, as -Inf and NaN do.
        """
        # a zero value divides the divisor instead: the quotient 1 truncates to 0 with the non-positive
        # offset, as 0 / d does, and div.rn.f32 keeps to its fast path (ptxas's FCHK sends a zero
        # numerator to the slow subroutine: a tile's zero-filled rows cost 4 µs, run 202)
        zero = b.emit(arith.CmpfOp(value, b.fconst(0.0), "oeq"))
        quotient = b.emit(arith.DivfOp(b.select(zero, self.divisor, value), self.divisor))
        positive = b.emit(arith.CmpfOp(value, b.fconst(0.0), "ogt"))
        offset = b.select(positive, self.positive_offset, b.fconst(-BELOW_HALF))
        return b.emit(arith.FPToSIOp(b.addf(quotient, offset), i32))

    def pair(self, b: Builder, total: SSAValue) -> SSAValue:
        """The block's (d, s) word: f16 d in the low half, f16 s in the high half."""
        return b.emit(BitcastOp(b.emit(CvtOp(CvtKind.F16X2_F32, [total, self.d])), i32))


def _pack(b: Builder, quants: Sequence[SSAValue]) -> SSAValue:
    """Four quants' low bytes as one word, the first in byte 0."""
    low = b.emit(PrmtOp(quants[0], quants[1], b.const(PACK_LOW_BYTES)))
    high = b.emit(PrmtOp(quants[2], quants[3], b.const(PACK_LOW_BYTES)))
    return b.emit(PrmtOp(low, high, b.const(PACK_HALVES)))


# ---------------------------------------------------------------------------------------------
# Staged: one thread per group, the values staged in shared memory


@dataclass(frozen=True)
class StagedAccess:
    """Where a staged chain's values go: the buffer, its layout, and how they are copied."""

    smem: SSAValue  # i32 offset of the buffer in dynamic shared memory
    layout: SharedLayout
    vector: bool | tuple[SSAValue, ...]  # 16-byte copies: always, never, or if these are multiples of 4
    reused: bool  # earlier waves or chains read the buffer: a barrier before each copy


def _vector_copies(tile: GlobalTile) -> bool | tuple[SSAValue, ...]:
    """Whether the tile's 16-byte chunks are 16-byte aligned and wholly inside or outside the
    tensor: always (True), never (False: a non-unit column stride), or when the index values
    returned — the row stride, the column origin, K, those not known to be multiples of 4 —
    are multiples of 4 at run time."""
    if constant_value(tile.strides[1]) != 1:
        return False
    unknown: list[SSAValue] = []
    for value in (tile.strides[0], tile.offsets[1], tile.dims[1]):
        if known_divisor(value) % CHUNK_VALUES and all(value is not seen for seen in unknown):
            unknown.append(value)
    return tuple(unknown) or True


def _emit_wave(b: Builder, state: FunctionState, plan: QuantizePlan, x: TileAccess, q: TileAccess,
               staged: StagedAccess, step: SSAValue | None) -> None:
    first = _first_group(b, plan, step)
    if staged.reused:
        b.insert(BarSyncOp(0))  # earlier reads of the buffer are over
    _stage(b, state, plan, x, staged, first)
    b.insert(CpAsyncCommitOp())
    b.insert(CpAsyncWaitOp(0))
    b.insert(BarSyncOp(0))
    tid = state.ids.tid
    group = tid if first is None else b.add(first, tid)
    real = b.cmp("ult", group, plan.groups) if plan.ragged else None
    row, group_col = _split(b, group, plan.groups_per_row)
    values: list[SSAValue] = []
    first_value = b.add(staged.smem, element_offset(b, staged.layout, tid, b.const(0), 0, 1))
    for chunk in range(CHUNKS_PER_GROUP):
        offset = b.add(first_value, _apart(staged.layout, 0, chunk * CHUNK_VALUES))
        for half in range(2):
            pair = b.emit(LdSharedOp(b.add(offset, 8 * half), i64))
            values.append(b.emit(arith.BitcastOp(b.cast_int(pair, i32), f32)))
            values.append(b.emit(arith.BitcastOp(b.cast_int(b.lshr(pair, 32), i32), f32)))
    amax = _tree_max(b, [_magnitude(b, v) for v in values])
    total = _tree_sum(b, values)
    scale = GroupScale.of(b, amax)
    words = [_pack(b, [scale.quant(b, v) for v in values[i:i + 4]]) for i in range(0, Q8_GROUP, 4)]
    _store_group_words(b, plan, q, row, group_col, real, scale.pair(b, total), words)


def _chunk_steps(plan: QuantizePlan, whole_rows: bool) -> list[tuple[int, int]] | None:
    """(rows, groups) from chunk iteration 0's group to iteration i's, the same for every thread,
    or None when they depend on the thread (then each iteration splits its group number).

    Iteration i's wave group is ``tid / 8 + i · n`` (n = threads / 8). When n is a multiple of
    the groups per row, i moves i · n / gpr rows down; when the row is a multiple of n and
    each wave starts a row (``whole_rows``), i moves to group ``(i % a) · n`` of row
    ``i / a`` (a = gpr / n).
    """
    n, gpr = plan.threads // CHUNKS_PER_GROUP, plan.groups_per_row
    if n % gpr == 0:
        return [(i * (n // gpr), 0) for i in range(CHUNKS_PER_GROUP)]
    if gpr % n == 0 and whole_rows:
        a = gpr // n
        return [(i // a, (i % a) * n) for i in range(CHUNKS_PER_GROUP)]
    return None


def _stage(b: Builder, state: FunctionState, plan: QuantizePlan, x: TileAccess, staged: StagedAccess,
           first: SSAValue | None) -> None:
    """cp.async the wave's groups into the buffer: chunk ``c = i · threads + tid`` is chunk
    ``c % 8`` of the wave's group ``c / 8``, so a warp reads 512 contiguous bytes.

    Per iteration the address and the bounds move by compile-time steps (``_chunk_steps``)
    from those of iteration 0, so the copy costs a few integer instructions per 16 bytes.
    """
    tid = state.ids.tid
    prefetch = l2_prefetch_hint(state.func)
    n = plan.threads // CHUNKS_PER_GROUP
    wave_group, k = _split(b, tid, CHUNKS_PER_GROUP)
    col_in_group = b.mul(k, CHUNK_VALUES)
    dst0 = b.add(staged.smem, element_offset(b, staged.layout, wave_group, col_in_group, 0, 1))
    base_group = wave_group if first is None else b.add(first, wave_group)
    row0, group_col0 = _split(b, base_group, plan.groups_per_row)
    x_row0 = x.row(b, row0)
    col0 = b.add(b.mul(group_col0, Q8_GROUP), col_in_group)
    steps = _chunk_steps(plan, first is None or plan.threads % plan.groups_per_row == 0)
    places: list[tuple[SSAValue, TileRow, SSAValue, SSAValue | None]] = []
    for i in range(CHUNKS_PER_GROUP):
        group = b.add(base_group, i * n) if plan.ragged or steps is None else None
        real = b.cmp("ult", group, plan.groups) if group is not None and plan.ragged else None
        if steps is None:
            assert group is not None
            row, group_col = _split(b, group, plan.groups_per_row)
            x_row, col = x.row(b, row), b.add(b.mul(group_col, Q8_GROUP), col_in_group)
        else:
            rows_down, groups_right = steps[i]
            x_row = x_row0 if rows_down == 0 else x.row_below(b, x_row0, row0, rows_down)
            col = b.add(col0, groups_right * Q8_GROUP)
        places.append((b.add(dst0, _apart(staged.layout, i * n)), x_row, col, real))

    def vector(vb: Builder) -> None:
        for dst, row, col, real in places:
            address, inside = row.element(vb, col)
            _copy(vb, dst, address, vb.and_i1(real, inside), CHUNK_BYTES, prefetch)

    def scalar(sb: Builder) -> None:
        for dst, row, col, real in places:
            for e in range(CHUNK_VALUES):
                address, inside = row.element(sb, sb.add(col, e))
                _copy(sb, sb.add(dst, 4 * e), address, sb.and_i1(real, inside), 4, prefetch)

    if isinstance(staged.vector, bool):
        (vector if staged.vector else scalar)(b)
        return
    # 16-byte chunks need 16-byte aligned rows: a uniform check, then one of the two copies
    bits = [b.cast_int(value, i64) for value in staged.vector]
    for value in bits[1:]:
        bits[0] = b.or_(bits[0], value)
    aligned = b.cmp("eq", b.and_(bits[0], CHUNK_VALUES - 1), b.const(0, i64))
    then_block, else_block = Block(), Block()
    vector(Builder.at_end(then_block))
    scalar(Builder.at_end(else_block))
    then_block.add_op(scf.YieldOp())
    else_block.add_op(scf.YieldOp())
    b.insert(scf.IfOp(aligned, [], Region([then_block]), Region([else_block])))


def _apart(layout: SharedLayout, rows: int, cols: int = 0) -> int:
    """Bytes from element (r, c) to element (r + rows, c + cols) of the (unswizzled) staging
    buffer, the same for every (r, c): addresses step by constants."""
    apart = layout.offset((rows, cols)) - layout.offset((0, 0))
    last_row, last_col = layout.tile_shape[0] - 1 - rows, layout.tile_shape[1] - 1 - cols
    assert all(layout.offset((r + rows, c + cols)) - layout.offset((r, c)) == apart
               for r in {0, last_row} for c in {0, last_col}), "the staging layout must be unswizzled"
    return apart


def _copy(b: Builder, dst: SSAValue, address: SSAValue, inside: SSAValue, size: int,
          prefetch: int | None) -> None:
    """One cp.async of ``size`` bytes, or of ``size`` zero bytes when the chunk is outside;
    ``prefetch``: the kernel's L2 prefetch-size hint (``qdot.l2_prefetch``), which every
    cp.async of the kernel carries.

    Outside, the source size is 0 and cp.async reads nothing (PTX ISA 9.7.9.25.3.1: only
    src-size bytes are read; ptxas turns it into LDGSTS's zero-fill predicate), so the
    address may point past the tensor, as in Triton's masked copies: no clamp needed.
    """
    src_size = b.select(inside, b.const(size), b.const(0))
    cache = CacheOp.CG if size == CHUNK_BYTES else CacheOp.CA
    b.insert(CpAsyncOp(dst, address, size, cache, src_size, prefetch))


def _store_group_words(b: Builder, plan: QuantizePlan, q: TileAccess, row: SSAValue, group_col: SSAValue,
                       real: SSAValue | None, pair: SSAValue, words: Sequence[SSAValue]) -> None:
    """The group's (d, s) word and its 32 quants (8 words) into its block."""
    block = plan.block
    block_col, group_in_block = _split(b, group_col, block.groups)
    block_address, inside = q.row(b, row).element(b, block_col)
    writes = b.and_i1(real, inside)
    b.insert(StGlobalOp(b.add(block_address, b.cast_int(b.mul(group_in_block, 4), i64)), pair, writes))
    quant_byte = b.add(b.mul(group_in_block, Q8_GROUP), block.quants_offset)
    quants_address = b.add(block_address, b.cast_int(quant_byte, i64))
    if block.store_bytes == 8:
        for i in range(0, len(words), 2):
            low = b.cast_int(words[i], i64)
            high = b.shl(b.cast_int(words[i + 1], i64), 32)
            b.insert(StGlobalOp(b.add(quants_address, 4 * i), b.or_(low, high), writes))
    else:
        for i, word in enumerate(words):
            b.insert(StGlobalOp(b.add(quants_address, 4 * i), word, writes))


# ---------------------------------------------------------------------------------------------
# Lanes: eight lanes per group, values straight from global memory


@dataclass(frozen=True)
class LanesGroup:
    """What a lane of the ``lanes`` strategy loaded for one step: its four values and where their group lies."""

    values: list[SSAValue]
    row: SSAValue
    group_col: SSAValue
    lane_in_group: SSAValue
    real: SSAValue | None


def _emit_lanes_step(b: Builder, state: FunctionState, plan: QuantizePlan, x: TileAccess, q: TileAccess,
                     step: SSAValue | None) -> None:
    _lanes_quantize(b, plan, q, _lanes_loads(b, state, plan, x, step))


def _lanes_loads(b: Builder, state: FunctionState, plan: QuantizePlan, x: TileAccess,
                 step: SSAValue | None) -> LanesGroup:
    slot = state.per_thread(("quantize-group-slot",), lambda eb, ids: eb.add(
        eb.mul(ids.warp, GROUPS_PER_WARP), eb.lshr(ids.lane, LANES_PER_GROUP.bit_length() - 1)))
    lane_in_group = state.per_thread(("quantize-lane-in-group",),
                                     lambda eb, ids: eb.and_(ids.lane, LANES_PER_GROUP - 1))
    first = _first_group(b, plan, step)
    group = slot if first is None else b.add(first, slot)
    real = b.cmp("ult", group, plan.groups) if plan.ragged else None
    row, group_col = _split(b, group, plan.groups_per_row)

    x_row = x.row(b, row)
    first_col = b.add(b.mul(group_col, Q8_GROUP), lane_in_group)
    first_address, _ = x_row.element(b, first_col)
    values: list[SSAValue] = []
    for j in range(VALUES_PER_LANE):
        # value j is 8·j columns on: its address is the first one plus a constant (an immediate offset)
        _, inside = x_row.column(b, b.add(first_col, j * LANES_PER_GROUP))
        address = b.add(first_address, x_row.tile.column_bytes(b, j * LANES_PER_GROUP))
        values.append(b.emit(LdGlobalOp(address, f32, b.and_i1(real, inside))))
    return LanesGroup(values, row, group_col, lane_in_group, real)


def _lanes_quantize(b: Builder, plan: QuantizePlan, q: TileAccess, group: LanesGroup) -> None:
    values = group.values
    amax = _tree_max(b, [_magnitude(b, v) for v in values])
    # the sum in warp_reduce_sum<32>'s order: offsets 16 and 8 are in registers
    total = _tree_sum(b, values)
    for mask in range(LANES_PER_GROUP.bit_length() - 2, -1, -1):
        amax = b.emit(arith.MaxnumfOp(amax, _xor_shuffle(b, amax, 1 << mask)))
        total = b.addf(total, _xor_shuffle(b, total, 1 << mask))
    scale = GroupScale.of(b, amax)
    quants = [b.emit(arith.TruncIOp(scale.quant(b, v), i8)) for v in values]
    _store_lane_bytes(b, plan, q, group.row, group.group_col, group.lane_in_group, group.real, scale.pair(b, total),
                      quants)


def _store_lane_bytes(b: Builder, plan: QuantizePlan, q: TileAccess, row: SSAValue, group_col: SSAValue,
                      lane_in_group: SSAValue, real: SSAValue | None, pair: SSAValue,
                      quants: list[SSAValue]) -> None:
    block_col, group_in_block = _split(b, group_col, plan.block.groups)
    block_address, inside = q.row(b, row).element(b, block_col)
    writes = b.and_i1(real, inside)
    first_lane = b.cmp("eq", lane_in_group, 0)
    pair_address = b.add(block_address, b.cast_int(b.mul(group_in_block, 4), i64))
    b.insert(StGlobalOp(pair_address, pair, b.and_i1(writes, first_lane)))
    quant_byte = b.add(b.mul(group_in_block, Q8_GROUP), lane_in_group)
    quants_address = b.add(block_address, b.add(b.cast_int(quant_byte, i64), plan.block.quants_offset))
    for j, quant in enumerate(quants):
        b.insert(StGlobalOp(b.add(quants_address, j * LANES_PER_GROUP), quant, writes))


__all__ = ["BELOW_HALF", "LowerQuantizePass", "Q8BlockLayout", "QuantizePlan", "Strategy"]

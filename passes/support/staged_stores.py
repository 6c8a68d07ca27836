"""An f32 tile stored through shared memory: row-contiguous 16-byte global stores.

``qdot-to-llvm{epilogue=staged}``; not the default. The mma and wgmma accumulator layouts
give a thread column pairs of rows eight apart, so stored directly
(``passes/support/stores.py``) one warp instruction writes 32 bytes to each of eight rows.
Run 75 (``bench/experiments/epilogue_stores.py``: a 128 × 256 f32 tile per CTA, one CTA per
SM, waves in lockstep as the GEMM's are) timed that epilogue at 4.5 µs per wave against
3.3 µs when each warp first writes its registers to shared memory and reads them back as
rows: then one instruction writes 512 contiguous bytes (four whole 128-byte lines) instead
of eight 32-byte pieces. In the GEMMs (run 76, ``bench/experiments/staged_epilogue.py``) it
is 5 % faster for the 128 × 128 wgmma tile at M = 512 (run 84: no faster once the K loop's
raw reads became 16-byte loads) and 2–3 % slower for the 128 × 256 one at 8192³, whose K loop
ptxas schedules differently once the epilogue changes (the loop's PTX is the same): a choice
per kernel, not a default.

How: each warp owns a region of shared memory holding the rectangle of the tile its
registers cover (the same R × C for every warp; only the warp's origin differs), rows
padded so that the ``st.shared.v2`` of a column pair by the 16 lanes of a half-warp hit 16
different bank pairs. Lanes then read 16-byte vectors row by row and store them with one
bounds test per vector: a vector never straddles N because N, the row pitch and the tile's
column origin are multiples of 4 (``qdot.divisibility``), which is also what makes it
16-byte aligned. Where the regions of all warps do not fit in the kernel's shared memory,
the columns go in chunks, one region's worth at a time.

When: only where it cannot cost occupancy or correctness — the regions reuse the kernel's
own shared memory (never more than it already has; a kernel without any keeps the direct
stores), so the store must come after everything that reads or fills it: a store in the
function's top block (after the K loop, not inside it: a persistent kernel's stores run
while the next tile's copies land), with nothing after it but other stores and constants.
``cp.async.wait_group 0`` and a barrier come first (the pipeline may still have copies in
flight into the ring the regions overlap), a barrier separates each chunk's writes from its
reads. The wgmma accumulator qualifies (a warp's registers cover 16 whole rows), and so
does an mma.sync one whose warps are stacked along one dimension; one whose warp grid is 2-D
(the benchmark's mma.sync tiles) does not: each warp's registers cover rows and columns
interleaved with the other warps', not one rectangle, and it keeps the direct stores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, VectorType, i32, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from dialects.ptx.ops import BarSyncOp, CpAsyncWaitOp, LdSharedOp, PackOp, StGlobalOp, StSharedOp
from dialects.qdot.kernel import StoreOp
from dialects.qdot.kernel_attrs import SHARED_BYTES_ATTR
from dialects.qgpu.distributed import CoordExpr, DistributedLayout
from passes.support.analysis import known_divisor, unit_stride
from passes.support.builder import Builder, constant_value
from passes.support.copies import GlobalTile
from passes.support.distributed import FunctionState, as_i32, field_sum, register_pairs

VECTOR = 4
"""f32 values per 16-byte vector."""


@dataclass(frozen=True)
class StagingPlan:
    """Each warp's rectangle (``rows`` × ``cols`` at its warp origin) staged ``chunk`` columns
    at a time in a region of ``rows`` × ``stride`` words."""

    rows: int
    cols: int
    chunk: int
    stride: int
    warps: int
    pairs: bool
    """Registers 2i and 2i + 1 hold side-by-side columns: one ``st.shared.v2`` per pair."""

    @property
    def region_bytes(self) -> int:
        return self.rows * self.stride * 4

    @property
    def vectors_per_lane(self) -> int:
        return self.rows * self.chunk // VECTOR // 32


def staging_plan(layout: DistributedLayout, tile: GlobalTile, store: StoreOp, func: FuncOp) -> StagingPlan | None:
    """The plan for staging ``store`` (the module docstring says when), or None."""
    plan = staging_decision(layout, tile, store, func)
    return plan if isinstance(plan, StagingPlan) else None


def staging_decision(layout: DistributedLayout, tile: GlobalTile, store: StoreOp,
                     func: FuncOp) -> StagingPlan | Callable[[], str]:
    """The plan for staging ``store``, or the condition of the module docstring's "When" that it
    fails, as a sentence built only when called (qdot-to-llvm's remark)."""
    if store.reduce is not None:
        return lambda: "a reduction (red.global.add) is never staged"
    if layout.elem_bytes != 4:
        return lambda: f"its elements are {layout.elem_bytes}-byte, and staging moves 4-byte ones (an f32 or i32 tile)"
    if layout.coord_rank != 2:
        return lambda: f"the tile has {layout.coord_rank} dimensions, staging stores 2-D tiles"
    if any(m is not None for m in layout.moduli):
        return lambda: "the layout wraps around the tile (a coordinate is taken modulo the tile's size)"
    if not vectors_aligned(tile):
        return lambda: unaligned_reason(tile)
    if store.parent is not func.body.blocks[0]:
        return lambda: ("the store is not in the function's top block (inside a loop or branch, shared memory "
                        "may still be in use)")
    if not _last_shared_user(store):
        return lambda: ("operations other than stores follow it in the function, and may read the shared memory "
                        "the staging would overwrite")
    rect = _warp_rectangle(layout)
    if rect is None:
        return lambda: ("a warp's registers do not hold one rectangle of the tile whose width is a power of two of "
                        "4-column vectors (an mma.sync accumulator with a 2-D warp grid interleaves its warps' "
                        "rows and columns)")
    rows, cols = rect
    origins = {_warp_origin(layout, w) for w in range(layout.num_warps)}
    if len(origins) != layout.num_warps:  # warps holding the same elements
        return lambda: "several warps hold the same elements of the tile"
    budget = _int(func.attributes.get(SHARED_BYTES_ATTR))
    pairs = register_pairs(layout)
    chunk = cols
    while chunk >= VECTOR:
        stride = chunk + (8 - chunk) % 32  # ≡ 8 (mod 32) words: the half-warp's pairs on distinct banks
        plan = StagingPlan(rows, cols, chunk, stride, layout.num_warps, pairs)
        if plan.region_bytes * plan.warps <= budget and _chunks_whole(layout, plan):
            return plan
        chunk //= 2
    if not budget:
        return lambda: "the kernel has no shared memory for the staging to reuse (it never adds any)"
    return lambda: (f"no chunk of the {layout.num_warps} warps' {rows}x{cols} rectangles, down to {VECTOR} columns, "
                    f"fits the kernel's {budget} B of shared memory with whole vectors per lane (the staging "
                    "reuses that memory, never adds any)")


def lower_staged_store(store: StoreOp, layout: DistributedLayout, tile: GlobalTile, regs: list[SSAValue],
                       state: FunctionState, plan: StagingPlan) -> None:
    b = Builder.before(store)
    ids = state.ids
    b.insert(CpAsyncWaitOp(0))
    # computed here rather than at the function entry with the loop's per-thread values, so
    # that they are not live across the K loop
    warp_row, warp_col = (field_sum(b, ids, CoordExpr(0, _fields(layout.warp_fields, d), None)) for d in range(2))
    lane_row, lane_col = (field_sum(b, ids, CoordExpr(0, _fields(layout.lane_fields, d), None)) for d in range(2))
    region = b.mul(ids.warp, plan.region_bytes)
    write_base = b.add(region, b.mul(b.add(b.mul(lane_row, plan.stride), lane_col), 4))

    per_row = plan.chunk // VECTOR  # vectors per staged row, a power of two
    read_row, read_vec = _read_lane_parts(b, ids.lane, per_row)
    read_base = b.add(region, b.mul(b.add(b.mul(read_row, plan.stride), b.mul(read_vec, VECTOR)), 4))
    limits = [b.cast_int(d, i32) for d in tile.dims]
    origin = [b.cast_int(o, i32) for o in tile.offsets]
    pitch = b.cast_int(tile.strides[0], i64)
    thread_row = b.add(b.add(origin[0], warp_row), read_row)
    thread_col = b.add(b.add(origin[1], warp_col), b.mul(read_vec, VECTOR))
    linear = b.add(b.mul(b.cast_int(thread_row, i64), pitch), b.cast_int(thread_col, i64))
    global_base = b.add(tile.base, b.mul(linear, 4))
    row_steps: dict[int, tuple[SSAValue, SSAValue]] = {}
    col_tests: dict[int, SSAValue] = {}

    for first in range(0, plan.cols, plan.chunk):
        b.insert(BarSyncOp(0))  # readers of the region (the K loop's, or the previous chunk's) are done
        step = 2 if plan.pairs else 1
        for reg in range(0, layout.regs_per_thread, step):
            row, col = layout.reg_offset(reg, 0)
            if not first <= col < first + plan.chunk:
                continue
            offset = b.add(write_base, ((row * plan.stride) + col - first) * 4)
            value = regs[reg] if step == 1 else b.emit(PackOp([as_i32(b, regs[reg]), as_i32(b, regs[reg + 1])]))
            b.insert(StSharedOp(offset, value))
        b.insert(BarSyncOp(0))
        for i in range(plan.vectors_per_lane):
            row_const, vec_const = divmod(i * 32, per_row) if per_row >= 32 else (i * 32 // per_row, 0)
            col_const = first + vec_const * VECTOR
            loaded = b.emit(LdSharedOp(b.add(read_base, (row_const * plan.stride + vec_const * VECTOR) * 4),
                                       VectorType(i32, [VECTOR])))
            if row_const not in row_steps:
                row_steps[row_const] = (b.mul(pitch, row_const * 4),
                                        b.cmp("ult", b.add(thread_row, row_const), limits[0]))
            if col_const not in col_tests:
                col_tests[col_const] = b.cmp("ult", b.add(thread_col, col_const), limits[1])
            step_bytes, row_ok = row_steps[row_const]
            address = b.add(b.add(global_base, step_bytes), col_const * 4)
            b.insert(StGlobalOp(address, loaded, b.and_i1(row_ok, col_tests[col_const])))


def unit_stride_run_dim(tile: GlobalTile) -> int:
    """The dimension vectors may run along: the tile's one unit-stride dimension (``unit_stride``: the rows of a
    column-major tile, 0), the columns (1) where none is known to be — the dimension ``blocked_tile`` lays its runs
    along, by the same rule."""
    dim = unit_stride(tile.strides)
    return 1 if dim is None else dim


def runs_aligned(tile: GlobalTile, n: int, dim: int = 1) -> bool:
    """``dim`` unit-stride (the columns by default) with the pitch across it, the extent along it and the tile's
    origin along it multiples of ``n``: a run of n elements along ``dim`` starting at a multiple of n is aligned to
    n elements, and inside the extent when its first element is."""
    return constant_value(tile.strides[dim]) == 1 and all(known_divisor(v) % n == 0 for v in run_terms(tile, dim))


def vectors_aligned(tile: GlobalTile, dim: int = 1) -> bool:
    """``runs_aligned`` for 16-byte vectors of 32-bit elements."""
    return runs_aligned(tile, VECTOR, dim)


def run_terms(tile: GlobalTile, dim: int) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(the pitch across ``dim``, the extent along it, the tile's origin along it): what a vector along ``dim`` needs
    to be a multiple of its length to be aligned and never straddle the extent."""
    return tile.strides[1 - dim], tile.dims[dim], tile.offsets[dim]


RUN_TERM_NAMES = {1: ("the row pitch", "N", "the column origin"), 0: ("the column pitch", "M", "the row origin")}
"""``run_terms``' names for runs along the columns (``dim`` 1) and along the rows (``dim`` 0)."""


def unaligned_reason(tile: GlobalTile, dim: int = 1) -> str:
    """Which part of ``vectors_aligned`` ``tile`` fails."""
    if constant_value(tile.strides[dim]) != 1:
        return "the tile's columns are not known to be unit-stride, so its rows are not 16-byte vectors"
    unproven = [name for name, value in zip(RUN_TERM_NAMES[dim], run_terms(tile, dim), strict=True)
                if known_divisor(value) % VECTOR]
    subject = unproven[0] if len(unproven) == 1 else f"{', '.join(unproven[:-1])} and {unproven[-1]}"
    multiple = "is not known to be a multiple" if len(unproven) == 1 else "are not known to be multiples"
    vectors = "row" if dim == 1 else "column"
    return (f"{subject} {multiple} of {VECTOR}, as 16-byte {vectors} vectors need (aligned, never straddling "
            f"{RUN_TERM_NAMES[dim][1]}; qdot.divisibility on the argument says so)")


def _last_shared_user(store: StoreOp) -> bool:
    """Nothing after ``store`` in its block but stores, constants and the return: no later
    reader of the shared memory the staging overwrites."""
    op: Operation | None = store.next_op
    while op is not None:
        if not isinstance(op, (StoreOp, arith.ConstantOp)) and op.name != "func.return":
            return False
        op = op.next_op
    return True


def _warp_rectangle(layout: DistributedLayout) -> tuple[int, int] | None:
    """(R, C) when the lanes and registers of warp 0 hold each element of [0, R) × [0, C)
    exactly once (every warp then holds the same rectangle at its own origin), with C a power
    of two of whole vectors."""
    seen = {layout.coords(0, lane, reg, 0) for reg in range(layout.regs_per_thread) for lane in range(32)}
    if None in seen:
        return None
    rows = 1 + max(r for r, _ in seen)
    cols = 1 + max(c for _, c in seen)
    if len(seen) != 32 * layout.regs_per_thread or len(seen) != rows * cols or min(seen) != (0, 0):
        return None
    if cols % VECTOR or cols & (cols - 1):
        return None
    return rows, cols


def _warp_origin(layout: DistributedLayout, warp: int) -> tuple[int, int]:
    """Where warp ``warp``'s rectangle starts: its coordinates less warp 0's, for any slot."""
    here, first = layout.coords(warp, 0, 0, 0), layout.coords(0, 0, 0, 0)
    return here[0] - first[0], here[1] - first[1]


def _chunks_whole(layout: DistributedLayout, plan: StagingPlan) -> bool:
    """Every register's columns (over all lanes) inside one chunk, and whole vectors per lane."""
    if (plan.rows * plan.chunk) % (VECTOR * 32):
        return False
    for reg in range(layout.regs_per_thread):
        cols = [layout.coords(0, lane, reg, 0)[1] for lane in range(32)]
        if min(cols) // plan.chunk != max(cols) // plan.chunk:
            return False
    return True


def _fields(fields: tuple, dim: int) -> tuple:
    return tuple(f for f in fields if f.dim == dim)


def _read_lane_parts(b: Builder, lane: SSAValue, per_row: int) -> tuple[SSAValue, SSAValue]:
    """(row, vector) a lane reads first: lanes along a row, ``per_row`` vectors to a row."""
    if per_row >= 32:
        return b.const(0), lane
    return b.lshr(lane, per_row.bit_length() - 1), b.and_(lane, per_row - 1)


def _int(attr: object) -> int:
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


__all__ = ["RUN_TERM_NAMES", "VECTOR", "StagingPlan", "lower_staged_store", "run_terms", "runs_aligned",
           "staging_decision", "staging_plan", "unaligned_reason", "unit_stride_run_dim", "vectors_aligned"]

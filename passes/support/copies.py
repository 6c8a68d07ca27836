"""Global → shared tile copies: the lowering of ``qgpu.async_copy`` and of ``local_alloc(qdot.load)``.

The CTA's threads split the tile into chunks along its contiguous dimension and
issue one ``cp.async`` per chunk (16 bytes when the addresses are known to be
16-byte aligned — ``passes/support/analysis.py`` — else 8 or 4). Out-of-bounds
parts are zero-filled through cp.async's source size (reads beyond the tensor
never happen), which is how ``qdot.load`` promises zeros outside the tensor. An
``fp4Padded`` destination receives each 16-byte chunk as two 8-byte pieces, each
followed by its 8 bytes of padding. Shared byte offsets come from the buffer's
layout function (``SharedLayout.offset``), as linear maps over the bits of
(chunk, lane, warp) when it composes linearly, else per chunk at run time.
Tiles whose addresses are not provably aligned to 4 bytes are copied with
predicated byte loads and stores. Along a dimension its ``qdot.load`` declares
``in_bounds`` a chunk or run copy by cp.async tests nothing (no compare, no clamped address, no
source size); the segment forms (``_segment_copy``, cp.async or synchronous) and the byte copy
test anyway. A tile whose rows lie back to back in global memory (row
stride = its row's bytes) and in an unswizzled buffer is one run (``_copy_run``): chunk q is
q · chunk bytes after its first byte, bounded by the tensor's bytes, whether or not a row is a
whole number of chunks (q6_K's 210-byte blocks are not). In a kernel with ``qdot.l2_prefetch`` every
cp.async carries that L2 prefetch-size hint (``l2_prefetch_hint``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, TensorType, i8, i16, i32, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.ptx.attrs import CacheOp
from dialects.ptx.ops import CpAsyncOp, LdGlobalOp, StSharedOp
from dialects.qdot.kernel import MakeDescOp
from dialects.qdot.kernel_attrs import l2_prefetch
from dialects.qdot.types import BlockType, DescType
from dialects.qgpu.elements import storage_bytes
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.shared_layout import SharedLayout
from passes.support.analysis import known_divisor, rows_back_to_back
from passes.support.builder import Builder, constant_value
from passes.support.distributed import FunctionState, LinearOffsets

ASSUMED_BASE_ALIGNMENT = 16
"""Kernel pointer arguments must be 16-byte aligned (cudaMalloc gives 256)."""
REMARKS_PASS = "qdot-to-llvm"
"""The pass whose decisions a copy's and an epilogue's forms are, which their remarks are filed under (its
``ToLLVMPass.name``; that module imports this one and ``stores``)."""


def element_bytes(element_type) -> int:  # noqa: ANN001
    if isinstance(element_type, BlockType):
        return element_type.info.element_bytes
    size = storage_bytes(element_type)
    assert size is not None, f"no byte size for {element_type}"
    return size


@dataclass(frozen=True)
class GlobalTile:
    """A descriptor's tile at some offsets, in byte terms."""

    base: SSAValue  # i64 address of element [0, 0]
    dims: tuple[SSAValue, ...]  # index, in elements
    strides: tuple[SSAValue, ...]  # index, in elements
    offsets: tuple[SSAValue, ...]  # index, tile origin in elements
    elem_bytes: int
    make_desc: MakeDescOp
    in_bounds: tuple[bool, ...] = ()  # per dimension, declared inside the tensor (``qdot.load {in_bounds}``)

    def declared_in(self, dim: int) -> bool:
        return bool(self.in_bounds) and self.in_bounds[dim]

    @property
    def all_declared(self) -> bool:
        return bool(self.in_bounds) and all(self.in_bounds)


def producer_of(value: SSAValue) -> str:
    """What defines ``value``, for a diagnostic: the op's name quoted, or a block argument."""
    owner = value.owner
    return f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"


def made_desc(desc: SSAValue, user: Operation, role: str = "") -> MakeDescOp:
    """The ``qdot.make_desc`` that ``desc`` is, or a diagnostic at ``user``: a copy's shape and strides are
    read from that op, so a descriptor carried through a loop's ``iter_args`` or a branch cannot be lowered
    (the tile's shape and strides are then known only at run time)."""
    make = desc.owner
    if not isinstance(make, MakeDescOp):
        emit_error(user, f"{role + ' ' if role else ''}descriptor must come straight from qdot.make_desc, got "
                         f"{producer_of(desc)}")
    return make


def global_tile(desc: SSAValue, base: SSAValue, offsets: tuple[SSAValue, ...],
                in_bounds: tuple[bool, ...] = ()) -> GlobalTile:
    make = desc.owner
    assert isinstance(make, MakeDescOp), "callers check with made_desc"
    desc_type = desc.type
    assert isinstance(desc_type, DescType)
    return GlobalTile(base, tuple(make.shape), tuple(make.strides), offsets,
                      element_bytes(desc_type.element_type), make, in_bounds)


def l2_prefetch_hint(func: FuncOp) -> int | None:
    """The L2 prefetch size every cp.async of the kernel carries (its ``qdot.l2_prefetch``), or
    None; a diagnostic at the kernel when the attribute is malformed."""
    try:
        return l2_prefetch(func)
    except ValueError as err:
        emit_error(func, str(err))


def as_index(b: Builder, value: SSAValue | int) -> SSAValue:
    """``value`` as an ``index`` (a descriptor's shape, stride or offset may be any integer type)."""
    if isinstance(value, int):
        return b.const(value, IndexType())
    if isinstance(value.type, IndexType):
        return value
    return b.cast_int(value, IndexType())


def copy_tile(b: Builder, state: FunctionState, tile: GlobalTile, shared: SharedLayout, smem_base: SSAValue,
              num_warps: int, at: Operation, late: Builder | None = None, active: SSAValue | None = None) -> None:
    """Issue the cp.async (or byte-copy) instructions that move ``tile`` into the buffer.

    ``active``: an i1 the same in every thread (``qgpu.async_copy``'s ``if``); where it is false every copy
    reads nothing (source size 0, a predicated-off load) — the instructions stay, so no branch splits the
    K loop's block.

    ``late``: where a synchronous byte copy may put its shared stores — the end of the loop
    body for a pipelined copy, whose buffer is read only iterations later (``qdot-to-llvm``'s
    ``_landing_point``) — so the global loads' latency is spent on the rest of the iteration
    instead of stalling every warp at the top of it."""
    rows_dim, cols_dim = _dims(shared)
    prefetch = l2_prefetch_hint(state.func)
    eb = tile.elem_bytes
    if constant_value(tile.strides[cols_dim]) != 1:
        emit_error(at, "the global tile's contiguous dimension must match the shared buffer's "
                       f"(dimension {cols_dim} needs stride 1 in qdot.make_desc)")
    rows = shared.tile_shape[rows_dim]
    row_bytes = shared.tile_shape[cols_dim] * eb
    # byte offsets known to be multiples of these: their power-of-two parts bound the alignment
    # (a 210-byte q6_K block times a row stride of unknown parity is 2-aligned, not 16-)
    stride_align = _power_of_two_part(known_divisor(tile.strides[rows_dim]) * eb)
    offset_align = _power_of_two_part(known_divisor(tile.offsets[cols_dim]) * eb)
    align = min(ASSUMED_BASE_ALIGNMENT, stride_align, offset_align)
    threads = 32 * num_warps
    run_chunk = _copy_run(b, state, tile, shared, smem_base, num_warps, rows_dim, cols_dim, prefetch, active)
    if run_chunk is not None:
        run = rows * row_bytes
        _remark(at, tile, shared, lambda: f"one contiguous run of {run} B (rows back to back) by {run_chunk}-byte "
                                          f"cp.async, {-(-run // run_chunk // threads)} per thread"
                                          + ("; declared in bounds: no bounds tests" if tile.all_declared else ""))
        return
    # a swizzled buffer moves each run of swizzle_bytes on its own: a chunk larger than one, or across two, would
    # land its bytes after the first run's in the wrong place (and its start off the chunk's alignment)
    run = shared.swizzle_bytes if shared.max_phase > 1 and not shared.fp4_padded else None
    chunk = next((c for c in (16, 8, 4) if row_bytes % c == 0 and align % c == 0 and (run is None or run % c == 0)),
                 None)
    if chunk is not None and _segment_copy(b, state, tile, shared, smem_base, num_warps, rows_dim, cols_dim, chunk,
                                           prefetch, async_chunk=True, active=active):
        why = _why_not(2 * chunk, row_bytes, stride_align, offset_align, run)
        _remark(at, tile, shared, lambda: f"{chunk}-byte cp.async row by row, {ROW_LANES} lanes per row, "
                                          f"{row_bytes // chunk} chunks per row; not {2 * chunk}-byte: {why}")
        return
    if chunk is None:
        pairs = (row_bytes % 2 == 0 and align % 2 == 0 and known_divisor(tile.dims[cols_dim]) * eb % 2 == 0
                 and _pairs_contiguous(shared, rows_dim, cols_dim, eb))
        unit = 2 if pairs else 1
        order = "row by row"
        if not _segment_copy(b, state, tile, shared, smem_base, num_warps, rows_dim, cols_dim, unit, active=active):
            order = "piece by piece"
            _byte_copy(b, state, tile, shared, smem_base, num_warps, rows_dim, cols_dim, late or b, unit, active)
        _remark(at, tile, shared, lambda: f"synchronous {unit}-byte loads and shared stores, {order}; no cp.async: "
                                          f"{_why_not(4, row_bytes, stride_align, offset_align, run)}")
        return
    chunks_per_row = row_bytes // chunk
    total = rows * chunks_per_row
    iterations = -(-total // threads)
    # a dimension declared in bounds (qdot.load {in_bounds}) is not tested at all (an fp4Padded buffer's columns,
    # copied in 8-byte halves, keep their per-half bound)
    rows_in, cols_in = tile.declared_in(rows_dim), tile.declared_in(cols_dim) and not shared.fp4_padded
    # an fp4Padded buffer takes each 16-byte global chunk as two 8-byte cp.async, one per padded shared chunk
    what = "16-byte chunks, each as two 8-byte cp.async into fp4Padded rows (8 data bytes per 16 B)" \
        if shared.fp4_padded and chunk == 16 else f"{chunk}-byte cp.async"
    _remark(at, tile, shared, lambda: f"{what}, {iterations} per thread"
                                      + ("" if chunk == 16 else f"; not {2 * chunk}-byte: "
                                         f"{_why_not(2 * chunk, row_bytes, stride_align, offset_align, run)}")
                                      + _declared_remark(rows_in, cols_in))
    ids = state.ids
    # global pieces, as index arithmetic
    r_off = as_index(b, tile.offsets[rows_dim])
    c_off = as_index(b, tile.offsets[cols_dim])
    eb_i = eb
    row_limit = as_index(b, tile.dims[rows_dim])
    col_limit_bytes = b.mul(as_index(b, tile.dims[cols_dim]), eb_i)
    stride_bytes = b.mul(as_index(b, tile.strides[rows_dim]), eb_i)
    col_origin_bytes = b.mul(c_off, eb_i)
    tid_index = b.cast_int(ids.tid, IndexType())
    linear = _linear_smem(shared, rows_dim, cols_dim, chunk, chunks_per_row, total, threads, eb)
    # Whole tiles along the contiguous dimension (its extent and the tile origin are multiples
    # of the tile, e.g. K with qdot.divisibility): one bounds test per tile instead of a clamp
    # per chunk, which keeps the per-chunk state LLVM hoists out of the K loop small.
    tile_cols = shared.tile_shape[cols_dim]
    whole_cols = (cols_in or _whole_cols(tile, cols_dim, tile_cols)) and not shared.fp4_padded
    tile_in = b.cmp("ult", c_off, as_index(b, tile.dims[cols_dim])) if whole_cols and not cols_in else None
    for j in range(iterations):
        q = b.add(tid_index, j * threads) if j else tid_index
        if (j + 1) * threads > total:
            q = b.emit(arith.MinUIOp(q, b.const(total - 1, IndexType())))
        if chunks_per_row & (chunks_per_row - 1) == 0:
            row = b.lshr(q, chunks_per_row.bit_length() - 1)
            cc = b.and_(q, chunks_per_row - 1)
        else:
            row = b.udiv(q, chunks_per_row)
            cc = b.urem(q, chunks_per_row)
        row_abs = b.add(r_off, row)
        col_bytes = b.add(col_origin_bytes, b.mul(cc, chunk))
        in_rows = None if rows_in else b.cmp("ult", row_abs, row_limit)
        # A chunk of a row past the tensor copies nothing (source size 0) but still names an
        # address: that of the first row, at the same column. Clamping the row part only keeps
        # the address an affine function of the K loop's induction variable (LLVM computes the
        # row part once, outside the loop), where a select of the whole address did not.
        row_bytes_off = b.mul(row_abs, stride_bytes)
        if in_rows is not None:
            row_bytes_off = b.select(in_rows, row_bytes_off, b.const(0, IndexType()))
        address = b.emit(arith.IndexCastOp(b.add(row_bytes_off, col_bytes), i64))
        address = b.add(tile.base, address)
        remaining = b.sub(col_limit_bytes, col_bytes)
        if linear is not None and (j + 1) * threads <= total:
            smem = _linear_offset(b, state, linear, j)
        else:
            smem = _runtime_offset(b, shared, row, cc, chunk, eb, rows_dim, cols_dim)
        if whole_cols:
            tests = [test for test in (in_rows, tile_in, active) if test is not None]
            ok = None
            for test in tests:
                ok = b.and_i1(ok, test)
            src_bytes = None if ok is None else _source_size(b, ok, chunk)
            cache = CacheOp.CG if chunk == 16 else CacheOp.CA
            b.insert(CpAsyncOp(b.add(smem_base, smem), address, chunk, cache, src_bytes, prefetch))
            continue
        pieces = [(0, chunk)] if not shared.fp4_padded else [(p, min(8, chunk - p)) for p in range(0, chunk, 8)]
        for start, size in pieces:
            src_bytes = _clamp(b, b.sub(remaining, start), size)
            for test in (in_rows, active):
                if test is not None:
                    src_bytes = b.select(test, src_bytes, b.const(0, IndexType()))
            src_bytes = b.emit(arith.IndexCastOp(src_bytes, i32))
            # the second 8-byte half of a padded chunk is its own swizzle unit: place it where
            # the layout puts its first data byte, not 16 bytes after the first half
            piece = smem if start == 0 else _runtime_offset(b, shared, row, cc, chunk, eb, rows_dim, cols_dim,
                                                              start)
            dst = b.add(smem_base, piece)
            cache = CacheOp.CG if size == 16 else CacheOp.CA
            b.insert(CpAsyncOp(dst, b.add(address, start) if start else address, size, cache, src_bytes, prefetch))


def _source_size(b: Builder, copies: SSAValue, size: int) -> SSAValue:
    """A cp.async's source size: ``size`` bytes where ``copies``, else 0 (nothing read, the chunk zero-filled)."""
    return b.emit(arith.IndexCastOp(b.select(copies, b.const(size, IndexType()), b.const(0, IndexType())), i32))


def _declared_remark(rows_in: bool, cols_in: bool) -> str:
    """The copy remark's note of the dimensions ``in_bounds`` spared a bounds test."""
    dims = [name for name, spared in (("rows", rows_in), ("columns", cols_in)) if spared]
    return f"; declared in bounds: no bounds test on its {' or '.join(dims)}" if dims else ""


def _power_of_two_part(value: int) -> int:
    return value & -value


def _copy_run(b: Builder, state: FunctionState, tile: GlobalTile, shared: SharedLayout, smem_base: SSAValue,
              num_warps: int, rows_dim: int, cols_dim: int, prefetch: int | None,
              active: SSAValue | None = None) -> int | None:
    """A tile whose rows lie back to back in global memory and in the buffer, copied as one run of
    cp.async chunks: chunk q lies q · chunk bytes after the tile's first byte in both, whether or not
    a row is a whole number of chunks (tile_weights' order: 64 rows of 144-byte q4_K blocks are one
    9216-byte run of 16-byte chunks, 64 rows of 210-byte q6_K blocks one 13440-byte run, where such a
    row alone is 2-aligned), with one bound, the tensor's bytes. It needs the run's start, its
    length and the tensor's end aligned to the chunk (so no chunk straddles the tensor's end), the
    whole tile in the tensor's columns, and an unswizzled buffer; returns the chunk's bytes, or None
    (nothing emitted) otherwise. A tile declared in bounds in both dimensions has no bound to test
    and no end to align to."""
    eb = tile.elem_bytes
    rows, cols = shared.tile_shape[rows_dim], shared.tile_shape[cols_dim]
    row_bytes = cols * eb
    if shared.fp4_padded or not _rows_back_to_back(tile, rows_dim, row_bytes):
        return None
    if not _linear_rows(shared, rows_dim, eb):
        return None
    declared = tile.all_declared  # no bounds test, so the tensor's end need not be aligned
    whole_cols = declared or _whole_cols(tile, cols_dim, cols)
    end_align = ASSUMED_BASE_ALIGNMENT if declared else _power_of_two_part(known_divisor(tile.dims[rows_dim])
                                                                             * row_bytes)
    align = min(ASSUMED_BASE_ALIGNMENT, end_align,
                _power_of_two_part(known_divisor(tile.offsets[rows_dim]) * row_bytes))
    run = rows * row_bytes
    chunk = next((c for c in (16, 8, 4) if run % c == 0 and align % c == 0), None)
    if chunk is None or not whole_cols:
        return None
    total, threads = run // chunk, 32 * num_warps
    tid = b.cast_int(state.ids.tid, IndexType())
    tile_in = None if declared else b.cmp("ult", as_index(b, tile.offsets[cols_dim]), as_index(b, tile.dims[cols_dim]))
    first = b.add(b.mul(as_index(b, tile.offsets[rows_dim]), row_bytes), b.mul(as_index(b, tile.offsets[cols_dim]), eb))
    if not declared:
        tensor_bytes = b.mul(as_index(b, tile.dims[rows_dim]), row_bytes)
        last_chunk = b.sub(tensor_bytes, chunk)
    cache = CacheOp.CG if chunk == 16 else CacheOp.CA
    # declared in bounds: chunk j of a thread is a constant distance from its first, which ptxas puts in the
    # instruction (one 64-bit address per thread and step, not one per chunk kept live across the loop)
    start = b.add(tile.base, b.emit(arith.IndexCastOp(b.add(first, b.mul(tid, chunk)), i64))) if declared else None
    if declared and active is not None:  # one source size for every chunk of the run
        run_bytes = _source_size(b, active, chunk)
    else:
        run_bytes = None
    if not declared and active is not None:
        tile_in = b.emit(arith.AndIOp(tile_in, active))
    for j in range(-(-total // threads)):
        q = b.add(tid, j * threads) if j else tid
        whole = (j + 1) * threads <= total
        if not whole:  # threads past the run copy its last chunk again
            q = b.emit(arith.MinUIOp(q, b.const(total - 1, IndexType())))
        if start is not None:
            address = (b.add(start, b.const(j * threads * chunk, i64)) if j else start) if whole else \
                b.add(tile.base, b.emit(arith.IndexCastOp(b.add(first, b.mul(q, chunk)), i64)))
            smem = b.add(smem_base, b.mul(b.cast_int(q, i32), chunk))
            b.insert(CpAsyncOp(smem, address, chunk, cache, run_bytes, prefetch))
            continue
        off = b.add(first, b.mul(q, chunk))
        ok = b.emit(arith.AndIOp(b.cmp("ult", off, tensor_bytes), tile_in))  # a chunk past the tensor copies nothing
        address = b.add(tile.base, b.emit(arith.IndexCastOp(b.emit(arith.MinUIOp(off, last_chunk)), i64)))
        smem = b.add(smem_base, b.mul(b.cast_int(q, i32), chunk))
        src_bytes = _source_size(b, ok, chunk)
        b.insert(CpAsyncOp(smem, address, chunk, cache, src_bytes, prefetch))
    return chunk


def _remark(at: Operation, tile: GlobalTile, shared: SharedLayout, message: Callable[[], str]) -> None:
    """qdot-to-llvm's remark on how a global → shared copy was lowered, at the op that asked for it."""
    if remarks.enabled(REMARKS_PASS):
        shape = "x".join(str(d) for d in shared.tile_shape)
        element = tile.make_desc.result.type.element_type
        remarks.remark(at, REMARKS_PASS, lambda: f"copy of a {shape}x{element} tile: {message()}")


def _why_not(wider: int, row_bytes: int, stride_align: int, offset_align: int, run: int | None = None) -> str:
    """Why a copy of ``row_bytes``-byte rows cannot go in ``wider``-byte chunks: the rows' length, the runs a
    swizzle moves (``run`` bytes, None unswizzled), or what bounds the alignment of a row's first byte (the row
    stride's and the column offset's known divisors; the copy asks only when one of these stops ``wider``, so
    the last is the column offset)."""
    if row_bytes % wider:
        return f"its {row_bytes}-byte rows are not a multiple of {wider} B"
    if run is not None and run % wider:
        return f"the swizzle moves {run}-byte runs, each to its own place"
    if stride_align < wider:
        return (f"a row starts only {stride_align}-aligned, its stride known only as a multiple of {stride_align} B "
                "(qdot.divisibility on the values it is computed from says more)")
    return f"the tile's first column is known only as a multiple of {offset_align} B"


def _linear_rows(shared: SharedLayout, rows_dim: int, eb: int) -> bool:
    """Whether the buffer holds the tile's rows back to back, unswizzled: element (r, c) at
    r · row bytes + c · element bytes (checked at the corners and the second row)."""
    rows, cols = shared.tile_shape[rows_dim], shared.tile_shape[1 - rows_dim]
    return all(shared.offset((r, c) if rows_dim == 0 else (c, r)) == (r * cols + c) * eb
               for r in {0, 1 % rows, rows - 1} for c in {0, cols - 1})


def _whole_cols(tile: GlobalTile, cols_dim: int, cols: int) -> bool:
    """Whether the tile lies whole in or whole past its tensor's columns (extent and origin multiples
    of the tile's columns, e.g. K with qdot.divisibility): one bounds test per tile."""
    return known_divisor(tile.dims[cols_dim]) % cols == 0 and known_divisor(tile.offsets[cols_dim]) % cols == 0


def _rows_back_to_back(tile: GlobalTile, rows_dim: int, row_bytes: int) -> bool:
    """Whether each row of the tile starts where the previous one ends (row stride · element
    bytes = the tile's row bytes: a tile as wide as its tensor's rows). Then chunk q of the copy
    lies q · chunk bytes after the tile's first byte, and LLVM sees every chunk's address as one
    base plus a constant, where ``row · stride + column`` with row = q / 9 and column = q % 9
    (144-byte rows) is a 64-bit address per chunk, each kept live across the K loop (the decode
    kernels that read ``MmqConfig(tiled_weights)``' order: 127–168 registers that way, 64–72
    this way)."""
    return rows_back_to_back(tile.strides[rows_dim], row_bytes // tile.elem_bytes)


def _dims(shared: SharedLayout) -> tuple[int, int]:
    tile_rank = len(shared.tile_shape)
    if tile_rank != 2:
        raise ValueError("copies handle 2-D tiles")
    cols = shared.order[0]
    return 1 - cols, cols


def _clamp(b: Builder, value: SSAValue, high: int) -> SSAValue:
    zero = b.const(0, IndexType())
    value = b.emit(arith.MaxSIOp(value, zero))
    return b.emit(arith.MinSIOp(value, b.const(high, IndexType())))


@dataclass(frozen=True)
class _LinearCopy:
    offsets: LinearOffsets
    threads: int


def _chunk_coords(shared: SharedLayout, rows_dim: int, cols_dim: int, chunk: int, chunks_per_row: int,
                  q: int, eb: int) -> tuple[int, int]:
    row, cc = divmod(q, chunks_per_row)
    byte = cc * chunk
    coords = [0, 0]
    coords[rows_dim] = row
    coords[cols_dim] = byte // eb
    return coords[0], coords[1]


def _linear_smem(shared: SharedLayout, rows_dim: int, cols_dim: int, chunk: int, chunks_per_row: int,
                 total: int, threads: int, eb: int) -> _LinearCopy | None:
    if eb > chunk or total % threads or threads & (threads - 1) or (total // threads) & (total // threads - 1):
        return None
    iterations = total // threads
    warps = threads // 32

    def offset(j: int, lane: int, warp: int) -> int:
        q = j * threads + warp * 32 + lane
        r, c = _chunk_coords(shared, rows_dim, cols_dim, chunk, chunks_per_row, q, eb)
        return shared.offset((r, c))

    try:
        samples = [(j, lane, w) for j in range(iterations) for lane in (0, 3, 17, 31) for w in {0, warps - 1}]
        lin = LinearOffsets.derive(offset, max(iterations, 1), max(warps, 1), samples)
    except ValueError:
        return None
    return _LinearCopy(lin, threads)


def _linear_offset(b: Builder, state: FunctionState, linear: _LinearCopy, j: int) -> SSAValue:
    lin = linear.offsets
    thread = state.per_thread(("copy", *lin.key), lambda eb, ids: lin.thread_part(eb, ids))
    from passes.support.distributed import combine

    return combine(b, thread, lin.thread_mask, lin.elem_part(j))


def _runtime_offset(b: Builder, shared: SharedLayout, row: SSAValue, cc: SSAValue, chunk: int, eb: int,
                    rows_dim: int, cols_dim: int, start: int = 0) -> SSAValue:
    """Shared offset of data byte ``start`` of a chunk (row, chunk index), computed at run time."""
    data_byte = b.add(b.mul(b.cast_int(cc, i32), chunk), start)
    if eb <= chunk:
        return element_offset(b, shared, row, b.udiv(data_byte, eb), rows_dim, cols_dim)
    # a chunk inside a wide element (a ggml block): element start + byte within it
    start = element_offset(b, shared, row, b.udiv(data_byte, eb), rows_dim, cols_dim)
    return b.add(start, b.urem(data_byte, eb))


def element_offset(b: Builder, shared: SharedLayout, row: SSAValue, col: SSAValue, rows_dim: int,
                   cols_dim: int) -> SSAValue:
    """Byte offset of element (row, col) at run time, from the buffer's layout function.

    Unswizzled rows (ggml blocks among them, whose 144-byte pitch is not a power of
    two) are ``row · row_bytes + col · elem_bytes``. Swizzled power-of-two tiles are
    linear over the bits of (row, col), so the offset is ⊕ of per-bit constants
    evaluated from ``SharedLayout.offset``.
    """
    from passes.support.distributed import xor_of_bits

    rows, cols = shared.tile_shape[rows_dim], shared.tile_shape[cols_dim]
    row32, col32 = b.cast_int(row, i32), b.cast_int(col, i32)

    def at(r: int, c: int) -> int:
        coords = [0, 0]
        coords[rows_dim], coords[cols_dim] = r, c
        return shared.offset(tuple(coords))

    if shared.max_phase == 1 and not shared.fp4_padded:
        return b.add(b.mul(row32, at(1, 0) if rows > 1 else 0), b.mul(col32, at(0, 1) if cols > 1 else 0))
    if rows & (rows - 1) == 0 and cols & (cols - 1) == 0:
        row_bases = [at(1 << i, 0) for i in range(rows.bit_length() - 1)]
        col_bases = [at(0, 1 << i) for i in range(cols.bit_length() - 1)]
        return b.xor(xor_of_bits(b, row32, row_bases), xor_of_bits(b, col32, col_bases))
    if shared.max_phase > 1 or shared.fp4_padded:  # reported at the op that copies (qdot-to-llvm's LayoutError)
        raise LayoutError(f"a swizzled or fp4Padded shared buffer is copied into only with power-of-two tile "
                          f"dimensions (its offsets are then an XOR of bits), not {rows}x{cols}")
    return b.add(b.mul(row32, at(1, 0)), b.mul(col32, at(0, 1)))


def _pairs_contiguous(shared: SharedLayout, rows_dim: int, cols_dim: int, eb: int) -> bool:
    """Whether every even byte of a row and the byte after it are adjacent in the buffer too."""
    rows, cols = shared.tile_shape[rows_dim], shared.tile_shape[cols_dim]
    for r in range(rows):
        for byte in range(0, cols * eb, 2):
            first, second = [0, 0], [0, 0]
            first[rows_dim] = second[rows_dim] = r
            first[cols_dim], second[cols_dim] = byte // eb, (byte + 1) // eb
            start = shared.offset(tuple(first)) + byte % eb
            if shared.offset(tuple(second)) + (byte + 1) % eb != start + 1 or start % 2:
                return False
    return True


SEGMENT_PIECES = 8
"""A synchronous copy of more pieces than this per thread goes row by row (``_segment_copy``)."""
ASYNC_SEGMENT_CHUNKS = 32
"""A cp.async copy of more chunks than this per thread goes row by row too (``_segment_copy`` with
``async_chunk``): the chunk-per-thread order gives each of a thread's chunks its own row, and LLVM
keeps every one of those 64-bit addresses live across the K loop — two 420-byte rows of q6_K blocks
(``MmqConfig(k_blocks=2, k_divisibility=512)``, 4-byte chunks, 105 per thread) spilled 824 bytes at
255 registers that way. Copies of up to 17 chunks per thread (q8_0's 272-byte rows) keep that order."""
ROW_LANES = 8
"""Lanes per row in ``_segment_copy``: a load covers 16 contiguous bytes of a row in 2-byte pieces, a
cp.async 32 in 4-byte chunks."""


def _segment_copy(b: Builder, state: FunctionState, tile: GlobalTile, shared: SharedLayout, smem_base: SSAValue,
                  num_warps: int, rows_dim: int, cols_dim: int, unit: int, prefetch: int | None = None,
                  async_chunk: bool = False, active: SSAValue | None = None) -> bool:
    """A wide copy (ggml's q6_K rows: 210 bytes, 2-aligned) row by row: ``ROW_LANES``
    lanes per row, on consecutive pieces, so that a warp's load touches 32 / ROW_LANES rows (16
    contiguous bytes each) instead of 32 — what bounds this copy is the L1 wavefronts per load —
    and a thread holds the addresses of few rows (one per 32 / ROW_LANES rows of its warp: more, and
    LLVM keeps them all live across the K loop). A thread's pieces of a row are one global and
    one shared address plus constants, and each store follows its load. The element-wise order
    of ``_byte_copy`` (piece q of the tile to thread q mod threads) gives every piece its own row
    and column: LLVM keeps an address per piece alive across the K loop and the deferred stores'
    values to the end of the iteration — 105 of each per thread for a 64-row q6_K tile, 2–3 KB of
    spills. Needs the rows to be a multiple of the warps times 32 / ROW_LANES, a whole tile along
    the columns and rows back to back in the buffer; False (nothing emitted) otherwise or for a
    small copy. With ``async_chunk`` the pieces are ``unit``-byte cp.async chunks (rows 4-aligned:
    two q6_K blocks when K is a multiple of 512), a piece past the tensor zero-filled."""
    eb = tile.elem_bytes
    rows, cols = shared.tile_shape[rows_dim], shared.tile_shape[cols_dim]
    row_bytes, threads = cols * eb, 32 * num_warps
    pieces = row_bytes // unit
    whole_cols = _whole_cols(tile, cols_dim, cols)
    groups = 32 // ROW_LANES  # rows a warp copies at once
    small = -(-rows * pieces // threads) <= (ASYNC_SEGMENT_CHUNKS if async_chunk else SEGMENT_PIECES)
    if rows % (num_warps * groups) or shared.fp4_padded or small or not whole_cols:
        return False
    if not _linear_rows(shared, rows_dim, eb):
        return False
    tid = b.cast_int(state.ids.tid, IndexType())
    lane, group, warp = b.urem(tid, ROW_LANES), b.urem(b.udiv(tid, ROW_LANES), groups), b.udiv(tid, 32)
    c_off = as_index(b, tile.offsets[cols_dim])
    tile_in = b.cmp("ult", c_off, as_index(b, tile.dims[cols_dim]))
    if active is not None:
        tile_in = b.emit(arith.AndIOp(tile_in, active))
    stride_bytes = b.mul(as_index(b, tile.strides[rows_dim]), eb)
    lane_bytes = b.add(b.mul(c_off, eb), b.mul(lane, unit))
    per_warp = rows // num_warps
    for k in range(0, per_warp, groups):
        row = b.add(b.mul(warp, per_warp), b.add(group, k))
        row_abs = b.add(as_index(b, tile.offsets[rows_dim]), row)
        row_in = b.cmp("ult", row_abs, as_index(b, tile.dims[rows_dim]))
        ok = b.emit(arith.AndIOp(row_in, tile_in))
        if async_chunk:  # a row past the tensor copies nothing: zero-filled
            src_bytes = _source_size(b, ok, unit)
        # a row past the tensor loads nothing but names row 0's address (as the cp.async copies do)
        row_start = b.select(row_in, b.mul(row_abs, stride_bytes), b.const(0, IndexType()))
        gbase = b.add(tile.base, b.emit(arith.IndexCastOp(b.add(row_start, lane_bytes), i64)))
        srow = b.mul(b.cast_int(row, i32), row_bytes)
        sbase = b.add(smem_base, b.add(srow, b.mul(b.cast_int(lane, i32), unit)))
        for p in range(-(-pieces // ROW_LANES)):
            if ROW_LANES * (p + 1) > pieces:  # the last round: lanes past the row's end copy its last piece again
                index = b.emit(arith.MinUIOp(b.add(lane, ROW_LANES * p), b.const(pieces - 1, IndexType())))
                g = b.add(tile.base, b.emit(arith.IndexCastOp(
                    b.add(row_start, b.add(b.mul(c_off, eb), b.mul(index, unit))), i64)))
                sh = b.add(smem_base, b.add(srow, b.mul(b.cast_int(index, i32), unit)))
            else:
                g, sh = b.add(gbase, ROW_LANES * p * unit), b.add(sbase, ROW_LANES * p * unit)
            if async_chunk:
                b.insert(CpAsyncOp(sh, g, unit, CacheOp.CG if unit == 16 else CacheOp.CA, src_bytes, prefetch))
                continue
            value = b.emit(LdGlobalOp(g, i16 if unit == 2 else i8, ok))
            b.insert(StSharedOp(sh, value))
    return True


def _byte_copy(b: Builder, state: FunctionState, tile: GlobalTile, shared: SharedLayout, smem_base: SSAValue,
               num_warps: int, rows_dim: int, cols_dim: int, stores: Builder, unit: int = 1,
               active: SSAValue | None = None) -> None:
    """Predicated loads (at ``b``) and shared stores (at ``stores``) of ``unit`` bytes (1, or 2 when
    rows, offsets and extents are even and the buffer keeps byte pairs together) for tiles without
    the alignment cp.async needs (synchronous)."""
    eb = tile.elem_bytes
    rows = shared.tile_shape[rows_dim]
    row_bytes = shared.tile_shape[cols_dim] * eb
    total = rows * row_bytes // unit
    threads = 32 * num_warps
    tid = b.cast_int(state.ids.tid, IndexType())
    r_off, c_off = as_index(b, tile.offsets[rows_dim]), as_index(b, tile.offsets[cols_dim])
    row_limit = as_index(b, tile.dims[rows_dim])
    col_limit = b.mul(as_index(b, tile.dims[cols_dim]), eb)
    stride_bytes = b.mul(as_index(b, tile.strides[rows_dim]), eb)
    for j in range(-(-total // threads)):
        q = b.add(tid, j * threads) if j else tid
        if (j + 1) * threads > total:
            # threads past the tile redo the last byte: the same load (same bounds test) and the
            # same store as its owner, so the value they write is the owner's
            q = b.emit(arith.MinUIOp(q, b.const(total - 1, IndexType())))
        row = b.udiv(q, row_bytes // unit)
        byte = b.mul(b.urem(q, row_bytes // unit), unit) if unit > 1 else b.urem(q, row_bytes)
        row_abs = b.add(r_off, row)
        col_byte = b.add(b.mul(c_off, eb), byte)
        ok = b.and_i1(b.cmp("ult", row_abs, row_limit), b.cmp("ult", col_byte, col_limit))
        if active is not None:
            ok = b.and_i1(ok, active)
        address = b.add(tile.base, b.emit(arith.IndexCastOp(b.add(b.mul(row_abs, stride_bytes), col_byte), i64)))
        value = b.emit(LdGlobalOp(address, i16 if unit == 2 else i8, ok))
        elem, inner = stores.udiv(byte, eb), stores.urem(byte, eb)
        coords_offset = element_offset(stores, shared, row, elem, rows_dim, cols_dim)
        dst = stores.add(smem_base, stores.add(coords_offset, stores.cast_int(inner, i32)))
        stores.insert(StSharedOp(dst, value))


__all__ = ["GlobalTile", "copy_tile", "element_bytes", "global_tile", "l2_prefetch_hint", "TensorType"]

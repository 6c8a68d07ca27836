"""``qdot.prefetch`` → ``prefetch.global.L2``: one per 128-byte line the tile touches, spread over the threads.

A prefetch reads no value, so the only rules are which lines and which threads. A tile whose rows lie back to
back (``analysis.rows_back_to_back``: a tile as wide as its tensor's rows, as ``tile_weights`` gives each K step)
is one run of bytes, otherwise each row is a run. A run of n bytes from an address of unknown alignment touches
at most ⌈n / 128⌉ + 1 lines: the prefetches go to its bytes 0, 128, 256, … and to its last byte. Run line j is
thread j mod T's, for T threads; a last partial round repeats the final line (a second prefetch of a line costs
an instruction, a branch around it would cost more). A line past the tensor — rows past its extent, a tile past
its columns — is not asked for (a predicate), so no prefetch names an address outside the array.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import Operation, SSAValue

from compiler.diagnostics import emit_error
from dialects.ptx.ops import PrefetchGlobalL2Op
from passes.support.analysis import rows_back_to_back
from passes.support.builder import Builder, constant_value
from passes.support.copies import GlobalTile, as_index
from passes.support.distributed import FunctionState

LINE_BYTES = 128
"""An L2 cache line (and a sector group of four 32-byte sectors) on sm_80 … sm_120."""


def prefetch_tile(b: Builder, state: FunctionState, tile: GlobalTile, shape: tuple[int, ...], num_warps: int,
                  at: Operation) -> int:
    """Emit the prefetches of ``tile`` (``shape``: the tile's extent per dimension); returns how many each
    thread issues (for the remark)."""
    cols_dim = _contiguous_dim(tile.strides)
    if len(shape) != 2 or cols_dim is None:
        emit_error(at, "qdot.prefetch needs a 2-D tile with one contiguous dimension (stride 1 in qdot.make_desc)")
    rows_dim = 1 - cols_dim
    eb = tile.elem_bytes
    rows, row_bytes = shape[rows_dim], shape[cols_dim] * eb
    one_run = rows_back_to_back(tile.strides[rows_dim], shape[cols_dim])
    run_bytes, runs = (rows * row_bytes, 1) if one_run else (row_bytes, rows)
    per_run = -(-run_bytes // LINE_BYTES) + 1
    total, threads = runs * per_run, 32 * num_warps
    index = IndexType()
    tid = b.cast_int(state.ids.tid, index)
    r_off, c_off = as_index(b, tile.offsets[rows_dim]), as_index(b, tile.offsets[cols_dim])
    row_limit, col_limit = as_index(b, tile.dims[rows_dim]), as_index(b, tile.dims[cols_dim])
    stride_bytes = b.mul(as_index(b, tile.strides[rows_dim]), eb)
    col_origin = b.mul(c_off, eb)
    # a tile past the tensor's columns asks for nothing (the run form's rows are whole rows of the tensor)
    tile_in = b.cmp("ult", c_off, col_limit) if one_run else None
    for j in range(-(-total // threads)):
        q = b.add(tid, j * threads) if j else tid
        if (j + 1) * threads > total:
            q = b.emit(arith.MinUIOp(q, b.const(total - 1, index)))
        run, line = (b.const(0, index), q) if runs == 1 else (b.udiv(q, per_run), b.urem(q, per_run))
        within = b.emit(arith.MinUIOp(b.mul(line, LINE_BYTES), b.const(run_bytes - 1, index)))
        if tile_in is not None:  # one run
            offset = b.add(b.add(b.mul(r_off, row_bytes), col_origin), within)  # of the tensor, from its first byte
            ok = b.emit(arith.AndIOp(b.cmp("ult", offset, b.mul(row_limit, row_bytes)), tile_in))
        else:
            row = b.add(r_off, run)
            col_bytes = b.add(col_origin, within)
            ok = b.emit(arith.AndIOp(b.cmp("ult", row, row_limit), b.cmp("ult", col_bytes, b.mul(col_limit, eb))))
            offset = b.add(b.mul(row, stride_bytes), col_bytes)
        address = b.add(tile.base, b.emit(arith.IndexCastOp(offset, i64)))
        b.insert(PrefetchGlobalL2Op(address, ok))
    return -(-total // threads)


def _contiguous_dim(strides: tuple[SSAValue, ...]) -> int | None:
    """The last dimension of stride 1 (a row-major tile's columns; a column-major one's rows), None without one:
    where both strides are 1 (a tile one element wide, as a decode kernel's K step of one q4_K block) the
    columns."""
    return next((dim for dim in (1, 0) if len(strides) == 2 and constant_value(strides[dim]) == 1), None)

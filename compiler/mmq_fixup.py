"""The fix-ups of the MMQ kernels whose tiles are split among programs: the second kernel that adds the pieces in
program (or split) order, its grid, workspace and scalars, and the same sum written into the GEMM itself for its
last program to run (``MmqConfig.fixup_in_gemm``).

Every form adds the pieces in the one order ``_ordered_sum`` writes, so a MUL_MAT gives the same bits whichever
form sums them and at every launch; that is why they share this module rather than each kernel holding its own
copy of the loop.
"""

from __future__ import annotations

from compiler.mmq_config import K_STEP_VALUES, SMALL_M_MAX, MmqConfig, served_tokens, small_m_tokens
from compiler.mmq_grids import MAX_SPLITS
from compiler.templates import check_bool, check_config, check_grid, check_grid_x, check_int, grouped_tile_offsets


def stream_k_fixup_by_last_program(cfg: MmqConfig) -> list[str]:
    """``fixup_in_gemm`` for stream-K, after a split tile's piece is stored: the programs p_lo … p_hi that share
    the tile (as ``mmq_fixup_kernel`` finds them) arrive at its counter, and the last to arrive adds their pieces in
    program order — ``fixup_rows`` rows at a time, the first ``FIXUP_PIECES_AT_ONCE`` loaded together — and stores
    each chunk of the sum."""
    bm, bn, rows = cfg.block_m, cfg.block_n, fixup_rows(cfg)
    tile_t, desc_t = f"tensor<{rows}x{bn}xf32>", f"!qdot.desc<{rows}x{bn}xf32>"
    return [
        "      %fx_p_lo = arith.divui %tile_k, %per : index",
        "      %fx_last_k = arith.subi %tile_k_end, %c1 : index",
        "      %fx_p_hi = arith.divui %fx_last_k, %per : index",
        "      %fx_p_end = arith.addi %fx_p_hi, %c1 : index",
        "      %fx_sharers = arith.subi %fx_p_end, %fx_p_lo : index",
        "      %last = qdot.last_arrival %count_ptr[%tile], %fx_sharers : !qdot.ptr<i32>",
        "      scf.if %last {",
        f"        %fx_part_desc = qdot.make_desc %part_ptr, [%part_rows, %c{bn}], [%c{bn}, %c1] : !qdot.ptr<f32> "
        f"-> {desc_t}",
        f"        %fx_y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> {desc_t}",
        f"        %fx_zero = arith.constant dense<0.000000e+00> : {tile_t}",
        f"        scf.for %fx_chunk_row = %c0 to %c{bm} step %c{rows} {{",
        *_unrolled_pieces(bm, FIXUP_PIECES_AT_ONCE, tile_t, desc_t, "fx_", "          ", "%kw"),
        "          %fx_row = arith.addi %off_m, %fx_chunk_row : index",
        f"          qdot.store %fx_y_desc[%fx_row, %off_n], %fx_total_sum : {desc_t}, {tile_t}",
        "        }",
        "      }"]


def partial_tile_store(cfg: MmqConfig) -> list[str]:
    """A fixup kernel's piece of a split tile, into the program's workspace slot: slot 2·pid for its
    first segment (the only one that may start inside a tile), 2·pid + 1 for its last (the only other
    one that may end inside a tile)."""
    bm, bn = cfg.block_m, cfg.block_n
    return [
        "      %later = arith.cmpi ne, %s, %c0 : index",
        "      %slot_of = arith.select %later, %c1, %c0 : index",
        "      %pid_slots = arith.muli %pid, %c2 : index",
        "      %slot = arith.addi %pid_slots, %slot_of : index",
        f"      %part_row = arith.muli %slot, %c{bm} : index",
        f"      qdot.store %part_desc[%part_row, %c0], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
    ]


def workspace_desc(cfg: MmqConfig, programs: str, rows: int, indent: str = "  ",
                    no_k: str | None = None) -> list[str]:
    """``%part_desc``: the stream-K fix-up's workspace, two [block_m, block_n] f32 slots per program, as [rows,
    block_n] tiles. ``no_k``: an i1 that empties the descriptor (K = 0: there are no pieces, so its loads read
    zeros)."""
    bm, bn = cfg.block_m, cfg.block_n
    rows_name = "%slot_rows" if no_k else "%part_rows"
    return [f"{indent}%slots = arith.muli {programs}, %c2 : index",
            f"{indent}{rows_name} = arith.muli %slots, %c{bm} : index",
            *([f"{indent}%part_rows = arith.select {no_k}, %c0, %slot_rows : index"] if no_k else []),
            f"{indent}%part_desc = qdot.make_desc %part_ptr, [%part_rows, %c{bn}], [%c{bn}, %c1] : !qdot.ptr<f32> "
            f"-> !qdot.desc<{rows}x{bn}xf32>"]


def fixup_workspace_shape(cfg: MmqConfig, grid: tuple[int, ...], n: int) -> tuple[int, int]:
    """The f32 workspace [rows, cols] a ``fixup`` kernel launched on ``grid`` writes and its ``mmq_fixup_kernel``
    reads. Stream-K: two block_m × block_n slots per program (grid x). Split-K: per split (grid y),
    ⌈n / block_n⌉ · block_n rows of the tile's tokens."""
    _needs_fixup("fixup_workspace_shape", cfg)
    x, y, _ = check_grid("fixup_workspace_shape", grid)
    check_int("fixup_workspace_shape", "n", n, least=1)
    if cfg.small_m:
        return (y * -(-n // cfg.block_n) * cfg.block_n, small_m_tokens(cfg.max_m))
    return (2 * x * cfg.block_m, cfg.block_n)


def _needs_fixup(who: str, cfg: MmqConfig) -> None:
    """A kernel without ``fixup`` has no workspace and no fix-up kernel to size or pass arguments to."""
    check_config(who, cfg, MmqConfig, "an")
    if not cfg.fixup:
        raise ValueError(f"{who}: {cfg.name} has no fix-up, so no workspace or fix-up arguments "
                         "(MmqConfig(stream_k=True, fixup=True) or MmqConfig(small_m=True, split_k=True, fixup=True))")


def fixup_counters_shape(cfg: MmqConfig, m: int, n: int) -> tuple[int]:
    """The i32 counters a ``fixup_in_gemm`` kernel's programs arrive at: one per output tile (split-K: per weight-row
    tile). Zero them once, before the first launch; every launch leaves them zero."""
    check_config("fixup_counters_shape", cfg, MmqConfig, "an")
    check_int("fixup_counters_shape", "m", m, least=1)
    check_int("fixup_counters_shape", "n", n, least=1)
    if not cfg.fixup_in_gemm:
        raise ValueError(f"fixup_counters_shape: {cfg.name} has no counters (MmqConfig(..., fixup_in_gemm=True))")
    if cfg.small_m:
        return (max(1, -(-n // cfg.block_n)),)
    return (max(1, -(-m // cfg.block_m) * -(-n // cfg.block_n)),)


def fixup_scalars(cfg: MmqConfig, grid: tuple[int, ...], m: int, n: int, k: int) -> tuple[int, ...]:
    """``mmq_fixup_kernel``'s scalar arguments after Y and the workspace, for a GEMM launched on ``grid``:
    stream-K (M, N, K, its program count), split-K (M, N, its split count)."""
    _needs_fixup("fixup_scalars", cfg)
    x, y, _ = check_grid("fixup_scalars", grid)
    check_int("fixup_scalars", "m", m, least=1)
    check_int("fixup_scalars", "n", n, least=1)
    check_int("fixup_scalars", "k", k, least=0)
    return (m, n, y) if cfg.small_m else (m, n, k, x)


def fixup_grid(cfg: MmqConfig, m: int, n: int) -> tuple[int, int, int]:
    """``mmq_fixup_kernel``'s grid. Stream-K: a program per ``FIXUP_ROWS`` rows of each output tile (the programs
    of tiles no program split return at once). Split-K: a program per chunk of each weight-row tile. M and N as
    ``mmq_grid`` takes them: positive ints."""
    check_config("fixup_grid", cfg, MmqConfig, "an")
    check_int("fixup_grid", "m", m, least=1)
    check_int("fixup_grid", "n", n, least=1)
    if cfg.small_m:
        tiles = -(-n // cfg.block_n)
        check_grid_x("fixup_grid", tiles, f"N = {n} needs", f"one per {cfg.block_n} weight rows", "N")
        return (tiles, cfg.block_n // _split_fixup_rows(cfg), 1)
    tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n)
    check_grid_x("fixup_grid", tiles, f"M = {m}, N = {n} need", f"one per {cfg.block_m} × {cfg.block_n} output tile",
                 "M or N")
    return (tiles, cfg.block_m // fixup_rows(cfg), 1)


FIXUP_ROWS = 16
"""Rows of an output tile one fix-up program sums: a 64-row tile is four programs, so that the few split
tiles of a stream-K grid (64 at M = 128, N = 4096) still spread over every SM."""


def fixup_rows(cfg: MmqConfig) -> int:
    return min(FIXUP_ROWS, cfg.block_m)


FIXUP_PIECES_AT_ONCE = 4
"""The stream-K fix-up's pieces loaded before its first addition (``mmq_fixup_kernel``'s ``unroll``): with one
piece loaded ahead of each addition (``unroll=0``) the fix-up was latency-bound, 0.92–1.13 × the atomic MUL_MAT's time
(runs 249–251); with 4 at once 0.85–1.05 ×, with 8 (160 registers) no better (run 255)."""


def fixup_kernel_name(cfg: MmqConfig, wait_previous_grid: bool = False, unroll: int = FIXUP_PIECES_AT_ONCE) -> str:
    _check_fixup_kernel_arguments("fixup_kernel_name", cfg, wait_previous_grid, unroll)
    pdl = ("_pdl" if wait_previous_grid else "") + (f"_u{unroll}" if unroll != FIXUP_PIECES_AT_ONCE else "")
    if cfg.small_m:
        tokens = f"_m{cfg.max_m}" if cfg.max_m != SMALL_M_MAX else ""
        return f"small_m_fixup_{cfg.block_n}x{small_m_tokens(cfg.max_m)}_w{cfg.num_warps}{tokens}{pdl}"
    return f"mmq_fixup_{cfg.block_m}x{cfg.block_n}_g{cfg.group_m}_w{cfg.num_warps}{pdl}"


MAX_FIXUP_UNROLL = 16
"""The most pieces ``mmq_fixup_kernel`` loads before its first addition: each is a tile of registers per thread (8
took 160 registers, run 255), and the kernel text holds a load and an addition per piece, so an unroll of 2^70 ran
out of memory writing the text instead of being refused."""


def _check_fixup_kernel_arguments(who: str, cfg: object, wait_previous_grid: object, unroll: object) -> None:
    check_config(who, cfg, MmqConfig, "an")
    check_bool(who, "wait_previous_grid", wait_previous_grid)
    check_int(who, "unroll", unroll, least=0)
    if unroll > MAX_FIXUP_UNROLL:  # type: ignore[operator]
        raise ValueError(f"{who}: unroll must be from 0 to {MAX_FIXUP_UNROLL} (pieces loaded before the first "
                         f"addition, each a tile of registers), got {unroll}")


def mmq_fixup_kernel(cfg: MmqConfig, wait_previous_grid: bool = False, unroll: int = FIXUP_PIECES_AT_ONCE) -> str:
    """The second kernel of a ``fixup`` GEMM (for split-K: ``_split_fixup``). Stream-K: program (t, r) finds the
    programs whose shares of the (tile, K step) iterations meet output tile ``t`` — p_lo = ⌊t·K/256 / per⌋ to
    p_hi = ⌊((t+1)·K/256 − 1) / per⌋, with the GEMM's ``per`` = ⌈iterations / programs⌉ — and, where there are two
    or more, adds rows [16r, 16r + 16) of their pieces in that order (program p's piece of tile t is its first
    segment, slot 2p, when t is p's first tile, else its last, slot 2p + 1) and stores the sum; rows past M are left
    out. A tile one program covers whole was stored by it. With K = 0 no program has work and every tile is stored
    as zeros here (the workspace descriptor is then empty, so its loads read zeros). The first ``unroll`` pieces are
    loaded before the first addition (``FIXUP_PIECES_AT_ONCE``), a loop adds the rest; with ``unroll=0`` the loop
    alone, each piece loaded one iteration ahead. Either way the sum keeps program order. Arguments: Y, the
    workspace and ``fixup_scalars`` (M, N, K, the GEMM's program count); the order of tiles is the GEMM's
    (``grouped_tile_offsets``). ``wait_previous_grid``: start with ``griddepcontrol.wait``, so that it may be
    launched programmatically right after the GEMM (sm_90+)."""
    _check_fixup_kernel_arguments("mmq_fixup_kernel", cfg, wait_previous_grid, unroll)
    if not cfg.fixup:
        raise ValueError(f"mmq_fixup_kernel: {cfg.name} has no fix-up kernel (MmqConfig(stream_k=True, fixup=True) "
                         "or MmqConfig(small_m=True, split_k=True, fixup=True))")
    if cfg.fixup_in_gemm:
        raise ValueError(f"mmq_fixup_kernel: {cfg.name} has no fix-up kernel: its fix-up runs in the GEMM "
                         "(fixup_in_gemm)")
    if cfg.small_m:
        return _split_fixup(cfg, wait_previous_grid)
    bm, bn, g, rows = cfg.block_m, cfg.block_n, cfg.group_m, fixup_rows(cfg)
    tile_t = f"tensor<{rows}x{bn}xf32>"
    desc_t = f"!qdot.desc<{rows}x{bn}xf32>"
    wait = ", qdot.wait_previous_grid" if wait_previous_grid else ""
    lines = [f"func.func @{fixup_kernel_name(cfg, wait_previous_grid, unroll)}(%y_ptr: !qdot.ptr<f32>, "
             "%part_ptr: !qdot.ptr<f32>, %m: index, "
             f"%n: index, %k: index {{qdot.divisibility = {cfg.k_divisibility} : i64}}, %programs: index)",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{wait}}} {{"]
    lines += [f"  %c{c} = arith.constant {c} : index"
              for c in sorted({0, 1, 2, bm, bn, g, rows, K_STEP_VALUES, *range(unroll + 1)})]
    lines += [
        f"  %kw = arith.divui %k, %c{K_STEP_VALUES} : index",
        "  %tile = qdot.program_id x",
        "  %chunk = qdot.program_id y",
        f"  %tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"  %tiles_n = arith.ceildivui %n, %c{bn} : index",
        "  %tiles = arith.muli %tiles_m, %tiles_n : index",
        "  %total = arith.muli %tiles, %kw : index",
        "  %per_any = arith.ceildivui %total, %programs : index",
        "  %per = arith.maxui %per_any, %c1 : index",
        "  %tile_k = arith.muli %tile, %kw : index",
        "  %p_lo = arith.divui %tile_k, %per : index",
        "  %no_k = arith.cmpi eq, %kw, %c0 : index",
        "  %kw_any = arith.maxui %kw, %c1 : index",  # a divisor even at K = 0 (whose loads read zeros)
        "  %tile_k_end = arith.addi %tile_k, %kw : index",
        "  %tile_k_last = arith.subi %tile_k_end, %c1 : index",
        "  %last_k = arith.select %no_k, %tile_k, %tile_k_last : index",
        "  %p_hi = arith.divui %last_k, %per : index",
        "  %split = arith.cmpi ult, %p_lo, %p_hi : index",
        "  %to_fix = arith.ori %no_k, %split : i1",
        *grouped_tile_offsets(bm, bn, g, tile="%tile"),
        f"  %chunk_row = arith.muli %chunk, %c{rows} : index",
        "  %off_row = arith.addi %off_m, %chunk_row : index",
        "  %inside = arith.cmpi ult, %off_row, %m : index",  # rows past M: nothing to store (a ragged last tile)
        "  %to_store = arith.andi %to_fix, %inside : i1",
        "  scf.if %to_store {",
        "    %p_next = arith.addi %p_lo, %c1 : index",
        "    %p_after = arith.addi %p_hi, %c1 : index",
        "    %p_end = arith.select %no_k, %p_next, %p_after : index",
        *workspace_desc(cfg, "%programs", rows, "    ", no_k="%no_k"),
        f"    %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> {desc_t}",
        f"    %zero = arith.constant dense<0.000000e+00> : {tile_t}",
        *(_unrolled_pieces(bm, unroll, tile_t, desc_t) if unroll else _looped_pieces(bm, tile_t, desc_t)),
        f"    qdot.store %y_desc[%off_row, %off_n], %total_sum : {desc_t}, {tile_t}",
        "  }",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _looped_pieces(bm: int, tile_t: str, desc_t: str) -> list[str]:
    """``%total_sum`` of pieces p_lo … p_end − 1 in order, each loaded one iteration ahead of its addition."""
    return [*_piece_row("%p_lo", "    ", "_lo", bm),
            f"    %first_piece = qdot.load %part_desc[%part_row_lo, %c0] : {desc_t} -> {tile_t}",
            f"    %sum, %last = scf.for %p = %p_next to %p_end step %c1 iter_args(%acc = %zero, %cur = %first_piece) "
            f"-> ({tile_t}, {tile_t}) {{",
            *_piece_row("%p", "      ", "", bm),
            f"      %next = qdot.load %part_desc[%part_row, %c0] : {desc_t} -> {tile_t}",
            f"      %acc_next = arith.addf %acc, %cur : {tile_t}",
            f"      scf.yield %acc_next, %next : {tile_t}, {tile_t}",
            "    }",
            f"    %total_sum = arith.addf %sum, %last : {tile_t}"]


def _unrolled_pieces(bm: int, unroll: int, tile_t: str, desc_t: str, pre: str = "", indent: str = "    ",
                     kw: str = "%kw_any") -> list[str]:
    """``%{pre}total_sum`` of pieces p_lo … p_end − 1 in order: the first ``unroll`` loaded before any addition (a
    piece past p_end reads zeros, its row past the workspace, and adds +0, which changes no sum that starts from +0), a
    loop for the rest. ``pre`` prefixes the names this defines and the per-tile ones it reads (%{pre}p_lo,
    %{pre}p_end, %{pre}zero; the in-GEMM fix-up's live beside the GEMM's own); ``kw``: K's steps, never 0."""
    lines: list[str] = []
    for i in range(unroll):
        lines += [f"{indent}%{pre}p_{i} = arith.addi %{pre}p_lo, %c{i} : index",
                  *_piece_row(f"%{pre}p_{i}", indent, f"_{i}", bm, pre, kw),
                  f"{indent}%{pre}real_{i} = arith.cmpi ult, %{pre}p_{i}, %{pre}p_end : index",
                  f"{indent}%{pre}row_{i} = arith.select %{pre}real_{i}, %{pre}part_row_{i}, %part_rows : index",
                  f"{indent}%{pre}piece_{i} = qdot.load %{pre}part_desc[%{pre}row_{i}, %c0] : {desc_t} -> {tile_t}"]
    total = _ordered_sum(lines, unroll, tile_t, pre, indent)
    return [*lines,
            f"{indent}%{pre}p_rest = arith.addi %{pre}p_lo, %c{unroll} : index",
            f"{indent}%{pre}total_sum = scf.for %{pre}p = %{pre}p_rest to %{pre}p_end step %c1 "
            f"iter_args(%{pre}acc = {total}) -> ({tile_t}) {{",
            *_piece_row(f"%{pre}p", indent + "  ", "", bm, pre, kw),
            f"{indent}  %{pre}piece = qdot.load %{pre}part_desc[%{pre}part_row, %c0] : {desc_t} -> {tile_t}",
            f"{indent}  %{pre}next = arith.addf %{pre}acc, %{pre}piece : {tile_t}",
            f"{indent}  scf.yield %{pre}next : {tile_t}",
            f"{indent}}}"]


def _ordered_sum(lines: list[str], unroll: int, tile_t: str, pre: str, indent: str) -> str:
    """Appends to ``lines`` the sum of ``%{pre}piece_0`` … ``%{pre}piece_{unroll-1}`` in that order from
    ``%{pre}zero``, and returns its name: the one order of the additions, which every fix-up form (its kernel, the
    GEMM's last program) follows so that they give the same bits."""
    total = f"%{pre}zero"
    for i in range(unroll):
        lines.append(f"{indent}%{pre}sum_{i} = arith.addf {total}, %{pre}piece_{i} : {tile_t}")
        total = f"%{pre}sum_{i}"
    return total


def _piece_row(p: str, indent: str, suffix: str, bm: int, pre: str = "", kw: str = "%kw_any") -> list[str]:
    """``%{pre}part_row{suffix}``: the workspace row of program ``p``'s piece of ``%tile``, rows ``%{pre}chunk_row``
    on."""
    return [f"{indent}%{pre}p_start{suffix} = arith.muli {p}, %per : index",
            f"{indent}%{pre}p_first{suffix} = arith.divui %{pre}p_start{suffix}, {kw} : index",
            f"{indent}%{pre}first{suffix} = arith.cmpi eq, %{pre}p_first{suffix}, %tile : index",
            f"{indent}%{pre}slot_of{suffix} = arith.select %{pre}first{suffix}, %c0, %c1 : index",
            f"{indent}%{pre}p_slots{suffix} = arith.muli {p}, %c2 : index",
            f"{indent}%{pre}slot{suffix} = arith.addi %{pre}p_slots{suffix}, %{pre}slot_of{suffix} : index",
            f"{indent}%{pre}slot_row{suffix} = arith.muli %{pre}slot{suffix}, %c{bm} : index",
            f"{indent}%{pre}part_row{suffix} = arith.addi %{pre}slot_row{suffix}, %{pre}chunk_row : index"]


def _split_workspace(bn: int, tokens: int, rows: int, splits: str, cols: str | None = None) -> list[str]:
    """``%part_desc`` over a split-K fix-up's workspace: for each split, ⌈N / block_n⌉ · block_n rows of ``tokens``
    f32 (tile x of split y at row y · ⌈N / block_n⌉ · block_n + x · block_n), as [rows, tokens] tiles.
    ``cols``: the columns the descriptor lets through (default all ``tokens``; the in-GEMM fix-up's, the M
    tokens served)."""
    cols = cols or f"%c{tokens}"
    return [f"  %fx_tiles = arith.ceildivui %n, %c{bn} : index",
            f"  %per_split = arith.muli %fx_tiles, %c{bn} : index",
            f"  %fx_rows = arith.muli {splits}, %per_split : index",
            f"  %part_desc = qdot.make_desc %part_ptr, [%fx_rows, {cols}], [%c{tokens}, %c1] : !qdot.ptr<f32> "
            f"-> !qdot.desc<{rows}x{tokens}xf32>"]


def split_piece_store(cfg: MmqConfig, cols: str) -> list[str]:
    """A split-K fix-up kernel's partial Yᵀ tile, into its split's slot of its tile (columns below ``cols``)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    return [*_split_workspace(bn, tokens, bn, "%splits", cols),
            "  %split_row = arith.muli %pid_k, %per_split : index",
            "  %part_row = arith.addi %split_row, %off_n : index",
            f"  qdot.store %part_desc[%part_row, %c0], %acc : !qdot.desc<{bn}x{tokens}xf32>, tensor<{bn}x{tokens}xf32>"]


IN_GEMM_FIXUP_REGISTERS = 64
"""Registers the in-GEMM split-K fix-up's last program gives the pieces it loads before its first addition
(``MmqConfig.fixup_in_gemm``): as many pieces as fit, at most ``MAX_SPLITS`` (the default grid's splits; more are
added by a loop after them, a piece at a time). The registers are the GEMM kernel's, whose K loop sets their count:
the one-token kernel's pieces are one value per thread (16 at once), the M ≤ 8 kernel's eight (8 at once)."""


def fixup_by_last_program(cfg: MmqConfig, m: str) -> list[str]:
    """``fixup_in_gemm``: the program arrives at its tile's counter; the last to arrive sums the tile's pieces in
    split order — ``in_gemm_fixup_tile`` at a time, the first ``in_gemm_fixup_unroll`` pieces loaded together —
    and stores each chunk of the sum into Yᵀ (the token columns below M)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    cols, rows = in_gemm_fixup_tile(cfg)
    tile_t, desc_t = f"tensor<{rows}x{cols}xf32>", f"!qdot.desc<{rows}x{cols}xf32>"
    unroll = in_gemm_fixup_unroll(cfg)
    lines = ["  %last = qdot.last_arrival %count_ptr[%pid], %splits : !qdot.ptr<i32>",
             "  scf.if %last {",
             f"    %sum_desc = qdot.make_desc %part_ptr, [%fx_rows, {m}], [%c{tokens}, %c1] : !qdot.ptr<f32> "
             f"-> {desc_t}",
             f"    %ysum_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> {desc_t}",
             f"    %fx_zero = arith.constant dense<0.000000e+00> : {tile_t}",
             f"    scf.for %ch = %c0 to %c{bn} step %c{rows} {{",
             "      %ch_row = arith.addi %off_n, %ch : index"]
    lines += _split_piece_sum(unroll, tile_t, desc_t, "%sum_desc", "%ch_row", "fx_", "      ")
    lines += [
        f"      qdot.store %ysum_desc[%ch_row, %c0], %fx_sum : {desc_t}, {tile_t}",
        "    }",
        "  }"]
    return lines


IN_GEMM_FIXUP_VALUES = 8
"""Values of a piece each thread of the in-GEMM split-K fix-up's last program loads at once: the whole tile of the
decode kernels (64 rows on 2 warps) in one chunk, so its pieces cost one round trip to L2, not two."""


def in_gemm_fixup_tile(cfg: MmqConfig) -> tuple[int, int]:
    """(columns, rows) of the chunks the in-GEMM split-K fix-up sums: the token columns the kernel stores
    (``served_tokens``: the one-token kernel's pieces are one column), and as many rows as ``IN_GEMM_FIXUP_VALUES``
    per thread cover, at most the tile's."""
    cols = served_tokens(cfg)
    return cols, max(1, min(cfg.block_n, IN_GEMM_FIXUP_VALUES * 32 * cfg.num_warps // cols))


def in_gemm_fixup_unroll(cfg: MmqConfig) -> int:
    """Pieces the in-GEMM split-K fix-up loads before its first addition (``IN_GEMM_FIXUP_REGISTERS``)."""
    check_config("in_gemm_fixup_unroll", cfg, MmqConfig, "an")
    cols, rows = in_gemm_fixup_tile(cfg)
    per_thread = max(1, rows * cols // (32 * cfg.num_warps))
    return max(1, min(MAX_SPLITS, IN_GEMM_FIXUP_REGISTERS // per_thread))


FIXUP_UNROLL = MAX_SPLITS
"""Splits a split-K fix-up program loads at once (``mmq_grid``'s default cap on splits): a split past the
grid's reads zeros (its rows lie past the workspace descriptor) and adds nothing; splits past 16 are added by a
loop after them."""


def _split_piece_sum(unroll: int, tile_t: str, desc_t: str, desc: str, row: str, pre: str = "",
                     indent: str = "  ") -> list[str]:
    """``%{pre}sum``: a split-K tile's pieces at rows ``row`` of each split's slot of ``desc``, added in split order
    from ``%{pre}zero`` — the first ``unroll`` loaded before the first addition (one round trip, not one per piece; a
    split past the grid's reads zeros, its rows past the workspace), a loop over ``%splits`` for the rest. ``pre``
    prefixes the names it defines (the in-GEMM fix-up's live beside the GEMM's own)."""
    lines = []
    for i in range(unroll):
        lines += [f"{indent}%{pre}split_row_{i} = arith.muli %per_split, %c{i} : index",
                  f"{indent}%{pre}part_row_{i} = arith.addi %{pre}split_row_{i}, {row} : index",
                  f"{indent}%{pre}piece_{i} = qdot.load {desc}[%{pre}part_row_{i}, %c0] : {desc_t} -> {tile_t}"]
    total = _ordered_sum(lines, unroll, tile_t, pre, indent)
    return [*lines,
            f"{indent}%{pre}sum = scf.for %{pre}s = %c{unroll} to %splits step %c1 iter_args(%{pre}acc = {total}) "
            f"-> ({tile_t}) {{",
            f"{indent}  %{pre}split_row = arith.muli %per_split, %{pre}s : index",
            f"{indent}  %{pre}part_row = arith.addi %{pre}split_row, {row} : index",
            f"{indent}  %{pre}piece = qdot.load {desc}[%{pre}part_row, %c0] : {desc_t} -> {tile_t}",
            f"{indent}  %{pre}next = arith.addf %{pre}acc, %{pre}piece : {tile_t}",
            f"{indent}  scf.yield %{pre}next : {tile_t}",
            f"{indent}}}"]


def _split_fixup_rows(cfg: MmqConfig) -> int:
    """Rows of Yᵀ one split-K fix-up program sums: 4 values per thread and piece, one 16-byte load (fewer rows
    would hand threads the same elements, more made ptxas keep fewer loads in flight)."""
    tokens = small_m_tokens(cfg.max_m)
    return max(1, min(cfg.block_n, 4 * 32 * cfg.num_warps // tokens))


def _split_fixup(cfg: MmqConfig, wait_previous_grid: bool) -> str:
    """``mmq_fixup_kernel`` of a split-K (small_m) kernel: program (x, r) adds rows [r · R, (r + 1) · R) of tile x's
    partial Yᵀ tiles in split order, 0 + p0 + p1 + …, and stores the sum (rows past max_m are left, as the GEMM
    leaves them)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    rows = _split_fixup_rows(cfg)
    tile_t, desc_t = f"tensor<{rows}x{tokens}xf32>", f"!qdot.desc<{rows}x{tokens}xf32>"
    wait = ", qdot.wait_previous_grid" if wait_previous_grid else ""
    lines = [f"func.func @{fixup_kernel_name(cfg, wait_previous_grid)}(%y_ptr: !qdot.ptr<f32>, "
             "%part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %splits: index)",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{wait}}} {{"]
    lines += [f"  %c{c} = arith.constant {c} : index"
              for c in sorted({0, 1, bn, tokens, rows, cfg.max_m, *range(FIXUP_UNROLL + 1)})]
    bound, m = m_bound(cfg, tokens)
    lines += [
        *bound,
        "  %tile = qdot.program_id x",
        "  %chunk = qdot.program_id y",
        f"  %tile_row = arith.muli %tile, %c{bn} : index",
        f"  %chunk_row = arith.muli %chunk, %c{rows} : index",
        "  %off_n = arith.addi %tile_row, %chunk_row : index",
        *_split_workspace(bn, tokens, rows, "%splits"),
        f"  %yt_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> {desc_t}",
        f"  %zero = arith.constant dense<0.000000e+00> : {tile_t}",
    ]
    lines += _split_piece_sum(FIXUP_UNROLL, tile_t, desc_t, "%part_desc", "%off_n")
    lines += [
        f"  qdot.store %yt_desc[%off_n, %c0], %sum : {desc_t}, {tile_t}",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def m_bound(cfg: MmqConfig, tokens: int) -> tuple[list[str], str]:
    """(lines, SSA name) of the rows of Y a small_m kernel serves: ``%m``, or ``%m_bound`` = min(M, max_m) where
    max_m is below the tile's tokens (the rows past it are left as they were)."""
    if cfg.max_m < tokens:
        return [f"  %m_bound = arith.minui %m, %c{cfg.max_m} : index"], "%m_bound"
    return [], "%m"

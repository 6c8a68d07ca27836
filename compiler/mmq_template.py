"""llama.cpp-style quantized GEMM kernels (q8_1 activations × ggml weight blocks) in the qdot vocabulary.

Memory layouts are ggml's: weights W are N rows of K/256 ``block_q4_K`` (144 bytes
each, K contiguous) — or, with ``MmqConfig(weights=...)``, K/256 ``block_q5_K`` (176 bytes),
``block_q6_K`` (210), ``block_q3_K`` (110), ``block_q2_K`` (84) or ``block_iq4_xs`` (136), or K/32
``block_q4_0`` (18 bytes),
``block_q4_1`` (20), ``block_q5_0`` (22), ``block_q5_1`` (24), ``block_q8_0`` (34), ``block_mxfp4`` (17) or
``block_iq4_nl`` (18), read
eight blocks (256 values) per K step — activations X
are M rows of K/128 ``block_q8_1_mmq`` (what ``qdot.quantize`` writes), and the output
Y = X · Wᵀ is [M, N] f32 row-major, as ``ggml_mul_mat`` computes it. Every kernel can also
read W repacked once by ``tile_weights`` (``MmqConfig(tiled_weights=True)``): the same blocks, a
tile's rows of one K step next to each other.

Two kernels, chosen by M (seed 000):

* ``mmq`` (M ≥ 9, prefill): one program per (M, N) output tile, the K loop steps one
  q4_K super-block (256 values) at a time; tokens are the mma's M side.
* ``small_m`` (M ≤ 8, decode): the weights are the mma's M side and the tokens its
  N side (an 8-wide n tile holds all of them), the grid runs over weight rows only,
  so every weight byte is read from global memory exactly once whatever M is; the
  output tile is Yᵀ, stored through a transposed descriptor. ``max_m`` widens its n
  tile to 16, 32 or 64 tokens for 9 ≤ M ≤ 64, the weights still read once.

Both are ordinary ``qdot.dot_scaled`` kernels; what makes them MMQ is the lowering
(``promote-int8``: raw nibbles in shared memory, the q4_K dmin fold at accumulate).
The mmq kernel's stream-K form (``stream_k``) adds the pieces of a tile shared by
several programs atomically into Y, or with ``fixup`` stores them in a workspace for a
second kernel, ``mmq_fixup_kernel``, that adds them in program order: three launches
for a MUL_MAT (quantize, GEMM, fix-up), the same bits every time. The decode kernels' K
splits take the same fix-up kernel, or sum their pieces in the GEMM itself
(``fixup_in_gemm``: the last program of a tile to finish, ``qdot.last_arrival``, adds them):
two launches, the same bits — or one, where the decode GEMM also quantizes the activations
itself (``quantize_in_gemm``).

This module writes the GEMM kernels' text; the config is ``compiler.mmq_config``'s, the grids
``compiler.mmq_grids``', the fix-up kernels ``compiler.mmq_fixup``'s and ``tile_weights``
``compiler.mmq_weight_tiles``'. It also re-exports their public names (``__all__``), so that one
import gives the whole MMQ family, as the docs and tests use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.format_table import FORMATS
from compiler.mmq_config import (K_STEP_VALUES, MAX_PREFETCH_STEPS, MMQ_VALUES, SMALL_M_MAX, SMALL_M_WIDEST,
                                 WEIGHT_FORMATS, MmqConfig, served_tokens, small_m_tokens)
from compiler.mmq_fixup import (FIXUP_PIECES_AT_ONCE, FIXUP_ROWS, fixup_by_last_program, fixup_counters_shape,
                                fixup_grid, fixup_kernel_name, fixup_rows, fixup_scalars, fixup_workspace_shape,
                                in_gemm_fixup_tile, in_gemm_fixup_unroll, m_bound, mmq_fixup_kernel,
                                partial_tile_store, split_piece_store, stream_k_fixup_by_last_program, workspace_desc)
from compiler.mmq_grids import (MAX_SPLITS, SPLIT_ARGUMENTS, STREAM_K_PROGRAMS, mmq_grid, resident_programs,
                                split_factor, spread_launch, spread_shared_bytes)
from compiler.mmq_weight_tiles import tile_weights
from compiler.templates import check_config, check_grid, check_int, grouped_tile_offsets

__all__ = ["FIXUP_PIECES_AT_ONCE", "FIXUP_ROWS", "K_STEP_VALUES", "MAX_PREFETCH_STEPS", "MAX_SPLITS", "MMQ_VALUES",
           "SMALL_M_MAX", "SMALL_M_WIDEST", "SPLIT_ARGUMENTS", "STREAM_K_PROGRAMS", "WEIGHT_FORMATS", "MmqConfig",
           "fixup_counters_shape", "fixup_grid", "fixup_kernel_name", "fixup_scalars", "fixup_workspace_shape",
           "in_gemm_fixup_unroll", "mmq_fixup_kernel", "mmq_grid", "mmq_kernel", "quantize_scratch_shape",
           "resident_programs", "small_m_tokens", "split_factor", "spread_launch", "spread_shared_bytes",
           "tile_weights"]


def mmq_kernel(cfg: MmqConfig) -> str:
    """The MLIR text of one q8_1 × weights GEMM kernel (see the module docstring)."""
    check_config("mmq_kernel", cfg, MmqConfig, "an")
    if cfg.small_m:
        return _small_m(cfg)
    return _stream_k(cfg) if cfg.stream_k else _mmq(cfg)


_X = "!qdot.block<q8_1_mmq>"


@dataclass(frozen=True)
class _Weights:
    """How the kernel text names and indexes the weight blocks of ``cfg``: ``%kw`` is always the
    K steps (256 values) of a row; weights of 32-value blocks have ``%kwb`` = K/32 blocks per row
    and the K step's first block ``%kkw`` = 8 · step (q4_K: the super-block index itself)."""

    fmt: str

    @property
    def type(self) -> str:
        return f"!qdot.block<{self.fmt}>"

    @property
    def per_step(self) -> int:
        return K_STEP_VALUES // FORMATS[self.fmt].block_values

    @property
    def row_blocks(self) -> str:
        return "%kw" if self.per_step == 1 else "%kwb"

    def header(self) -> list[str]:
        if self.per_step == 1:
            return []
        return [f"  %kwb = arith.divui %k, %c{K_STEP_VALUES // self.per_step} : index"]

    def consts(self) -> set[int]:
        return set() if self.per_step == 1 else {self.per_step, K_STEP_VALUES // self.per_step}

    def first_block(self, step: str, indent: str) -> tuple[list[str], str]:
        """(lines, SSA name) of the first weight block of K step ``step``."""
        if self.per_step == 1:
            return [], step
        return [f"{indent}%kkw = arith.muli {step}, %c{self.per_step} : index"], "%kkw"


def _header(cfg: MmqConfig, consts: set[int]) -> list[str]:
    weights = _Weights(cfg.weights)
    early = " {qdot.not_written_by_previous_grid}" if cfg.weights_before_wait else ""
    args = [*(["%xf_ptr: !qdot.ptr<f32>"] if cfg.quantize_in_gemm else []),
            f"%x_ptr: !qdot.ptr<{_X}>", f"%w_ptr: !qdot.ptr<{weights.type}>{early}", "%y_ptr: !qdot.ptr<f32>",
            *(["%part_ptr: !qdot.ptr<f32>"] if cfg.fixup else []),
            *(["%count_ptr: !qdot.ptr<i32>"] if cfg.fixup_in_gemm else []),
            "%m: index", "%n: index", f"%k: index {{qdot.divisibility = {cfg.k_divisibility} : i64}}"]
    extra = f", qdot.min_blocks_per_sm = {cfg.min_blocks_per_sm} : i64" if cfg.min_blocks_per_sm else ""
    extra += ", qdot.wait_previous_grid" if cfg.wait_previous_grid else ""
    extra += f", qdot.l2_prefetch = {cfg.l2_prefetch} : i64" if cfg.l2_prefetch else ""
    extra += "" if cfg.guard_copies else ", qdot.unguarded_copies"
    extra += "" if cfg.q4k_fold == "auto" else f', qdot.q4k_fold = "{cfg.q4k_fold}"'
    extra += ", qdot.pad_block_rows" if cfg.pad_block_rows else ""
    extra += ", qdot.swizzle_fold_buffers" if cfg.swizzle_fold_buffers else ""
    extra += ", qdot.broadcast_rhs" if cfg.broadcast_rhs else ""
    lines = [f"func.func @{cfg.name}({', '.join(args)})",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{extra}}} {{"]
    constants = consts | {0, 1, 2, MMQ_VALUES, K_STEP_VALUES} | weights.consts()
    lines += [f"  %c{c} = arith.constant {c} : index" for c in sorted(constants)]
    lines += [f"  %kx = arith.divui %k, %c{MMQ_VALUES} : index",
              f"  %kw = arith.divui %k, %c{K_STEP_VALUES} : index"]
    return lines + weights.header()


def _mmq(cfg: MmqConfig) -> str:
    bm, bn, g = cfg.block_m, cfg.block_n, cfg.group_m
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    x_tile, w_tile = _mmq_tiles(cfg)
    lines = _header(cfg, {bm, bn, g, cfg.k_blocks})
    lines += grouped_tile_offsets(bm, bn, g)
    lines += [
        f"  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>",
        *_mmq_weight_desc(cfg, w, w_tile, kwb),
        f"  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{bm}x{bn}xf32>",
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        *_mmq_k_loop(cfg, "%c0", "%kw", "  "),
        f"  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _mmq_tiles(cfg: MmqConfig) -> tuple[str, str]:
    """The mmq kernels' tile types of one K step (``k_blocks`` super-blocks): X's [block_m, 2 · k_blocks] q8_1_mmq
    blocks and W's [k_blocks · blocks per super-block, block_n] (W read as [K/bv, N])."""
    weights = _Weights(cfg.weights)
    return (f"{cfg.block_m}x{2 * cfg.k_blocks}x{_X}",
            f"{cfg.k_blocks * weights.per_step}x{cfg.block_n}x{weights.type}")


def _mmq_k_loop(cfg: MmqConfig, lower: str, upper: str, indent: str) -> list[str]:
    """The mmq K loop over super-blocks ``lower`` to ``upper`` of the tile at (%off_m, %off_n),
    ``k_blocks`` of them per step, from %zero to %acc."""
    bm, bn, kb = cfg.block_m, cfg.block_n, cfg.k_blocks
    weights = _Weights(cfg.weights)
    x_tile, w_tile = _mmq_tiles(cfg)
    first_lines, first = weights.first_block("%kk", "  ")
    w_at = f"{first}, %off_n"
    if cfg.tiled_weights:  # the tile's rows of step %kk: row %off_n · K/256 + %kk · block_n of the tiled matrix
        first_lines = ["  %w_tile_row = arith.muli %off_n, %kw : index", f"  %w_step = arith.muli %kk, %c{bn} : index",
                       "  %w_row = arith.addi %w_tile_row, %w_step : index"]
        w_at = "%c0, %w_row"
    lines = [
        f"%acc = scf.for %kk = {lower} to {upper} step %c{kb} iter_args(%acc_i = %zero) -> (tensor<{bm}x{bn}xf32>) {{",
        "  %kkx = arith.muli %kk, %c2 : index",
        *first_lines,
        f"  %x = qdot.load %x_desc[%off_m, %kkx]{_X_IN_K if kb == 1 else ''} : !qdot.desc<{x_tile}> "
        f"-> tensor<{x_tile}>",
        f"  %w = qdot.load %w_desc[{w_at}]{_W_IN_BOUNDS if cfg.tiled_weights else ''} : !qdot.desc<{w_tile}> "
        f"-> tensor<{w_tile}>",
        f"  %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = {cfg.weights}",
        f"       : tensor<{x_tile}> * tensor<{w_tile}> -> tensor<{bm}x{bn}xf32>",
        f"  scf.yield %d : tensor<{bm}x{bn}xf32>",
        "}",
    ]
    return [indent + line for line in lines]


def _stream_k(cfg: MmqConfig) -> str:
    """The mmq kernel over a contiguous share of the (tile, super-block) iterations: one
    segment per output tile the share touches, each a K loop from ``k0`` to ``k1``."""
    bm, bn, g = cfg.block_m, cfg.block_n, cfg.group_m
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    x_tile, w_tile = _mmq_tiles(cfg)
    in_gemm = {fixup_rows(cfg), *range(FIXUP_PIECES_AT_ONCE + 1)} if cfg.fixup_in_gemm else set()
    lines = _header(cfg, {bm, bn, g} | in_gemm)
    lines += [
        "  %pid = qdot.program_id x",
        "  %programs = qdot.num_programs x",
        f"  %tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"  %tiles_n = arith.ceildivui %n, %c{bn} : index",
        "  %tiles = arith.muli %tiles_m, %tiles_n : index",
        "  %total = arith.muli %tiles, %kw : index",
        "  %per = arith.ceildivui %total, %programs : index",
        "  %share = arith.muli %pid, %per : index",
        "  %start = arith.minui %share, %total : index",
        "  %share_end = arith.addi %start, %per : index",
        "  %end = arith.minui %share_end, %total : index",
        "  %kw_nz = arith.maxui %kw, %c1 : index",  # K = 0: no share has work, and no division by zero
        "  %first_tile = arith.divui %start, %kw_nz : index",
        "  %end_tile = arith.ceildivui %end, %kw_nz : index",
        "  %has_work = arith.cmpi ult, %start, %end : index",
        "  %tile_span = arith.subi %end_tile, %first_tile : index",
        "  %segments = arith.select %has_work, %tile_span, %c0 : index",
        f"  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>",
        *_mmq_weight_desc(cfg, w, w_tile, kwb),
        f"  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{bm}x{bn}xf32>",
        *(workspace_desc(cfg, "%programs", bm) if cfg.fixup else []),
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        "  scf.for %s = %c0 to %segments step %c1 {",
        "    %tile = arith.addi %first_tile, %s : index",
        "    %tile_k = arith.muli %tile, %kw : index",
        "    %tile_k_end = arith.addi %tile_k, %kw : index",
        "    %from = arith.maxui %start, %tile_k : index",
        "    %to = arith.minui %end, %tile_k_end : index",
        "    %k0 = arith.subi %from, %tile_k : index",
        "    %k1 = arith.subi %to, %tile_k : index",
        "    %from_first = arith.cmpi eq, %k0, %c0 : index",
        "    %to_last = arith.cmpi eq, %k1, %kw : index",
        "    %whole = arith.andi %from_first, %to_last : i1",
        *grouped_tile_offsets(bm, bn, g, tile="%tile", indent="    "),
        *_mmq_k_loop(cfg, "%k0", "%k1", "    "),
        "    scf.if %whole {",
        f"      qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "    } else {",
        *(partial_tile_store(cfg) if cfg.fixup else [
            f"      qdot.store %y_desc[%off_m, %off_n], %acc {{reduce = \"add\"}} : !qdot.desc<{bm}x{bn}xf32>, "
            f"tensor<{bm}x{bn}xf32>"]),
        *(stream_k_fixup_by_last_program(cfg) if cfg.fixup_in_gemm else []),
        "    }",
        "  }",
        *(_stream_k_zero_tiles(cfg) if cfg.fixup_in_gemm else []),
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _stream_k_zero_tiles(cfg: MmqConfig) -> list[str]:
    """``fixup_in_gemm`` for stream-K at K = 0: no program has a segment and no fix-up kernel follows (which would
    store the zeros), so the programs store the zero tiles themselves, program p tiles p, p + programs, …"""
    bm, bn = cfg.block_m, cfg.block_n
    return [
        "  %no_k = arith.cmpi eq, %kw, %c0 : index",
        "  scf.if %no_k {",
        f"    %kz_zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        "    scf.for %kz_tile = %pid to %tiles step %programs {",
        "      %kz_m = arith.divui %kz_tile, %tiles_n : index",
        "      %kz_n = arith.remui %kz_tile, %tiles_n : index",
        f"      %kz_off_m = arith.muli %kz_m, %c{bm} : index",
        f"      %kz_off_n = arith.muli %kz_n, %c{bn} : index",
        f"      qdot.store %y_desc[%kz_off_m, %kz_off_n], %kz_zero : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "    }",
        "  }"]


def _small_m(cfg: MmqConfig) -> str:
    bn, tokens, kb = cfg.block_n, small_m_tokens(cfg.max_m), cfg.k_blocks
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    first_lines, first = weights.first_block("%kk", "    ")
    w_tile, x_tile = f"{bn}x{kb * weights.per_step}x{w}", f"{2 * kb}x{tokens}x{_X}"
    reduce = ' {reduce = "add"}' if cfg.split_k else ""
    in_gemm = ({*in_gemm_fixup_tile(cfg), *range(in_gemm_fixup_unroll(cfg) + 1)} if cfg.fixup_in_gemm else set())
    lines = _header(cfg, {bn, tokens, cfg.max_m, kb} | ({cfg.prefetch_steps * kb} if cfg.prefetch_steps else set())
                    | in_gemm)
    if not cfg.interleave_splits:
        k_range, (k_lo, k_hi, k_step) = _contiguous_share(kb), ("%k_lo", "%k_hi", f"%c{kb}")
    elif kb == 1:  # split y starts at step y and strides by the split count
        k_range, (k_lo, k_hi, k_step) = [], ("%pid_k", "%kw", "%splits")
    else:
        k_range, (k_lo, k_hi, k_step) = _interleaved_steps(kb), ("%k_lo", "%kw", "%k_step")
    bound, m = m_bound(cfg, tokens)
    lines += [
        *bound,
        "  %pid = qdot.program_id x",
        f"  %off_n = arith.muli %pid, %c{bn} : index",
        "  %pid_k = qdot.program_id y",
        "  %splits = qdot.num_programs y",
        *k_range,
        *_weight_desc(cfg, w, w_tile, kwb),
        *(_quantize_share(cfg, m) if cfg.quantize_in_gemm else [
            f"  %x_desc = qdot.make_desc %x_ptr, [%kx, {m}], [%c1, %kx] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>"]),
        f"  %yt_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<{bn}x{tokens}xf32>",
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bn}x{tokens}xf32>",
        *_prefetch_loop(cfg, w_tile),
        f"  %acc = scf.for %kk = {k_lo} to {k_hi} step {k_step} iter_args(%acc_i = %zero) "
        f"-> (tensor<{bn}x{tokens}xf32>) {{",
        "    %kkx = arith.muli %kk, %c2 : index",
        *([] if cfg.tiled_weights else first_lines),
        *(["    %w_step = arith.addi %tile_first, %kk : index", f"    %w_row = arith.muli %w_step, %c{bn} : index"]
          if cfg.tiled_weights else []),
        f"    %w = qdot.load %w_desc[{'%w_row, %c0' if cfg.tiled_weights else f'%off_n, {first}'}]"
        f"{_W_IN_BOUNDS if cfg.tiled_weights else ''} : !qdot.desc<{w_tile}> -> tensor<{w_tile}>",
        *(["    %kk_share = arith.subi %kk, %k_lo : index", "    %kkx_share = arith.muli %kk_share, %c2 : index"]
          if cfg.quantize_in_gemm else []),
        f"    %x = qdot.load %x_desc[{'%kkx_share, %x_row0' if cfg.quantize_in_gemm else '%kkx, %c0'}]"
        f"{_XT_IN_K if cfg.tiled_weights else ''} "
        f": !qdot.desc<{x_tile}> -> tensor<{x_tile}>",
        f"    %d = qdot.dot_scaled %w, %x, %acc_i lhs = {cfg.weights} rhs = q8_1_mmq",
        f"         : tensor<{w_tile}> * tensor<{x_tile}> -> tensor<{bn}x{tokens}xf32>",
        f"    scf.yield %d : tensor<{bn}x{tokens}xf32>",
        "  }",
        *(split_piece_store(cfg, m if cfg.fixup_in_gemm else f"%c{tokens}") if cfg.fixup else [
            f"  qdot.store %yt_desc[%off_n, %c0], %acc{reduce} : !qdot.desc<{bn}x{tokens}xf32>, "
            f"tensor<{bn}x{tokens}xf32>"]),
        *(fixup_by_last_program(cfg, m) if cfg.fixup_in_gemm else []),
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _quantize_share(cfg: MmqConfig, m: str) -> list[str]:
    """``quantize_in_gemm``: the program's K steps of X quantized into its own region of the scratch — rows
    (x · splits + y) · tokens … + M, its K steps from column 0 —, a barrier after each; and ``%x_desc``, the K
    loop's view of that region as [2 · k_per, rows]. Regions per program, not per weight-row tile: the K loop's
    pipeline may copy a stage past its share (the copy is discarded), and that stage must be outside the region,
    where the descriptor reads zeros, not another program's scratch being written."""
    tokens = small_m_tokens(cfg.max_m)
    rows = served_tokens(cfg)  # the one-token kernel quantizes one row
    tile = f"{rows}x{K_STEP_VALUES}xf32"
    blocks = f"{rows}x2x{_X}"
    return [
        "  %xs_program = arith.muli %pid, %splits : index",
        "  %xs_region = arith.addi %xs_program, %pid_k : index",
        f"  %x_row0 = arith.muli %xs_region, %c{tokens} : index",
        f"  %x_rows = arith.addi %x_row0, {m} : index",
        "  %xs_cols = arith.muli %k_per, %c2 : index",
        f"  %xf_desc = qdot.make_desc %xf_ptr, [{m}, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<{tile}>",
        f"  %xs_desc = qdot.make_desc %x_ptr, [%x_rows, %xs_cols], [%xs_cols, %c1] : !qdot.ptr<{_X}> "
        f"-> !qdot.desc<{blocks}>",
        "  scf.for %kq = %k_lo to %k_hi step %c1 {",
        f"    %kq_values = arith.muli %kq, %c{K_STEP_VALUES} : index",
        "    %kq_share = arith.subi %kq, %k_lo : index",
        "    %kq_blocks = arith.muli %kq_share, %c2 : index",
        f"    %xf = qdot.load %xf_desc[%c0, %kq_values] : !qdot.desc<{tile}> -> tensor<{tile}>",
        f"    %xq = qdot.quantize %xf format = q8_1_mmq : tensor<{tile}> -> tensor<{blocks}>",
        f"    qdot.store %xs_desc[%x_row0, %kq_blocks], %xq : !qdot.desc<{blocks}>, tensor<{blocks}>",
        "    qdot.barrier",  # the stores seen by the K loop's copies; a staged quantization's buffer free again
        "  }",
        f"  %x_desc = qdot.make_desc %x_ptr, [%xs_cols, %x_rows], [%c1, %xs_cols] : !qdot.ptr<{_X}> "
        f"-> !qdot.desc<{2 * cfg.k_blocks}x{tokens}x{_X}>"]


def quantize_scratch_shape(cfg: MmqConfig, grid: tuple[int, ...], n: int, k: int) -> tuple[int, int, int]:
    """The q8_1_mmq scratch bytes a ``quantize_in_gemm`` kernel launched on ``grid`` quantizes X into, [rows, blocks,
    144]: a region of ``small_m_tokens`` rows per program (x, y) — each program stores only its own, the first M
    rows of it — of 2 · k_per blocks, k_per its share of K's super-blocks (⌈⌈K / 256 / k_blocks⌉ / splits⌉ ·
    k_blocks)."""
    check_config("quantize_scratch_shape", cfg, MmqConfig, "an")
    if not cfg.quantize_in_gemm:
        raise ValueError(f"quantize_scratch_shape: {cfg.name} takes X quantized "
                         "(MmqConfig(..., quantize_in_gemm=True) quantizes it)")
    x, y, _ = check_grid("quantize_scratch_shape", grid)
    check_int("quantize_scratch_shape", "n", n, least=1)
    check_int("quantize_scratch_shape", "k", k, least=0)
    kb = cfg.k_blocks  # a split's share is whole K steps of kb super-blocks (``_split_share``)
    k_per = -(-(-(-(k // K_STEP_VALUES) // kb)) // y) * kb
    return (max(1, x * y * small_m_tokens(cfg.max_m)), max(1, 2 * k_per), 144)


def _prefetch_loop(cfg: MmqConfig, w_tile: str) -> list[str]:
    """``prefetch_steps``: the weight tiles of the program's K steps 1 … ``prefetch_steps`` of its share (step 0 is
    the pipeline's first copy), each asked of L2 by one ``qdot.prefetch``."""
    if not cfg.prefetch_steps:
        return []
    kb, weights = cfg.k_blocks, _Weights(cfg.weights)
    first_lines, first = weights.first_block("%kp", "    ")
    if cfg.tiled_weights:
        at = ["    %p_step = arith.addi %tile_first, %kp : index",
              f"    %p_row = arith.muli %p_step, %c{cfg.block_n} : index"]
        where = "%p_row, %c0"
    else:
        at, where = first_lines, f"%off_n, {first}"
    return [f"  %pf_lo = arith.addi %k_lo, %c{kb} : index",
            f"  %pf_end = arith.addi %pf_lo, %c{cfg.prefetch_steps * kb} : index",
            "  %pf_hi = arith.minui %pf_end, %k_hi : index",
            f"  scf.for %kp = %pf_lo to %pf_hi step %c{kb} {{",
            *at,
            f"    qdot.prefetch %w_desc[{where}] : !qdot.desc<{w_tile}>",
            "  }"]


def _weight_desc(cfg: MmqConfig, w: str, w_tile: str, kwb: str) -> list[str]:
    """``%w_desc`` over W as ggml lays it out ([N, K/256] super-blocks or [N, K/32] blocks, K
    contiguous) or, with ``tiled_weights``, over ``tile_weights``' order seen as a matrix of
    ``tiles · K/256 · block_n`` rows of one K step's blocks: row ``(tile · K/256 + step) · block_n
    + r`` holds step ``step`` of row ``r`` of tile ``tile`` (``%tile_first``: the program's first
    step). K stays the contiguous dimension, so the lowering is the ggml layout's; the tile's
    rows are back to back, which its copy turns into one contiguous run."""
    if not cfg.tiled_weights:
        return [f"  %w_desc = qdot.make_desc %w_ptr, [%n, {kwb}], [{kwb}, %c1] : !qdot.ptr<{w}> "
                f"-> !qdot.desc<{w_tile}>"]
    per_step = _Weights(cfg.weights).per_step
    return [*_tiled_rows(cfg.block_n),
            "  %tile_first = arith.muli %pid, %kw : index",
            f"  %w_desc = qdot.make_desc %w_ptr, [%w_rows, %c{per_step}], [%c{per_step}, %c1] : !qdot.ptr<{w}> "
            f"-> !qdot.desc<{w_tile}>"]


def _mmq_weight_desc(cfg: MmqConfig, w: str, w_tile: str, kwb: str) -> list[str]:
    """The prefill kernels' ``%w_desc``, W read as [K/bv, N] (the dot's rhs, K contiguous): over
    ggml's layout, or with ``tiled_weights`` over ``tile_weights``' order as [blocks of a K step,
    tiles · K/256 · block_n rows] — row ``(tile · K/256 + step) · block_n + r`` holds step ``step``
    of row ``r`` of tile ``tile``, so a program's tile of one step is one contiguous run."""
    if not cfg.tiled_weights:
        return [f"  %w_desc = qdot.make_desc %w_ptr, [{kwb}, %n], [%c1, {kwb}] : !qdot.ptr<{w}> "
                f"-> !qdot.desc<{w_tile}>"]
    per_step = _Weights(cfg.weights).per_step
    return [*_tiled_rows(cfg.block_n),
            f"  %w_desc = qdot.make_desc %w_ptr, [%c{per_step}, %w_rows], [%c1, %c{per_step}] : !qdot.ptr<{w}> "
            f"-> !qdot.desc<{w_tile}>"]


_W_IN_BOUNDS = " {in_bounds = [true, true]}"
"""A tile of ``tile_weights``' order lies inside W at every K step a program runs: the order pads N to
whole tiles, each tile's K steps are its own rows, and no program runs a step past K (one super-block
per step; a split's steps end at K). So its copy tests no bounds (``qdot.load``'s ``in_bounds``)."""


_X_IN_K = " {in_bounds = [false, true]}"
"""An activation tile of one super-block lies inside X's K at every step a program runs (its rows
past M do not: X holds M of them), so its copy tests no K bound."""
_XT_IN_K = " {in_bounds = [true, false]}"
"""The same for the decode kernels' X, read as [K, M], declared where W is ``tile_weights``' (which has one
super-block per step): in ggml's order the declaration made the kernels 1.5–3.4 % slower at 4096 × 4096 — LLVM
hoists each chunk's source size out of the K loop, 7 registers more — and 0.9–1.7 % faster at 4096 × 14336
(bench/RESULTS.md, runs 264–265)."""


def _tiled_rows(block_n: int) -> list[str]:
    """``%w_rows``: the rows of ``tile_weights``' order seen as a matrix of one K step's blocks per
    row — ⌈N / block_n⌉ tiles of K/256 steps of ``block_n`` rows."""
    return [f"  %w_tiles = arith.ceildivui %n, %c{block_n} : index",
            "  %w_steps = arith.muli %w_tiles, %kw : index",
            f"  %w_rows = arith.muli %w_steps, %c{block_n} : index"]


def _contiguous_share(kb: int) -> list[str]:
    """``%k_lo`` / ``%k_hi``: split y covers the y-th contiguous share of K, in steps of ``kb``."""
    return [*_split_share(kb),
            "  %k_lo = arith.muli %pid_k, %k_per : index",
            "  %k_end = arith.addi %k_lo, %k_per : index",
            "  %k_hi = arith.minui %k_end, %kw : index"]


def _interleaved_steps(kb: int) -> list[str]:
    """``%k_lo`` / ``%k_step`` for ``interleave_splits`` with ``kb`` > 1 (with one super-block per step
    they are the program's y index and the split count): split y covers K steps y, y + S, … up to
    ``%kw`` (a step reaching past the last super-block reads zero blocks there, as in the
    contiguous form)."""
    return [f"  %k_lo = arith.muli %pid_k, %c{kb} : index", f"  %k_step = arith.muli %splits, %c{kb} : index"]


def _split_share(kb: int) -> list[str]:
    """``%k_per``: the super-blocks of one K split, a whole number of ``kb``-block K steps (a
    step that crossed into the next split would add its blocks twice)."""
    if kb == 1:
        return ["  %k_per = arith.ceildivui %kw, %splits : index"]
    return [f"  %k_steps = arith.ceildivui %kw, %c{kb} : index",
            "  %k_per_steps = arith.ceildivui %k_steps, %splits : index",
            f"  %k_per = arith.muli %k_per_steps, %c{kb} : index"]

"""The activation-quantize kernel in the qdot kernel vocabulary: f32 rows → q8_1 / q8_1_mmq blocks.

llama.cpp quantizes the activations of a quantized GEMM once per GEMM, in a kernel
of its own, before the MMQ kernel reads them (seed 000, "quantize_mmq_q8_1 … once per
GEMM launch"). This module writes that kernel as IR, the way ``templates.py`` writes
GEMMs: ``qdot.load`` of an f32 tile, ``qdot.quantize``, ``qdot.store`` of the blocks,
which ``qdot-lower-quantize`` turns into per-thread code.

Memory layouts: X is [M, K] f32, row-major. Q is [M, ceil(K / bv)] blocks, row-major
(bv = 32 values per q8_1 block, 128 per q8_1_mmq block); blocks follow each other
along K, as ``compiler.numerics.quantize`` lays them out. Values past K in the last
block read as zero (ggml pads K with zeros the same way); rows past M are not written.

One kernel serves every M. The grid is 2-D (``quantize_grid``): x walks K in tiles of
``block_k`` values, y walks the rows. For M > ``small_m`` a program quantizes a
``rows_per_program`` × ``block_k`` tile — with the defaults 8 × 512, one 32-value group
per thread, which ``qdot-lower-quantize`` stages through shared memory with 16-byte
copies (its ``staged`` strategy: few instructions per value, for bandwidth). For
M ≤ ``small_m`` a program quantizes 1 × ``block_k`` values, eight lanes per group (the
``lanes`` strategy: many programs for few rows, for latency). Between the two, while
M · K ≤ ``mid_values``, a program quantizes a ``mid_rows`` × ``mid_block_k`` tile (8 × 128
by default: 32 groups, the lanes strategy again), which is faster there: in run 207 X of
M = 33–512 up to 2^21 values quantized in 0.63–0.84 × the staged tile's time (the q4_K prefill
MUL_MAT at M = 512 1.4–2.2 % faster at K = 3584 / 4096), where run 202 had it 1.05–1.1 × slower
on larger X. The tile is chosen by uniform ``scf.if``s on
M and M · K; ``quantize_grid`` (``QuantizeConfig.tile_for``) sizes the grid the same way. No
program divides its id: the 2-D grid gives the K tile and the row tile directly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from compiler.templates import check_field_types, check_grid_x, check_int

QUANTIZE_FORMATS = ("q8_1", "q8_1_mmq")
"""What ``qdot.quantize`` produces (``QUANTIZE_FORMATS`` of dialects/qdot/kernel.py, which this
module cannot import: the GPU machine builds kernel sources without xDSL installed)."""
ROWS_PER_PROGRAM, BLOCK_K, NUM_WARPS, SMALL_M = 8, 512, 4, 32
"""The default staged tile, its warps and the largest M of the one-row tile (``QuantizeConfig``'s
``rows_per_program``, ``block_k``, ``num_warps``, ``small_m``; ``quantize_kernel``'s and ``quantize_grid``'s
defaults, which must agree with it)."""
MID_ROWS, MID_BLOCK_K, MID_VALUES = 8, 128, 1 << 21
"""The default mid tile (``QuantizeConfig.mid_rows``, ``mid_block_k``, ``mid_values``)."""


def _dispatches(rows_per_program: int, small_m: int) -> bool:
    """Whether a kernel with these tiles chooses a one-row tile for M ≤ small_m (the kernel's
    ``scf.if`` and ``quantize_grid`` must agree)."""
    return small_m > 0 and rows_per_program > 1


def _mid_dispatches(rows_per_program: int, block_k: int, mid_rows: int, mid_block_k: int, mid_values: int) -> bool:
    """Whether a kernel with these tiles chooses the mid tile for M > small_m and M · K ≤ mid_values."""
    return mid_values > 0 and (mid_rows, mid_block_k) != (rows_per_program, block_k)


def _tile(m: int, k: int, rows_per_program: int, block_k: int, small_m: int, mid_rows: int, mid_block_k: int,
          mid_values: int) -> tuple[int, int]:
    """(rows, K values) of the tile a kernel with these tiles takes for X [m, k]: the choice its
    ``scf.if``s make at run time, which the grid must match."""
    if _dispatches(rows_per_program, small_m) and m <= small_m:
        return 1, block_k
    if _mid_dispatches(rows_per_program, block_k, mid_rows, mid_block_k, mid_values) and m * k <= mid_values:
        return mid_rows, mid_block_k
    return rows_per_program, block_k


@dataclass(frozen=True)
class QuantizeConfig:
    fmt: str = "q8_1_mmq"
    rows_per_program: int = ROWS_PER_PROGRAM
    """Rows per program when M > small_m; 8 rows of 512 values are 128 groups, one per thread of 4 warps."""
    block_k: int = BLOCK_K
    """K values per program; a multiple of the block (128 values for q8_1_mmq)."""
    num_warps: int = NUM_WARPS
    small_m: int = SMALL_M
    """Largest M quantized one row per program (the lanes strategy); 0: never."""
    zero_output: bool = False
    """Also zero an f32 output Y [M, N] (arguments ``y`` and ``n`` added): a split-K GEMM adds
    into its output, which must hold zeros first, and the quantize kernel runs before it
    anyway — zeroing there saves the GEMM call a launch of its own (a memset node)."""
    launch_dependents: bool = False
    """Start with ``griddepcontrol.launch_dependents`` (``qdot.launch_dependents``, sm_90+): the
    GEMM after it, launched with ``programmatic=True``, is scheduled while this kernel runs."""
    mid_rows: int = MID_ROWS
    """Rows per program of the mid tile (M > small_m, M · K ≤ mid_values)."""
    mid_block_k: int = MID_BLOCK_K
    """K values per program of the mid tile; 8 × 128 is 32 groups, eight lanes each on 4 warps."""
    mid_values: int = MID_VALUES
    """Largest M · K quantized with the mid tile; 0: never (run 202: 8 × 128 beat 8 × 512 up to
    M = 512, K = 4096, and lost at 512 × 8192; run 207 timed the kernel with it)."""

    def __post_init__(self) -> None:
        check_field_types(self, "quantize_kernel")
        if self.fmt not in QUANTIZE_FORMATS:
            raise ValueError(f"quantize_kernel: fmt must be one of {', '.join(QUANTIZE_FORMATS)}, got {self.fmt!r}")
        if self.rows_per_program < 1 or self.num_warps < 1:
            raise ValueError("quantize_kernel: rows_per_program and num_warps must be positive, got "
                             f"{self.rows_per_program} and {self.num_warps}")
        if self.block_k < 1 or self.block_k % self.block_values:
            raise ValueError(f"quantize_kernel: block_k must be a positive multiple of {self.block_values} "
                             f"(the {self.fmt} block), got {self.block_k}")
        if self.small_m < 0:
            raise ValueError(f"quantize_kernel: small_m must be 0 or more, got {self.small_m}")
        if self.mid_rows < 1 or self.mid_block_k < 1 or self.mid_block_k % self.block_values or self.mid_values < 0:
            raise ValueError(f"quantize_kernel: the mid tile needs mid_rows ≥ 1, mid_block_k a positive multiple of "
                             f"{self.block_values} and mid_values ≥ 0, got {self.mid_rows}, {self.mid_block_k} "
                             f"and {self.mid_values}")

    @property
    def block_values(self) -> int:
        from compiler.numerics.formats import block_format

        return block_format(self.fmt).block_values

    @property
    def dispatches(self) -> bool:
        """Whether the kernel has a separate one-row tile for M ≤ small_m."""
        return _dispatches(self.rows_per_program, self.small_m)

    @property
    def mid_dispatches(self) -> bool:
        """Whether the kernel has a mid tile for M > small_m and M · K ≤ mid_values."""
        return _mid_dispatches(self.rows_per_program, self.block_k, self.mid_rows, self.mid_block_k,
                               self.mid_values)

    def tile_for(self, m: int, k: int) -> tuple[int, int]:
        """(rows, K values) of the tile the kernel takes for X [m, k]."""
        return _tile(m, k, self.rows_per_program, self.block_k, self.small_m, self.mid_rows, self.mid_block_k,
                     self.mid_values)

    def source(self) -> str:
        """The kernel's MLIR text (``quantize_kernel`` with these fields)."""
        return quantize_kernel(**dataclasses.asdict(self))

    def grid(self, m: int, k: int) -> tuple[int, int, int]:
        """The launch grid of this kernel for X [m, k] (``quantize_grid`` with these tiles): one object for both,
        so a kernel built with other tiles than the defaults cannot be launched with the default grid — which
        would leave rows unquantized without a word."""
        return quantize_grid(m, k, self.rows_per_program, self.block_k, self.small_m, self.mid_rows,
                             self.mid_block_k, self.mid_values)

    @property
    def name(self) -> str:
        small = f"_m{self.small_m}" if self.dispatches else ""
        small += f"_mid{self.mid_rows}x{self.mid_block_k}le{self.mid_values}" if self.mid_dispatches else ""
        zero = "_zero_y" if self.zero_output else ""
        pdl = "_pdl" if self.launch_dependents else ""
        return f"quantize_{self.fmt}_{self.rows_per_program}x{self.block_k}_w{self.num_warps}{small}{zero}{pdl}"

    @property
    def zero_cols(self) -> int:
        """Width of the zero tile a program stores per step: one 16-byte run per thread and row."""
        return 4 * 32 * self.num_warps


def quantize_kernel(fmt: str = "q8_1_mmq", rows_per_program: int = ROWS_PER_PROGRAM, block_k: int = BLOCK_K,
                    num_warps: int = NUM_WARPS, small_m: int = SMALL_M, zero_output: bool = False,
                    launch_dependents: bool = False, mid_rows: int = MID_ROWS, mid_block_k: int = MID_BLOCK_K,
                    mid_values: int = MID_VALUES) -> str:
    """The MLIR text of one quantize kernel: ``(x: ptr f32, q: ptr blocks, M, K)``, or with
    ``zero_output`` ``(x, q, y: ptr f32, M, K, N)``, which also zeroes Y [M, N]."""
    cfg = QuantizeConfig(fmt, rows_per_program, block_k, num_warps, small_m, zero_output, launch_dependents,
                         mid_rows, mid_block_k, mid_values)
    bk, bv = cfg.block_k, cfg.block_values
    block = f"!qdot.block<{cfg.fmt}>"
    tiles = {(cfg.rows_per_program, bk)} | ({(1, bk)} if cfg.dispatches else set()) \
        | ({(cfg.mid_rows, cfg.mid_block_k)} if cfg.mid_dispatches else set())
    consts = sorted({1, bv} | {c for rows, tk in tiles for c in (rows, tk, tk // bv)}
                    | ({cfg.small_m} if cfg.dispatches else set())
                    | ({cfg.mid_values} if cfg.mid_dispatches else set())
                    | ({cfg.zero_cols} if zero_output else set()))
    choice = [*([f"1x{bk} when M <= {cfg.small_m}"] if cfg.dispatches else []),
              *([f"{cfg.mid_rows}x{cfg.mid_block_k} when M*K <= {cfg.mid_values}"] if cfg.mid_dispatches else [])]
    lines = [
        f"// {cfg.fmt} quantization of f32 activations (generated by compiler/quantize_template.py).",
        f"//   X [M, K] f32 row-major  ->  Q [M, ceil(K/{bv})] {cfg.fmt} blocks row-major",
        f"// One program per {cfg.rows_per_program}x{bk} tile"
        + (f" ({', else '.join(choice)})" if choice else "")
        + ", grid = (ceil(K/tile K), ceil(M/tile rows)) (quantize_grid).",
        *([f"// It also zeroes Y [M, N] f32: the programs of a row tile store zeros over its rows, "
           f"{cfg.zero_cols} columns at a time."] if zero_output else []),
        f"func.func @{cfg.name}(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<{block}>, "
        + ("%y_ptr: !qdot.ptr<f32>, %m: index, %k: index, %n: index)" if zero_output else "%m: index, %k: index)"),
        f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64"
        + (", qdot.launch_dependents" if launch_dependents else "") + "} {",
    ]
    lines += [f"  %c{c} = arith.constant {c} : index" for c in consts]
    lines += [
        "  %pid_k = qdot.program_id x",
        "  %pid_m = qdot.program_id y",
        *(["  %programs_k = qdot.num_programs x"] if zero_output else []),
        f"  %kb = arith.ceildivui %k, %c{bv} : index",
    ]
    many_rows = _tile_chain(cfg, cfg.rows_per_program, bk, "")
    if cfg.mid_dispatches:  # M * K <= mid_values: the mid tile (M > small_m here, where there is a one-row tile)
        many_rows = ["%values = arith.muli %m, %k : index",
                     f"%mid = arith.cmpi ule, %values, %c{cfg.mid_values} : index",
                     "scf.if %mid {",
                     *_indent(_tile_chain(cfg, cfg.mid_rows, cfg.mid_block_k, "_mid")),
                     "} else {",
                     *_indent(many_rows),
                     "}"]
    if cfg.dispatches:
        lines += _indent([
            f"%one_row = arith.cmpi ule, %m, %c{cfg.small_m} : index",
            "scf.if %one_row {",
            *_indent(_tile_chain(cfg, 1, bk, "_row", off_m="%pid_m")),
            "} else {",
            *_indent(many_rows),
            "}",
        ])
    else:
        lines += _indent(many_rows)
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def _indent(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]


def _tile_chain(cfg: QuantizeConfig, rows: int, bk: int, suffix: str, off_m: str | None = None) -> list[str]:
    """The offsets of a ``rows`` × ``bk`` tile (program y's rows, program x's K values), then its chain."""
    bv = cfg.block_values
    offsets = [f"%off_k{suffix} = arith.muli %pid_k, %c{bk} : index",
               f"%off_kb{suffix} = arith.muli %pid_k, %c{bk // bv} : index"]
    if off_m is None:
        off_m = f"%off_m{suffix}"
        offsets.append(f"{off_m} = arith.muli %pid_m, %c{rows} : index")
    return offsets + _chain(cfg, rows, bk, off_m, suffix)


def _chain(cfg: QuantizeConfig, rows: int, bk: int, off_m: str, suffix: str = "") -> list[str]:
    """make_desc, load, quantize, store of one ``rows`` × ``bk`` tile at row ``off_m``."""
    bv = cfg.block_values
    block = f"!qdot.block<{cfg.fmt}>"
    x_tile = f"{rows}x{bk}xf32"
    q_tile = f"{rows}x{bk // bv}x{block}"
    xd, qd, x, q, off_k, off_kb = (f"%{name}{suffix}" for name in ("x_desc", "q_desc", "x", "q", "off_k", "off_kb"))
    lines = [
        f"{xd} = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<{x_tile}>",
        f"{qd} = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<{block}> -> !qdot.desc<{q_tile}>",
        f"{x} = qdot.load {xd}[{off_m}, {off_k}] : !qdot.desc<{x_tile}> -> tensor<{x_tile}>",
        f"{q} = qdot.quantize {x} format = {cfg.fmt} : tensor<{x_tile}> -> tensor<{q_tile}>",
        f"qdot.store {qd}[{off_m}, {off_kb}], {q} : !qdot.desc<{q_tile}>, tensor<{q_tile}>",
    ]
    if cfg.zero_output:
        zc = cfg.zero_cols
        y_tile = f"{rows}x{zc}xf32"
        yd, zero, j, first, step = (f"%{name}{suffix}" for name in ("y_desc", "zero", "j", "first_n", "step_n"))
        lines += [
            f"{yd} = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{y_tile}>",
            f"{zero} = arith.constant dense<0.000000e+00> : tensor<{y_tile}>",
            f"{first} = arith.muli %pid_k, %c{zc} : index",
            f"{step} = arith.muli %programs_k, %c{zc} : index",
            f"scf.for {j} = {first} to %n step {step} {{",
            f"  qdot.store {yd}[{off_m}, {j}], {zero} : !qdot.desc<{y_tile}>, tensor<{y_tile}>",
            "}",
        ]
    return lines


def quantize_grid(m: int, k: int, rows_per_program: int = ROWS_PER_PROGRAM, block_k: int = BLOCK_K,
                  small_m: int = SMALL_M, mid_rows: int = MID_ROWS, mid_block_k: int = MID_BLOCK_K,
                  mid_values: int = MID_VALUES) -> tuple[int, int, int]:
    """Launch grid of ``quantize_kernel`` (same tiles: ``rows_per_program`` / ``block_k`` / ``small_m`` /
    ``mid_*``) for X [M, K]: the tile its ``scf.if``s choose for these M and K (``QuantizeConfig.tile_for``).
    M and K must be positive ints: an empty X has no tile to launch a program for."""
    from compiler.launch_plan import MAX_GRID

    for name, value in (("m", m), ("k", k), ("rows_per_program", rows_per_program), ("block_k", block_k),
                        ("mid_rows", mid_rows), ("mid_block_k", mid_block_k)):
        check_int("quantize_grid", name, value, least=1)
    for name, value in (("small_m", small_m), ("mid_values", mid_values)):
        check_int("quantize_grid", name, value, least=0)  # 0: no such tile
    rows, tile_k = _tile(m, k, rows_per_program, block_k, small_m, mid_rows, mid_block_k, mid_values)
    grid = (-(-k // tile_k), -(-m // rows), 1)
    check_grid_x("quantize_grid", grid[0], f"K = {k} needs", f"one per {tile_k} values of a row", "K")
    most_rows = MAX_GRID[1]  # CUDA's gridDim.y: row tiles per launch
    if grid[1] > most_rows:
        raise ValueError(f"quantize_grid: M = {m} needs {grid[1]} row tiles of {rows}, more than gridDim.y "
                         f"allows ({most_rows}); use a larger rows_per_program")
    return grid


__all__ = ["QUANTIZE_FORMATS", "QuantizeConfig", "quantize_grid", "quantize_kernel"]

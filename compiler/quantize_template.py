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
``lanes`` strategy: many programs for few rows, for latency), chosen by a uniform
``scf.if`` on M; ``quantize_grid`` sizes y the same way. No program divides its id:
the 2-D grid gives the K tile and the row tile directly.
"""

from __future__ import annotations

from dataclasses import dataclass

QUANTIZE_FORMATS = ("q8_1", "q8_1_mmq")
"""What ``qdot.quantize`` produces (``QUANTIZE_FORMATS`` of dialects/qdot/kernel.py, which this
module cannot import: the GPU machine builds kernel sources without xDSL installed)."""
MAX_GRID_Y = 65535
"""CUDA's limit on gridDim.y: row tiles per launch."""


def _dispatches(rows_per_program: int, small_m: int) -> bool:
    """Whether a kernel with these tiles chooses a one-row tile for M ≤ small_m (the kernel's
    ``scf.if`` and ``quantize_grid`` must agree)."""
    return small_m > 0 and rows_per_program > 1


@dataclass(frozen=True)
class QuantizeConfig:
    fmt: str = "q8_1_mmq"
    rows_per_program: int = 8
    """Rows per program when M > small_m; 8 rows of 512 values are 128 groups, one per thread of 4 warps."""
    block_k: int = 512
    """K values per program; a multiple of the block (128 values for q8_1_mmq)."""
    num_warps: int = 4
    small_m: int = 32
    """Largest M quantized one row per program (the lanes strategy); 0: never."""
    zero_output: bool = False
    """Also zero an f32 output Y [M, N] (arguments ``y`` and ``n`` added): a split-K GEMM adds
    into its output, which must hold zeros first, and the quantize kernel runs before it
    anyway — zeroing there saves the GEMM call a launch of its own (a memset node)."""
    launch_dependents: bool = False
    """Start with ``griddepcontrol.launch_dependents`` (``qdot.launch_dependents``, sm_90+): the
    GEMM after it, launched with ``programmatic=True``, is scheduled while this kernel runs."""

    def __post_init__(self) -> None:
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

    @property
    def block_values(self) -> int:
        from compiler.numerics.formats import block_format

        return block_format(self.fmt).block_values

    @property
    def dispatches(self) -> bool:
        """Whether the kernel has a separate one-row tile for M ≤ small_m."""
        return _dispatches(self.rows_per_program, self.small_m)

    @property
    def name(self) -> str:
        small = f"_m{self.small_m}" if self.dispatches else ""
        zero = "_zero_y" if self.zero_output else ""
        pdl = "_pdl" if self.launch_dependents else ""
        return f"quantize_{self.fmt}_{self.rows_per_program}x{self.block_k}_w{self.num_warps}{small}{zero}{pdl}"

    @property
    def zero_cols(self) -> int:
        """Width of the zero tile a program stores per step: one 16-byte run per thread and row."""
        return 4 * 32 * self.num_warps


def quantize_kernel(fmt: str = "q8_1_mmq", rows_per_program: int = 8, block_k: int = 512,
                    num_warps: int = 4, small_m: int = 32, zero_output: bool = False,
                    launch_dependents: bool = False) -> str:
    """The MLIR text of one quantize kernel: ``(x: ptr f32, q: ptr blocks, M, K)``, or with
    ``zero_output`` ``(x, q, y: ptr f32, M, K, N)``, which also zeroes Y [M, N]."""
    cfg = QuantizeConfig(fmt, rows_per_program, block_k, num_warps, small_m, zero_output, launch_dependents)
    bk, bv = cfg.block_k, cfg.block_values
    block = f"!qdot.block<{cfg.fmt}>"
    consts = sorted({1, cfg.rows_per_program, bk, bv, bk // bv} | ({cfg.small_m} if cfg.dispatches else set())
                    | ({cfg.zero_cols} if zero_output else set()))
    grid = (f"grid = (ceil(K/{bk}), M <= {cfg.small_m} ? M : ceil(M/{cfg.rows_per_program}))" if cfg.dispatches
            else f"grid = (ceil(K/{bk}), ceil(M/{cfg.rows_per_program}))")
    lines = [
        f"// {cfg.fmt} quantization of f32 activations (generated by compiler/quantize_template.py).",
        f"//   X [M, K] f32 row-major  ->  Q [M, ceil(K/{bv})] {cfg.fmt} blocks row-major",
        f"// One program per {cfg.rows_per_program}x{bk} tile"
        + (f" (1x{bk} when M <= {cfg.small_m})" if cfg.dispatches else "") + f", {grid} (quantize_grid).",
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
        f"  %off_k = arith.muli %pid_k, %c{bk} : index",
        f"  %off_kb = arith.muli %pid_k, %c{bk // bv} : index",
        f"  %kb = arith.ceildivui %k, %c{bv} : index",
    ]
    if cfg.dispatches:
        lines += [
            f"  %one_row = arith.cmpi ule, %m, %c{cfg.small_m} : index",
            "  scf.if %one_row {",
            *_chain(cfg, 1, "%pid_m", "    ", "_row"),
            "  } else {",
            f"    %off_m = arith.muli %pid_m, %c{cfg.rows_per_program} : index",
            *_chain(cfg, cfg.rows_per_program, "%off_m", "    "),
            "  }",
        ]
    else:
        lines += [f"  %off_m = arith.muli %pid_m, %c{cfg.rows_per_program} : index",
                  *_chain(cfg, cfg.rows_per_program, "%off_m", "  ")]
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def _chain(cfg: QuantizeConfig, rows: int, off_m: str, indent: str, suffix: str = "") -> list[str]:
    """make_desc, load, quantize, store of one ``rows`` × block_k tile at row ``off_m``."""
    bk, bv = cfg.block_k, cfg.block_values
    block = f"!qdot.block<{cfg.fmt}>"
    x_tile = f"{rows}x{bk}xf32"
    q_tile = f"{rows}x{bk // bv}x{block}"
    xd, qd, x, q = (f"%{name}{suffix}" for name in ("x_desc", "q_desc", "x", "q"))
    lines = [
        f"{xd} = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<{x_tile}>",
        f"{qd} = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<{block}> -> !qdot.desc<{q_tile}>",
        f"{x} = qdot.load {xd}[{off_m}, %off_k] : !qdot.desc<{x_tile}> -> tensor<{x_tile}>",
        f"{q} = qdot.quantize {x} format = {cfg.fmt} : tensor<{x_tile}> -> tensor<{q_tile}>",
        f"qdot.store {qd}[{off_m}, %off_kb], {q} : !qdot.desc<{q_tile}>, tensor<{q_tile}>",
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
    return [indent + line for line in lines]


def quantize_grid(m: int, k: int, rows_per_program: int = 8, block_k: int = 512,
                  small_m: int = 32) -> tuple[int, int, int]:
    """Launch grid of ``quantize_kernel`` (same ``rows_per_program`` / ``block_k`` / ``small_m``) for X [M, K]."""
    rows = 1 if _dispatches(rows_per_program, small_m) and m <= small_m else rows_per_program
    grid = (-(-k // block_k), -(-m // rows), 1)
    if grid[1] > MAX_GRID_Y:
        raise ValueError(f"quantize_grid: M = {m} needs {grid[1]} row tiles of {rows}, more than gridDim.y "
                         f"allows ({MAX_GRID_Y}); use a larger rows_per_program")
    return grid


__all__ = ["QUANTIZE_FORMATS", "QuantizeConfig", "quantize_grid", "quantize_kernel"]

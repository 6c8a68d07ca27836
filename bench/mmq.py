"""q8_1 × q4_K GEMM benchmark (issue 6): qdot's MMQ and weights-once kernels on llama.cpp's shapes
(and the same kernels with q4_0, q8_0, q6_K, q5_K, q4_1, q5_0, q5_1, mxfp4, q3_K, q2_K, iq4_nl and iq4_xs weights, ``OTHER_WEIGHTS``;
llama.cpp's q8_0 figures beside them — the anchors have no other).

    python -m bench.mmq --prepare     # here: compile every kernel into the cache
    python -m bench.mmq               # on the GPU machine

What is timed is what llama.cpp's ``test-backend-ops perf -o MUL_MAT`` times: from f32
activations to the f32 output, i.e. the activation quantization kernel
(``qdot.quantize`` → q8_1_mmq), zeroing Y where the kernel splits K, and the GEMM; the
GEMM alone is reported too. Where the GEMM splits K, MUL_MAT's quantize kernel also zeroes
Y (``quantize_kernel(zero_output=True)``), so that a call is two kernels, not a memset and two
kernels; "GEMM" is then the memset and the GEMM. The ``pdl`` decode rows launch the GEMM with
programmatic dependent launch: it may start while the quantize kernel runs and waits for it
first thing (``MmqConfig(wait_previous_grid=True)``, ``quantize_kernel(launch_dependents=True)``); their
MUL_MAT is also timed launched plainly ("no pdl"). A programmatic launch of a one-wave grid takes the
runner's default, dynamic shared memory padded so that an SM holds at most ⌈grid / SMs⌉ of its programs:
launched early with room left on the SMs, such a grid sometimes landed unevenly and took up to 20 % longer
(runs 196–198); capped, none was slower (run 200). llama.cpp cannot be built on the GPU machine (no network),
so its figures are the anchors measured on an H200 (shared/reference/anchors.md); this
run measures the device-to-device copy bandwidth, the HBM reference of the decode goal.
The ``wt`` decode rows read W repacked by ``compiler.mmq_template.tile_weights``
(``MmqConfig(tiled_weights=True)``: ggml's blocks, a tile's rows next to each other), repacked
once before timing; their reference and the weight bytes counted are ggml's layout's. Checks before timing: the quantized activations of the first 64 rows equal
``compiler.numerics.quantize`` byte for byte, and the GEMM's first 64 output rows (all
of them for M ≤ 8) match ``compiler.numerics.dot_scaled`` in float64. Decode timings
are given back-to-back (weights may stay in the 50 MB L2, as in llama.cpp's loop) and
with L2 flushed before every launch (what HBM delivers). Back-to-back timings run as CUDA
graphs of 20 calls (Python cannot submit a 10 µs kernel faster than the GPU runs it).
The split-K decode kernels' split count is ``split_factor``'s with the programs the GPU holds at
once (``resident=``, from the kernel's shared memory and the device; since run 185): a grid that
would leave a short second wave takes another split count.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from compiler.format_table import FORMATS
from compiler.kernel_cache import get_or_compile
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.mmq_choice import ALIGNED_PAIRS, SUB_BLOCK_WEIGHTS
from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel
from compiler.quantize_template import quantize_grid, quantize_kernel

PREFILL_SHAPES = [(512, 3584, 3584), (512, 4096, 4096), (512, 4096, 14336)]
DECODE_SHAPES = [(4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584)]
DECODE_MS = (1, 2, 3, 4, 5, 8)
LLAMA_US = {  # anchors.md, µs per MUL_MAT (quantization included): (n_rows, k) -> {tokens: µs}
    (3584, 3584): {1: 6.46, 2: 8.37, 3: 10.31, 4: 12.38, 5: 14.67, 8: 21.11, 512: 84.55},
    (4096, 4096): {1: 7.23, 2: 9.53, 3: 11.91, 4: 14.09, 5: 16.11, 8: 23.33, 512: 107.16},
    (4096, 14336): {1: 16.79, 2: 22.35, 3: 29.93, 4: 36.45, 5: 45.20, 8: 67.19, 512: 342.76},
    (32768, 8192): {1: 67.44, 8: 288.18},
}
LLAMA_Q8_0_US = {  # the same for q8_0 weights
    (3584, 3584): {1: 8.11, 2: 8.01, 3: 8.72, 4: 10.44, 5: 11.52, 8: 14.42, 512: 80.30},
    (4096, 4096): {1: 8.29, 2: 8.81, 3: 10.35, 4: 12.87, 5: 13.34, 8: 15.90, 512: 100.56},
    (4096, 14336): {1: 22.88, 2: 25.22, 3: 31.16, 4: 34.50, 5: 39.98, 8: 47.28, 512: 302.12},
    (32768, 8192): {1: 85.71, 8: 178.09},
}
LLAMA_BY_WEIGHTS = {"q4_K": LLAMA_US, "q8_0": LLAMA_Q8_0_US}

PREFILL = [  # (label, config, stages)
    ("mmq 64x128 w4 s2 b2", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2), 2),
    ("mmq 128x128 w8", MmqConfig(block_m=128, block_n=128, num_warps=8), 3),
    ("mmq 128x128 w8 s2", MmqConfig(block_m=128, block_n=128, num_warps=8), 2),
    ("mmq 64x128 w8", MmqConfig(block_m=64, block_n=128, num_warps=8), 3),
    ("mmq 128x128 w16 s2", MmqConfig(block_m=128, block_n=128, num_warps=16), 2),
    ("mmq 128x128 w16", MmqConfig(block_m=128, block_n=128, num_warps=16), 3),
    ("mmq 128x128 w8 s2 streamk", MmqConfig(block_m=128, block_n=128, num_warps=8, stream_k=True), 2),
    ("mmq 64x128 w4 s2 b2 streamk", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2,
                                             stream_k=True), 2),
    ("mmq 64x128 w4 s2 b2 wt", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2,
                                         tiled_weights=True), 2),
    ("mmq 128x64 w4 s2 b2", MmqConfig(block_m=128, block_n=64, num_warps=4, min_blocks_per_sm=2), 2),
    ("mmq 128x64 w4 s2 b2 wt", MmqConfig(block_m=128, block_n=64, num_warps=4, min_blocks_per_sm=2,
                                         tiled_weights=True), 2),
]
DECODE = [
    ("small_m 64 w2 splitk s2", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True), 2),
    ("small_m 64 w2 splitk s2 fold=fma", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True), 2),
    ("small_m 64 w2 splitk s2 m1", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1), 2),
    ("small_m 64 w2 splitk s2 pdl",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
               l2_prefetch=128), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
               tiled_weights=True), 2),
    ("small_m 64 w2 splitk s2 pdl wt",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True, tiled_weights=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt padrows",  # choose_mmq's since run 317
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
               tiled_weights=True, pad_block_rows=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt bcast",  # run 319 (H100): 1.00-1.03 x the padrows kernel
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
               tiled_weights=True, broadcast_rhs=True), 2),
    ("small_m 64 w2 splitk s2 pdl wt swfold",  # choose_mmq's since run 317
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True, tiled_weights=True,
               swizzle_fold_buffers=True), 2),
    ("small_m 64 w2 splitk s2 pdl il",
     MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True, interleave_splits=True),
     2),
]
"""A decode kernel runs the shapes' M up to its ``max_m``: the ``m1`` ones serve M = 1 only."""
OTHER_WEIGHTS = [
    (f"{label if FORMATS[weights].min_term else label.replace(' fold=fma', '')} {weights}",
     replace(cfg, weights=weights), stages)
    for weights in ("q4_0", "q8_0", "q6_K", "q5_K", "q4_1", "q5_0", "q5_1", "mxfp4", "q3_K", "q2_K", "iq4_nl", "iq4_xs")
    for label, cfg, stages in PREFILL + DECODE
    if label in ("mmq 64x128 w4 s2 b2", "mmq 64x128 w4 s2 b2 wt", "mmq 128x64 w4 s2 b2 wt", "small_m 64 w2 splitk s2 pdl",
                 "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128", "small_m 64 w2 splitk s2 pdl wt",
                 "small_m 64 w2 splitk s2 m1 fold=fma pdl wt")
] + [
    (f"{label.replace(' fold=fma', '').replace(' s2 ', f' s{stages} ')} kb2 kd512 {weights}",
     replace(cfg, weights=weights, k_blocks=2, k_divisibility=512), stages)
    for weights, stages in ALIGNED_PAIRS.items()
    for label, cfg, _ in DECODE
    if label in ("small_m 64 w2 splitk s2 pdl", "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128")
] + [
    (f"mmq 64x64 w4 s2 b2{' wt' if tiled else ''} {weights}",
     MmqConfig(block_m=64, block_n=64, num_warps=4, min_blocks_per_sm=2, weights=weights, tiled_weights=tiled), 2)
    for weights in SUB_BLOCK_WEIGHTS for tiled in (False, True)
]
"""The goal kernels of q4_K (the prefill one; the decode ones for M ≤ 8 and for M = 1, reading ggml's
layout or ``tile_weights``') with the other weight blocks: eight 32-value blocks per K step (q4_0, q8_0)
or one q6_K super-block, no dmin fold (so no ``fold=`` in their labels), or one q5_K super-block with q4_K's
dmin fold (its labels keep q4_K's ``fold=``), or eight q4_1 / q5_1 blocks, whose + m is folded as q4_K's
dmin term (their labels keep ``fold=`` too), or eight q5_0 or mxfp4 blocks (no min), or one q3_K super-block
(q6_K's plan, no min), or one q2_K super-block (its mins per 16 values a second mma, no ``fold=``), or eight iq4_nl blocks (no min), or one iq4_xs super-block (iq4_nl's codes, a packed 6-bit scale per 32
values, no min); and q6_K's, q3_K's and q2_K's ggml-order decode kernels with two super-blocks per stage and K a
multiple of 512 (``kb2 kd512``: q6_K's and q3_K's pairs 4-aligned, copied by 4-byte cp.async where one block
goes 2 bytes at a time, in one stage — runs 222–223 and 227: 1.40–1.49 × faster for q6_K's one-token kernel —;
q2_K's 8-aligned, by 8-byte chunks instead of 4, two stages, runs 225–226: 0.91–1.01 × the one-block kernels'
time); and the prefill kernel on a 64 × 64 tile for the formats of 16-value sub-blocks (``SUB_BLOCK_WEIGHTS``)."""

QUANTIZERS = {(zero, pdl): quantize_kernel("q8_1_mmq", zero_output=zero, launch_dependents=pdl)
              for zero, pdl in ((False, False), (True, False), (False, True), (True, True))}
"""MUL_MAT's first kernel, by (whether it also zeroes Y — where the GEMM splits K —, whether it
lets the GEMM after it launch early: ``launch_dependents``, for the ``pdl`` GEMMs)."""


def compile_kernels(entries: list[tuple[str, MmqConfig, int]]) -> list:
    """(label, config, stages, compiled kernel) for each (label, config, stages) of ``PREFILL`` /
    ``DECODE`` form; a ``fold=…`` label picks that pipeline (``_pipeline``)."""
    return [(label, cfg, stages, get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8",
                                                num_stages=stages, pipeline=_pipeline(label, stages)))
            for label, cfg, stages in entries]


def compile_all() -> tuple[list, dict[bool, object]]:
    """The GEMM kernels, and the quantize kernels by whether they also zero Y."""
    return compile_kernels(PREFILL + DECODE + OTHER_WEIGHTS), compile_quantizers()


def compile_quantizers() -> dict[tuple[bool, bool], object]:
    """The compiled quantize kernels, keyed as ``QUANTIZERS``."""
    return {key: get_or_compile(source, arch="sm_90") for key, source in QUANTIZERS.items()}


def load_quantizers(compiled: dict[tuple[bool, bool], object]) -> dict[tuple[bool, bool], object]:
    """``compile_quantizers``' kernels loaded on the GPU, keyed as ``QUANTIZERS``."""
    from targets.ptx.runner import load

    return {zero: load(c.ptx, c.kernels[0]) for zero, c in compiled.items()}


def measuring_setup(cupy, quantizers_compiled: dict[tuple[bool, bool], object]) -> tuple:  # noqa: ANN001
    """What ``measure`` needs besides the kernel, on the GPU machine: the quantize kernels loaded
    (``load_quantizers``), a fresh random generator (new inputs every run) and a 256 MiB buffer
    whose writes flush L2 before the cold MUL_MAT timings."""
    return load_quantizers(quantizers_compiled), np.random.default_rng(), cupy.empty(256 << 20, dtype=cupy.uint8)


def load_kernels(kernels: list) -> list[tuple]:
    """``compile_kernels``' entries loaded on the GPU as (label, config, stages, loaded kernel, kernel info), each
    logged with its shared memory, registers, local memory and resident programs (the experiments' first lines)."""
    from bench.gpu_common import log
    from targets.ptx.runner import load

    loaded = [(label, cfg, stages, load(c.ptx, c.kernels[0]), c.kernels[0]) for label, cfg, stages, c in kernels]
    for label, _cfg, _stages, kernel, info in loaded:
        log(f"{label}: {info.shared_bytes} B, {kernel.registers} registers, {kernel.local_bytes} B local, "
            f"{kernel.resident_programs()} resident")
    return loaded


def time_over_shapes(program: str, kernels: list, quantizers_compiled: dict, shapes: tuple,
                     ms_of: Callable[[MmqConfig], Sequence[int]]) -> None:
    """On the GPU machine (``program`` names the command for the no-GPU message): load ``kernels`` (logged, as
    ``load_kernels``), then check and time each at every (N, K) of ``shapes`` and every M of ``ms_of(cfg)``, recording
    each row — the experiments' measuring loop, one shape at a time (the memory pool freed between shapes)."""
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit(program)
    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    loaded = load_kernels(kernels)
    for n, k in shapes:
        for label, cfg, stages, kernel, info in loaded:
            for m in ms_of(cfg):
                record(measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush))
        cupy.get_default_memory_pool().free_all_blocks()


def _label_options(label: str) -> tuple[str, bool]:
    """The q4k-fold a label's ``fold=…`` word asks for (``auto`` without one) and whether its copies stay guarded
    (no ``unguarded`` word): what ``_pipeline`` compiles the label with and ``kernel_config`` moves into the
    kernel."""
    words = label.split()
    return next((word.split("=")[1] for word in words if word.startswith("fold=")), "auto"), "unguarded" not in words


PADDED_ROWS_WORD = "padrows"
"""A word of a label compiled with ``qdot-accelerate-matmul{pad-block-rows=true}`` (``padded_rows``)."""
SWIZZLED_FOLDS_WORD = "swfold"
"""A word of a label compiled with ``qdot-accelerate-matmul{swizzle-fold-buffers=true}`` (``padded_rows``)."""


def _pipeline(label: str, stages: int) -> str | None:
    """A ``fold=…`` label asks qdot-accelerate-matmul for that q4k-fold, an ``unguarded`` one qdot-pipeline for
    ``guard-copies=false`` (``unguarded``); else the default pipeline."""
    fold, guard = _label_options(label)
    padded, swizzled = PADDED_ROWS_WORD in label.split(), SWIZZLED_FOLDS_WORD in label.split()
    if fold == "auto" and guard and not padded and not swizzled:
        return None
    return ptx_pipeline(PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages, q4k_fold=fold,
                                   guard_copies=guard, pad_block_rows=padded, swizzle_fold_buffers=swizzled))


def kernel_config(label: str, cfg: MmqConfig) -> MmqConfig:
    """The configuration whose kernel compiles under the default pipeline to the PTX ``label``'s pipeline gives
    ``cfg``'s (names aside): the label's ``fold=`` (for weights with a min term), ``unguarded``, ``padrows`` and
    ``swfold`` carried by the kernel itself, as ``qdot.q4k_fold``, ``qdot.unguarded_copies``, ``qdot.pad_block_rows``
    and ``qdot.swizzle_fold_buffers`` — the form ``choose_mmq`` returns."""
    fold, guard = _label_options(label)
    words = label.split()
    return replace(cfg, q4k_fold=fold if FORMATS[cfg.weights].min_term else "auto",
                   guard_copies=cfg.guard_copies and guard,
                   pad_block_rows=cfg.pad_block_rows or PADDED_ROWS_WORD in words,
                   swizzle_fold_buffers=cfg.swizzle_fold_buffers or SWIZZLED_FOLDS_WORD in words)


def unguarded(entries: list) -> list:
    """Each entry again, labelled ``… unguarded``: the same kernel through ``qdot-pipeline{guard-copies=false}``,
    whose K split loops copy their share's last tile again instead of testing the K position (run 290's A/B in
    one tree)."""
    return [(f"{label} unguarded", cfg, stages) for label, cfg, stages in entries]


def padded_rows(entries: list, words: str = PADDED_ROWS_WORD) -> list:
    """Each entry again, labelled ``… padrows`` (``… swfold``, ``… padrows swfold``: ``words``): the same kernel
    through ``qdot-accelerate-matmul{pad-block-rows=true}``, whose activation tile's rows are 304 bytes apart instead
    of 288 (``block_dots.padded_row_bytes``), or ``{swizzle-fold-buffers=true}``, whose dmin mma operands are
    swizzled, or both."""
    return [(f"{label} {words}", cfg, stages) for label, cfg, stages in entries]


def selected(only: str | None, labels: Sequence[str] = ()) -> list[tuple[str, MmqConfig, int]]:
    """The (label, config, stages) entries ``--only TEXT`` runs: those whose label contains TEXT, all
    without it; with ``labels`` (``--label``), only those of exactly these labels. A label that names no entry
    raises ``ValueError``: a misspelt goal kernel must not leave a run with nothing timed."""
    unknown = sorted(set(labels) - {label for label, _cfg, _stages in PREFILL + DECODE + OTHER_WEIGHTS})
    if unknown:
        raise ValueError(f"bench.mmq: no kernel is labelled {', '.join(map(repr, unknown))}")
    return [entry for entry in PREFILL + DECODE + OTHER_WEIGHTS
            if (only is None or only in entry[0]) and (not labels or entry[0] in labels)]


def run(quick: bool, only: str | None = None, labels: Sequence[str] = ()) -> None:
    from bench.gpu_common import gpu_or_exit, log, record

    cupy = gpu_or_exit("python -m bench.mmq")

    copy_gbs = copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    from targets.ptx.runner import load

    kernels, quantize_compiled = compile_kernels(selected(only, labels)), compile_quantizers()
    quantizers, rng, flush = measuring_setup(cupy, quantize_compiled)
    for label, cfg, stages, compiled in kernels:
        kernel = load(compiled.ptx, compiled.kernels[0])
        info = compiled.kernels[0]
        shapes = [(m, n, k) for n, k in DECODE_SHAPES for m in DECODE_MS
                  if m in LLAMA_US[(n, k)] and m <= cfg.max_m] if cfg.small_m else PREFILL_SHAPES  # q4_K's shapes
        if quick:
            shapes = shapes[:2]
        for m, n, k in shapes:
            record(measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush))


def measure(cupy, kernel, quantizers, label: str, cfg: MmqConfig, stages: int, info,  # noqa: ANN001, PLR0913
            m: int, n: int, k: int, rng, flush, **split: int) -> dict:
    """Check one kernel on one shape against ``compiler.numerics``, then time it: MUL_MAT
    (quantize + zeroing + GEMM; the quantize kernel of ``load_quantizers`` that zeroes Y
    where the GEMM needs it), the GEMM with its zeroing (a memset), the kernel alone and,
    for the decode kernels, MUL_MAT with L2 flushed. A kernel launched programmatically (``pdl``)
    is also timed in a MUL_MAT launched plainly (``us_mul_mat_no_pdl``): a programmatic launch of a
    one-wave grid with room left on the SMs sometimes cost up to 20 % (runs 196–197) before the runner
    capped its programs per SM by default, and that column is the one that does not depend on where an
    early launch lands. Returns the result row."""
    from bench.gpu_common import log, on_anchor_gpu, time_graph
    from compiler import numerics
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks, reference_of

    w_host = random_weight_blocks(n, k, rng, cfg.weights)
    w = cupy.asarray(w_host)  # ggml's layout: the reference's, and the weight bytes counted
    w_kernel = cupy.asarray(kernel_weights(cfg, w_host)) if cfg.tiled_weights else w  # repacked once, untimed
    x_host = rng.standard_normal((m, k)).astype(np.float32)
    x = cupy.asarray(x_host)
    xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    if cfg.small_m and cfg.split_k and not split:  # no short second wave (split_factor, runs 184–185)
        split = {"resident": kernel.resident_programs()}  # by its shared memory and registers
    grid = mmq_grid(cfg, m, n, k, **split)
    quantize = quantizers[(cfg.needs_zeroed_output, cfg.wait_previous_grid)]
    pdl = cfg.wait_previous_grid
    # the runner's default for a programmatic launch: a one-wave grid capped at ⌈grid / SMs⌉ programs per SM
    # (runs 196–200), a longer one a program per SM fewer where that leaves more than 28 KB of L1 (runs 219–220);
    # QDOT_BENCH_SPREAD=0 launches it with the kernel's own shared memory and the driver's configuration
    spread, carveout = kernel.spread_for(grid, pdl and os.environ.get("QDOT_BENCH_SPREAD", "1") != "0")

    def quantize_x() -> None:
        args = (x, xq, y, m, k, n) if cfg.needs_zeroed_output else (x, xq, m, k)
        quantize.launch(*args, grid=quantize_grid(m, k), sync=False)

    def kernel_only() -> None:
        kernel.launch(xq, w_kernel, y, m, n, k, grid=grid, sync=False)

    def gemm() -> None:
        if cfg.needs_zeroed_output:
            y.data.memset_async(0, y.nbytes)  # a memset node: cheaper than a fill kernel in a graph
        kernel_only()

    def mul_mat() -> None:
        quantize_x()  # zeroes Y too where the kernel splits K
        # a pdl GEMM may start while the quantize kernel runs; it waits for it first thing
        kernel.launch(xq, w_kernel, y, m, n, k, grid=grid, sync=False, programmatic=pdl, shared_bytes=spread,
                      carveout=carveout)

    def mul_mat_no_pdl() -> None:  # the same two kernels, the GEMM launched when the quantize kernel has ended
        quantize_x()
        kernel.launch(xq, w_kernel, y, m, n, k, grid=grid, sync=False)

    mul_mat()
    cupy.cuda.get_current_stream().synchronize()
    rows = checked_rows(m, cfg.block_m)
    want = numerics.quantize("q8_1_mmq", x_host[rows]).reshape(len(rows), k // 128, 144)
    quant_ok = bool(np.array_equal(cupy.asnumpy(xq[rows]), want))
    ref = reference_of(want, cupy.asnumpy(w), cfg.weights)
    out = cupy.asnumpy(y[rows]).astype(np.float64)
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
    if not (err <= 1e-5 and quant_ok):  # a kernel that is wrong has no time worth a table
        log(f"{label:24s} M={m:4d} N={n:5d} K={k:5d}: FAILED its check (err {err:.1e}, quant_exact {quant_ok}): "
            "not timed")
        return {"what": f"qdot {label} [{stages} stages]", "shape": f"M={m} N={n} K={k}", "grid": grid,
                "rel_err_checked_rows": err, "quantize_bit_exact": quant_ok, "ok": False, "failed": True}
    us_total = time_graph(cupy, mul_mat)
    us_no_pdl = time_graph(cupy, mul_mat_no_pdl) if pdl else us_total
    us_gemm = time_graph(cupy, gemm)
    us_kernel = time_graph(cupy, kernel_only)  # a split-K kernel accumulates into y here: timing only
    us_quant = time_graph(cupy, quantize_x)  # with the zeroing of Y where the kernel splits K
    llama = LLAMA_BY_WEIGHTS.get(cfg.weights, {}).get((n, k), {}).get(m)
    if not on_anchor_gpu():  # the anchors are an H200's: no speed-up against them from another GPU
        llama = None
    row = {"what": f"qdot {label} [{stages} stages]", "shape": f"M={m} N={n} K={k}", "grid": grid,
           "us_mul_mat": us_total, "us_mul_mat_no_pdl": us_no_pdl, "us_gemm": us_gemm, "us_kernel": us_kernel,
           "us_quantize": us_quant,
           "tflops_mul_mat": 2.0 * m * n * k / us_total / 1e6, "rel_err_checked_rows": err,
           "checked_rows": f"{len(rows)} of {m}",
           "quantize_bit_exact": quant_ok, "ok": err <= 1e-5 and quant_ok,
           "shared_bytes": info.shared_bytes, "launch_shared_bytes": spread, "launch_carveout": carveout,
           "num_warps": info.num_warps,
           "llama_us": llama,
           "speedup_vs_llama": llama / us_total if llama else None}
    weight_bytes = int(w.nbytes)
    if cfg.small_m:
        cold = _time_cold(cupy, mul_mat, flush)
        row.update({"us_mul_mat_l2_flushed": cold, "weight_GBs": weight_bytes / us_total / 1e3,
                    "weight_GBs_l2_flushed": weight_bytes / cold / 1e3,
                    "weight_GBs_kernel": weight_bytes / us_kernel / 1e3})
    log(f"{label:24s} M={m:4d} N={n:5d} K={k:5d} grid {grid}: mul_mat {us_total:8.2f} us "
        f"({f'no pdl {us_no_pdl:7.2f}, ' if pdl else ''}gemm {us_gemm:7.2f}, "
        f"kernel {us_kernel:7.2f}, quantize {us_quant:5.2f})  llama {llama}  err {err:.1e} quant_exact {quant_ok}")
    return row


def checked_rows(m: int, block_m: int) -> np.ndarray:
    """The rows of Y a benchmark checks before it times: the first tile of rows and the last (where a ragged M
    ends), all of them for M ≤ 2 tiles. The first 64 alone left the other warps of a 128-row tile, and every
    tile after the first, unchecked; the float64 reference of all 512 rows at N = K = 4096 would cost device
    time on every kernel and shape."""
    if m <= 2 * block_m:
        return np.arange(m)
    last = (m - 1) // block_m * block_m
    return np.concatenate([np.arange(block_m), np.arange(last, m)])


def copy_bandwidth(cupy) -> float:  # noqa: ANN001
    """Device-to-device copy bandwidth, the decode goal's reference: timed as the kernels are (``time_graph``, the
    GPU's time back to back). Events around one copy (``time_launch``, before session 61) timed Python's launch
    of it too, which made the reference slower and the kernels' share of it larger."""
    from bench.gpu_common import time_graph

    src = cupy.ones(1 << 30, dtype=cupy.uint8)
    dst = cupy.empty_like(src)
    us = time_graph(cupy, lambda: dst.__setitem__(slice(None), src), per_graph=5)
    return 2 * src.nbytes / us / 1e3


def _time_cold(cupy, launch, flush, reps: int = 20) -> float:  # noqa: ANN001
    """The median µs of a launch with L2 flushed before it (a buffer larger than L2 written outside
    the timed events)."""
    from bench.gpu_common import time_launch

    return time_launch(cupy, launch, warmup=0, reps=reps, before_each=lambda: flush.fill(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="environment:\n"
               "  OUT                   where the result rows go (results.jsonl; default /tmp/qdot_bench)\n"
               "  QDOT_KERNEL_CACHE     the kernel cache --prepare fills and the GPU run reads\n"
               "  QDOT_BENCH_SPREAD=0   launch a programmatic grid with the kernel's own shared memory and the\n"
               "                        driver's configuration, not the runner's default: a one-wave grid capped\n"
               "                        at ceil(grid / SMs) programs per SM (runs 196-200), a longer one a program\n"
               "                        per SM fewer where that leaves more than 28 KB of L1 (runs 219-220;\n"
               "                        compiler.mmq_template.spread_launch)")
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--quick", action="store_true", help="first two shapes per kernel")
    parser.add_argument("--only", metavar="TEXT", help="only the kernels whose label contains TEXT (e.g. ' q4_0')")
    parser.add_argument("--label", action="append", default=[], metavar="LABEL",
                        help="only the kernel of exactly this label (repeatable; with --prepare, only these "
                             "and the quantize kernels are compiled)")
    args = parser.parse_args()
    try:
        entries = selected(args.only, args.label)
    except ValueError as error:
        parser.error(str(error))
    if args.prepare:
        from bench.prepare import fill_cache

        built: list = []
        fill_cache(lambda: built.extend(
            [compile_kernels(entries), compile_quantizers()] if args.only or args.label else compile_all()))
        kernels, quantize = built
        for label, _cfg, stages, compiled in kernels:
            info = compiled.kernels[0]
            print(f"{label:24s} {stages} stages: smem {info.shared_bytes} B, {info.num_warps} warps")
        for (zero, pdl), compiled in quantize.items():
            print(f"quantize{' (zeroes Y)' if zero else ''}{' (pdl)' if pdl else ''}: "
                  f"smem {compiled.kernels[0].shared_bytes} B")
        return
    run(args.quick, args.only, args.label)


if __name__ == "__main__":
    main()

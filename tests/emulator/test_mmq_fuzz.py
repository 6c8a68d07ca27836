"""Random q8_1 × q4_K kernels: every one compiles to a located diagnostic or to a kernel that computes the right thing.

``compiler.mmq_template.mmq_kernel`` over random ``MmqConfig``s — weight formats (q4_K, and
q4_0 / q8_0 / q6_K / q5_K / q4_1 / q5_0 / q5_1 / mxfp4 / q3_K / q2_K / iq4_nl / iq4_xs half as often), prefill
tiles, warps, ``group_m``, occupancy, stream-K grids and ``k_blocks``; decode tiles, split-K with random split
heuristics, ``max_m``, ``k_blocks`` and ``k_divisibility``; half the stream-K and split-K kernels with their fix-up
kernel (``mmq_fixup_kernel``, run after them on the emulator) — half of those with the fix-up in the GEMM
(``fixup_in_gemm``, its programs run in a random order; half of those decode ones quantizing X themselves,
``quantize_in_gemm``) —, some of the others with interleaved splits, some split-K ones unguarded
(``guard_copies=False``), some with a min term carrying their own fold (``q4k_fold``), some with padded block rows
or swizzled fold operands (``pad_block_rows``, ``swizzle_fold_buffers``), half the one-token ones reading token 0 as
every column (``broadcast_rhs``); W in ggml's order or repacked (``tiled_weights``) —
crossed with pipeline depths, ``q4k-fold`` modes and targets, on random ragged shapes. The hand-picked cases of
test_mmq_emulated.py cover each option once; the bugs this fuzz is for live where options meet: a K step of several
super-blocks under a fold or a stage count it was not tried with (the fold's dmin scale
shape was one), a split or stream-K share that ends inside a K step or a tile, masked
loads and stores at ragged M, N and K tails, a ``max_m`` bound that writes rows it must
leave or skips rows it must write, a tile/warp split the layouts do not cover that
crashes instead of being refused, a pass whose output IR does not verify.

A compile may fail only with a ``QdotError`` (a diagnostic at an op), never with a
``PassOutputError``, an unlocated diagnostic or any other exception. A kernel that
compiles runs on the emulator into a NaN-poisoned Y (zeros where the kernel adds into Y,
split-K and stream-K) and must match ``compiler.numerics`` (tests/gpu/mmq_harness.py's
inputs and check) on the rows it serves — min(M, max_m) for a decode kernel — and leave
the rows past them as they were. The test runs 16 fixed seeds (a draw refused with a
located diagnostic passes, as in test_template_fuzz.py); longer runs find more and print
every failure as it comes, then a summary with the refusals grouped by message:

    python -m tests.emulator.test_mmq_fuzz --seed 3 --seconds 1200

(one process per core with different seeds; a draw takes about a second.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace

import numpy as np
import pytest

from compiler.format_table import FORMATS
from compiler.diagnostics import PassOutputError, QdotError, location_of
from compiler.mmq_template import (SMALL_M_MAX, SMALL_M_WIDEST, MmqConfig, fixup_counters_shape, fixup_grid,
                                   fixup_kernel_name, fixup_scalars, fixup_workspace_shape, mmq_fixup_kernel,
                                   mmq_grid, mmq_kernel, quantize_scratch_shape)
from compiler.pipelines import Q4K_FOLDS, PtxOptions
from targets.ptx.emulator import LaunchOptions, emulate
from tests.emulator.fuzz_loop import long_run
from tests.emulator.lowering import lower
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, reference

ARCHES = ("sm_90", "sm_90", "sm_90a", "sm_80", "sm_120a")
TILES = (16, 32, 64, 128)
WEIGHTS = ("q4_K", "q4_K", "q4_0", "q8_0", "q6_K", "q5_K", "q4_1", "q5_0", "q5_1", "mxfp4", "q3_K", "q2_K", "iq4_nl",
           "iq4_xs")


@dataclass(frozen=True)
class Draw:
    cfg: MmqConfig
    arch: str
    fold: str
    stages: int
    shape: tuple[int, int, int]
    launch: tuple[tuple[str, int], ...] = ()
    """``mmq_grid``'s keyword arguments: stream-K ``programs``, split-K's split overrides."""

    def __str__(self) -> str:
        m, n, k = self.shape
        launch = "".join(f" {key}={value}" for key, value in self.launch)
        cfg = ", ".join(f"{f.name}={getattr(self.cfg, f.name)!r}" for f in fields(MmqConfig)
                        if getattr(self.cfg, f.name) != f.default)
        return f"MmqConfig({cfg}) {self.arch} fold={self.fold} stages={self.stages} M={m} N={n} K={k}{launch}"

    @property
    def rows(self) -> int:
        """The rows of Y the kernel computes."""
        return min(self.shape[0], self.cfg.max_m) if self.cfg.small_m else self.shape[0]


def draw(rng: random.Random) -> Draw:
    k = 256 * rng.choice([1, 1, 2, 3, 4, 5, 8])
    if rng.random() < 0.5:  # decode
        cfg = MmqConfig(small_m=True, weights=rng.choice(WEIGHTS), block_n=rng.choice(TILES),
                        num_warps=rng.choice([1, 2, 4]),
                        split_k=rng.random() < 0.5,
                        max_m=rng.choice([1, SMALL_M_MAX, rng.randint(1, SMALL_M_MAX),
                                          rng.randint(SMALL_M_MAX + 1, SMALL_M_WIDEST)]),
                        k_blocks=rng.choice([1, 2, 4]), min_blocks_per_sm=rng.choice([0, 2]))
        if cfg.k_blocks == 1 and rng.random() < 0.5:
            cfg = replace(cfg, tiled_weights=True)  # W repacked by tile_weights
        m, n = rng.randint(1, max(SMALL_M_MAX, cfg.max_m)), rng.randint(1, 200)
        launch = dict(target=rng.choice([1, 4, 16, 1024]), max_splits=rng.randint(1, 16),
                      min_blocks=rng.randint(1, 4)) if cfg.split_k else {}
    else:  # prefill
        cfg = MmqConfig(weights=rng.choice(WEIGHTS), block_m=rng.choice(TILES), block_n=rng.choice(TILES),
                        num_warps=rng.choice([1, 2, 4, 8]),
                        group_m=rng.choice([1, 2, 8]), stream_k=rng.random() < 0.4,
                        min_blocks_per_sm=rng.choice([0, 2]), tiled_weights=rng.random() < 0.3)
        if not (cfg.stream_k or cfg.tiled_weights) and rng.random() < 0.3:
            cfg = replace(cfg, k_blocks=rng.choice([2, 4]))  # several K steps per stage
        m, n = rng.randint(1, 150), rng.randint(1, 200)
        launch = {"programs": rng.randint(1, 20)} if cfg.stream_k else {}
    if rng.random() < 0.3:  # the kernel told K is a multiple of more (2-aligned blocks in 4-aligned pairs)
        cfg = replace(cfg, k_divisibility=rng.choice([512, 1024]))
        k = cfg.k_divisibility * rng.choice([1, 2, 3])
    d = Draw(cfg, rng.choice(ARCHES), rng.choice(Q4K_FOLDS), rng.choice([1, 2, 3]), (m, n, k),
             tuple(launch.items()))
    if (cfg.stream_k or cfg.split_k) and rng.random() < 0.5:  # drawn last: earlier draws stay those of older seeds
        d = replace(d, cfg=replace(cfg, fixup=True))
    if d.cfg.split_k and not d.cfg.fixup and rng.random() < 0.3:  # after the fix-up, for the same reason
        d = replace(d, cfg=replace(d.cfg, interleave_splits=True))  # a run-time loop step (qdot-pipeline's select)
    if d.cfg.small_m and d.cfg.split_k and not d.cfg.interleave_splits and rng.random() < 0.3:  # these last too
        d = replace(d, cfg=replace(d.cfg, prefetch_steps=rng.randint(1, 4)))  # L2 prefetches before the K loop
    if d.arch != "sm_80" and rng.random() < 0.2:  # griddepcontrol (sm_90+), W's reads ahead of it or not
        d = replace(d, cfg=replace(d.cfg, wait_previous_grid=True, weights_before_wait=rng.random() < 0.7))
    if d.cfg.fixup and rng.random() < 0.5:  # last: the others' draws stay
        d = replace(d, cfg=replace(d.cfg, fixup_in_gemm=True))  # the last program of a tile sums its pieces
        if d.cfg.small_m and not d.cfg.interleave_splits and rng.random() < 0.5:  # one launch: X quantized in it
            d = replace(d, cfg=replace(d.cfg, quantize_in_gemm=True))
    if d.cfg.small_m and d.cfg.split_k and rng.random() < 0.3:  # the kernel's qdot.unguarded_copies: copies ahead
        d = replace(d, cfg=replace(d.cfg, guard_copies=False))  # past a share's end take its last tile again
    if FORMATS[d.cfg.weights].min_term and rng.random() < 0.3:  # the kernel's qdot.q4k_fold, under any pass option
        d = replace(d, cfg=replace(d.cfg, q4k_fold=rng.choice(["mma", "fma"])))
    if rng.random() < 0.25:  # the kernel's qdot.pad_block_rows / qdot.swizzle_fold_buffers (run 317's layouts)
        pad = rng.random() < 0.6
        d = replace(d, cfg=replace(d.cfg, pad_block_rows=pad, swizzle_fold_buffers=not pad or rng.random() < 0.5))
    if d.cfg.small_m and d.cfg.max_m == 1 and rng.random() < 0.5:  # the kernel's qdot.broadcast_rhs (last, as above)
        d = replace(d, cfg=replace(d.cfg, broadcast_rhs=True))
    return d


def _compiled(text: str, name: str, options: PtxOptions):  # noqa: ANN202 - xDSL ModuleOp
    return lower(text, name, options)


class Refused(Exception):
    """The compiler declined a ``Draw`` with a located diagnostic (the message, without the location)."""


def run(d: Draw, seed: int) -> str | None:
    """None when ``d`` computes the right result; else the problem. Raises ``Refused``."""
    options = PtxOptions(arch=d.arch, strategy="promote-int8", num_stages=d.stages, q4k_fold=d.fold)
    try:
        module = _compiled(mmq_kernel(d.cfg), d.cfg.name, options)
        if d.cfg.fixup and not d.cfg.fixup_in_gemm:
            _compiled(mmq_fixup_kernel(d.cfg), fixup_kernel_name(d.cfg), options)  # refusals of it count too
    except PassOutputError as err:  # a pass built IR that does not verify: a bug, not a refusal
        return f"{d}: {err.render()}"
    except QdotError as err:
        if location_of(err.op) == "<unknown>":
            return f"{d}: unlocated diagnostic: {err.render()}"
        raise Refused(err.render().split(": error: ", 1)[1]) from None
    except Exception as err:  # noqa: BLE001 - the point: any other exception is a bug
        return f"{d}: compile raised {type(err).__name__}: {err}"
    m, n, k = d.shape
    case = MmqCase(d.cfg, m, n, k, d.stages)
    data = make_inputs(case, np.random.default_rng(seed))
    y = np.full((m, n), np.nan, dtype=np.float32)
    if d.cfg.needs_zeroed_output:  # the kernel adds into Y: zeros to add to, and past the rows it
        y[:d.rows], y[d.rows:] = 0.0, 1.0  # serves a number, which an addition changes (NaN + x is NaN)
    untouched = y[d.rows:].copy()
    grid = mmq_grid(d.cfg, d.rows, n, k, **dict(d.launch))
    try:
        # the grid of the rows served: mmq_grid refuses M > max_m, the kernel must still bound it
        if d.cfg.fixup_in_gemm:  # the pieces go to a NaN workspace, the last program of a tile adds them into Y;
            parts = np.full(fixup_workspace_shape(d.cfg, grid, n), np.nan, dtype=np.float32)  # programs in any order
            counts = np.zeros(fixup_counters_shape(d.cfg, m, n), dtype=np.int32)
            order = [int(i) for i in np.random.default_rng(seed).permutation(grid[0] * grid[1] * grid[2])]
            x_args = ([data["x_f32"], np.zeros(quantize_scratch_shape(d.cfg, grid, n, k), dtype=np.uint8)]
                      if d.cfg.quantize_in_gemm else [data["x"]])  # X as f32 and its scratch, or quantized
            emulate(module, d.cfg.name, [*x_args, kernel_weights(d.cfg, data["w"]), y, parts, counts, m, n, k],
                    grid, options=LaunchOptions(ctas=order))
            if counts.any():
                return f"{d}: counters left at {counts}"
        elif d.cfg.fixup:  # the pieces go to a NaN workspace, and the fix-up kernel adds them into Y
            parts = np.full(fixup_workspace_shape(d.cfg, grid, n), np.nan, dtype=np.float32)
            emulate(module, d.cfg.name, [data["x"], kernel_weights(d.cfg, data["w"]), y, parts, m, n, k], grid)
            emulate(_compiled(mmq_fixup_kernel(d.cfg), fixup_kernel_name(d.cfg), options), fixup_kernel_name(d.cfg),
                    [y, parts, *fixup_scalars(d.cfg, grid, m, n, k)], fixup_grid(d.cfg, m, n))
        else:
            emulate(module, d.cfg.name, [data["x"], kernel_weights(d.cfg, data["w"]), y, m, n, k], grid)
    except Exception as err:  # noqa: BLE001 - an out-of-bounds access, a race, ...: the kernel's bug
        return f"{d}: emulate raised {type(err).__name__}: {err}"
    ok, err = check(y[:d.rows], reference(case, data)[:d.rows])
    if not ok:
        return f"{d}: relative error {err:.3e}"
    if not np.array_equal(y[d.rows:], untouched, equal_nan=True):
        return f"{d}: wrote rows past max_m = {d.cfg.max_m}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("index", range(16))
def test_random_mmq_kernel(index: int) -> None:
    d = draw(random.Random(20261201 + index))
    try:
        problem = run(d, seed=index)
    except Refused:
        return  # a located diagnostic is a right answer for a config the layouts do not cover
    assert problem is None, problem


def main() -> None:
    long_run(__doc__.split("\n\n")[0], draw, run, refusal=Refused)


if __name__ == "__main__":
    main()

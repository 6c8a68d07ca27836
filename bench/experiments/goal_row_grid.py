"""Experiment: the one-token goal row (M = 1, N = 4096, K = 14336) over the repacked one-token kernel's tile heights
and K-split counts, MUL_MAT as ``bench.mmq`` measures it, to see whether any grid beats ``choose_mmq``'s.

    python -m bench.prepare experiments.goal_row_grid     # here: the kernels into the cache
    python -m bench.experiments.goal_row_grid [--rounds R] [--shapes]  # on the GPU machine, with that cache

Run 158 swept the same space for the kernel of then (nothing under 11.3 µs, its default 11.4); since then the
kernel's scale loads changed (run 272: 10.60 µs), so the best tile and split count may have moved. The decode
program is a chain of K steps after a fixed start (prologue, pipeline fill, the split-K addition): fewer splits make
the chain longer, more make more programs and more additions. Each kernel is first run at its default grid (the
resident-aware ``split_factor`` of ``bench.mmq.measure``), then at each forced split count whose grid fits in one
wave of resident programs. Every row is checked against ``compiler.numerics`` before it is timed.

Run 279 (on an H100, fortieth session; bench/RESULTS.md): no tile or split count more than 2.5 % under the default,
the spread between two rows of one grid. Run 286 (an H200): one warp per 64 rows (``small_m 64 w1``) on the default
grid 0.97 × the goal kernel's MUL_MAT time. ``--shapes`` times that tile and the goal kernel's on their default grids
at the four decode shapes (``DECODE_SHAPES``), interleaved, to see whether the one warp is faster elsewhere too.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as bm

GOAL = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"
TILES = ((64, 2), (32, 1), (64, 1), (128, 4), (128, 2), (16, 1))
"""(weight rows per program, warps), the goal kernel's (64, 2) first: a run cut short still has its reference."""
SPLITS = (4, 7, 8, 14, 19, 28)
"""Forced K-split counts: 56 super-blocks in 14, 8, 7, 4, 3 or 2 per split (19 splits: 3 each, the last 2)."""
SHAPE = (4096, 14336)
DECODE_SHAPES = ((4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584))
ONE_WARP = GOAL.replace("small_m 64 w2", "small_m 64 w1")


def entries() -> list:
    """The goal kernel at each tile: (label, config, stages)."""
    base = {label: (cfg, stages) for label, cfg, stages in bm.DECODE}[GOAL]
    out = []
    for rows, warps in TILES:
        label = GOAL.replace("small_m 64 w2", f"small_m {rows} w{warps}")
        out.append((label, replace(base[0], block_n=rows, num_warps=warps), base[1]))
    return out


def compile_all() -> list:
    """Every kernel ``main`` times (``python -m bench.prepare experiments.goal_row_grid``)."""
    bm.compile_quantizers()
    return bm.compile_kernels(entries())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds, the kernels' order reversed every other one")
    parser.add_argument("--shapes", action="store_true",
                        help=f"'{GOAL}' and '{ONE_WARP}' on their default grids at the four decode shapes")
    args = parser.parse_args()

    from bench.gpu_common import gpu_or_exit, log, record
    from compiler.mmq_template import mmq_grid

    cupy = gpu_or_exit("python -m bench.experiments.goal_row_grid")
    quantizers, rng, flush = bm.measuring_setup(cupy, bm.compile_quantizers())
    loaded = bm.load_kernels(compile_all())
    copy_gbs = bm.copy_bandwidth(cupy)  # the goal's reference, in the same run
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    if args.shapes:
        pair = [entry for entry in loaded if entry[0] in (GOAL, ONE_WARP)]
        assert len(pair) == 2, [entry[0] for entry in loaded]
        for round_ in range(args.rounds):
            for n, k in DECODE_SHAPES:
                for label, cfg, stages, kernel, info in (pair if round_ % 2 == 0 else pair[::-1]):
                    record({**bm.measure(cupy, kernel, quantizers, label, cfg, stages, info, 1, n, k, rng, flush),
                            "split": "default", "round": round_})
            cupy.get_default_memory_pool().free_all_blocks()
        return
    n, k = SHAPE
    for round_ in range(args.rounds):
        for label, cfg, stages, kernel, info in (loaded if round_ % 2 == 0 else loaded[::-1]):
            resident = kernel.resident_programs()
            record({**bm.measure(cupy, kernel, quantizers, label, cfg, stages, info, 1, n, k, rng, flush),
                    "split": "default", "round": round_})
            tiles = -(-n // cfg.block_n)
            for splits in SPLITS:
                forced = {"target": tiles * splits, "max_splits": splits, "min_blocks": 1}
                grid = mmq_grid(cfg, 1, n, k, **forced)
                if grid[0] * grid[1] > resident:
                    log(f"{label}: {splits} splits, grid {grid}: more programs than the {resident} resident, skipped")
                    continue
                record({**bm.measure(cupy, kernel, quantizers, label, cfg, stages, info, 1, n, k, rng, flush,
                                     **forced), "split": splits, "round": round_})
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

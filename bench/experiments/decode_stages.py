"""Experiment: cp.async stages of the one-token decode kernel now that it has the L2 hint (run 63).

    python -m bench.experiments.decode_stages --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_stages             # on the GPU machine (run 63)
    python -m bench.experiments.decode_stages --splits    # run 79: stages × split counts
    python -m bench.experiments.decode_stages --small     # run 105: the same at the small shapes

Run 7 chose 2 stages for the decode kernel, before the FMA fold, ``max_m = 1`` and the
``.L2::128B`` hint. Run 59 put the hinted access pattern at 87 % of copy bandwidth with copies
alone, the kernel at 77 %: with one copy in flight per program while it computes, does a deeper
ring (fewer programs per SM, more bytes in flight each) close some of that? The best decode
kernel's configuration (FMA fold, programmatic launch, L2 hint) at 2, 3 and 4 stages on four
tiles, at the two goal shapes, each through ``bench.mmq.measure`` (checked, then timed).

``--splits`` (run 79): run 63 kept the default split counts, which fill the GPU in one wave of
2-stage programs (8 per SM); a deeper ring fits fewer programs per SM, and the same grid then
needs a second wave (run 77 found one program per SM less costs 18 % at 32768 × 8192 for that
reason). This times the 64-row tile at 2, 3 and 4 stages with each split count whose grid fits
one wave of that stage count, and the defaults.

``--small`` (run 105): at 4096 × 4096 and 3584 × 3584 a split is two super-blocks, so a
2-stage program waits for its second tile only after its first has landed (two copy latencies
in a row), where a third stage has both in flight from the start; and those grids (512 and 392
programs) fit one wave of 3-stage programs (5 per SM). The 64-row tile at 2 and 3 stages, for
M = 1 (the one-token kernel) and M = 1 and 8 (the M ≤ 8 kernel), with each split count that
keeps a whole number of super-blocks per split.
"""

from __future__ import annotations

import argparse
import json

from bench.mmq import compile_kernels, compile_quantizers
from compiler.mmq_template import MmqConfig

TILES = ((64, 2), (128, 2), (128, 4), (32, 1))
STAGES = (2, 3, 4)
SHAPES = ((32768, 8192), (4096, 14336))


def kernels() -> list[tuple[str, MmqConfig, int]]:
    return [(f"small_m {bn} w{warps} splitk s{stages} m1 fold=fma pdl l2p128",
             MmqConfig(small_m=True, block_n=bn, num_warps=warps, split_k=True, max_m=1, wait_previous_grid=True,
                       l2_prefetch=128), stages)
            for bn, warps in TILES for stages in STAGES]


SPLITS = {(32768, 8192): (1, 2, 3, 4), (4096, 14336): (4, 7, 8, 10, 12, 14)}
SMALL_SPLITS = {(4096, 4096): (4, 8, 16), (3584, 3584): (7, 14)}


def small_kernels() -> list[tuple[str, MmqConfig, int]]:
    """``--small``: the benchmark's one-token and M ≤ 8 decode kernels at 2 and 3 stages."""
    one_token = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                          l2_prefetch=128)
    up_to_8 = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)
    return [(f"small_m 64 w2 splitk s{stages} {name}", cfg, stages)
            for name, cfg in (("m1 fold=fma pdl l2p128", one_token), ("pdl", up_to_8)) for stages in (2, 3)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    parser.add_argument("--splits", action="store_true", help="the 64-row tile at each split count (run 79)")
    parser.add_argument("--small", action="store_true", help="2 and 3 stages at the small decode shapes (run 105)")
    args = parser.parse_args()
    compiled = compile_kernels(small_kernels() if args.small else kernels())
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import record
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    if args.splits:
        _splits(cupy, compiled, quantizers, rng, flush)
        return
    if args.small:
        _small(cupy, compiled, quantizers, rng, flush)
        return
    for label, cfg, stages, kernel in compiled:
        loaded = load(kernel.ptx, kernel.kernels[0])
        for n, k in SHAPES:
            row = measure(cupy, loaded, quantizers, label, cfg, stages, kernel.kernels[0], 1, n, k, rng, flush)
            record(row)
            print("ROW", json.dumps({"kernel": label, "shape": row["shape"], "grid": row["grid"], "ok": row["ok"],
                                     "smem": kernel.kernels[0].shared_bytes, "mul_mat": round(row["us_mul_mat"], 2),
                                     "kernel_us": round(row["us_kernel"], 2),
                                     "kernel_GBs": round(row["weight_GBs_kernel"]),
                                     "flushed": round(row["us_mul_mat_l2_flushed"], 2)}), flush=True)


def _splits(cupy, compiled, quantizers, rng, flush) -> None:  # noqa: ANN001
    from bench.gpu_common import record
    from bench.mmq import measure
    from targets.ptx.runner import load

    for rep in range(2):
        for label, cfg, stages, kernel in compiled:
            if cfg.block_n != 64:
                continue
            loaded = load(kernel.ptx, kernel.kernels[0])
            for (n, k), counts in SPLITS.items():
                for splits in (None, *counts):
                    split = {} if splits is None else {"max_splits": splits, "target": 1 << 20, "min_blocks": 1}
                    row = measure(cupy, loaded, quantizers, label, cfg, stages, kernel.kernels[0], 1, n, k, rng,
                                  flush, **split)
                    row.update({"experiment": "decode_stages_splits", "rep": rep, "splits": splits})
                    record(row)
                    print("ROW", json.dumps({"kernel": label, "shape": row["shape"], "grid": row["grid"],
                                             "ok": row["ok"], "smem": kernel.kernels[0].shared_bytes,
                                             "mul_mat": round(row["us_mul_mat"], 2),
                                             "kernel_us": round(row["us_kernel"], 2),
                                             "kernel_GBs": round(row["weight_GBs_kernel"])}), flush=True)


def _small(cupy, compiled, quantizers, rng, flush) -> None:  # noqa: ANN001
    from bench.gpu_common import record
    from bench.mmq import measure
    from targets.ptx.runner import load

    loaded = [(label, cfg, stages, kernel.kernels[0], load(kernel.ptx, kernel.kernels[0]))
              for label, cfg, stages, kernel in compiled]
    for rep in range(2):
        for (n, k), counts in SMALL_SPLITS.items():
            for m in (1, 8):
                for label, cfg, stages, info, kernel in loaded:
                    if m > cfg.max_m:
                        continue
                    for splits in counts:
                        split = {"max_splits": splits, "target": 1 << 20, "min_blocks": 1}
                        row = measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush, **split)
                        row.update({"experiment": "decode_stages_small", "rep": rep, "splits": splits})
                        record(row)
                        print("ROW", json.dumps({"kernel": label, "shape": row["shape"], "grid": row["grid"],
                                                 "ok": row["ok"], "smem": info.shared_bytes,
                                                 "mul_mat": round(row["us_mul_mat"], 2),
                                                 "kernel_us": round(row["us_kernel"], 2)}), flush=True)


if __name__ == "__main__":
    main()

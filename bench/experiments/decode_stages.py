"""Experiment: cp.async stages of the one-token decode kernel now that it has the L2 hint (run 63).

    python -m bench.experiments.decode_stages --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_stages             # on the GPU machine (run 63)
    python -m bench.experiments.decode_stages --splits    # run 79: stages × split counts

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    parser.add_argument("--splits", action="store_true", help="the 64-row tile at each split count (run 79)")
    args = parser.parse_args()
    compiled = compile_kernels(kernels())
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


if __name__ == "__main__":
    main()

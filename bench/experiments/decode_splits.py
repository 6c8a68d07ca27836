"""Experiment: split-K counts the split defaults never produce, for the best one-token decode kernels.

    python -m bench.experiments.decode_splits --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_splits             # on the GPU machine

``split_factor``'s defaults (and decode_sweep's overrides) give 16 splits at 4096 × 14336, where
56 super-blocks do not divide evenly (3 or 4 per program): does an even split (7, 14, 28) or
another count beat it? Each point through ``bench.mmq.measure`` (checked, then MUL_MAT, GEMM and
kernel alone timed as CUDA graphs).
"""

from __future__ import annotations

import argparse
import json

from bench.mmq import DECODE, compile_kernels, compile_quantizers

KERNELS = [DECODE[5], DECODE[6]]  # m1 fold=fma pdl, and the same with the L2 hint
SPLITS = {(4096, 14336): (7, 8, 12, 14, 16, 19, 28), (32768, 8192): (1, 2, 3, 4, 8)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_kernels(KERNELS)
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    for label, cfg, stages, kernel in compiled:
        loaded = load(kernel.ptx, kernel.kernels[0])
        for (n, k), splits in SPLITS.items():
            for split in splits:
                row = measure(cupy, loaded, quantizers, label, cfg, stages, kernel.kernels[0], 1, n, k, rng, flush,
                              target=1 << 20, max_splits=split, min_blocks=1)
                print("ROW", json.dumps({"kernel": label, "shape": row["shape"], "grid": row["grid"], "ok": row["ok"],
                                         "mul_mat": round(row["us_mul_mat"], 2),
                                         "kernel_us": round(row["us_kernel"], 2),
                                         "flushed": round(row["us_mul_mat_l2_flushed"], 2)}), flush=True)


if __name__ == "__main__":
    main()

"""Run 181: which fold serves q4_1's and q5_1's + m in the M ≤ 8 decode kernel? Run 180 timed it with
``auto`` (one f16 mma per K step, as q4_K's) at 16.5 / 27.1 µs against q4_0's / q5_0's 13.2 / 17.3 at
4096 × 14336, M = 1; the one-token kernel, which folds by FMA, was faster than both.

    PYTHONPATH=$PWD python bench/experiments/min_fold_decode.py prepare   # here: compile
    PYTHONPATH=$PWD python bench/experiments/min_fold_decode.py           # on the GPU machine

Each row is bench.mmq's ``measure`` (checked against ``compiler.numerics`` first); the variants run
forwards, then backwards, at the four decode shapes, M = 1 and 8."""

import sys
from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

DECODE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)
VARIANTS = [(f"small_m 64 w2 splitk s2 pdl{order} fold={fold} {weights}",
             replace(DECODE, weights=weights, tiled_weights=bool(order)), 2)
            for weights in ("q4_1", "q5_1") for order in ("", " wt") for fold in ("mma", "fma")]


def main() -> None:
    if sys.argv[1:] == ["prepare"]:
        for label, _cfg, _stages, compiled in b.compile_kernels(VARIANTS):
            print(label, compiled.kernels[0].shared_bytes)
        b.compile_quantizers()
        return
    import cupy

    from bench.gpu_common import log, record
    from targets.ptx.runner import load

    log(f"copy bandwidth {b._copy_bandwidth(cupy):.0f} GB/s")
    kernels = b.compile_kernels(VARIANTS)
    quantizers, rng, flush = b.measuring_setup(cupy, b.compile_quantizers())
    for rep in range(2):
        for label, cfg, stages, compiled in (kernels if rep == 0 else kernels[::-1]):
            kernel = load(compiled.ptx, compiled.kernels[0])
            for n, k in b.DECODE_SHAPES:
                for m in (1, 8):
                    record(b.measure(cupy, kernel, quantizers, label, cfg, stages, compiled.kernels[0],
                                     m, n, k, rng, flush))


if __name__ == "__main__":
    main()

"""Runs 181–182: which fold serves q4_1's and q5_1's + m? Run 180 timed the M ≤ 8 decode kernel with
``auto`` (then one f16 mma per K step, as q4_K's) at 16.5 / 27.1 µs against q4_0's / q5_0's 13.2 / 17.3
at 4096 × 14336, M = 1; the one-token kernel, which folds by FMA, was faster than both. Run 181: the
decode kernels (``decode``); run 182: the prefill kernel (``prefill``), whose f16-mma fold cost q4_1
12 % over q4_0 in run 180 for 3 % more instructions.

    PYTHONPATH=$PWD python bench/experiments/min_fold.py prepare           # here: compile
    PYTHONPATH=$PWD python bench/experiments/min_fold.py [decode|prefill]  # on the GPU machine

Each row is bench.mmq's ``measure`` (checked against ``compiler.numerics`` first); the variants run
forwards, then backwards, at the four decode shapes (M = 1 and 8) or the three prefill ones."""

import sys
from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

DECODE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)
PREFILL = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2)
VARIANTS = {
    "decode": [(f"small_m 64 w2 splitk s2 pdl{order} fold={fold} {weights}",
                replace(DECODE, weights=weights, tiled_weights=bool(order)), 2)
               for weights in ("q4_1", "q5_1") for order in ("", " wt") for fold in ("mma", "fma")],
    "prefill": [(f"mmq 64x128 w4 s2 b2 fold={fold} {weights}", replace(PREFILL, weights=weights), 2)
                for weights in ("q4_1", "q5_1") for fold in ("mma", "fma")],
}


def main() -> None:
    if sys.argv[1:] == ["prepare"]:
        for label, _cfg, _stages, compiled in b.compile_kernels(VARIANTS["decode"] + VARIANTS["prefill"]):
            print(label, compiled.kernels[0].shared_bytes)
        b.compile_quantizers()
        return
    which = sys.argv[1] if sys.argv[1:] else "decode"
    import cupy

    from bench.gpu_common import log, record
    from targets.ptx.runner import load

    log(f"copy bandwidth {b.copy_bandwidth(cupy):.0f} GB/s")
    kernels = b.compile_kernels(VARIANTS[which])
    shapes = ([(m, n, k) for n, k in b.DECODE_SHAPES for m in (1, 8)] if which == "decode" else b.PREFILL_SHAPES)
    quantizers, rng, flush = b.measuring_setup(cupy, b.compile_quantizers())
    for rep in range(2):
        for label, cfg, stages, compiled in (kernels if rep == 0 else kernels[::-1]):
            kernel = load(compiled.ptx, compiled.kernels[0])
            for m, n, k in shapes:
                record(b.measure(cupy, kernel, quantizers, label, cfg, stages, compiled.kernels[0],
                                 m, n, k, rng, flush))


if __name__ == "__main__":
    main()

"""Run 176: prefill tiles with W repacked once (``MmqConfig(tiled_weights=True)``): with the 64×128
tile's spills gone (runs 174–175), do deeper pipelines or larger tiles now pay at M = 512?

    PYTHONPATH=$PWD python bench/experiments/prefill_tiled_sweep.py prepare   # here: compile
    PYTHONPATH=$PWD python bench/experiments/prefill_tiled_sweep.py           # on the GPU machine

Each row is bench.mmq's ``measure`` (checked against ``compiler.numerics`` first); the variants run
forwards, then backwards, q4_K weights, the issue's three M = 512 shapes."""

import sys
from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

BASE = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2, tiled_weights=True)
VARIANTS = [("64x128 w4 b2 wt s2", BASE, 2), ("64x128 w4 b2 wt s3", BASE, 3),
            ("64x128 w4 b2 s2 (ggml order)", replace(BASE, tiled_weights=False), 2),
            ("128x128 w8 wt s2", replace(BASE, block_m=128, num_warps=8, min_blocks_per_sm=0), 2),
            ("128x128 w8 wt s3", replace(BASE, block_m=128, num_warps=8, min_blocks_per_sm=0), 3),
            ("64x128 w8 wt s2", replace(BASE, num_warps=8, min_blocks_per_sm=0), 2),
            ("64x64 w4 b2 wt s3", replace(BASE, block_n=64), 3),
            ("128x64 w4 b2 wt s3", replace(BASE, block_m=128, block_n=64), 3)]


def main() -> None:
    if sys.argv[1:] == ["prepare"]:
        for label, _cfg, _stages, compiled in b.compile_kernels(VARIANTS):
            print(label, compiled.kernels[0].shared_bytes)
        b.compile_quantizers()
        return
    import cupy

    from bench.gpu_common import log, record
    from targets.ptx.runner import load

    log(f"copy bandwidth {b.copy_bandwidth(cupy):.0f} GB/s")
    kernels = b.compile_kernels(VARIANTS)
    quantizers, rng, flush = b.measuring_setup(cupy, b.compile_quantizers())
    for rep in range(2):
        for label, cfg, stages, compiled in (kernels if rep == 0 else kernels[::-1]):
            kernel = load(compiled.ptx, compiled.kernels[0])
            for m, n, k in b.PREFILL_SHAPES:
                record(b.measure(cupy, kernel, quantizers, label, cfg, stages, compiled.kernels[0],
                                 m, n, k, rng, flush))


if __name__ == "__main__":
    main()

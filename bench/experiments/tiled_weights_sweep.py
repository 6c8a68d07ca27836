"""Run 158: the one-token decode kernel with tiled weights (``MmqConfig(tiled_weights=True)``):
stages, rows per program and K splits, at the four decode shapes.

    PYTHONPATH=$PWD python bench/experiments/tiled_weights_sweep.py prepare   # here: compile
    PYTHONPATH=$PWD python bench/experiments/tiled_weights_sweep.py           # on the GPU machine

Each row is bench.mmq's ``measure`` (checked against ``compiler.numerics`` first); the split
overrides go to ``mmq_grid``; the variants run forwards, then backwards."""

import sys
from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

BASE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                 tiled_weights=True)
VARIANTS = [("m1 wt s2", BASE, 2), ("m1 wt s3", BASE, 3), ("m1 wt s4", BASE, 4),
            ("m1 wt 32 w1", replace(BASE, block_n=32, num_warps=1), 2),
            ("m1 wt 128 w4", replace(BASE, block_n=128, num_warps=4), 2)]
SPLITS = [{}, {"target": 2048, "max_splits": 64, "min_blocks": 1}, {"target": 512}]
SHAPES = [(1, 4096, 14336), (1, 4096, 4096), (1, 3584, 3584), (1, 32768, 8192)]


def main() -> None:
    entries = [(label + " fold=fma", cfg, stages) for label, cfg, stages in VARIANTS]
    if sys.argv[1:] == ["prepare"]:
        for label, _cfg, _stages, compiled in b.compile_kernels(entries):
            print(label, compiled.kernels[0].shared_bytes)
        b.compile_quantizers()
        return
    import cupy

    from bench.gpu_common import log, record
    from targets.ptx.runner import load

    log(f"copy bandwidth {b.copy_bandwidth(cupy):.0f} GB/s")
    kernels = b.compile_kernels(entries)
    quantizers, rng, flush = b.measuring_setup(cupy, b.compile_quantizers())
    for rep in range(2):
        for label, cfg, stages, compiled in (kernels if rep == 0 else kernels[::-1]):
            kernel = load(compiled.ptx, compiled.kernels[0])
            for m, n, k in SHAPES:
                for split in SPLITS:
                    if n == 32768 and split:
                        continue
                    record(b.measure(cupy, kernel, quantizers, f"{label} {split}", cfg, stages, compiled.kernels[0],
                                     m, n, k, rng, flush, **split))


if __name__ == "__main__":
    main()

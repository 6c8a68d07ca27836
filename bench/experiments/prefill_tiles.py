"""Experiment: q4_K prefill tiles with more warps per SM, after the magic-number rescale (run 93).

    python -m bench.experiments.prefill_tiles --prepare   # on the CPU machine, into the kernel cache
    python -m bench.experiments.prefill_tiles             # on the GPU machine

The magic-number rescale (``qdot.scale_bits``) cut the prefill K step from 2432 to 1953 SASS
instructions and the registers of the 8-warp 64×128 tile from 177 to 146: tiles that did not
fit two or three CTAs per SM without spilling may now. Each candidate runs the M = 512 shapes
of ``bench/mmq.py`` the way it does (checked against ``compiler.numerics``, then MUL_MAT,
GEMM, kernel and quantize timed); the benchmark's best tile runs first as the same run's
reference.
"""
from __future__ import annotations

import argparse

from bench.mmq import PREFILL_SHAPES, compile_kernels, compile_quantizers, measure, measuring_setup
from compiler.mmq_template import MmqConfig

TILES = [  # (label, config, stages)
    ("mmq 64x128 w4 s2 b2", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2), 2),
    ("mmq 64x128 w8 s2 b2", MmqConfig(block_m=64, block_n=128, num_warps=8, min_blocks_per_sm=2), 2),
    ("mmq 32x128 w4 s2 b3", MmqConfig(block_m=32, block_n=128, num_warps=4, min_blocks_per_sm=3), 2),
    ("mmq 64x64 w4 s2 b3", MmqConfig(block_m=64, block_n=64, num_warps=4, min_blocks_per_sm=3), 2),
    ("mmq 128x128 w16 s2", MmqConfig(block_m=128, block_n=128, num_warps=16), 2),
    ("mmq 64x256 w8 s2", MmqConfig(block_m=64, block_n=256, num_warps=8), 2),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    args = parser.parse_args()
    kernels = compile_kernels(TILES)
    quantize_compiled = compile_quantizers()
    if args.prepare:
        for label, _cfg, stages, compiled in kernels:
            info = compiled.kernels[0]
            print(f"{label:24s} {stages} stages: smem {info.shared_bytes} B, {info.num_warps} warps")
        return
    import cupy

    from bench.gpu_common import record
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantize_compiled)
    for label, cfg, stages, compiled in kernels:
        kernel = load(compiled.ptx, compiled.kernels[0])
        for m, n, k in PREFILL_SHAPES:
            record(measure(cupy, kernel, quantizers, label, cfg, stages, compiled.kernels[0], m, n, k, rng, flush))


if __name__ == "__main__":
    main()

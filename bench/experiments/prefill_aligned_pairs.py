"""Experiment (run 228): ggml-order q6_K / q3_K prefill with two K steps per stage copied by 4-byte cp.async.
    python -m bench.experiments.prefill_aligned_pairs --prepare   # here: fill the kernel cache
    python -m bench.experiments.prefill_aligned_pairs             # on the GPU machine
The decode kernels' finding (runs 222–227) asked of the prefill kernel: in ggml's order q6_K's 210-byte and q3_K's
110-byte super-blocks are 2-aligned, so ``bench.mmq``'s prefill kernel (64 × 128, 2 stages, 2 programs per SM)
copies each K step's 128 rows with synchronous 2-byte loads (q6_K: 105 per thread and step), and its repacked form
(``tile_weights``: one contiguous run per step, 16-byte cp.async) is 18–23 % faster (runs 174–175). With K a multiple
of 512 (``MmqConfig(k_divisibility=512)``) two super-blocks per stage (``k_blocks=2``) start 4-aligned in every
row and go by 4-byte cp.async; the stage is then twice W's bytes and twice the activation tile's, so the 64 × 128
tile keeps 2 programs per SM only in one stage, or keeps 2 stages with one program per SM, and a 64 × 64 tile keeps
both. Every kernel through ``bench.mmq.measure`` (checked against ``compiler.numerics`` on fresh random data first)
at the three prefill shapes (M = 512, all K multiples of 512), ``--rounds`` rounds, the kernels interleaved.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as mmq
from compiler.mmq_template import MmqConfig

ROUNDS = 2
_TILE = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2)  # bench.mmq's "mmq 64x128 w4 s2 b2"
_PAIRS = {"k_blocks": 2, "k_divisibility": 512}


def entries(weights: str) -> list[tuple[str, MmqConfig, int]]:
    """(label, config, stages): ``bench.mmq``'s ggml-order and repacked prefill kernels, and the two-step forms."""
    return [
        (f"mmq 64x128 w4 s2 b2 {weights}", replace(_TILE, weights=weights), 2),
        (f"mmq 64x128 w4 s2 b2 wt {weights}", replace(_TILE, weights=weights, tiled_weights=True), 2),
        (f"mmq 64x128 w4 s1 b2 kb2 kd512 {weights}", replace(_TILE, weights=weights, **_PAIRS), 1),
        (f"mmq 64x128 w4 s2 kb2 kd512 {weights}", replace(_TILE, weights=weights, min_blocks_per_sm=0, **_PAIRS), 2),
        (f"mmq 64x64 w4 s2 b2 kb2 kd512 {weights}", replace(_TILE, weights=weights, block_n=64, **_PAIRS), 2),
        (f"mmq 64x64 w4 s2 b2 {weights}", replace(_TILE, weights=weights, block_n=64), 2),
    ]


def compile_all(weights: str = "q6_K,q3_K") -> tuple[list, dict]:
    """The kernels and the quantize kernels (``bench.prepare``'s hook)."""
    return mmq.compile_kernels([e for w in weights.split(",") for e in entries(w)]), mmq.compile_quantizers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--weights", default="q6_K,q3_K", help="comma-separated weight formats (q6_K,q3_K)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds over the kernels (default {ROUNDS})")
    args = parser.parse_args()
    kernels, quantizers_compiled = compile_all(args.weights)
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit("python -m bench.experiments.prefill_aligned_pairs")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    loaded = mmq.load_kernels(kernels)
    for round_ in range(args.rounds):
        for m, n, k in mmq.PREFILL_SHAPES:
            for label, cfg, stages, kernel, info in loaded:
                row = mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush)
                record({**row, "round": round_})
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

"""Experiment (run 229): the prefill tile per weight format, 64 × 128 against 64 × 64, W in ggml's order and repacked.
    python -m bench.experiments.prefill_tile_by_format --prepare   # here: fill the kernel cache
    python -m bench.experiments.prefill_tile_by_format             # on the GPU machine (run 229)
    python -m bench.experiments.prefill_tile_by_format --more      # run 230: smaller tiles for q6_K, q3_K, q2_K
Every weight format's prefill kernel in ``bench.mmq`` is q4_K's goal tile (64 × 128, 4 warps, 2 stages, 2 programs
per SM), chosen by q4_K's sweeps. Run 228 found q6_K's and q3_K's ggml-order prefill 1.04–1.29 × faster on a
64 × 64 tile (half the rows of 2-aligned blocks for each thread to copy 2 bytes at a time per K step, and twice
the programs); this asks the same of every format, in ggml's order and repacked (``tile_weights`` for the tile's
``block_n``). Every kernel through ``bench.mmq.measure`` (checked against ``compiler.numerics`` on fresh random
data first) at the three prefill shapes, one round, the formats one after the other (q4_K and the 2- and 4-aligned
K-quants first). ``--more`` (run 230): for the formats whose 16-value sub-blocks made 64 × 64 faster in run 229
(q6_K, q3_K, q2_K), 64 × 64 with 3 programs per SM or 3 stages, 32 × 128, 32 × 64 and 64 × 32 (3 per SM), repacked,
and ggml's order on 64 × 64 with 3 per SM — the tiles that compile without spills (64 × 64 on 2 warps and 128 × 64
spill 32–68 bytes).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as mmq
from compiler.mmq_choice import SUB_BLOCK_WEIGHTS
from compiler.mmq_template import MmqConfig

FORMATS = ("q4_K", "q6_K", "q3_K", "q2_K", "q5_K", "q4_0", "q8_0", "q4_1", "q5_0", "q5_1", "mxfp4", "iq4_nl", "iq4_xs")
_TILE = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2)  # bench.mmq's "mmq 64x128 w4 s2 b2"


def entries(weights: str) -> list[tuple[str, MmqConfig, int]]:
    """(label, config, stages): the 64 × 128 and 64 × 64 tiles over ggml's order and over ``tile_weights``'."""
    return [(f"mmq 64x{bn} w4 s2 b2{' wt' if wt else ''} {weights}",
             replace(_TILE, weights=weights, block_n=bn, tiled_weights=wt), 2)
            for wt in (False, True) for bn in (128, 64)]


_SMALL = replace(_TILE, block_n=64)
_MORE = [("64x64 w4 s2 b2", _SMALL, 2), ("64x64 w4 s2 b3", replace(_SMALL, min_blocks_per_sm=3), 2),
         ("64x64 w4 s3 b2", _SMALL, 3), ("32x128 w4 s2 b2", replace(_TILE, block_m=32), 2),
         ("32x64 w4 s2 b3", replace(_SMALL, block_m=32, min_blocks_per_sm=3), 2),
         ("64x32 w4 s2 b3", replace(_SMALL, block_n=32, min_blocks_per_sm=3), 2)]


def more_entries(weights: str) -> list[tuple[str, MmqConfig, int]]:
    """Run 230's (label, config, stages): ``_MORE`` repacked, and 64 × 64 with 3 per SM in ggml's order."""
    return [(f"mmq {label} wt {weights}", replace(cfg, weights=weights, tiled_weights=True), stages)
            for label, cfg, stages in _MORE] + [
        (f"mmq 64x64 w4 s2 b3 {weights}", replace(_SMALL, weights=weights, min_blocks_per_sm=3), 2)]


def compile_all(weights: str = ",".join(FORMATS), more: bool = False) -> tuple[list, dict]:
    """The kernels and the quantize kernels (``bench.prepare``'s hook)."""
    pick = more_entries if more else entries
    return mmq.compile_kernels([e for w in weights.split(",") for e in pick(w)]), mmq.compile_quantizers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--weights", help="comma-separated weight formats (all; with --more q6_K,q3_K,q2_K)")
    parser.add_argument("--more", action="store_true", help="run 230's smaller tiles for the sub-block formats")
    args = parser.parse_args()
    weights = args.weights or ",".join(SUB_BLOCK_WEIGHTS if args.more else FORMATS)
    kernels, quantizers_compiled = compile_all(weights, args.more)
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit("python -m bench.experiments.prefill_tile_by_format")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    for label, cfg, stages, kernel, info in mmq.load_kernels(kernels):
        for m, n, k in mmq.PREFILL_SHAPES:
            record(mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush))
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

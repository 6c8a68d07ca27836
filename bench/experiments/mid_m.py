"""Experiment (run 232): the prefill kernel at 9 ≤ M ≤ 128, where its grid is a few M tiles × N/128.
    python -m bench.experiments.mid_m --prepare   # here: fill the kernel cache
    python -m bench.experiments.mid_m             # on the GPU machine (run 232)
    python -m bench.experiments.mid_m --formats   # run 233: stream-K against the plain grid for every format
    python -m bench.experiments.mid_m --repacked  # run 234: the same with W repacked, M = 16 and 128
``bench.mmq`` times the prefill kernel at M = 512 only (the issue's goal shape). At M = 16 and N = 4096 its 64 × 128
grid is 32 programs on 132 SMs, each walking the whole K, while the M ≤ 8 kernel reads W once per 8 tokens on a
grid that fills the GPU. Here q4_K's prefill (ggml's order and
repacked), its stream-K form (a fixed grid of two programs per SM sharing the flattened (tile, K step) iterations,
Y zeroed by the quantize kernel), 32- and 16-row tiles, and the M ≤ 8 decode kernel at M = 8 for reference, each
through ``bench.mmq.measure`` (checked against ``compiler.numerics`` first), at M = 9, 16, 32, 64, 128 and two of
the decode shapes. ``--formats`` (run 233): every weight format's prefill kernel (``choose_mmq``'s tile for M ≥ 9,
ggml's order) against its stream-K form on the same tile, and q4_K's repacked stream-K, at M = 16, 128 and 256;
``--repacked`` (run 234): the other formats' repacked prefill against its stream-K form at M = 16 and 128.

Runs 232–234 (bench/RESULTS.md): stream-K 1.92–5.96 × faster where the plain grid has 32 tiles, 1.24–3.23 × at 64,
0.87–1.75 × at 128, 0.93–1.00 × at 256; ``compiler.mmq_choice.choose_mmq`` takes stream-K up to 132 tiles (one
per SM).
"""

from __future__ import annotations

import argparse

import bench.mmq as mmq
from compiler.mmq_template import MmqConfig

MS = (9, 16, 32, 64, 128)
SHAPES = ((4096, 14336), (4096, 4096))
_TILE = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2)
KERNELS = [
    ("mmq 64x128 w4 s2 b2", _TILE, 2),
    ("mmq 64x128 w4 s2 b2 wt", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2,
                                         tiled_weights=True), 2),
    ("mmq 64x128 w4 s2 b2 streamk", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2,
                                              stream_k=True), 2),
    ("mmq 32x128 w4 s2 b2", MmqConfig(block_m=32, block_n=128, num_warps=4, min_blocks_per_sm=2), 2),
    ("mmq 16x128 w4 s2 b2", MmqConfig(block_m=16, block_n=128, num_warps=4, min_blocks_per_sm=2), 2),
]
DECODE = ("small_m 64 w2 splitk s2", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True), 2)
FORMAT_MS = (16, 128, 256)
REPACKED_MS = (16, 128)


def format_entries(repacked: bool = False) -> list[tuple[str, MmqConfig, int]]:
    """Run 233's (label, config, stages): each format's plain prefill tile and its stream-K form; ``repacked``
    (run 234): the same over ``tile_weights``' order for every format but q4_K (run 233 has it)."""
    from dataclasses import replace

    from compiler.mmq_choice import SUB_BLOCK_WEIGHTS
    from compiler.mmq_template import WEIGHT_FORMATS

    out = []
    for weights in WEIGHT_FORMATS:
        if repacked and weights == "q4_K":
            continue
        bn = 64 if weights in SUB_BLOCK_WEIGHTS else 128
        tile, wt = replace(_TILE, block_n=bn, weights=weights, tiled_weights=repacked), " wt" if repacked else ""
        out += [(f"mmq 64x{bn} w4 s2 b2{wt} {weights}", tile, 2),
                (f"mmq 64x{bn} w4 s2 b2 streamk{wt} {weights}", replace(tile, stream_k=True), 2)]
    if repacked:
        return out
    return out + [("mmq 64x128 w4 s2 b2 streamk wt q4_K", replace(_TILE, stream_k=True, tiled_weights=True), 2)]


def compile_all(formats: bool = False, repacked: bool = False) -> tuple[list, dict]:
    """The kernels and the quantize kernels (``bench.prepare``'s hook)."""
    entries = format_entries(repacked) if formats or repacked else [*KERNELS, DECODE]
    return mmq.compile_kernels(entries), mmq.compile_quantizers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--formats", action="store_true", help="run 233: stream-K against the plain grid per format")
    parser.add_argument("--repacked", action="store_true", help="run 234: the same with W repacked")
    args = parser.parse_args()
    kernels, quantizers_compiled = compile_all(args.formats, args.repacked)
    ms = REPACKED_MS if args.repacked else FORMAT_MS if args.formats else MS
    if args.prepare:
        return
    mmq.time_over_shapes("python -m bench.experiments.mid_m", kernels, quantizers_compiled, SHAPES,
                         lambda cfg: (8,) if cfg.small_m else ms)

if __name__ == "__main__":
    main()

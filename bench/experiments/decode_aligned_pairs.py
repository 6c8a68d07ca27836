"""Experiment (runs 222–227): ggml-order q6_K / q3_K decode with two K steps per stage copied by 4-byte cp.async.
    python -m bench.experiments.decode_aligned_pairs --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_aligned_pairs             # on the GPU machine (runs 222–223, per --weights)
    python -m bench.experiments.decode_aligned_pairs --more      # run 224: kb4 kd1024, 64 rows on 4 warps
    python -m bench.experiments.decode_aligned_pairs --one-stage # run 227 (run 228: --weights q2_K): one stage
In ggml's order q6_K's 210-byte and q3_K's 110-byte super-blocks are only 2-aligned, so the decode kernels copy
them with synchronous 2-byte loads and stores (``passes/support/copies.py``'s ``_segment_copy``): q6_K's one-token
decode reads its weights at 37 % of copy bandwidth at 32768 × 8192 there, 2.4 × the time of the same kernel over
``tile_weights``' order. Where K is a multiple of 512 (``MmqConfig(k_divisibility=512)``), two consecutive
super-blocks of a row (420 or 220 bytes) start 4-aligned, so a stage of ``k_blocks = 2`` is copied by 4-byte
cp.async, row by row (``ASYNC_SEGMENT_CHUNKS``). Each stage is then twice the bytes, so a 64-row tile holds fewer
programs per SM; 32 and 16 rows are timed too. Every kernel through ``bench.mmq.measure`` (checked against
``compiler.numerics`` on fresh random data first), at the four decode shapes (all K multiples of 512), M = 1 and,
for the M ≤ 8 kernels, 8; ``ROUNDS`` rounds, the kernels interleaved. ``--weights mxfp4,iq4_xs,q2_K`` (run 225):
the same forms for blocks that are aligned but not to 16 bytes per K step (136 and 84 bytes: 8- and 4-byte
cp.async), whose two-step rows (272 and 168 bytes) allow 16- and 8-byte chunks.

Runs 222–223 (bench/RESULTS.md): the 64-row two-step form is 1.13–1.35 × faster than one step per stage for q6_K,
1.03–1.21 × for q3_K, and faster than the 32- and 16-row forms almost everywhere; run 224: four warps on 64 rows
0.99–1.12 × its time, four steps per stage (K a multiple of 1024, 8-byte chunks) 1.02–1.69 ×; runs 225–226: mxfp4
and iq4_xs 0.95–1.16 × (issue-bound), q2_K 0.91–1.01 ×; run 227: q6_K's and q3_K's 64-row form in one stage
0.79–0.99 × its two-stage time; run 228: q2_K's in one stage 0.97–1.14 × its two-stage time (slower where its weights
stream from HBM). ``bench.mmq`` keeps the 64-row two-step kernels of q6_K and q3_K (one stage) and q2_K (two).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as mmq
from compiler.mmq_template import MmqConfig

ROUNDS = 2
_ONE_TOKEN = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                       l2_prefetch=128)
_UP_TO_8 = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)


def entries(weights: str, more: bool = False, one_stage: bool = False) -> list[tuple[str, MmqConfig, int]]:
    """(label, config, stages): the ggml-order kernels of ``bench.mmq`` (one K step per stage), their two-step
    4-aligned forms at 64, 32 and 16 rows, and the repacked kernels for reference; ``more`` (run 224): four
    warps on 64 rows, and four super-blocks per stage with K a multiple of 1024 (8-aligned, 8-byte cp.async);
    ``one_stage`` (run 227): the 64-row two-step form with one stage (half its shared memory: 7 programs per SM
    instead of 3, no copy of the next step in flight within a program)."""
    shapes = [(2, 512, 64, 2, 2), (2, 512, 32, 2, 2), (2, 512, 16, 1, 2)]
    if more:
        shapes = [(2, 512, 64, 2, 2), (2, 512, 64, 4, 2), (4, 1024, 64, 2, 2), (4, 1024, 32, 2, 2),
                  (4, 1024, 16, 1, 2)]
    if one_stage:
        shapes = [(2, 512, 64, 2, 2), (2, 512, 64, 2, 1)]
    out = []
    for tag, base in (("m1 pdl l2p128", _ONE_TOKEN), ("pdl", _UP_TO_8)):
        out.append((f"ggml {tag} {weights}", replace(base, weights=weights), 2))
        for kb, k_div, rows, warps, stages in shapes:
            out.append((f"ggml {tag} kb{kb} kd{k_div} {rows} w{warps}{' s1' if stages == 1 else ''} {weights}",
                        replace(base, weights=weights, block_n=rows, num_warps=warps, k_blocks=kb,
                                k_divisibility=k_div), stages))
        out.append((f"wt {tag} {weights}", replace(base, weights=weights, tiled_weights=True, l2_prefetch=0), 2))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--weights", default="q6_K,q3_K", help="comma-separated weight formats (q6_K,q3_K)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds over the kernels (default {ROUNDS})")
    parser.add_argument("--more", action="store_true", help="run 224's forms (kb4 kd1024, 64 rows on 4 warps)")
    parser.add_argument("--one-stage", action="store_true", help="run 227's: the 64-row two-step form in one stage")
    args = parser.parse_args()
    kernels = mmq.compile_kernels([e for w in args.weights.split(",") for e in entries(w, args.more, args.one_stage)])
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, log, record

    cupy = gpu_or_exit("python -m bench.experiments.decode_aligned_pairs")
    copy_gbs = mmq.copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    loaded = mmq.load_kernels(kernels)
    for round_ in range(args.rounds):
        for n, k in mmq.DECODE_SHAPES:
            for m in (1, 8):
                for label, cfg, stages, kernel, info in loaded:
                    if m <= cfg.max_m and k % cfg.k_divisibility == 0:
                        row = mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush)
                        record({**row, "round": round_})
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

"""Runs 184–185: does the one-token decode kernel lose its tail to a second wave when its shared
memory leaves 7 programs per SM? At N = 32768, K = 8192 its grid is 512 tiles × 2 K splits = 1024
programs; q4_K's (23040 B), q4_0's and q5_0's (27136 B) CTAs fit 8 or more per SM (one wave on 132
SMs), q5_1's (29184 B) and q6_K's (31488 B) only 7 (924 resident: 100 programs left for a second
wave) — and those two stream at 79 % and 71 % of copy bandwidth where q5_0 reaches 94 % (runs
179–180). Run 184 (``splits``): the repacked one-token kernels at fixed split counts; run 185
(``resident``): ``split_factor``'s resident-aware choice against its default, for the one-token and
the M ≤ 8 kernels of q4_K, q5_1, q6_K and q8_0 (5 per SM).

    PYTHONPATH=$PWD python bench/experiments/decode_waves.py prepare            # here: compile
    PYTHONPATH=$PWD python bench/experiments/decode_waves.py [splits|resident]  # on the GPU machine

Each row checked against ``compiler.numerics`` first (bench.mmq's ``measure``; the kernel reads its
split count from the grid), interleaved, twice."""

import sys
from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

ONE_TOKEN = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                      tiled_weights=True)
VARIANTS = {
    "splits": [(f"small_m 64 w2 splitk s2 m1 fold=fma pdl wt {w}", replace(ONE_TOKEN, weights=w), 2)
               for w in ("q4_K", "q5_0", "q5_1", "q6_K")],
    "resident": [(f"small_m 64 w2 splitk s2{m1} pdl wt {w}", replace(ONE_TOKEN, weights=w, max_m=1 if m1 else 8), 2)
                 for w in ("q4_K", "q5_1", "q6_K", "q8_0") for m1 in (" m1 fold=fma", "")],
}
SPLITS = {(32768, 8192): (None, 512, 1536, 2048), (4096, 14336): (None,)}
"""Run 184's split targets (``split_factor``'s ``target``: 512 → 1 split, 1536 → 3, 2048 → 4 at N = 32768)."""


def main() -> None:
    if sys.argv[1:] == ["prepare"]:
        for label, _cfg, _stages, compiled in b.compile_kernels(VARIANTS["splits"] + VARIANTS["resident"]):
            print(label, compiled.kernels[0].shared_bytes)
        b.compile_quantizers()
        return
    import cupy

    from bench.gpu_common import log, record
    from targets.ptx.runner import load

    which = sys.argv[1] if sys.argv[1:] else "splits"
    log(f"copy bandwidth {b.copy_bandwidth(cupy):.0f} GB/s")
    kernels = b.compile_kernels(VARIANTS[which])
    quantizers, rng, flush = b.measuring_setup(cupy, b.compile_quantizers())
    for rep in range(2):
        for label, cfg, stages, compiled in (kernels if rep == 0 else kernels[::-1]):
            kernel = load(compiled.ptx, compiled.kernels[0])
            resident = kernel.resident_programs()
            for (n, k), targets in SPLITS.items():
                for target in (targets if which == "splits" else ("default", "resident")):
                    split = {"target": target} if isinstance(target, int) else {}
                    if target == "resident":
                        split = {"resident": resident}
                    for m in ((1,) if which == "splits" or cfg.max_m == 1 else (1, 8)):
                        record(b.measure(cupy, kernel, quantizers, f"{label} {target}", cfg, stages,
                                         compiled.kernels[0], m, n, k, rng, flush, **split))


if __name__ == "__main__":
    main()

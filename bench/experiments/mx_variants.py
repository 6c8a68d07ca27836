"""Ad-hoc variants of the MX GEMM benchmark's best kernel (tile order, stages), same harness.

    python -m bench.experiments.mx_variants --prepare   # here: fill the kernel cache
    python -m bench.experiments.mx_variants             # on the GPU machine

Reuses ``bench.mx_gemm``'s check-then-time loop over this module's configurations, at 4096³
and 8192³ (run 50 also swept K at 4096² to separate the per-tile cost from the per-K-step one), without the references (the run that quotes a ratio measures them too).
"""

from __future__ import annotations

import argparse

import bench.mx_gemm as mx_gemm
from compiler.templates import GemmConfig

_BEST = dict(block_n=256, block_k=64, num_warps=8, n_divisibility=8)
VARIANTS = [
    (f"wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 g{g} s{s}", GemmConfig(**_BEST, group_m=g), "dequant-bf16", s, "sm_90a")
    for g, s in ((8, 3), (8, 2))
] + [
    (f"e2m1xe2m1 int8 {bm}x{bn}x{bk} w{w} s{s}",
     GemmConfig(lhs="e2m1", block_m=bm, block_n=bn, block_k=bk, num_warps=w, n_divisibility=8), "promote-int8", s,
     "sm_90")
    for bm, bn, bk, w, s in ((128, 256, 64, 8, 3), (128, 256, 128, 8, 3), (256, 128, 64, 8, 3), (128, 256, 64, 8, 4),
                             (128, 256, 64, 16, 3))
]
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    mx_gemm.CONFIGS = VARIANTS
    mx_gemm.SHAPES = SHAPES
    if args.prepare:
        mx_gemm.compile_all()
        return
    mx_gemm.run(quick=False, references=False)


if __name__ == "__main__":
    main()

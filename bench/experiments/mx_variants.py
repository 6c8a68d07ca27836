"""Ad-hoc variants of the MX GEMM benchmark's best kernel (tile order, stages), same harness.

    python -m bench.experiments.mx_variants --prepare   # here: fill the kernel cache
    python -m bench.experiments.mx_variants             # on the GPU machine

Reuses ``bench.mx_gemm``'s check-then-time loop over this module's configurations, at 4096³,
8192³ and 4096² with shorter K (a K sweep separates the per-tile cost from the per-K-step one), without the references (the run that quotes a ratio measures them too).
"""

from __future__ import annotations

import argparse

import bench.mx_gemm as mx_gemm
from compiler.templates import GemmConfig

_BEST = dict(block_n=256, block_k=64, num_warps=8, n_divisibility=8)
VARIANTS = [
    (f"wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 g{g} s{s}", GemmConfig(**_BEST, group_m=g), "dequant-bf16", s, "sm_90a")
    for g, s in ((8, 3), (8, 2), (4, 2), (16, 2))
] + [("wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 out bf16 s2", GemmConfig(**_BEST, out="bf16"), "dequant-bf16", 2,
      "sm_90a")]
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 4096, 256), (4096, 4096, 1024), (4096, 4096, 2048)]


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

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
    (f"wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 s{s}", GemmConfig(**_BEST), "dequant-bf16", s, "sm_90a")
    for s in (3, 4)
]
L2_PREFETCH = (64, 128, 256)
"""Run 57: the same kernels with every cp.async carrying the L2 prefetch-size hint (the kernel
attribute added to the template's text: GemmConfig has no such option)."""
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (512, 4096, 4096)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    mx_gemm.CONFIGS = VARIANTS
    plain = mx_gemm.gemm_kernel

    def with_hint(cfg: GemmConfig, size: int = 0) -> str:
        text = plain(cfg)
        return text if not size else text.replace("attributes {qdot.kernel,",
                                                  f"attributes {{qdot.kernel, qdot.l2_prefetch = {size} : i64,", 1)

    hinted = []
    for size in L2_PREFETCH:
        for label, cfg, strategy, stages, arch in VARIANTS:
            hinted.append((f"{label} l2p{size}", cfg, strategy, stages, arch, size))
    mx_gemm.CONFIGS = [(*v, 0) for v in VARIANTS] + hinted
    sizes = {label: size for label, *_rest, size in mx_gemm.CONFIGS}
    mx_gemm.CONFIGS = [v[:5] for v in mx_gemm.CONFIGS]
    current = {"size": 0}

    def gemm_kernel(cfg: GemmConfig) -> str:
        return with_hint(cfg, current["size"])

    mx_gemm.gemm_kernel = gemm_kernel
    original_compile_all = mx_gemm.compile_all

    def compile_all(quick: bool = False, only: str = "") -> list:
        out = []
        for entry in mx_gemm.CONFIGS:
            current["size"] = sizes[entry[0]]
            saved = mx_gemm.CONFIGS
            mx_gemm.CONFIGS = [entry]
            out += original_compile_all(quick, only)
            mx_gemm.CONFIGS = saved
        return out

    mx_gemm.compile_all = compile_all
    mx_gemm.SHAPES = SHAPES
    if args.prepare:
        mx_gemm.compile_all()
        return
    mx_gemm.run(quick=False, references=False)


if __name__ == "__main__":
    main()

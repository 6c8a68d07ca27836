"""Experiment: the f32 epilogue through shared memory against direct pair stores, same run.

    python -m bench.experiments.staged_epilogue --prepare   # here: fill the kernel cache
    python -m bench.experiments.staged_epilogue             # on the GPU machine

Run 75 (``bench/experiments/epilogue_stores.py``) timed a lockstep 128 × 256 f32 epilogue at
4.5 µs per wave with 8-byte pair stores and 3.3 µs when each warp stages its rows in shared
memory and stores 16-byte row pieces. ``qdot-to-llvm{epilogue=staged}`` does the latter where
it is legal (``passes/support/staged_stores.py``); the default keeps the pair stores.
This compiles the benchmark's N-multiple-of-8 kernels both ways and times them interleaved
(twice), each checked against a float64 GEMM first, then Triton in the same run.
"""

from __future__ import annotations

import argparse

from compiler.kernel_cache import get_or_compile
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel

KERNELS = [
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 n8", GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 s4 n8", GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8),
     "dequant-bf16", 4, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x256x64 w8 n8",
     GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8, n_divisibility=8), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 b2 s2 n8",
     GemmConfig(block_k=64, num_warps=8, min_blocks_per_sm=2, n_divisibility=8), "dequant-bf16", 2, "sm_90a"),
]
EPILOGUES = ("direct", "staged")
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (512, 4096, 4096)]


def compile_all() -> list:
    out = []
    for label, cfg, strategy, stages, arch in KERNELS:
        for epilogue in EPILOGUES:
            pipeline = ptx_pipeline(PtxOptions(arch=arch, strategy=strategy, num_stages=stages, epilogue=epilogue))
            out.append((label, epilogue, cfg, get_or_compile(gemm_kernel(cfg), arch=arch, strategy=strategy,
                                                             num_stages=stages, pipeline=pipeline)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_all()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import log, record
    from bench.mx_gemm import _triton, measure
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    loaded = [(label, epilogue, cfg, load(k.ptx, k.kernels[0])) for label, epilogue, cfg, k in compiled]
    for rep in range(2):
        for m, n, k in SHAPES:
            for label, epilogue, cfg, kernel in loaded:
                us, err, ok = measure(cupy, rng, kernel, cfg, m, n, k)
                tflops = 2.0 * m * n * k / us / 1e6
                record({"what": f"qdot {label} epilogue={epilogue}", "rep": rep, "shape": f"{m}x{n}x{k}",
                        "us": us, "tflops": tflops, "rel_err": err, "ok": ok})
                log(f"{label:44s} {epilogue:6s} rep {rep} {m}x{n}x{k}: {us:8.1f} us {tflops:6.1f} TFLOP/s "
                    f"err {err:.1e}")
    _triton(SHAPES)


if __name__ == "__main__":
    main()

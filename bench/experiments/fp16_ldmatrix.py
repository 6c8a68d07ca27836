"""Experiment: fp16 × fp16 GEMM operands through ldmatrix instead of scalar loads (runs 146–147).

    python -m bench.experiments.fp16_ldmatrix --prepare   # here: into $QDOT_KERNEL_CACHE (+ FINGERPRINT)
    python -m bench.experiments.fp16_ldmatrix             # on the GPU machine, from that cache
    python -m bench.experiments.fp16_ldmatrix --resources # here: ptxas -v and the PTX's shared loads

The remarks (``--remarks``) showed qdot-lower-local-load reading the operands of an fp16 × fp16
GEMM on sm_90 with scalar ``ld.shared``: qdot-accelerate-matmul gave them kWidth 4, which no
ldmatrix form delivers, where bf16 × bf16 took the mma's own arrangement (kWidth 2, ldmatrix
.b16). Prepared once with the compiler before the fix and once after (each into its own cache),
this times both builds' fp16 kernel and, as the same run's reference, the bf16 one (which always
used ldmatrix), each checked first against a float64 GEMM on fresh random operands.
"""

from __future__ import annotations

import argparse
import os

from compiler.templates import GemmConfig, gemm_kernel

KERNELS = [  # (label, config): sm_90, strategy auto, 3 stages
    ("fp16 x fp16 128x128x64 w8", GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None, block_k=64,
                                             num_warps=8)),
    ("bf16 x bf16 128x128x64 w8", GemmConfig(lhs="bf16", rhs="bf16", lhs_scale=None, rhs_scale=None, block_k=64,
                                             num_warps=8)),
    # GemmConfig's default tile, which spills 132 B with the ldmatrix reads (--resources): run 147
    ("fp16 x fp16 128x128x128 w4", GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None)),
    ("bf16 x bf16 128x128x128 w4", GemmConfig(lhs="bf16", rhs="bf16", lhs_scale=None, rhs_scale=None)),
]
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (512, 4096, 4096)]


def compiled(cfg: GemmConfig):  # noqa: ANN202 - compiler.kernel_cache.CachedKernel
    """The kernel as this experiment (and fp16_nvfp4_fold) compiles it: sm_90, auto, 3 stages."""
    from compiler.kernel_cache import get_or_compile

    return get_or_compile(gemm_kernel(cfg), arch="sm_90", strategy="auto", num_stages=3)


def prepare(kernels: list = KERNELS) -> None:
    from bench.prepare import fill_cache

    def compile_and_describe() -> None:
        for label, cfg in kernels:
            info = compiled(cfg).kernels[0]
            print(f"{label}: {info.shared_bytes} B shared, {info.num_warps} warps")

    fill_cache(compile_and_describe)


def resources() -> None:
    """Registers, spill stores and the PTX's ldmatrix / scalar ld.shared count of the timed tile
    and of GemmConfig's default tile (4 warps, 128×128×128) for fp16 × fp16 on sm_90."""
    import re

    import compiler

    for cfg in (KERNELS[0][1], GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None)):
        kernel = compiler.compile(gemm_kernel(cfg), arch="sm_90", verify=True)
        report, ptx = kernel.artifact.report or "", kernel.ptx or ""
        registers = re.search(r"Used (\d+) registers", report)
        spills = re.search(r"(\d+) bytes spill stores", report)
        print(f"{cfg.block_m}x{cfg.block_n}x{cfg.block_k} w{cfg.num_warps}: "
              f"{registers.group(1) if registers else '?'} registers, {spills.group(1) if spills else '?'} B spill "
              f"stores, {ptx.count('ldmatrix')} ldmatrix, {ptx.count('ld.shared')} ld.shared")


def run(kernels: list = KERNELS) -> None:
    """Each kernel at each shape, checked and timed by ``bench.mx_gemm.measure`` (fresh random
    operands, a NaN-poisoned C, a float64 GEMM of the decoded operands on the GPU)."""
    import cupy

    from bench.gpu_common import log
    from bench.mx_gemm import measure
    from targets.ptx.runner import load

    build = os.environ.get("QDOT_COMPILER_FINGERPRINT", "?")
    rng = cupy.random.default_rng()
    for label, cfg in kernels:
        cached = compiled(cfg)
        kernel = load(cached.ptx, cached.kernels[0])
        for m, n, k in SHAPES:
            us, err, ok = measure(cupy, rng, kernel, cfg, m, n, k)
            log(f"build {build}  {label}  {m}x{n}x{k}: {us:9.1f} us  {2 * m * n * k / us / 1e6:6.1f} TFLOP/s  "
                f"err {err:.2e}{'' if ok else '  FAILED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile the kernels into $QDOT_KERNEL_CACHE")
    parser.add_argument("--resources", action="store_true", help="registers, spills and loads of the fp16 tiles")
    args = parser.parse_args()
    if args.resources:
        resources()
    elif args.prepare:
        prepare()
    else:
        run()


if __name__ == "__main__":
    main()

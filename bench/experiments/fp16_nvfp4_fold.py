"""Experiment: fp16 × NVFP4 with the ue4m3 scales folded into the fp16 values (run 150).

    python -m bench.experiments.fp16_nvfp4_fold --prepare   # here: into $QDOT_KERNEL_CACHE (+ FINGERPRINT)
    python -m bench.experiments.fp16_nvfp4_fold             # on the GPU machine, from that cache

Until commit 530967f dequant-bf16 with an fp16 operand (fp16 compute, the f16 mma) applied NVFP4's
ue4m3 scales to the f32 accumulator per 16-value block — an mma per block and an FMA per
accumulator register — because ue8m0 scales do not fit fp16's range; ue4m3 ones times e2m1 do,
exactly, and are now folded into the converted values as bf16 compute always did. Prepared once
with the compiler before and once after (each into its own cache), this times both builds'
fp16 × e2m1 kernel and, as the same run's reference, bf16 × e2m1 (which folded in both builds),
each checked first against a float64 GEMM of the decoded operands on fresh random inputs.
"""

from __future__ import annotations

import argparse
import os

from compiler.templates import GemmConfig, gemm_kernel, grid

KERNELS = [  # (label, config): sm_90, strategy auto (dequant-bf16), 3 stages
    ("fp16 x nvfp4 128x128x64 w8", GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3",
                                               block_k=64, num_warps=8)),
    ("bf16 x nvfp4 128x128x64 w8", GemmConfig(lhs="bf16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3",
                                               block_k=64, num_warps=8)),
]
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (512, 4096, 4096)]


def _compiled(cfg: GemmConfig):  # noqa: ANN202 - compiler.kernel_cache.CachedKernel
    from compiler.kernel_cache import get_or_compile

    return get_or_compile(gemm_kernel(cfg), arch="sm_90", strategy="auto", num_stages=3)


def compile_all() -> list:
    """Both kernels into the cache (``python -m bench.prepare experiments.fp16_nvfp4_fold``)."""
    return [_compiled(cfg) for _, cfg in KERNELS]


def prepare() -> None:
    from pathlib import Path

    from compiler.kernel_cache import cache_dir, compiler_fingerprint

    for label, cfg in KERNELS:
        info = _compiled(cfg).kernels[0]
        print(f"{label}: {info.shared_bytes} B shared, {info.num_warps} warps")
    Path(cache_dir(), "FINGERPRINT").write_text(compiler_fingerprint())


def _operand(cupy, rng, fmt: str, rows: int, k: int):  # noqa: ANN001, ANN202
    if fmt == "e2m1":
        return rng.integers(0, 256, size=(rows, k // 2), dtype=cupy.uint8)
    values = rng.standard_normal((rows, k), dtype=cupy.float32)
    if fmt == "fp16":
        return values.astype(cupy.float16)
    return (values.view(cupy.uint32) >> 16).astype(cupy.uint16)  # bf16 bits: the top half of the f32's


def run() -> None:
    import cupy

    from bench.gpu_common import gpu_dequant, log, rel_err, time_launch
    from targets.ptx.runner import load

    build = os.environ.get("QDOT_COMPILER_FINGERPRINT", "?")
    rng = cupy.random.default_rng()
    for label, cfg in KERNELS:
        compiled = _compiled(cfg)
        kernel = load(compiled.ptx, compiled.kernels[0])
        for m, n, k in SHAPES:
            a, b_t = _operand(cupy, rng, cfg.lhs, m, k), _operand(cupy, rng, cfg.rhs, n, k)
            sb = rng.integers(0x20, 0x48, size=(n, k // 16), dtype=cupy.uint8)  # ue4m3 0.125 … 4
            c = cupy.full((m, n), cupy.nan, dtype=cupy.float32)

            def launch() -> None:
                kernel.launch(a, b_t, sb, c, m, n, k, grid=grid(cfg, m, n), sync=False)  # noqa: B023

            launch()
            cupy.cuda.get_current_stream().synchronize()
            ref = gpu_dequant(cupy, cfg.lhs, a, None, None) @ gpu_dequant(cupy, "e2m1", b_t, sb, "ue4m3").T
            err = rel_err(cupy, c, ref)
            us = time_launch(cupy, launch)
            log(f"build {build}  {label}  {m}x{n}x{k}: {us:9.1f} us  {2 * m * n * k / us / 1e6:6.1f} TFLOP/s  "
                f"err {err:.2e}{'' if err <= 1e-5 else '  FAILED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile the kernels into $QDOT_KERNEL_CACHE")
    args = parser.parse_args()
    if args.prepare:
        prepare()
    else:
        run()


if __name__ == "__main__":
    main()

"""Experiment: how the MX GEMMs' error against float64 grows with K, per strategy.

    python -m bench.experiments.long_k_accuracy --prepare   # here: fill the kernel cache
    python -m bench.experiments.long_k_accuracy             # on the GPU machine

``compiler.numerics.tensor_core`` says a bf16 tensor core truncates its running sum toward zero
at every k16 step, so dequant-bf16's relative error should grow in proportion to K (a bias),
while promote-int8, which sums each 32-value block exactly and folds it into f32 rounding to
nearest, should grow as √K. This measures both on the H200: e2m1 × e2m1 (MXFP4) through
dequant-bf16 on sm_90's ``mma.sync`` and sm_90a's wgmma and through promote-int8, and e4m3 × e2m1
through dequant-bf16 and promote-fp8 (on sm_90 two f16 HMMA from zero per k32 and C added
by an f32 FADD that rounds to nearest, ``sm90_fp8_mma``), and dequant-bf16 on wgmma with each
K step's sum added in f32 (``GemmConfig(promote=True)``), at M = N = 256 and K from 4096 to
65536, on fresh random operands (the benchmark's: random codes, ue8m0 scales 2^-7 … 2^7), each
against a float64 GEMM of the decoded operands (``bench.mx_gemm.measure``: relative Frobenius
error). The model's prediction for the same shapes is printed by ``--model`` (here: the chain
of fused steps in numpy).
"""

from __future__ import annotations

import argparse

import numpy as np

from bench.mx_gemm import measure
from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, gemm_kernel

KS = (4096, 8192, 16384, 32768, 65536)
M = N = 256
KERNELS = [  # (label, config, strategy, arch)
    ("e2m1xe2m1 dequant-bf16 mma.sync", GemmConfig(lhs="e2m1", block_k=64, num_warps=8), "dequant-bf16", "sm_90"),
    ("e2m1xe2m1 dequant-bf16 wgmma", GemmConfig(lhs="e2m1", block_k=64, num_warps=8), "dequant-bf16", "sm_90a"),
    ("e2m1xe2m1 promote-int8", GemmConfig(lhs="e2m1", block_k=64, num_warps=8), "promote-int8", "sm_90"),
    ("e4m3xe2m1 dequant-bf16 wgmma", GemmConfig(block_k=64, num_warps=8), "dequant-bf16", "sm_90a"),
    ("e4m3xe2m1 promote-fp8 mma.sync", GemmConfig(block_k=64, num_warps=8), "promote-fp8", "sm_90"),
    ("e4m3xe2m1 dequant-bf16 wgmma promoted", GemmConfig(block_k=64, num_warps=8, promote=True), "dequant-bf16",
     "sm_90a"),
    ("e2m1xe2m1 dequant-bf16 wgmma promoted", GemmConfig(lhs="e2m1", block_k=64, num_warps=8, promote=True),
     "dequant-bf16", "sm_90a"),
]


def compile_all() -> list[tuple[str, GemmConfig, object]]:
    return [(label, cfg, get_or_compile(gemm_kernel(cfg), arch=arch, strategy=strategy, num_stages=3))
            for label, cfg, strategy, arch in KERNELS]


def model(k: int, rows: int = 256, seed: int = 0) -> tuple[float, float]:
    """(bf16 chain, exact 32-blocks folded to nearest): relative error of ``rows`` MXFP4 dot products
    of length ``k`` as the tensor-core model computes them."""
    from compiler import numerics
    from compiler.numerics.tensor_core import BF16_STEP, fused_dot

    rng = np.random.default_rng(seed)
    lut = numerics.decode("e2m1", np.arange(16, dtype=np.uint8))
    a, b = (lut[rng.integers(0, 16, (rows, k))] * np.repeat(2.0 ** rng.integers(-7, 8, (rows, k // 32)), 32, axis=1)
            for _ in range(2))
    chain = np.zeros(rows, np.float32)
    folded = np.zeros(rows, np.float32)
    for s in range(0, k, 16):
        chain = fused_dot(a[:, s:s + 16], b[:, s:s + 16], chain, BF16_STEP, "bf16")
    for s in range(0, k, 32):
        folded = (folded.astype(np.float64) + (a[:, s:s + 32] * b[:, s:s + 32]).sum(axis=1)).astype(np.float32)
    exact = (a * b).sum(axis=1)
    err = [float(np.linalg.norm(x - exact) / np.linalg.norm(exact)) for x in (chain, folded)]
    return err[0], err[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--model", action="store_true", help="only print the model's prediction (no GPU)")
    args = parser.parse_args()
    if args.model:
        for k in KS:
            chain, folded = model(k)
            print(f"K = {k:6d}: model, bf16 chain {chain:.2e}, exact blocks folded to nearest {folded:.2e}")
        return
    kernels = compile_all()
    if args.prepare:
        return
    import cupy

    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    for label, cfg, compiled in kernels:
        kernel = load(compiled.ptx, compiled.kernels[0])
        for k in KS:
            us, err, ok = measure(cupy, rng, kernel, cfg, M, N, k)
            print(f"{label:34s} M = N = {M}, K = {k:6d}: relative error {err:.3e} ({'within' if ok else 'beyond'} "
                  f"1e-5), {us:8.1f} us", flush=True)


if __name__ == "__main__":
    main()

"""Experiment: more warps per SM for the promote-int8 MX GEMM (run 73).

    python -m bench.experiments.int8_occupancy --prepare   # here: fill the kernel cache
    python -m bench.experiments.int8_occupancy             # on the GPU machine

Run 72 put the promote-int8 kernel (128×256, 8 warps, 255 registers: one CTA and 8 warps per
SM) at 45 % of its form's ceiling, and its 19 SASS instructions per IMMA at 42 % of what issue
alone allows: it waits more than it issues, with 2 warps per scheduler to hide the latency of
ldmatrix → conversion → IMMA → fold chains. Smaller tiles capped by ``min_blocks_per_sm`` give
more warps per SM at the price of spills and re-read operands: 128×128 on 8 warps at 2 CTAs
(16 warps, 128 registers, 116 B of spills) and 64×128 on 4 warps at 3 CTAs (12 warps). Each is
checked by ``bench.mx_gemm.measure`` and timed, interleaved twice with the 128×256 kernel.
"""

from __future__ import annotations

import argparse

from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, gemm_kernel

KERNELS = [
    ("e2m1xe2m1 int8 128x256x64 w8 n8 (the benchmark's)",
     GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8, n_divisibility=8)),
    ("e2m1xe2m1 int8 128x128x64 w8 n8 b2",
     GemmConfig(lhs="e2m1", block_k=64, num_warps=8, min_blocks_per_sm=2, n_divisibility=8)),
    ("e2m1xe2m1 int8 64x128x64 w4 n8 b3",
     GemmConfig(lhs="e2m1", block_m=64, block_k=64, num_warps=4, min_blocks_per_sm=3, n_divisibility=8)),
    ("e2m1xe2m1 int8 128x128x64 w8 n8",
     GemmConfig(lhs="e2m1", block_k=64, num_warps=8, n_divisibility=8)),
]
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = [(label, cfg, get_or_compile(gemm_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=3))
                for label, cfg in KERNELS]
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import log, record
    from bench.mx_gemm import measure
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    for rep in range(2):
        for label, cfg, kernel in compiled:
            loaded = load(kernel.ptx, kernel.kernels[0])
            for m, n, k in SHAPES:
                us, err, ok = measure(cupy, rng, loaded, cfg, m, n, k)
                tops = 2.0 * m * n * k / us / 1e6
                record({"what": f"qdot {label} [promote-int8, 3 stages]", "rep": rep, "shape": f"{m}x{n}x{k}",
                        "us": us, "tops": tops, "rel_err": err, "ok": ok})
                log(f"{label:48s} rep {rep} {m}x{n}x{k}: {us:8.1f} us {tops:6.1f} TOP/s err {err:.1e} "
                    f"{'ok' if ok else 'WRONG'}")


if __name__ == "__main__":
    main()

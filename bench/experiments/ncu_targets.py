"""Experiment: one launch of each goal kernel whose time is not yet explained, for Nsight Compute.

    python -m bench.experiments.ncu_targets --prepare        # here: fill the kernel cache
    ncu --kernel-name regex:'small_m|gemm_|mmq_' --set detailed \\
        python -m bench.experiments.ncu_targets               # on the GPU machine (runs 80, 267)

The GPU machine has ``ncu``. Each target is launched once on fresh random inputs (their values
do not matter here: the benchmarks check every kernel): the q4_K prefill kernel of the M = 512 goal
rows at 4096² (W repacked: 1.49 × llama.cpp, the goal is 2 ×), the one-token repacked decode kernel
at both M = 1 goal shapes (69 % and 89 % of copy bandwidth), and, with ``--mx``, the 128×256 wgmma MX
kernel and promote-int8 at 4096³ (run 80's). ``--prepare`` compiles only these kernels.
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import mmq, mx_gemm
from compiler.mmq_template import mmq_grid
from compiler.quantize_template import quantize_grid
from compiler.templates import grid

DECODE = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"
PREFILL = "mmq 64x128 w4 s2 b2 wt"
MX = ("wgmma e4m3xe2m1 bf16 128x256x64 w8 n8", "e2m1xe2m1 int8 128x256x64 w8 n8")
LAUNCHES = ((PREFILL, 512, 4096, 4096), (DECODE, 1, 4096, 14336), (DECODE, 1, 32768, 8192))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    parser.add_argument("--mx", action="store_true", help="also the two MX kernels of run 80")
    parser.add_argument("--decode-only", action="store_true",
                        help="only the decode kernel at 4096 × 14336, launched three times (its W hot in L2 from the "
                             "second on: `ncu --cache-control none --launch-skip 2`, run 268)")
    args = parser.parse_args()
    q4k = {entry[0]: entry for entry in mmq.compile_kernels(
        [e for e in mmq.PREFILL + mmq.DECODE if e[0] in (DECODE, PREFILL)])}
    mx = {entry[0]: entry for entry in mx_gemm.compile_all() if entry[0] in MX} if args.mx else {}
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    import cupy

    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks

    quantizers = mmq.load_quantizers(quantizers_compiled)
    rng = np.random.default_rng(7)
    launches, repeat = ([LAUNCHES[1]], 3) if args.decode_only else (LAUNCHES, 1)
    for label, m, n, k in launches:
        _, cfg, _, compiled = q4k[label]
        kernel = load(compiled.ptx, compiled.kernels[0])
        w_host = random_weight_blocks(n, k, rng)
        w = cupy.asarray(kernel_weights(cfg, w_host) if cfg.tiled_weights else w_host)
        x = cupy.asarray(rng.standard_normal((m, k)).astype(np.float32))
        xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
        y = cupy.zeros((m, n), dtype=cupy.float32)
        quantize = quantizers[(cfg.needs_zeroed_output, False)]
        qargs = (x, xq, y, m, k, n) if cfg.needs_zeroed_output else (x, xq, m, k)
        for _ in range(repeat):  # the same W each time: from the second launch on it is in L2
            quantize.launch(*qargs, grid=quantize_grid(m, k))
            kernel.launch(xq, w, y, m, n, k, grid=mmq_grid(cfg, m, n, k))
    crng = cupy.random.default_rng(7)
    for label in mx:
        _, cfg, _, _, compiled = mx[label]
        kernel = load(compiled.ptx, compiled.kernels[0])
        m = n = k = 4096
        a = mx_gemm._operand(cupy, crng, cfg.lhs, m, k)
        b_t = mx_gemm._operand(cupy, crng, cfg.rhs, n, k)
        sa = crng.integers(120, 135, size=(m, k // 32), dtype=cupy.uint8)
        sb = crng.integers(120, 135, size=(n, k // 32), dtype=cupy.uint8)
        c = cupy.zeros((m, n), dtype=cupy.float32)
        kernel.launch(a, b_t, sa, sb, c, m, n, k, grid=grid(cfg, m, n))
    cupy.cuda.get_current_stream().synchronize()


if __name__ == "__main__":
    main()

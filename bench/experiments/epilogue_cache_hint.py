"""Experiment: a cache hint on the MX GEMM's epilogue stores (``st.global.cs``, ``.wt``).

    python -m bench.experiments.epilogue_cache_hint --prepare   # here: fill the kernel cache
    python -m bench.experiments.epilogue_cache_hint             # on the GPU machine

Run 50's K sweep left ~8.5 µs per wave of the 128×256 wgmma kernel outside its K loop, much of
it the f32 C of 132 CTAs written at once; those writes allocate in L2 like everything else and
evict the A and B lines the next wave reads. ``.cs`` (streaming: evict first) and ``.wt``
(write-through) ask L2 to keep them short-lived. Each variant is the compiled PTX with the
qualifier added to every ``st.global`` (text edit, a measuring stick, not compiler output),
checked against a float64 GEMM on the GPU and timed like ``bench.mx_gemm``, interleaved twice.
"""

from __future__ import annotations

import argparse

from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, gemm_kernel, grid

KERNELS = [(f"wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 s{s}",
            GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8), s) for s in (3, 4)]
HINTS = ("", ".cs", ".wt")
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = [(label, cfg, get_or_compile(gemm_kernel(cfg), arch="sm_90a", strategy="dequant-bf16",
                                            num_stages=stages)) for label, cfg, stages in KERNELS]
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import gpu_dequant, log, record, rel_err, time_launch
    from bench.mx_gemm import _operand
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    for rep in range(2):
        for label, cfg, kernel in compiled:
            for hint in HINTS:
                ptx = kernel.ptx.replace("st.global.", f"st.global{hint}.")
                loaded = load(ptx, kernel.kernels[0])
                for m, n, k in SHAPES:
                    a, b_t = _operand(cupy, rng, cfg.lhs, m, k), _operand(cupy, rng, cfg.rhs, n, k)
                    sa = rng.integers(120, 135, size=(m, k // 32), dtype=cupy.uint8)
                    sb = rng.integers(120, 135, size=(n, k // 32), dtype=cupy.uint8)
                    c = cupy.full((m, n), cupy.nan, dtype=cupy.float32)

                    def launch(loaded=loaded, a=a, b_t=b_t, sa=sa, sb=sb, c=c, m=m, n=n, k=k) -> None:
                        loaded.launch(a, b_t, sa, sb, c, m, n, k, grid=grid(cfg, m, n), sync=False)

                    launch()
                    cupy.cuda.get_current_stream().synchronize()
                    ref = gpu_dequant(cupy, cfg.lhs, a, sa, "ue8m0") @ gpu_dequant(cupy, cfg.rhs, b_t, sb, "ue8m0").T
                    err = rel_err(cupy, c, ref)
                    del ref
                    us = time_launch(cupy, launch)
                    tflops = 2.0 * m * n * k / us / 1e6
                    record({"what": f"qdot {label} st.global{hint or ''}", "rep": rep, "shape": f"{m}x{n}x{k}",
                            "us": us, "tflops": tflops, "rel_err": err, "ok": err <= 1e-5})
                    log(f"{label} {hint or 'plain':5s} rep {rep} {m}x{n}x{k}: {us:8.1f} us {tflops:6.1f} TFLOP/s "
                        f"err {err:.1e}")


if __name__ == "__main__":
    main()

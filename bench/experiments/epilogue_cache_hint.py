"""Experiment: a cache hint on the MX GEMM's epilogue stores (``st.global.cs``, ``.wt``).

    python -m bench.experiments.epilogue_cache_hint --prepare   # here: fill the kernel cache
    python -m bench.experiments.epilogue_cache_hint             # on the GPU machine

Run 50's K sweep left ~8.5 µs per wave of the 128×256 wgmma kernel outside its K loop, much of
it the f32 C of 132 CTAs written at once; those writes allocate in L2 like everything else and
evict the A and B lines the next wave reads. ``.cs`` (streaming: evict first) and ``.wt``
(write-through) ask L2 to keep them short-lived. Each variant is the compiled PTX with the
qualifier added to every ``st.global`` (text edit, a measuring stick, not compiler output),
checked and timed by ``bench.mx_gemm.measure``, interleaved twice.
"""

from __future__ import annotations

import argparse

from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, gemm_kernel

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

    from bench.gpu_common import log, record
    from bench.mx_gemm import measure
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    for rep in range(2):
        for label, cfg, kernel in compiled:
            for hint in HINTS:
                loaded = load(kernel.ptx.replace("st.global.", f"st.global{hint}."), kernel.kernels[0])
                for m, n, k in SHAPES:
                    us, err, ok = measure(cupy, rng, loaded, cfg, m, n, k)
                    tflops = 2.0 * m * n * k / us / 1e6
                    record({"what": f"qdot {label} st.global{hint or ''}", "rep": rep, "shape": f"{m}x{n}x{k}",
                            "us": us, "tflops": tflops, "rel_err": err, "ok": ok})
                    log(f"{label} {hint or 'plain':5s} rep {rep} {m}x{n}x{k}: {us:8.1f} us {tflops:6.1f} TFLOP/s "
                        f"err {err:.1e}")

if __name__ == "__main__":
    main()

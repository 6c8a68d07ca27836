"""Experiment: what the persistent MX GEMM's tile arithmetic costs (run 62).

    python -m bench.experiments.persistent_const --prepare   # here: fill the kernel cache
    python -m bench.experiments.persistent_const             # on the GPU machine

``GemmConfig(persistent=True)`` (one loop over (tile, K step) pairs per program) ran 25 % slower
than one program per tile on the 128×256 wgmma kernel (run 61: 290 against 371 TFLOP/s at
4096³), although it overlaps a tile's epilogue with the next tile's copies. Its loop body maps
the iteration to a tile and K step with three divisions by run-time values, twice (the step and
the copies ``qdot-pipeline`` issues ahead): ~110 more SASS instructions per K step. Is that
the cost? Each shape here gets a variant of the persistent kernel whose divisors are that
shape's constants (K steps, tiles per group row, group height: powers of two, so the divisions
become shifts) — IR text edits for one shape each, a measuring stick, not a candidate —
interleaved with the one-tile-per-program kernel and the persistent one.
"""

from __future__ import annotations

import argparse
import dataclasses

from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, gemm_kernel

BASE = GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8)
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]


def specialised(text: str, cfg: GemmConfig, m: int, n: int, k: int) -> str:
    """The persistent kernel's text with the loop's divisors made constants for (m, n, k)."""
    tiles_m, tiles_n = m // cfg.block_m, n // cfg.block_n
    assert tiles_m % cfg.group_m == 0, "the group height must be constant"
    for old, new in (
            ("%k_steps_32 = arith.index_cast %k_steps : index to i32",
             f"%k_steps_32 = arith.constant {k // cfg.block_k} : i32"),
            (f"%in_group_32 = arith.muli %tiles_n_32, %c{cfg.group_m}_i32 : i32",
             f"%in_group_32 = arith.constant {tiles_n * cfg.group_m} : i32"),
            (f"%group_m_32 = arith.minui %left_m_32, %c{cfg.group_m}_i32 : i32",
             f"%group_m_32 = arith.constant {cfg.group_m} : i32")):
        assert old in text, old
        text = text.replace(old, new)
    return text


def kernels() -> list:
    persistent = dataclasses.replace(BASE, persistent=True)
    out = []
    for stages in (3, 4):
        out.append((f"one tile per program s{stages}", BASE, None, gemm_kernel(BASE), stages))
        out.append((f"persistent s{stages}", persistent, None, gemm_kernel(persistent), stages))
        for shape in SHAPES:
            out.append((f"persistent s{stages} constant divisors {shape[0]}", persistent, shape,
                        specialised(gemm_kernel(persistent), persistent, *shape), stages))
    return [(label, cfg, shape, get_or_compile(text, arch="sm_90a", strategy="dequant-bf16", num_stages=stages))
            for label, cfg, shape, text, stages in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = kernels()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import log, record
    from bench.mx_gemm import measure
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    for rep in range(2):
        for label, cfg, only, kernel in compiled:
            loaded = load(kernel.ptx, kernel.kernels[0])
            for m, n, k in SHAPES if only is None else [only]:
                us, err, ok = measure(cupy, rng, loaded, cfg, m, n, k)
                tflops = 2.0 * m * n * k / us / 1e6
                record({"what": f"qdot wgmma e4m3xe2m1 128x256x64 w8 n8 {label}", "rep": rep,
                        "shape": f"{m}x{n}x{k}", "us": us, "tflops": tflops, "rel_err": err, "ok": ok})
                log(f"{label:42s} rep {rep} {m}x{n}x{k}: {us:8.1f} us {tflops:6.1f} TFLOP/s err {err:.1e} "
                    f"{'ok' if ok else 'WRONG'}")


if __name__ == "__main__":
    main()

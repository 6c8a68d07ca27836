"""Experiment: the L2 prefetch-size hint on the q4_K kernels' copies (``cp.async…L2::128B/256B``).

    python -m bench.experiments.l2_hint_run --prepare   # here: fill the kernel cache
    python -m bench.experiments.l2_hint_run             # on the GPU machine

A decode kernel copies each weight row in 144-byte pieces (one q4_K super-block per K step),
which caps its weight stream below the copy bandwidth (RESULTS.md, runs 40–41). The hint asks
L2 to fetch the whole 128 / 256-byte line around each 16-byte request from DRAM — the next
step's piece of the same row, with no extra instruction. Each variant is the compiled PTX with
the qualifier added to every ``cp.async.cg.shared.global`` (text edit, a measuring stick, not
compiler output), checked against ``compiler.numerics`` and timed by ``bench.mmq.measure``,
twice, interleaved with the original.
"""

from __future__ import annotations

import argparse
import json

from bench.mmq import DECODE, PREFILL, compile_kernels, compile_quantizers

KERNELS = [DECODE[0], DECODE[3], PREFILL[2]]
SHAPES = {True: [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (1, 3584, 3584)],
          False: [(512, 4096, 4096), (512, 4096, 14336)]}
HINTS = ("", ".L2::128B", ".L2::256B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_kernels(KERNELS)
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.mmq import copy_bandwidth, measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    print("copy GB/s", round(copy_bandwidth(cupy)), flush=True)
    for rep in range(2):
        for label, cfg, stages, kernel in compiled:
            info = kernel.kernels[0]
            for hint in HINTS:
                ptx = kernel.ptx.replace("cp.async.cg.shared.global ", f"cp.async.cg.shared.global{hint} ")
                loaded = load(ptx, info)
                for m, n, k in SHAPES[cfg.small_m]:
                    row = measure(cupy, loaded, quantizers, f"{label} {hint or 'no hint'}", cfg, stages, info,
                                  m, n, k, rng, flush)
                    print("ROW", json.dumps({"kernel": label, "hint": hint or "none", "rep": rep, "shape": row["shape"],
                                             "ok": row["ok"], "mul_mat": round(row["us_mul_mat"], 2),
                                             "kernel_us": round(row["us_kernel"], 2)}), flush=True)


if __name__ == "__main__":
    main()

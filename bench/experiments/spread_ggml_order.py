"""Experiment: the runner's spread of programmatic one-wave grids for the decode kernels that read ggml's
layout.

    python -m bench.experiments.spread_ggml_order --prepare   # here: fill the kernel cache
    python -m bench.experiments.spread_ggml_order             # on the GPU machine

Run 200 timed the spread (dynamic shared memory padded so that no SM takes more than ⌈grid / SMs⌉ programs)
against the kernel's own shared memory for the repacked (``wt``) decode kernels only, and made it the runner's
default for every programmatic launch. Run 209 then found three ggml-order kernels 4–15 % slower padded where
their registers already capped them (now left unpadded). This times the ggml-order decode kernels the default
still pads, at M = 1 and the two goal shapes, padded (``QDOT_BENCH_SPREAD=1``) and not (``=0``), each checked
against ``compiler.numerics`` first (``bench.mmq.measure``), interleaved, twice.
"""

from __future__ import annotations

import argparse
import os

import bench.mmq as mmq
from compiler.mmq_template import mmq_grid

SHAPES = ((1, 32768, 8192), (1, 4096, 14336))
REPETITIONS = 2


def entries() -> list[tuple[str, object, int]]:
    return [entry for entry in mmq.selected(None)
            if entry[1].small_m and entry[1].wait_previous_grid and not entry[1].tiled_weights]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    args = parser.parse_args()
    kernels = mmq.compile_kernels(entries())
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, log, record, row_line
    from targets.ptx.runner import load

    cupy = gpu_or_exit("python -m bench.experiments.spread_ggml_order")
    log(f"copy bandwidth {mmq.copy_bandwidth(cupy):.0f} GB/s")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    plan = []
    for label, cfg, stages, compiled in kernels:
        kernel = load(compiled.ptx, compiled.kernels[0])
        for m, n, k in SHAPES:
            grid = mmq_grid(cfg, m, n, k, resident=kernel.resident_programs())
            if kernel.shared_bytes_for(grid, True) != kernel.info.shared_bytes:
                plan.append((label, cfg, stages, kernel, m, n, k))
    log(f"{len(plan)} (kernel, shape) pairs padded by default")
    for rep in range(REPETITIONS):
        for label, cfg, stages, kernel, m, n, k in plan:
            for spread in ("1", "0") if rep == 0 else ("0", "1"):
                os.environ["QDOT_BENCH_SPREAD"] = spread
                row = mmq.measure(cupy, kernel, quantizers, f"{label} spread={spread}", cfg, stages, kernel.info,
                                  m, n, k, rng, flush)
                row.update({"experiment": "spread_ggml_order", "spread": spread, "rep": rep,
                            "registers": kernel.registers})
                record(row)
                row_line(label, row, spread=spread)


if __name__ == "__main__":
    main()

"""Experiment: split-K with the splits interleaved by super-block (run 106).

    python -m bench.experiments.interleaved_splits --prepare   # here: fill the kernel cache
    python -m bench.experiments.interleaved_splits             # on the GPU machine

The decode kernel splits K into contiguous ranges: program (x, y) reads super-blocks
[y·K/S, (y+1)·K/S) of its 64 weight rows, one 144-byte piece per row and step, so at any moment
the pieces in flight lie far apart in every row (run 41: 144-byte pieces cap the stream at
73–78 % of copy bandwidth, runs of 576 bytes reach 91 %). Interleaved, program (x, y) reads
super-blocks y, y + S, y + 2S, …: the S programs of a row tile start together and step at the
same pace, so together they read S adjacent pieces of each row — runs of 144 · S bytes across
programs — with the same tiles, grid and shared memory: ``MmqConfig(interleave_splits=True)``,
whose K loop is ``scf.for %kk = %pid_k to %kw step %splits`` (run 106 timed the template with
its loop rewritten so, which compiles to the same PTX but for the kernel's name). Each kernel is
checked against ``compiler.numerics`` first (``bench.mmq.measure``), interleaved with the
contiguous form over two repetitions.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from bench.mmq import DECODE, _pipeline, compile_quantizers
from compiler.kernel_cache import get_or_compile
from compiler.mmq_template import mmq_kernel

LABELS = ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128", "small_m 64 w2 splitk s2 pdl")
SHAPES = {(32768, 8192): (2, 4, 8), (4096, 14336): (7, 14, 28), (4096, 4096): (8, 16), (3584, 3584): (7, 14)}
"""(N, K): the split counts timed (the benchmark's default first)."""


def compile_variants() -> list[tuple[str, object, int, dict[str, object]]]:
    out = []
    for label, cfg, stages in (e for e in DECODE if e[0] in LABELS):
        forms = (("contiguous", cfg), ("interleaved", dataclasses.replace(cfg, interleave_splits=True)))
        kernels = {name: get_or_compile(mmq_kernel(form), arch="sm_90", strategy="promote-int8", num_stages=stages,
                                        pipeline=_pipeline(label, stages))
                   for name, form in forms}
        out.append((label, cfg, stages, kernels))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    variants = compile_variants()
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import record
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    loaded = [(label, cfg, stages, {name: (load(k.ptx, k.kernels[0]), k.kernels[0]) for name, k in kernels.items()})
              for label, cfg, stages, kernels in variants]
    for rep in range(2):
        for label, cfg, stages, kernels in loaded:
            for (n, k), counts in SHAPES.items():
                for m in (1, 8) if cfg.max_m == 8 else (1,):
                    for splits in counts:
                        for name, (kernel, info) in kernels.items():
                            split = {"max_splits": splits, "target": 1 << 20, "min_blocks": 1}
                            row = measure(cupy, kernel, quantizers, f"{label} {name}", cfg, stages, info, m, n, k,
                                          rng, flush, **split)
                            row.update({"experiment": "interleaved_splits", "variant": name, "rep": rep,
                                        "splits": splits})
                            record(row)
                            print("ROW", json.dumps({"kernel": label, "variant": name, "shape": row["shape"],
                                                     "grid": row["grid"], "ok": row["ok"],
                                                     "mul_mat": round(row["us_mul_mat"], 2),
                                                     "kernel_us": round(row["us_kernel"], 2)}), flush=True)


if __name__ == "__main__":
    main()

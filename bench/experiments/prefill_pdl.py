"""Experiment: programmatic dependent launch for the prefill MUL_MAT (M = 512).

    python -m bench.experiments.prefill_pdl --prepare   # here: fill the kernel cache
    python -m bench.experiments.prefill_pdl             # on the GPU machine

A MUL_MAT is the quantize kernel, then the GEMM. Run 42 let the decode GEMM launch while the
quantize kernel runs (``MmqConfig(wait_previous_grid=True)``: ``griddepcontrol.wait`` first
thing; ``quantize_kernel(launch_dependents=True)``; the launch with ``programmatic=True``) and
gained 0.1–1.9 µs per call; the prefill kernels never had it. Here the benchmark's prefill
kernels — the best tile and its stream-K form, which needs Y zeroed — are timed without and
with it, each checked against ``compiler.numerics`` first (``bench.mmq.measure``), interleaved
over three repetitions.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from bench.mmq import PREFILL, PREFILL_SHAPES, compile_quantizers
from compiler.kernel_cache import get_or_compile
from compiler.mmq_template import mmq_kernel

LABELS = ("mmq 64x128 w4 s2 b2", "mmq 64x128 w4 s2 b2 streamk")
REPETITIONS = 3


def compile_variants() -> list[tuple[str, list[tuple[str, object, object]], int]]:
    """(label, [(variant, config, compiled kernel)], stages) for each kernel of ``LABELS``."""
    out = []
    for label, cfg, stages in (e for e in PREFILL if e[0] in LABELS):
        forms = (("plain", cfg), ("pdl", dataclasses.replace(cfg, wait_previous_grid=True)))
        kernels = [(name, form, get_or_compile(mmq_kernel(form), arch="sm_90", strategy="promote-int8",
                                               num_stages=stages))
                   for name, form in forms]
        out.append((label, kernels, stages))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
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
    loaded = [(label, [(name, cfg, load(k.ptx, k.kernels[0]), k.kernels[0]) for name, cfg, k in kernels], stages)
              for label, kernels, stages in variants]
    for rep in range(REPETITIONS):
        for label, kernels, stages in loaded:
            for m, n, k in PREFILL_SHAPES:
                for name, cfg, kernel, info in kernels:
                    row = measure(cupy, kernel, quantizers, f"{label} {name}", cfg, stages, info, m, n, k, rng, flush)
                    row.update({"experiment": "prefill_pdl", "variant": name, "rep": rep})
                    record(row)
                    print("ROW", json.dumps({"kernel": label, "variant": name, "shape": row["shape"],
                                             "ok": row["ok"], "mul_mat": round(row["us_mul_mat"], 2),
                                             "kernel_us": round(row["us_kernel"], 2),
                                             "quantize_us": round(row["us_quantize"], 2)}), flush=True)


if __name__ == "__main__":
    main()

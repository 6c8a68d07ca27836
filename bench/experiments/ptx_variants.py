"""The A/B loop of the experiments that time a compiled q4_K kernel against a text edit of its PTX.

A text edit is a measuring stick, not qdot output: it asks whether a change is worth building in
the compiler. Each variant is checked against ``compiler.numerics`` before it is timed
(``bench.mmq.measure``), and the variants of a kernel are interleaved over the repetitions so that
the machine's drift falls on both alike (runs 95 and 96).
"""

from __future__ import annotations

import json


def run_ab(compiled: list, edited: dict[str, str], shapes: dict[bool, tuple], experiment: str, variant: str,
           quantizers_compiled: dict, repetitions: int = 2) -> None:
    """``compiled``: ``bench.mmq.compile_kernels`` rows; ``edited``: each label's edited PTX;
    ``shapes``: the (M, N, K) to time, by whether the kernel is a decode kernel."""
    import cupy

    from bench.gpu_common import record
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    loaded = [(label, cfg, stages, kernel.kernels[0], {"compiled": load(kernel.ptx, kernel.kernels[0]),
                                                        variant: load(edited[label], kernel.kernels[0])})
              for label, cfg, stages, kernel in compiled]
    for rep in range(repetitions):
        for label, cfg, stages, info, kernels in loaded:
            for m, n, k in shapes[cfg.small_m]:
                for name, kern in kernels.items():
                    row = measure(cupy, kern, quantizers, f"{label} {name}", cfg, stages, info, m, n, k, rng, flush)
                    row.update({"experiment": experiment, "variant": name, "rep": rep})
                    record(row)
                    print("ROW", json.dumps({"kernel": label, "variant": name, "shape": row["shape"],
                                             "ok": row["ok"], "mul_mat": round(row["us_mul_mat"], 2),
                                             "kernel_us": round(row["us_kernel"], 2)}), flush=True)

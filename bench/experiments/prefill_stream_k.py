"""Experiment: stream-K for the prefill MUL_MAT with W repacked once (M = 512).

    python -m bench.experiments.prefill_stream_k --prepare   # here: fill the kernel cache
    python -m bench.experiments.prefill_stream_k             # on the GPU machine

At N = K = 3584 the benchmark's 64×128 tile makes 224 programs for 264 slots (two per SM): 40 SMs
run one program, 92 two, and the MUL_MAT takes the time of two whole K loops sharing an SM. Stream-K
gives every slot the same share of the (tile, super-block) iterations, 12 of a tile's 14 here, at the
price of Y zeroed first and the split tiles' pieces added atomically. Runs 32 and 121 timed it before
W was repacked (run 121: its kernel 65.6 µs against 63.6 at 3584²); this times the repacked tile (the
benchmark's) against its stream-K form, each checked against ``compiler.numerics`` first
(``bench.mmq.measure``), interleaved over ``REPETITIONS``.
"""

from __future__ import annotations

import argparse
import dataclasses

from bench.mmq import PREFILL, PREFILL_SHAPES, compile_kernels, compile_quantizers

TILED = "mmq 64x128 w4 s2 b2 wt"
REPETITIONS = 2


def entries() -> list[tuple[str, object, int]]:
    """The benchmark's repacked prefill tile and the same with ``stream_k=True`` (not a benchmark row)."""
    (label, cfg, stages), = [entry for entry in PREFILL if entry[0] == TILED]
    return [(label, cfg, stages), (f"{label} streamk", dataclasses.replace(cfg, stream_k=True), stages)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    args = parser.parse_args()
    kernels = compile_kernels(entries())
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import record, row_line
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    loaded = [(label, cfg, stages, load(c.ptx, c.kernels[0]), c.kernels[0]) for label, cfg, stages, c in kernels]
    for rep in range(REPETITIONS):
        for m, n, k in PREFILL_SHAPES:
            for label, cfg, stages, kernel, info in loaded:
                row = measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush)
                row.update({"experiment": "prefill_stream_k", "rep": rep})
                record(row)
                row_line(label, row)


if __name__ == "__main__":
    main()

"""Experiment: how the one-token decode kernel's speed depends on programs per SM (run 77).

    python -m bench.experiments.decode_occupancy --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_occupancy             # on the GPU machine

The decode kernel (64 weight rows, 2 warps, 2 cp.async stages) keeps one stage's copies in
flight while it computes the other, so the bytes in flight per SM are the programs per SM
times one stage. Its 27.1 KB of shared memory allow 8 programs per SM (80 registers would
allow 12); 18.4 KB of it are the two weight stages, the rest mostly the activation tile, sized
for 8 tokens even at M = 1. Would a smaller footprint pay? This measures the other direction,
which needs no compiler change: the same compiled kernel launched with its dynamic shared
memory padded so that only 7, 6, 5 or 4 programs fit per SM (228 KB per SM, 1 KB reserved
per program), each MUL_MAT checked, then timed (``bench.mmq.measure``). The slope below 8 says
what the programs the unused registers could hold would be worth.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os

from bench.mmq import compile_kernels, compile_quantizers
from compiler.mmq_template import MmqConfig

KERNEL = ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",
          MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                    l2_prefetch=128), 2)
SHAPES = ((32768, 8192), (4096, 14336))
PROGRAMS_PER_SM = (None, 7, 6, 5, 4)
SM_SHARED = 228 * 1024
RESERVED = 1024


def padded_bytes(natural: int, programs: int | None) -> int:
    """Dynamic shared memory that lets at most ``programs`` programs share an SM."""
    if programs is None:
        return natural
    return max(natural, (SM_SHARED // programs - RESERVED) // 128 * 128)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_kernels([KERNEL])
    quantizers_compiled = compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import record
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    os.environ["QDOT_BENCH_SPREAD"] = "0"  # each cap as padded here, not the runner's later default on top
    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)
    label, cfg, stages, kernel = compiled[0]
    info = kernel.kernels[0]
    for rep in range(2):
        for programs in PROGRAMS_PER_SM:
            smem = padded_bytes(info.shared_bytes, programs)
            padded = dataclasses.replace(info, shared_bytes=smem)
            loaded = load(kernel.ptx, padded)
            for n, k in SHAPES:
                row = measure(cupy, loaded, quantizers, label, cfg, stages, padded, 1, n, k, rng, flush)
                row.update({"experiment": "decode_occupancy", "rep": rep, "programs_per_sm_cap": programs,
                            "dynamic_shared_bytes": smem})
                record(row)
                print("ROW", json.dumps({"cap": programs, "smem": smem, "shape": row["shape"], "ok": row["ok"],
                                         "mul_mat": round(row["us_mul_mat"], 2),
                                         "kernel_us": round(row["us_kernel"], 2),
                                         "kernel_GBs": round(row["weight_GBs_kernel"])}), flush=True)


if __name__ == "__main__":
    main()

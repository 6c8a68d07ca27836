"""q8_1 × q4_K GEMM benchmark (issue 6): qdot's MMQ and weights-once kernels on llama.cpp's shapes.

    python -m bench.mmq --prepare     # here: compile every kernel into the cache
    python -m bench.mmq               # on the GPU machine

llama.cpp cannot be built on the GPU machine (no network), so its figures are the
anchors measured on an H200 (shared/reference/anchors.md, ``test-backend-ops perf
-o MUL_MAT``, which include the activation quantization); this run measures the
device-to-device copy bandwidth itself, the HBM reference of the decode goal.
Each kernel is checked before it is timed: its first 64 output rows (all of them
for M ≤ 8) against ``compiler.numerics`` in float64. Decode timings are given twice:
back-to-back (weights may stay in the 50 MB L2, as in llama.cpp's loop) and with L2
flushed before every launch (what HBM delivers).
"""

from __future__ import annotations

import argparse

import numpy as np

from compiler.kernel_cache import get_or_compile
from compiler.mmq_template import SMALL_M_MAX, MmqConfig, mmq_grid, mmq_kernel

PREFILL_SHAPES = [(512, 3584, 3584), (512, 4096, 4096), (512, 4096, 14336)]
DECODE_SHAPES = [(4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584)]
DECODE_MS = (1, 2, 3, 4, 5, 8)
LLAMA_US = {  # anchors.md, µs per MUL_MAT (quantization included): (n_rows, k) -> {tokens: µs}
    (3584, 3584): {1: 6.46, 2: 8.37, 3: 10.31, 4: 12.38, 5: 14.67, 8: 21.11, 512: 84.55},
    (4096, 4096): {1: 7.23, 2: 9.53, 3: 11.91, 4: 14.09, 5: 16.11, 8: 23.33, 512: 107.16},
    (4096, 14336): {1: 16.79, 2: 22.35, 3: 29.93, 4: 36.45, 5: 45.20, 8: 67.19, 512: 342.76},
    (32768, 8192): {1: 67.44, 8: 288.18},
}

PREFILL = [  # (label, config, stages)
    ("mmq 64x128 w4", MmqConfig(block_m=64, block_n=128, num_warps=4), 3),
    ("mmq 128x128 w8", MmqConfig(block_m=128, block_n=128, num_warps=8), 3),
    ("mmq 64x64 w4", MmqConfig(block_m=64, block_n=64, num_warps=4), 3),
]
DECODE = [
    ("small_m 32 w2 s8", MmqConfig(small_m=True, block_n=32, num_warps=2), 8),
    ("small_m 16 w1 s8", MmqConfig(small_m=True, block_n=16, num_warps=1), 8),
]


def compile_all() -> list:
    return [(label, cfg, stages, get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8",
                                                num_stages=stages))
            for label, cfg, stages in PREFILL + DECODE]


def _check(cupy, kernel, cfg, x, w, m, n, k) -> float:  # noqa: ANN001
    from compiler import numerics

    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    kernel.launch(x, w, y, m, n, k, grid=mmq_grid(cfg, m, n))
    rows = min(m, 64)
    ref = numerics.dot_scaled(cupy.asnumpy(x[:rows]), cupy.asnumpy(w).transpose(1, 0, 2), lhs="q8_1_mmq",
                              rhs="q4_K", use_block_sums=True)
    out = cupy.asnumpy(y[:rows]).astype(np.float64)
    if not np.isfinite(out).all():
        return float("inf")
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def run(quick: bool) -> None:
    import cupy

    from bench.gpu_common import log, record, time_launch
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import random_q4k_blocks

    rng = np.random.default_rng()
    copy_gbs = _copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    flush = cupy.empty(256 << 20, dtype=cupy.uint8)
    for label, cfg, stages, compiled in compile_all():
        kernel = load(compiled.ptx, compiled.kernels[0])
        info = compiled.kernels[0]
        shapes = [(m, n, k) for n, k in DECODE_SHAPES for m in DECODE_MS] if cfg.small_m else PREFILL_SHAPES
        if quick:
            shapes = shapes[:2]
        for m, n, k in shapes:
            if cfg.small_m and (m > SMALL_M_MAX or (n, k) not in LLAMA_US or m not in LLAMA_US[(n, k)]):
                continue
            w = cupy.asarray(random_q4k_blocks(n, k, rng))
            x = cupy.asarray(_activations(rng, m, k))
            err = _check(cupy, kernel, cfg, x, w, m, n, k)
            y = cupy.empty((m, n), dtype=cupy.float32)

            def launch() -> None:
                kernel.launch(x, w, y, m, n, k, grid=mmq_grid(cfg, m, n), sync=False)

            us = time_launch(cupy, launch)
            row = {"what": f"qdot {label} [{stages} stages]", "shape": f"M={m} N={n} K={k}", "us": us,
                   "tflops": 2.0 * m * n * k / us / 1e6, "rel_err_first_rows": err, "ok": err <= 1e-5,
                   "shared_bytes": info.shared_bytes, "num_warps": info.num_warps,
                   "llama_us": LLAMA_US.get((n, k), {}).get(m)}
            weight_bytes = n * k // 256 * 144
            if cfg.small_m:
                cold = _time_cold(cupy, launch, flush)
                row.update({"us_l2_flushed": cold, "weight_GBs": weight_bytes / us / 1e3,
                            "weight_GBs_l2_flushed": weight_bytes / cold / 1e3})
            record(row)
            log(f"{label:20s} M={m:4d} N={n:5d} K={k:5d}: {us:8.2f} us  llama {row['llama_us']}  err {err:.1e}")


def _activations(rng: np.random.Generator, m: int, k: int) -> np.ndarray:
    from compiler import numerics

    x = rng.standard_normal((m, k)).astype(np.float32)
    return numerics.quantize("q8_1_mmq", x).reshape(m, k // 128, 144)


def _copy_bandwidth(cupy) -> float:  # noqa: ANN001
    from bench.gpu_common import time_launch

    src = cupy.ones(1 << 30, dtype=cupy.uint8)
    dst = cupy.empty_like(src)
    us = time_launch(cupy, lambda: dst.__setitem__(slice(None), src))
    return 2 * src.nbytes / us / 1e3


def _time_cold(cupy, launch, flush, reps: int = 20) -> float:  # noqa: ANN001
    import statistics

    times = []
    for _ in range(reps):
        flush.fill(1)
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--quick", action="store_true", help="first two shapes per kernel")
    args = parser.parse_args()
    if args.prepare:
        for label, _cfg, stages, compiled in compile_all():
            info = compiled.kernels[0]
            print(f"{label:20s} {stages} stages: smem {info.shared_bytes} B, {info.num_warps} warps")
        return
    run(args.quick)


if __name__ == "__main__":
    main()

"""Timing and GPU-side references shared by the benchmark scripts.

Timing: CUDA events around each launch after warm-up, median of the repetitions
(``time_launch``, defined in ``targets.ptx.timing`` and shared with ``qdot-bench``),
fresh random inputs per shape. Large shapes are checked against a float64 GEMM
of the decoded operands computed on the GPU (cuBLAS DGEMM through CuPy), which
follows the same decoding tables as ``compiler.numerics``.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from typing import Any, Callable

import numpy as np

from compiler import numerics
from targets.ptx.timing import time_launch  # the one definition; bench/ scripts import it from here

__all__ = ["OUT", "decode_table", "gpu_dequant", "log", "record", "rel_err", "time_graph", "time_launch"]

OUT = os.environ.get("OUT", "/tmp/qdot_bench")


def log(*parts: Any) -> None:
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def record(row: dict) -> None:
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "results.jsonl"), "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")
    print("RESULT", json.dumps(row, sort_keys=True), flush=True)


def time_graph(cupy: Any, fn: Callable[[], None], per_graph: int = 20, reps: int = 7) -> float:
    """Median microseconds of one ``fn`` (any number of launches), timed as a CUDA graph.

    Kernels of a few microseconds finish before Python has submitted the next launch, so
    events around single launches measure the host. Capturing ``per_graph`` calls of ``fn``
    into one graph and timing graph launches measures the GPU, back to back, as
    llama.cpp's benchmark loop (a graph of N copies of the node) does.
    """
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        fn()  # load modules and allocate before capturing
        stream.synchronize()
        stream.begin_capture()
        for _ in range(per_graph):
            fn()
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        times = []
        for _ in range(reps):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            graph.launch(stream)
            end.record(stream)
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3 / per_graph)
    return statistics.median(times)


def decode_table(fmt: str) -> np.ndarray:
    codes = np.arange(256 if fmt not in ("e2m1",) else 16, dtype=np.uint8)
    if fmt in ("e2m3", "e3m2"):
        codes = np.arange(64, dtype=np.uint8)
    return numerics.decode(fmt, codes)


def gpu_dequant(cupy: Any, fmt: str, codes: Any, scale: Any | None, scale_kind: str | None) -> Any:
    """float64 [rows, K] values of an operand stored [rows, K'] (K-major), scales applied."""
    if fmt == "e2m1":
        lut = cupy.asarray(decode_table("e2m1"))
        lo, hi = codes & 0xF, codes >> 4
        values = cupy.empty((codes.shape[0], codes.shape[1] * 2), dtype=cupy.float64)
        values[:, 0::2] = lut[lo]
        values[:, 1::2] = lut[hi]
    elif fmt == "bf16":
        values = (codes.astype(cupy.uint32) << 16).view(cupy.float32).astype(cupy.float64)
    elif fmt == "i8":
        values = codes.astype(cupy.float64)
    else:
        values = cupy.asarray(decode_table(fmt))[codes]
    if scale is not None:
        group = 32 if scale_kind == "ue8m0" else 16
        table = numerics.decode(scale_kind, np.arange(256 if scale_kind == "ue8m0" else 128, dtype=np.uint8))
        s = cupy.asarray(table)[scale]
        values = values * cupy.repeat(s, group, axis=1)
    return values


def rel_err(cupy: Any, out: Any, ref: Any) -> float:
    out = out.astype(cupy.float64)
    if not bool(cupy.isfinite(out).all()):
        return float("inf")
    return float(cupy.linalg.norm(out - ref) / cupy.linalg.norm(ref))

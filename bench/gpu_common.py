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
import time
from typing import Any

import numpy as np

from compiler import numerics
from targets.ptx.timing import time_graph, time_launch  # the one definitions; bench/ scripts import them from here

__all__ = ["OUT", "decode_table", "gpu_dequant", "gpu_or_exit", "log", "record", "rel_err", "row_line", "time_graph",
           "time_launch"]

OUT = os.environ.get("OUT", "/tmp/qdot_bench")


def gpu_or_exit(tool: str) -> Any:
    """CuPy with a usable device, or exit with one line that says what is missing (status 1): these scripts
    time kernels on the GPU machine, and on the CPU machine their ``--prepare`` / ``prepare`` step is the one
    that runs."""
    from targets.ptx.runner import GpuUnavailable, require_cupy

    try:
        cupy = require_cupy()
    except GpuUnavailable as err:
        raise SystemExit(f"{tool}: error: this step runs on a GPU: {err}") from None
    _DEVICE.append(device_name(cupy))
    return cupy


_DEVICE: list[str] = []
"""The GPU ``gpu_or_exit`` found: every row ``record`` writes names it (runs land on H100s and H200s)."""


def device_name(cupy: Any) -> str:
    name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def on_anchor_gpu() -> bool:
    """Whether this run's GPU is the one the llama.cpp anchors were measured on (an H200): a speed-up against
    them from another GPU compares two machines."""
    return bool(_DEVICE) and "H200" in _DEVICE[-1]


def log(*parts: Any) -> None:
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def record(row: dict) -> None:
    if _DEVICE and "device" not in row:
        row = {**row, "device": _DEVICE[-1]}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "results.jsonl"), "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")
    print("RESULT", json.dumps(row, sort_keys=True), flush=True)


def row_line(kernel: str, row: dict, **fields: Any) -> None:
    """Print one ``bench.mmq.measure`` row as the experiments' ``ROW {json}`` summary line: the kernel,
    ``fields`` (the variant), the shape, the check and the times in µs (2 decimals)."""
    summary = {"kernel": kernel, **fields, "shape": row["shape"], "ok": row["ok"], "grid": row["grid"]}
    if "launch_shared_bytes" in row:
        summary["launch_shared"] = row["launch_shared_bytes"]
    summary.update({"mul_mat": round(row["us_mul_mat"], 2), "no_pdl": round(row["us_mul_mat_no_pdl"], 2),
                    "kernel_us": round(row["us_kernel"], 2), "quantize_us": round(row["us_quantize"], 2)})
    print("ROW", json.dumps(summary), flush=True)


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
    elif fmt == "fp16":
        values = codes.view(cupy.float16).astype(cupy.float64)
    elif fmt == "i8":
        values = codes.astype(cupy.float64)
    else:
        values = cupy.asarray(decode_table(fmt))[codes]
    if scale is not None:
        group = numerics.SCALE_GROUP[scale_kind]
        table = numerics.decode(scale_kind, np.arange(256 if scale_kind == "ue8m0" else 128, dtype=np.uint8))
        s = cupy.asarray(table)[scale]
        values = values * cupy.repeat(s, group, axis=1)
    return values


def rel_err(cupy: Any, out: Any, ref: Any) -> float:
    out = out.astype(cupy.float64)
    if not bool(cupy.isfinite(out).all()):
        return float("inf")
    return float(cupy.linalg.norm(out - ref) / cupy.linalg.norm(ref))

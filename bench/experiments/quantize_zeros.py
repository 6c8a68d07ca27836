"""Run 203 (experiment): do zero activations send the quantize kernel's divisions to their slow path?

Run 202 timed the quantize kernel at M = 33 at 6.3–6.8 µs where M = 64 took 3.3–4.5: a program whose row
tile reaches past M quantizes zero-filled rows, and ``div.rn.f32`` of a zero numerator leaves ptxas's fast
sequence (its ``FCHK`` check) for the full-range subroutine. The lowering now divides the divisor instead
where a value is zero (the quotient 1 truncates to 0 as 0 / d does). This script times one kernel build on
inputs with and without zeros; run it once per kernel cache (before and after the change), interleaved:

    PYTHONPATH=$PWD python bench/experiments/quantize_zeros.py prepare   # here, once per tree
    PYTHONPATH=$PWD python bench/experiments/quantize_zeros.py TAG       # on the GPU machine

Each output is checked byte for byte against ``compiler.numerics.quantize`` before it is timed.
"""

from __future__ import annotations

import sys

import numpy as np

from compiler.kernel_cache import get_or_compile
from compiler.quantize_template import quantize_grid, quantize_kernel

TILES = [(8, 512, 4), (8, 128, 4), (4, 256, 1)]
SHAPES = [(33, 4096), (512, 4096), (512, 14336), (1, 4096)]


def inputs(rng: np.random.Generator, m: int, k: int) -> dict[str, np.ndarray]:
    """Random activations, all zeros, every other 32-value group zero, and one value in ten zero."""
    x = rng.standard_normal((m, k)).astype(np.float32)
    groups = x.reshape(m, k // 32, 32).copy()
    groups[:, ::2] = 0
    sparse = np.where(rng.random((m, k)) < 0.1, np.float32(0), x)
    return {"random": x, "zeros": np.zeros_like(x), "half the groups zero": groups.reshape(m, k),
            "a tenth of the values zero": sparse}


def main() -> None:
    kernels = [(tile, get_or_compile(quantize_kernel("q8_1_mmq", *tile, mid_values=0), arch="sm_90")) for tile in TILES]
    if sys.argv[1:] == ["prepare"]:
        for tile, compiled in kernels:
            print(tile, compiled.kernels[0].name)
        return
    import cupy

    from bench.gpu_common import log, record, time_graph
    from compiler import numerics
    from targets.ptx.runner import load

    tag = sys.argv[1]
    rng = np.random.default_rng()
    loaded = [(tile, load(c.ptx, c.kernels[0])) for tile, c in kernels]
    for m, k in SHAPES:
        for name, x_host in inputs(rng, m, k).items():
            x = cupy.asarray(x_host)
            want = numerics.quantize("q8_1_mmq", x_host).reshape(m, k // 128, 144)
            for (rows, block_k, warps), kernel in loaded:
                xq = cupy.full((m, k // 128, 144), 0xAB, dtype=cupy.uint8)
                grid = quantize_grid(m, k, rows, block_k, mid_values=0)  # the kernels as run 203 had them

                def quantize(kernel=kernel, xq=xq, grid=grid) -> None:  # noqa: ANN001
                    kernel.launch(x, xq, m, k, grid=grid, sync=False)  # noqa: B023

                quantize()
                cupy.cuda.get_current_stream().synchronize()
                exact = bool(np.array_equal(cupy.asnumpy(xq), want))
                us = time_graph(cupy, quantize)
                log(f"{tag}: M={m} K={k} {name:28s} {rows}x{block_k} w{warps}: {us:6.2f} us exact {exact}")
                record({"experiment": "quantize_zeros", "tree": tag, "shape": f"M={m} K={k}", "input": name,
                        "tile": f"{rows}x{block_k} w{warps}", "us": us, "bit_exact": exact})


if __name__ == "__main__":
    main()

"""Run 201 (experiment): how fast can the prefill's activation quantization be? At M = 512 the quantize
kernel (8 × 512 values per program, 4 warps) takes 5.2–5.5 µs of a 67–90 µs MUL_MAT at K = 3584 / 4096 and
11.4 µs at K = 14336 (runs 121, 195) — the X it reads (7–29 MB) stays in L2 between calls, so the reads
alone could take a fraction of that. Here every tile shape ``qdot-lower-quantize`` accepts is timed at the
three prefill shapes, each checked byte for byte against ``compiler.numerics.quantize`` first, beside
two references of the same run: a device-to-device copy of X's bytes and an empty graph node's cost
(a 1-program kernel that returns at once).

    PYTHONPATH=$PWD python bench/experiments/quantize_tiles.py prepare   # here: compile (refusals listed)
    PYTHONPATH=$PWD python bench/experiments/quantize_tiles.py           # on the GPU machine

Run 202 (``candidates``): the fastest tiles of run 201 as the benchmark would build them (one-row tiles up
to M = 32, ``small_m=32``) at every M the GEMMs are timed at, and in the form the split-K decode GEMMs take
(``zero_output``, ``launch_dependents``) at the decode shapes, three times interleaved:

    PYTHONPATH=$PWD python bench/experiments/quantize_tiles.py candidates-prepare   # here
    PYTHONPATH=$PWD python bench/experiments/quantize_tiles.py candidates           # on the GPU machine

Run 205 (``default``): the same shapes for the kernel before and after the mid tile (8 × 128 while
M · K ≤ 2^21, ``QuantizeConfig.mid_values``) became the default: ``default-prepare`` here, ``default`` there.
Run with another tree first on ``PYTHONPATH`` (``PYTHONPATH=OLD python bench/experiments/quantize_tiles.py
default``), ``default`` times that tree's kernels: run 270 compared the mid tile's steps with their loads first
(``UNROLLED_LANES_STEPS``) against the previous compiler's loop that way. Run 270 (``mid``): the default kernel
beside the same kernel with other mid tiles (8 × 256, 16 × 128, 4 × 256, 16 × 256), whose steps are unrolled too.

All of them build their kernels as they were then (``mid_values=0``) unless they say otherwise.
"""

from __future__ import annotations

import sys

import numpy as np

from compiler.kernel_cache import get_or_compile
from compiler.quantize_template import MID_VALUES, quantize_grid, quantize_kernel

SHAPES = [(512, 3584), (512, 4096), (512, 14336)]
TILES = [(rows, block_k, warps) for rows in (1, 2, 4, 8, 16, 32) for block_k in (128, 256, 512, 1024, 2048)
         for warps in (1, 2, 4, 8)]
"""(rows_per_program, block_k, num_warps) candidates; the lowering refuses those whose groups do not
map onto the threads, and ``prepare`` says which."""


CANDIDATES = [(8, 512, 4), (2, 512, 1), (4, 256, 1), (4, 512, 2), (8, 256, 2), (8, 128, 4), (8, 256, 4),
              (16, 256, 4), (4, 256, 2)]
"""(rows_per_program, block_k, num_warps) of run 202: bench.mmq's first, then run 201's fastest of each kind."""
CANDIDATE_SHAPES = [(m, k) for m in (1, 8, 32, 33, 64, 128, 256, 512) for k in (3584, 4096, 8192, 14336)]
ZEROING_SHAPES = [(1, 4096, 14336), (1, 32768, 8192), (8, 4096, 14336), (8, 32768, 8192), (1, 4096, 4096),
                  (1, 3584, 3584)]
"""(M, N, K) of the decode MUL_MATs, whose quantize kernel also zeroes Y [M, N]."""


MID_TILES = [(8, 128), (8, 256), (16, 128), (4, 256), (16, 256)]
"""(mid_rows, mid_block_k) of run 270's ``mid`` mode; the first is the default."""


def candidate_kernels() -> list[tuple[tuple[int, ...], bool, object]]:
    """(tile, zeroes Y, compiled) for each candidate: as bench.mmq's plain and zeroing (pdl) quantizers."""
    return [(tile, zero, get_or_compile(quantize_kernel("q8_1_mmq", *tile[:3], small_m=32, zero_output=zero,
                                                        launch_dependents=zero, mid_values=tile[3],
                                                        **({"mid_rows": tile[4], "mid_block_k": tile[5]}
                                                           if len(tile) > 4 else {})), arch="sm_90"))
            for tile in _candidates() for zero in (False, True)]


def _candidates() -> list[tuple[int, ...]]:
    """(rows, block_k, warps, mid_values[, mid_rows, mid_block_k]): run 202's tiles without the later mid tile, run
    205's two kernels, or run 270's mid tiles."""
    if "default" in sys.argv[1]:
        return [(8, 512, 4, 0), (8, 512, 4, MID_VALUES)]
    if "mid" in sys.argv[1]:
        return [(8, 512, 4, MID_VALUES, rows, block_k) for rows, block_k in MID_TILES]
    return [(*tile, 0) for tile in CANDIDATES]


def candidates() -> None:
    import cupy

    from bench.gpu_common import log, record, time_graph
    from compiler import numerics
    from targets.ptx.runner import load

    rng = np.random.default_rng()
    loaded = [(tile, zero, load(c.ptx, c.kernels[0])) for tile, zero, c in candidate_kernels()]
    cases = [(m, None, k) for m, k in CANDIDATE_SHAPES] + ZEROING_SHAPES
    for m, n, k in cases:
        x_host = rng.standard_normal((m, k)).astype(np.float32)
        x = cupy.asarray(x_host)
        want = numerics.quantize("q8_1_mmq", x_host).reshape(m, k // 128, 144)
        y = cupy.full((m, n), cupy.nan, dtype=cupy.float32) if n else None
        for rep in range(3):
            for (rows, block_k, warps, mid, *mid_tile), zero, kernel in (loaded if rep % 2 == 0 else loaded[::-1]):
                if zero != (n is not None):
                    continue
                xq = cupy.full((m, k // 128, 144), 0xAB, dtype=cupy.uint8)
                grid = quantize_grid(m, k, rows, block_k, small_m=32, mid_values=mid,
                                     **({"mid_rows": mid_tile[0], "mid_block_k": mid_tile[1]} if mid_tile else {}))
                args = (x, xq, y, m, k, n) if zero else (x, xq, m, k)

                def quantize(kernel=kernel, args=args, grid=grid) -> None:  # noqa: ANN001
                    kernel.launch(*args, grid=grid, sync=False)

                if zero:
                    y.fill(cupy.nan)
                quantize()
                cupy.cuda.get_current_stream().synchronize()
                exact = bool(np.array_equal(cupy.asnumpy(xq), want)) and (not zero or not bool(cupy.any(y)))
                us = time_graph(cupy, quantize)
                mid_rows, mid_block_k = mid_tile or (8, 128)
                tag = f"{rows}x{block_k} w{warps}" + (f" mid {mid_rows}x{mid_block_k} to {mid}" if mid else "")
                shape = f"M={m} K={k}" + (f" N={n} (zeroes Y)" if zero else "")
                log(f"{shape} {tag} grid {grid}: {us:6.2f} us exact {exact}")
                record({"experiment": "quantize_candidates", "rep": rep, "shape": shape, "tile": tag, "grid": grid,
                        "us": us, "bit_exact": exact})


def compiled_tiles() -> list[tuple[tuple[int, int, int, int], object]]:
    """The candidates that compile (a refusal is a ``QdotError``: the tile does not fit the threads)."""
    from compiler.diagnostics import QdotError

    out = [((8, 512, 4, 32), get_or_compile(quantize_kernel("q8_1_mmq", mid_values=0), arch="sm_90"))]  # bench.mmq's then
    for rows, block_k, warps in TILES:
        try:
            out.append(((rows, block_k, warps, 0),
                        get_or_compile(quantize_kernel("q8_1_mmq", rows, block_k, warps, small_m=0, mid_values=0),
                                                       arch="sm_90")))
        except (QdotError, ValueError) as err:
            if sys.argv[1:] == ["prepare"]:
                print(f"refused {rows}x{block_k} w{warps}: {str(err).splitlines()[0][:160]}")
    return out


def main() -> None:
    if sys.argv[1:] in (["candidates-prepare"], ["default-prepare"], ["mid-prepare"]):
        for tile, zero, compiled in candidate_kernels():
            print("compiled", tile, zero, compiled.kernels[0].name, compiled.kernels[0].shared_bytes)
        return
    if sys.argv[1:] in (["candidates"], ["default"], ["mid"]):
        candidates()
        return
    tiles = compiled_tiles()
    if sys.argv[1:] == ["prepare"]:
        for tile, compiled in tiles:
            print("compiled", tile, compiled.kernels[0].name)
        return
    import cupy

    from bench.gpu_common import log, record, time_graph
    from compiler import numerics
    from targets.ptx.runner import load

    rng = np.random.default_rng()
    loaded = [(tile, load(c.ptx, c.kernels[0])) for tile, c in tiles]
    empty = loaded[0][1]
    for m, k in SHAPES:
        x_host = rng.standard_normal((m, k)).astype(np.float32)
        x = cupy.asarray(x_host)
        want = numerics.quantize("q8_1_mmq", x_host).reshape(m, k // 128, 144)
        copy = cupy.empty_like(x)
        us_copy = time_graph(cupy, lambda: copy.__setitem__(slice(None), x))  # noqa: B023
        xq_empty = cupy.empty((1, 4, 144), dtype=cupy.uint8)
        us_empty = time_graph(cupy, lambda: empty.launch(x, xq_empty, 0, 128, grid=(1, 1, 1), sync=False))  # noqa: B023
        log(f"M={m} K={k}: copy of X {us_copy:.2f} us, a kernel of no rows {us_empty:.2f} us")
        for rep in range(2):
            for (rows, block_k, warps, small_m), kernel in (loaded if rep == 0 else loaded[::-1]):
                xq = cupy.full((m, k // 128, 144), 0xAB, dtype=cupy.uint8)
                grid = quantize_grid(m, k, rows, block_k, small_m=small_m, mid_values=0)

                def quantize(kernel=kernel, xq=xq, grid=grid) -> None:  # noqa: ANN001
                    kernel.launch(x, xq, m, k, grid=grid, sync=False)

                quantize()
                cupy.cuda.get_current_stream().synchronize()
                exact = bool(np.array_equal(cupy.asnumpy(xq), want))
                us = time_graph(cupy, quantize)
                tag = f"{rows}x{block_k} w{warps}" + (f" m{small_m} (bench.mmq's)" if small_m else "")
                log(f"M={m} K={k} {tag} grid {grid}: {us:6.2f} us exact {exact}")
                record({"experiment": "quantize_tiles", "rep": rep, "shape": f"M={m} K={k}", "tile": tag, "grid": grid, "us": us, "bit_exact": exact,
                        "us_copy_x": us_copy, "us_empty_kernel": us_empty})
        del x, copy


if __name__ == "__main__":
    main()

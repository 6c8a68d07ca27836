"""Experiment (runs 219–220): one or two programs per SM fewer for a decode kernel, with the L1 that frees.

    python -m bench.experiments.decode_fewer_per_sm --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_fewer_per_sm             # on the GPU machine

Run 214 timed every decode kernel alone under the 196 KB shared-memory configuration: five of them (q5_K's, q5_1's,
q6_K's at 7 programs per SM) ran 5–9 % faster with one program per SM fewer and 60 KB of L1 instead of 28, most
others slower; their grids were not re-chosen and no MUL_MAT was timed. Here every programmatic decode kernel of
``bench.mmq`` at the four decode shapes (M = 1, and 8 where it serves it), MUL_MAT (quantize + GEMM, programmatic)
and the kernel alone: as the runner launches it (``runner``: its split count for the programs the driver holds,
``LoadedKernel.resident_programs``, the runner's default launch), the same grid with the kernel's own shared memory
and the driver's configuration (``own``: the runner's launch before run 219 for a grid of more than one wave), and
with ``held - 1`` and ``held - 2`` programs per
SM where that frees L1 (``fewer 1``, ``fewer 2``): the split count ``mmq_grid`` chooses for that many, launched under
the smallest shared-memory configuration holding them (``compiler.occupancy.carveout_kb``) with the least padding
that keeps the SM at that many. Zero weights (the time does not depend on the values; the output must stay exactly
zero on a NaN-poisoned Y): timing only, for kernels and split counts the GPU suite checks on random data.

Run 219: over the 20 (kernel, M) pairs whose grid is more than one wave (all at 32768 × 8192), ``fewer 1`` was
0.925–1.026 × the runner's MUL_MAT (median 0.988; the two above 1 with another split count); one-wave grids
0.961–1.149 × (median 1.004). Run 220 timed the runner launching every grid of more than one wave so, the grid
kept, against ``own``: 0.924–1.000 × where the SM was in the 228 KB configuration (17 pairs), 1.083–1.124 × where
it was in a smaller one (3) — the runner keeps the rule for the first (``compiler.mmq_template.spread_launch``).
"""

from __future__ import annotations

import argparse
import dataclasses

import bench.mmq as mmq
from compiler.format_table import FORMATS
from compiler.mmq_template import mmq_grid, spread_shared_bytes
from compiler.occupancy import carveout_kb, carveout_percent, programs_per_sm

ROUNDS = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    args = parser.parse_args()
    kernels = mmq.compile_kernels([entry for entry in mmq.selected(None)
                                   if entry[1].small_m and entry[1].wait_previous_grid])
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit

    cupy = gpu_or_exit("python -m bench.experiments.decode_fewer_per_sm")
    quantizers, rng, _flush = mmq.measuring_setup(cupy, quantizers_compiled)
    for n, k in mmq.DECODE_SHAPES:
        x = cupy.asarray(rng.standard_normal((8, k)).astype("float32"))
        for label, cfg, _stages, compiled in kernels:
            for m in (1,) if cfg.max_m == 1 else (1, 8):
                _variants(cupy, quantizers[(True, True)], label, cfg, compiled, x[:m], m, n, k)
        cupy.get_default_memory_pool().free_all_blocks()


def _variants(cupy, quantize, label: str, cfg, compiled, x, m: int, n: int, k: int) -> None:  # noqa: ANN001, PLR0913
    from bench.gpu_common import log, time_graph
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import LoadedKernel, device_shared, load

    base = load(compiled.ptx, compiled.kernels[0])
    sms, smem_sm, reserved = device_shared(cupy)
    own, threads = base.info.shared_bytes, 32 * base.info.num_warps
    held, limiter = programs_per_sm(own, threads, base.registers)
    fmt = FORMATS[cfg.weights]
    w = cupy.zeros(n * (k // fmt.block_values) * fmt.block_bytes, dtype=cupy.uint8)
    xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    grid = mmq_grid(cfg, m, n, k, resident=base.resident_programs())
    variants = [("runner", grid, None, None), ("own", grid, own, None)]
    for fewer in (1, 2):
        per_sm = held - fewer
        if per_sm < 2 or carveout_kb(per_sm, own) >= carveout_kb(held, own):
            continue
        grid = mmq_grid(cfg, m, n, k, resident=per_sm * sms)
        cap = min(per_sm, -(-grid[0] * grid[1] // sms))
        config = carveout_kb(cap, own)
        # the least padding at which the configuration holds ≤ cap: spread_shared_bytes for a grid of cap per SM
        size = spread_shared_bytes(own, cap * sms, sms, config * 1024, reserved, threads=threads,
                                   registers=base.registers)
        variants.append((f"fewer {fewer}", grid, size, carveout_percent(config, smem_sm)))
    log(f"{label} M={m} N={n} K={k}: {own} B, {base.registers} registers, {held}/SM by {limiter} "
        f"({carveout_kb(held, own)} KB)")
    for name, grid, size, carveout in variants * ROUNDS:
        kern = base if size is None else LoadedKernel(dataclasses.replace(base.info, shared_bytes=size),
                                                      base.function, base.block, _registers=base.registers)

        def gemm(kern: LoadedKernel = kern, grid: tuple = grid, size: int | None = size,
                 cv: int | None = carveout) -> None:
            kern.launch(xq, w, y, m, n, k, grid=grid, sync=False, programmatic=True, shared_bytes=size, carveout=cv)

        def mul_mat(gemm=gemm) -> None:  # noqa: ANN001
            quantize.launch(x, xq, y, m, k, n, grid=quantize_grid(m, k), sync=False)
            gemm()

        y.fill(cupy.nan)
        mul_mat()
        cupy.cuda.get_current_stream().synchronize()
        ok = bool((y == 0).all())
        us_mul_mat, us_kernel = time_graph(cupy, mul_mat), time_graph(cupy, gemm)
        launched = (size, carveout) if size else base.spread_for(grid, True)
        where = f"{'' if size else 'runner: '}{launched[0]} B, {launched[1]} %"
        log(f"  {name:8s} grid {grid} ({where}): mul_mat {us_mul_mat:7.2f} kernel {us_kernel:7.2f} us  zero {ok}")
    del w, xq, y


if __name__ == "__main__":
    main()

"""Experiment (runs 216–217): cap a programmatic one-wave decode grid by the shared-memory carve-out, not padding.

    python -m bench.experiments.decode_carveout --prepare   # here: fill the kernel cache
    python -m bench.experiments.decode_carveout             # on the GPU machine: the q4_K goal kernels
    python -m bench.experiments.decode_carveout --all       # every programmatic decode kernel of bench.mmq

The runner pads the dynamic shared memory of a programmatic one-wave grid so that no SM takes more than
⌈programs / SMs⌉ of it (``LoadedKernel.shared_bytes_for``, runs 196–200). q4_K's repacked one-token kernel at
N = 4096, K = 14336 (896 programs, 7 per SM; 27136 B, 8 per SM as compiled) is padded to 28288 B, which needs the
228 KB configuration: 28 KB of L1. Its own 27136 B under the 196 KB configuration hold the same 7 per SM with 60 KB
of L1, and runs 212–213 saw 60 against 28 KB of L1 worth 14 % to mxfp4's decode kernel. Here each kernel and
decode shape, launched programmatically, in ``ROUNDS`` rounds of: the padding against the whole SM (``whole pad``,
the runner's default); its own shared memory (``own``); the carve-out cap (``carve-out``: the launch attribute that
prefers the smallest configuration holding ⌈programs / SMs⌉ of it, padded within it where it holds more,
``carveout_cap``); and its own under the function attribute instead of the launch attribute (``own fattr``: whether
a captured launch keeps the attribute). Times: MUL_MAT (quantize + GEMM, programmatic; median of ``time_graph``) and
the kernel alone. Checked: each variant's output against the float64 reference of ``compiler.numerics`` (relative
error ≤ 1e-5; ``--all`` uses zero weights, whose output must stay exactly zero).

Run 217 (``bench/RESULTS.md``): the carve-out cap against the whole-SM padding over 244 (kernel, shape, M) rows,
0.983–1.027 × (median 1.002); the goal kernel 11.72 / 11.75 against 11.82 / 11.78 µs. Not adopted.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

import bench.mmq as mmq
from compiler.format_table import FORMATS
from compiler.mmq_template import mmq_grid, spread_shared_bytes
from compiler.occupancy import carveout_kb, carveout_percent, programs_per_sm

GOAL_LABELS = ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt", "small_m 64 w2 splitk s2 pdl wt",
               "small_m 64 w2 splitk s2 m1 fold=fma pdl")
CARVEOUT_ATTRIBUTE = 9  # CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
ROUNDS = 2
"""Each kernel's variants are timed in this many rounds, one after the other (order effects show as a spread)."""


def carveout_cap(own: int, programs: int, sms: int, shared_per_sm: int, reserved: int, *, threads: int,
                 registers: int) -> tuple[int, int | None]:
    """(dynamic shared memory, carve-out percent or None) that cap a one-wave grid of ``programs`` at
    ⌈programs / sms⌉ per SM under the smallest shared-memory configuration holding that many at ``own``."""
    cap = -(-programs // sms)
    held, _ = programs_per_sm(own, threads, registers, shared_per_sm=shared_per_sm, reserved_per_program=reserved)
    if held <= cap:
        return own, None
    config = min(carveout_kb(cap, own, reserved), shared_per_sm // 1024)
    padded = spread_shared_bytes(own, programs, sms, config * 1024, reserved, threads=threads, registers=registers)
    return padded, carveout_percent(config, shared_per_sm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--all", action="store_true", help="every programmatic decode kernel (zero weights)")
    args = parser.parse_args()
    entries = [entry for entry in mmq.selected(None)
               if entry[1].small_m and entry[1].wait_previous_grid and (args.all or entry[0] in GOAL_LABELS)]
    kernels = mmq.compile_kernels(entries)
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, log

    cupy = gpu_or_exit("python -m bench.experiments.decode_carveout")
    quantizers, rng, _flush = mmq.measuring_setup(cupy, quantizers_compiled)
    for n, k in mmq.DECODE_SHAPES:
        data = _shape_data(cupy, rng, n, k, zeros=args.all)
        for label, cfg, _stages, compiled in kernels:
            for m in (1,) if cfg.max_m == 1 else (1, 8):
                _variants(cupy, quantizers, label, cfg, compiled, data, m, n, k, log)
        del data
        cupy.get_default_memory_pool().free_all_blocks()


def _shape_data(cupy, rng, n: int, k: int, zeros: bool) -> dict:  # noqa: ANN001
    from compiler import numerics
    from tests.gpu.mmq_harness import random_weight_blocks, reference_of

    x_host = rng.standard_normal((8, k)).astype(np.float32)
    if zeros:  # the time does not depend on the values; drawing every format's 32768 rows takes long
        return {"x": cupy.asarray(x_host), "w_host": None, "reference": None}
    w_host = random_weight_blocks(n, k, rng, "q4_K")
    want = numerics.quantize("q8_1_mmq", x_host).reshape(8, k // 128, 144)
    return {"x": cupy.asarray(x_host), "w_host": w_host, "reference": reference_of(want, w_host, "q4_K")}


def _variants(cupy, quantizers, label: str, cfg, compiled, data: dict,  # noqa: ANN001, PLR0913
              m: int, n: int, k: int, log) -> None:  # noqa: ANN001
    from bench.gpu_common import time_graph
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import LoadedKernel, device_shared, load
    from tests.gpu.mmq_harness import kernel_weights

    base = load(compiled.ptx, compiled.kernels[0])
    sms, smem_sm, reserved = device_shared(cupy)
    grid = mmq_grid(cfg, m, n, k, resident=base.resident_programs())
    programs = grid[0] * grid[1]
    target = -(-programs // sms)
    own = base.info.shared_bytes
    threads = 32 * base.info.num_warps
    held, limiter = programs_per_sm(own, threads, base.registers)
    if data["w_host"] is None:
        fmt = FORMATS[cfg.weights]
        w = cupy.zeros(n * (k // fmt.block_values) * fmt.block_bytes, dtype=cupy.uint8)
    else:
        w = cupy.asarray(kernel_weights(cfg, data["w_host"]) if cfg.tiled_weights else data["w_host"])
    x = data["x"][:m]
    xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    quantize = quantizers[(True, True)]
    config_kb = carveout_kb(min(target, held), own)
    percent = carveout_percent(config_kb)
    whole_sm = spread_shared_bytes(own, programs, sms, smem_sm, reserved, threads=threads, registers=base.registers)
    variants = [("whole pad", whole_sm, None, False), ("own", own, None, False),
                ("carve-out", *carveout_cap(own, programs, sms, smem_sm, reserved, threads=threads,
                                            registers=base.registers), False),
                ("own fattr", own, percent, True)]
    log(f"{label} M={m} N={n} K={k}: grid {grid} ({target}/SM of {programs}), {own} B, {base.registers} registers "
        f"({held}/SM by {limiter}); carve-out {config_kb} KB = {percent} %")
    driver = cupy.cuda.driver
    for name, size, carveout, function_attribute in variants * ROUNDS:
        kern = LoadedKernel(dataclasses.replace(base.info, shared_bytes=size), base.function, base.block,
                            _registers=base.registers)
        driver.funcSetAttribute(base.function.kernel.ptr, CARVEOUT_ATTRIBUTE, percent if function_attribute else -1)
        launch_carveout = None if function_attribute else carveout

        def gemm(kern: LoadedKernel = kern, size: int = size, cv: int | None = launch_carveout) -> None:
            kern.launch(xq, w, y, m, n, k, grid=grid, sync=False, programmatic=True, shared_bytes=size, carveout=cv)

        def mul_mat(gemm=gemm) -> None:  # noqa: ANN001
            quantize.launch(x, xq, y, m, k, n, grid=quantize_grid(m, k), sync=False, programmatic=False)
            gemm()

        y.fill(cupy.nan)
        mul_mat()
        cupy.cuda.get_current_stream().synchronize()
        out = cupy.asnumpy(y).astype(np.float64)
        if data["reference"] is None:
            ok = bool(np.all(out == 0.0))
            check = f"zero {ok}"
        else:
            ref = data["reference"][:m]
            err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
            ok = err <= 1e-5
            check = f"err {err:.1e}"
        held_now = driver.occupancyMaxActiveBlocksPerMultiprocessor(base.function.kernel.ptr, threads, size)
        us_mul_mat = time_graph(cupy, mul_mat)
        us_kernel = time_graph(cupy, gemm)
        log(f"  {name:9s} {size:6d} B{'' if carveout is None else f' {carveout:3d} %'}: mul_mat {us_mul_mat:7.2f} "
            f"kernel {us_kernel:7.2f} us  (driver {held_now}/SM{' under the attribute' if function_attribute else ''})"
            f"  {check}{'' if ok else '  WRONG'}")
    driver.funcSetAttribute(base.function.kernel.ptr, CARVEOUT_ATTRIBUTE, -1)
    del w, xq, y


if __name__ == "__main__":
    main()

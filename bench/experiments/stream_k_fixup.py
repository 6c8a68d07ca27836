"""Experiment (runs 248–256, 261): stream-K's pieces summed by the fix-up kernel (reproducible) against atomics.

    python -m bench.experiments.stream_k_fixup --prepare   # here: fill the kernel cache
    python -m bench.experiments.stream_k_fixup             # on the GPU machine (runs 248–251)
    python -m bench.experiments.stream_k_fixup --decode    # run 252: the decode kernels at 2 K splits
    python -m bench.experiments.stream_k_fixup --decode-fixup  # run 253: their K splits summed by a fix-up kernel
    python -m bench.experiments.stream_k_fixup --unroll    # run 255: the stream-K fix-up's pieces loaded at once
    python -m bench.experiments.stream_k_fixup --formats   # runs 256, 261: every format and order, M = 96-256

``choose_mmq`` runs the prefill tile in stream-K where the plain grid has at most 132 tiles (M = 65–256 at
N = 4096): two programs per SM share the (tile, K step) iterations, and the pieces of a split tile meet in Y
through atomic additions, Y zeroed first by the quantize kernel. With ``MmqConfig(fixup=True)`` each program
stores its pieces in a workspace instead and ``mmq_fixup_kernel`` adds them in program order: no zeroing, the
same bits at every launch, one launch more and the workspace's traffic. Here, MUL_MAT from f32 both ways —
atomic: quantize (zeroing Y) + GEMM; fix-up: quantize + GEMM + fix-up — for four formats at the shapes where
stream-K is chosen, and at M = 512, N = 3584 (112 tiles, the plain grid chosen there) with forced stream-K.
Each is checked against ``compiler.numerics`` first (relative error of the first 64 rows), the fix-up's two
launches compared bit for bit and the atomic's too (informative: they may differ), then timed as CUDA graphs
(``time_graph``), the two forms interleaved over ``REPETITIONS``; and the fix-up launched programmatically
(``mmq_fixup_kernel(..., wait_previous_grid=True)``, run 251). ``--decode``: ``choose_mmq``'s decode kernels (M = 1,
8, 16, 32) with the default split count and with at most two (``reproducible=True``: two additions into a zeroed Y
round the same in either order), MUL_MAT from f32 through ``bench.mmq.measure``. ``--decode-fixup``: the same
kernels on their default grids, atomic against the split-K fix-up (``MmqConfig(small_m=True, split_k=True,
fixup=True)``: each split's partial tile to a workspace, the fix-up kernel adding them in split order), checked and
launched twice as above.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from compiler.kernel_cache import get_or_compile
from compiler.mmq_choice import choose_mmq
from compiler.mmq_template import (WEIGHT_FORMATS, MmqConfig, fixup_grid, fixup_workspace_shape, mmq_fixup_kernel,
                                   mmq_grid, mmq_kernel)
from compiler.quantize_template import quantize_grid, quantize_kernel

FORMATS = ("q4_K", "q4_0", "q8_0", "q6_K")
SHAPES = ((65, 4096, 4096), (96, 4096, 4096), (128, 4096, 4096), (192, 4096, 4096), (256, 4096, 4096),
          (128, 4096, 14336), (256, 3584, 3584), (512, 3584, 3584))
REPETITIONS = 2
COMMAND = "python -m bench.experiments.stream_k_fixup"


def stream_k_config(weights: str, m: int, n: int, k: int) -> tuple[MmqConfig, int]:
    """``choose_mmq``'s prefill tile at this shape, in stream-K (what it picks where the tiles are few)."""
    choice = choose_mmq(weights, max(m, 65), n, k)
    return replace(choice.cfg, stream_k=True), choice.num_stages


def compile_all() -> dict:
    """Per (weights, config, stages): the atomic GEMM, the fix-up GEMM and the fix-up kernel; and the quantizers."""
    kernels = {}
    for weights in FORMATS:
        for m, n, k in SHAPES:
            cfg, stages = stream_k_config(weights, m, n, k)
            if (cfg, stages) in kernels:
                continue
            fixed = replace(cfg, fixup=True)
            kernels[(cfg, stages)] = tuple(
                [get_or_compile(mmq_kernel(c), arch="sm_90", strategy="promote-int8", num_stages=stages)
                 for c in (cfg, fixed)] + [get_or_compile(mmq_fixup_kernel(fixed, pdl), arch="sm_90")
                                           for pdl in (False, True)])
    quantizers = {zero: get_or_compile(quantize_kernel("q8_1_mmq", zero_output=zero), arch="sm_90")
                  for zero in (False, True)}
    return {"gemms": kernels, "quantizers": quantizers}


DECODE_FORMATS = ("q4_K", "q8_0")
DECODE_MS = (1, 8, 16, 32)
DECODE_SHAPES = ((4096, 14336), (4096, 4096), (32768, 8192))


def decode_entries() -> list[tuple[str, MmqConfig, int]]:
    """``choose_mmq``'s decode kernels (the same with ``reproducible=True``: only their grid differs)."""
    entries = {}
    for weights in DECODE_FORMATS:
        for m in DECODE_MS:
            choice = choose_mmq(weights, m, 4096, 14336)
            entries[choice.cfg] = (f"{choice.cfg.name} [M={m}]", choice.cfg, choice.num_stages)
    return list(entries.values())


def time_decode() -> None:
    """Each decode kernel at its M on every shape, its grid by default and with at most 2 splits, interleaved."""
    import bench.mmq as mmq
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit(COMMAND)
    quantizers, rng, flush = mmq.measuring_setup(cupy, mmq.compile_quantizers())
    loaded = mmq.load_kernels(mmq.compile_kernels(decode_entries()))
    for rep in range(REPETITIONS):
        for n, k in DECODE_SHAPES:
            for label, cfg, stages, kernel, info in loaded:
                m = int(label.split("[M=")[1].rstrip("]"))
                for splits in (None, 2):
                    extra = {"max_splits": splits} if splits else {}
                    row = mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush,
                                      resident=kernel.resident_programs(), **extra)
                    row.update({"experiment": "stream_k_fixup --decode", "rep": rep, "max_splits": splits,
                                "command": f"{COMMAND} --decode"})
                    record(row)
            cupy.get_default_memory_pool().free_all_blocks()


def decode_fixup_kernels() -> list[tuple[str, MmqConfig, int, object, object, object]]:
    """Per decode entry: (label, config, stages, the atomic GEMM, the fix-up GEMM, the fix-up kernel), compiled."""
    out = []
    for label, cfg, stages in decode_entries():
        fixed = replace(cfg, fixup=True)
        out.append((label, cfg, stages,
                    *[get_or_compile(mmq_kernel(c), arch="sm_90", strategy="promote-int8", num_stages=stages)
                      for c in (cfg, fixed)], get_or_compile(mmq_fixup_kernel(fixed), arch="sm_90")))
    return out


def checked_timing(cupy, y, run, ref, rows: int) -> tuple[float, bool, float]:  # noqa: ANN001
    """(relative error of Y's first ``rows`` rows against ``ref``, whether two launches from NaN gave the same bits,
    µs of ``run`` as a CUDA graph)."""
    from bench.gpu_common import time_graph

    outs = []
    for _ in range(2):
        y.fill(cupy.nan)
        run()
        cupy.cuda.get_current_stream().synchronize()
        outs.append(cupy.asnumpy(y))
    out = outs[0][:rows].astype(np.float64)
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(outs[0][:rows]).all() else float("inf")
    return err, bool(np.array_equal(outs[0].view(np.uint32), outs[1].view(np.uint32))), time_graph(cupy, run)


class MulMatCase:
    """One MUL_MAT from f32 on fresh inputs, in either form: the quantize kernel (zeroing Y) and the atomic GEMM, or
    the quantize kernel, the fix-up GEMM (``cfg`` with ``fixup=True``) and a fix-up kernel. ``check_and_time`` runs
    each form twice from a NaN Y against the float64 reference of the first 64 rows, then times it."""

    def __init__(self, cupy, quantize: dict, cfg: MmqConfig, grid: tuple[int, ...],  # noqa: ANN001 - the module
                 m: int, n: int, k: int, rng: np.random.Generator) -> None:
        from compiler.mmq_template import tile_weights
        from tests.gpu.mmq_harness import random_weight_blocks

        self.cupy, self.quantize, self.cfg, self.grid, self.m, self.n, self.k = cupy, quantize, cfg, grid, m, n, k
        self.fixed = replace(cfg, fixup=True)
        self.w_host = random_weight_blocks(n, k, rng, cfg.weights)
        self.w = cupy.asarray(tile_weights(self.w_host, cfg) if cfg.tiled_weights else self.w_host)
        self.x_host = rng.standard_normal((m, k)).astype(np.float32)
        self.x, self.xq = cupy.asarray(self.x_host), cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
        self.y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
        self.parts = cupy.full(fixup_workspace_shape(self.fixed, grid, n), cupy.nan, dtype=cupy.float32)

    def atomic(self, gemm):  # noqa: ANN001, ANN201 - a loaded kernel; the MUL_MAT as a closure
        m, n, k = self.m, self.n, self.k

        def run() -> None:
            self.quantize[True].launch(self.x, self.xq, self.y, m, k, n, grid=quantize_grid(m, k), sync=False)
            gemm.launch(self.xq, self.w, self.y, m, n, k, grid=self.grid, sync=False)
        return run

    def fixup(self, gemm, fix, programmatic: bool = False):  # noqa: ANN001, ANN201
        from compiler.mmq_template import fixup_scalars

        m, n, k = self.m, self.n, self.k
        scalars = fixup_scalars(self.fixed, self.grid, m, n, k)

        def run() -> None:
            self.quantize[False].launch(self.x, self.xq, m, k, grid=quantize_grid(m, k), sync=False)
            gemm.launch(self.xq, self.w, self.y, self.parts, m, n, k, grid=self.grid, sync=False)
            fix.launch(self.y, self.parts, *scalars, grid=fixup_grid(self.fixed, m, n), sync=False,
                       programmatic=programmatic)
        return run

    def check_and_time(self, forms: dict) -> dict[str, tuple[float, bool, float]]:
        """Per form: (relative error, two launches identical, µs); ``forms`` maps names to ``atomic``/``fixup``
        closures, ``atomic`` first."""
        from compiler import numerics
        from tests.gpu.mmq_harness import reference_of

        rows = min(self.m, 64)
        want = numerics.quantize("q8_1_mmq", self.x_host[:rows]).reshape(rows, self.k // 128, 144)
        ref = reference_of(want, self.w_host, self.cfg.weights)
        return {form: checked_timing(self.cupy, self.y, run, ref, rows) for form, run in forms.items()}


def comparison_row(mode: str, rep: int, label: str, case: MulMatCase, results: dict, **extra) -> dict:  # noqa: ANN003
    """The record of one case: each form's µs, ratio to the atomic form, error and launch-to-launch identity; ``ok``
    when every error is within 1e-5 and every fix-up form gave the same bits twice."""
    base = results["atomic"][2]
    fixups = [form for form in results if form != "atomic"]
    return {"experiment": f"stream_k_fixup{' ' + mode if mode else ''}", "rep": rep, "what": f"qdot {label}",
            "shape": f"M={case.m} N={case.n} K={case.k}", "grid": case.grid, "weights": case.cfg.weights,
            "tiled": case.cfg.tiled_weights,
            **{f"us_mul_mat_{form}": r[2] for form, r in results.items()},
            **{f"{form}_over_atomic": results[form][2] / base for form in fixups},
            **{f"rel_err_{form}": r[0] for form, r in results.items()},
            **{f"{form}_launches_identical": r[1] for form, r in results.items()},
            "max_rel_err": max(r[0] for r in results.values()),
            "ok": all(r[0] <= 1e-5 for r in results.values()) and all(results[form][1] for form in fixups),
            **extra, "command": f"{COMMAND}{' ' + mode if mode else ''}"}


def comparison_log(head: str, results: dict) -> str:
    base = results["atomic"][2]
    return (f"{head}: atomic {base:7.2f} us; "
            + ", ".join(f"{form} {r[2]:7.2f} ({r[2] / base:.3f}x)" for form, r in results.items() if form != "atomic")
            + f"; err {max(r[0] for r in results.values()):.1e}; identical "
            + " ".join(f"{form} {r[1]}" for form, r in results.items()))


def loaded_quantizers(compiled: dict) -> dict:
    from targets.ptx.runner import load

    return {zero: load(c.ptx, c.kernels[0]) for zero, c in compiled["quantizers"].items()}


def time_stream_k() -> None:
    """Runs 248–251: four formats at the shapes of ``SHAPES``, atomic against the fix-up, launched plainly and
    programmatically, and the fix-up kernel alone."""
    from bench.gpu_common import gpu_or_exit, log, record, time_graph
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    compiled = compile_all()
    quantize = loaded_quantizers(compiled)
    loaded = {key: tuple(load(c.ptx, c.kernels[0]) for c in quad) for key, quad in compiled["gemms"].items()}
    for key, (atomic, fixed, fix, _) in loaded.items():
        log(f"{key[0].name} [{key[1]} stages]: atomic {atomic.registers} registers, fix-up GEMM {fixed.registers}, "
            f"fix-up kernel {fix.registers}")
    rng = np.random.default_rng()
    for rep in range(REPETITIONS):
        for weights in FORMATS:
            for m, n, k in SHAPES:
                cfg, stages = stream_k_config(weights, m, n, k)
                atomic, fixed, fix, fix_pdl = loaded[(cfg, stages)]
                case = MulMatCase(cupy, quantize, cfg, mmq_grid(cfg, m, n, k), m, n, k, rng)
                results = case.check_and_time({"atomic": case.atomic(atomic), "fixup": case.fixup(fixed, fix),
                                               "fixup_pdl": case.fixup(fixed, fix_pdl, programmatic=True)})
                scalars = (m, n, k, case.grid[0])
                us_fix = time_graph(cupy, lambda: fix.launch(case.y, case.parts, *scalars,
                                                             grid=fixup_grid(case.fixed, m, n), sync=False))
                record(comparison_row("", rep, f"{cfg.name} [{stages} stages]", case, results,
                                      us_fixup_kernel=us_fix))
                log(comparison_log(f"{weights:5s} M={m:4d} N={n:5d} K={k:5d} grid {case.grid[0]:3d} "
                                   f"(fix-up kernel {us_fix:5.2f} us)", results))
            cupy.get_default_memory_pool().free_all_blocks()


def time_decode_fixup() -> None:
    """Run 253: each decode kernel at its M on its default grid, atomic against the split-K fix-up, interleaved."""
    from bench.gpu_common import gpu_or_exit, log, record
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    quantize = loaded_quantizers(compile_all())
    loaded = [(label, cfg, stages, *(load(c.ptx, c.kernels[0]) for c in triple))
              for label, cfg, stages, *triple in decode_fixup_kernels()]
    rng = np.random.default_rng()
    for rep in range(REPETITIONS):
        for n, k in DECODE_SHAPES:
            for label, cfg, _stages, atomic, fixed, fix in loaded:
                m = int(label.split("[M=")[1].rstrip("]"))
                case = MulMatCase(cupy, quantize, cfg, mmq_grid(cfg, m, n, k, resident=atomic.resident_programs()),
                                  m, n, k, rng)
                results = case.check_and_time({"atomic": case.atomic(atomic), "fixup": case.fixup(fixed, fix)})
                record(comparison_row("--decode-fixup", rep, label, case, results))
                log(comparison_log(f"{label:46s} N={n:5d} K={k:5d} grid {case.grid}", results))
            cupy.get_default_memory_pool().free_all_blocks()


UNROLLS = (4, 8)


def unrolled_fixups() -> dict:
    """Per (config, stages) of ``compile_all``: the fix-up kernel with its first 4 and 8 pieces loaded at once."""
    out = {}
    for weights in FORMATS:
        for m, n, k in SHAPES:
            cfg, stages = stream_k_config(weights, m, n, k)
            fixed = replace(cfg, fixup=True)
            out[(cfg, stages)] = {u: get_or_compile(mmq_fixup_kernel(fixed, unroll=u), arch="sm_90") for u in UNROLLS}
    return out


def time_unrolled() -> None:
    """Run 255: atomic, the looped fix-up (one piece loaded ahead) and the unrolled ones, interleaved."""
    from bench.gpu_common import gpu_or_exit, log, record
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    compiled = compile_all()
    quantize = loaded_quantizers(compiled)
    gemms = {key: tuple(load(c.ptx, c.kernels[0]) for c in quad[:3]) for key, quad in compiled["gemms"].items()}
    unrolled = {key: {u: load(c.ptx, c.kernels[0]) for u, c in by_u.items()} for key, by_u in unrolled_fixups().items()}
    rng = np.random.default_rng()
    for rep in range(REPETITIONS):
        for weights in FORMATS:
            for m, n, k in SHAPES:
                cfg, stages = stream_k_config(weights, m, n, k)
                atomic, fixed, fix = gemms[(cfg, stages)]
                case = MulMatCase(cupy, quantize, cfg, mmq_grid(cfg, m, n, k), m, n, k, rng)
                forms = {"atomic": case.atomic(atomic), "fixup": case.fixup(fixed, fix),
                         **{f"fixup_u{u}": case.fixup(fixed, kernel) for u, kernel in unrolled[(cfg, stages)].items()}}
                results = case.check_and_time(forms)
                record(comparison_row("--unroll", rep, f"{cfg.name} [{stages} stages]", case, results))
                log(comparison_log(f"{weights:5s} M={m:4d} N={n:5d} K={k:5d}", results))


ALL_SHAPES = ((96, 4096, 4096), (128, 4096, 4096), (256, 4096, 4096), (128, 4096, 14336))


def all_format_entries() -> list[tuple[str, MmqConfig, int]]:
    """Every format's stream-K prefill tile (``choose_mmq``'s at M = 128, N = K = 4096), both orders of W, atomic and
    with the fix-up: (weights, config, stages) for each of the four forms (run 256)."""
    out = []
    for weights in WEIGHT_FORMATS:
        for tiled in (False, True):
            choice = choose_mmq(weights, 128, 4096, 4096, tiled_weights=tiled)
            for fixup in (False, True):
                out.append((weights, replace(choice.cfg, fixup=fixup), choice.num_stages))
    return out


def time_all_formats() -> None:
    """Run 256: every format and order, atomic against the fix-up, at M = 96–256."""
    from bench.gpu_common import gpu_or_exit, log, record
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    quantize = loaded_quantizers(compile_all())
    entries = all_format_entries()
    kernels = {cfg: load(c.ptx, c.kernels[0]) for cfg, c in
               ((cfg, get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=stages))
                for _w, cfg, stages in entries)}
    fixups = {cfg: load(c.ptx, c.kernels[0]) for cfg, c in
              ((cfg, get_or_compile(mmq_fixup_kernel(cfg), arch="sm_90")) for _w, cfg, _s in entries if cfg.fixup)}
    rng = np.random.default_rng()
    for rep in range(REPETITIONS):
        for m, n, k in ALL_SHAPES:
            for weights, cfg, stages in [e for e in entries if not e[1].fixup]:
                fixed = replace(cfg, fixup=True)
                case = MulMatCase(cupy, quantize, cfg, mmq_grid(cfg, m, n, k), m, n, k, rng)
                results = case.check_and_time({"atomic": case.atomic(kernels[cfg]),
                                               "fixup": case.fixup(kernels[fixed], fixups[fixed])})
                record(comparison_row("--formats", rep, f"{cfg.name} [{stages} stages]", case, results))
                log(comparison_log(f"{weights:6s} {'wt' if cfg.tiled_weights else 'gg'} M={m:4d} N={n:5d} K={k:5d}",
                                   results))
            cupy.get_default_memory_pool().free_all_blocks()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--decode", action="store_true", help="run 252: the decode kernels at 2 K splits")
    parser.add_argument("--decode-fixup", action="store_true",
                        help="run 253: the decode kernels' K splits summed by the fix-up kernel")
    parser.add_argument("--unroll", action="store_true",
                        help="run 255: the stream-K fix-up with its first 4 or 8 pieces loaded at once")
    parser.add_argument("--formats", action="store_true",
                        help="run 256: every format and order, atomic against the fix-up, M = 96-256")
    args = parser.parse_args()
    if args.prepare:
        import bench.mmq as mmq

        compile_all()
        mmq.compile_kernels(decode_entries())
        mmq.compile_quantizers()
        decode_fixup_kernels()
        unrolled_fixups()
        for _w, cfg, stages in all_format_entries():
            get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=stages)
            if cfg.fixup:
                get_or_compile(mmq_fixup_kernel(cfg), arch="sm_90")
        return
    if args.formats:
        time_all_formats()
        return
    if args.unroll:
        time_unrolled()
        return
    if args.decode_fixup:
        time_decode_fixup()
        return
    if args.decode:
        time_decode()
        return
    time_stream_k()


if __name__ == "__main__":
    main()

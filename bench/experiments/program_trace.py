"""Experiment: when each program of the one-token decode kernel starts and ends, by the GPU's clock — where the goal
row's 9.5 µs go between the grid's ramp, the programs' own time and the tail.

    python -m bench.experiments.program_trace --prepare     # here: the kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.program_trace [--launches L] # on the GPU machine, with that cache

Runs 278–303 left the one-token GEMM bound neither by its arithmetic (run 303) nor by the wait for the quantize
kernel (run 302); Nsight Compute (run 268) saw its SMs active 77 % of the elapsed cycles. ``traced`` rewrites the
kernel's PTX (a measuring stick, not qdot output): thread 0 of each program reads ``%globaltimer`` first thing, three
times in each K step (``PHASES``), and just before it returns, with ``%smid``, into a module-global array
``qdot_trace``.
The kernel is launched as the benchmark's MUL_MAT launches it (the quantize kernel zeroing Y, then the GEMM
programmatically), ``--launches`` times back to back on the same arrays; the trace of the last launch is read. Y is
checked against ``compiler.numerics`` once (the trace must not change the result).

Reported per shape (µs from the first program's start): the span to the last program's end; when programs start
(median, 90th percentile, last); how long they run (median, 10th and 90th percentiles, longest); per SM the
programs it ran and its busy span; the median time, from a program's start, of each ``PHASES`` stamp of each K step,
and from the last step's end to the program's end; and the µs of the MUL_MAT (timed as a CUDA graph) with the traced
and with the plain kernel in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from dataclasses import replace

import numpy as np

import bench.mmq as bm
from bench.experiments.cluster_reduce import SHAPES, goal_entry
from compiler.mmq_template import MmqConfig

COMMAND = "python -m bench.experiments.program_trace"
TRACE = "qdot_trace"
MAX_PROGRAMS = 1 << 14
MAX_STEPS = 8
STRIDE = 3 + 3 * MAX_STEPS
"""u64 per program in the trace: start, end, SM, then the ``PHASES`` stamps of its first ``MAX_STEPS`` K steps (0 for
a step it did not run)."""


TILES = ((64, 2), (64, 4), (32, 2), (64, 1))
"""(weight rows per program, warps) of the goal kernel that ``--tile`` may trace; the goal kernel's first."""


def tile_entry(rows: int, warps: int) -> tuple[str, MmqConfig, int]:
    """The goal kernel's ``bench.mmq`` entry with ``rows`` weight rows per program on ``warps`` warps."""
    label, cfg, stages = goal_entry()
    return label.replace("small_m 64 w2", f"small_m {rows} w{warps}"), replace(cfg, block_n=rows, num_warps=warps), \
        stages


def compile_all() -> dict[str, object]:
    """The goal GEMM at each of ``TILES`` and the quantize kernels (``bench.mmq``'s), compiled."""
    return {"gemm": {tile: bm.compile_kernels([tile_entry(*tile)])[0][3] for tile in TILES},
            "quantizers": bm.compile_quantizers()}


PHASES = ("tiles", "scales", "end")
"""The stamps of a K step: its tiles have arrived (after the loop's ``cp.async.wait_group`` and barrier), its
decoded scales are in shared memory (after the loop's second barrier), and its end (before the back edge)."""


def traced(ptx: str, name: str) -> str:
    """``ptx`` with each program's start and end times and SM recorded by its thread 0 in ``qdot_trace``
    (``MAX_PROGRAMS`` programs, linear id x + y · nctaid.x + z · nctaid.x · nctaid.y, ``STRIDE`` u64 each), and the
    ``PHASES`` stamps of each of its first ``MAX_STEPS`` K steps."""
    entry = f".visible .entry {name}("
    if ptx.count(entry) != 1 or ptx.count("\tret;") != 1:
        raise ValueError(f"traced: expected one entry '{name}' and one ret")
    loop = re.search(r"\n(\$L__BB\d+_\d+):\n\tcp\.async\.wait_group \t\d+;\n\tbar\.sync \t0;\n", ptx)
    if loop is None:
        raise ValueError("traced: no K loop that starts with cp.async.wait_group and bar.sync")
    back_edge = re.compile(r"\t@%p\d+ bra \t" + re.escape(loop.group(1)) + ";\n").search(ptx, loop.end())
    second_barrier = ptx.find("\tbar.sync \t0;\n", loop.end())
    if back_edge is None or not loop.end() < second_barrier < back_edge.start():
        raise ValueError("traced: the K loop has no second barrier before its back edge")
    body = ptx.index("{", ptx.index(entry) + len(entry))  # the body's opening brace, after the parameter list
    start = ("\n\t.reg .u64 %qt_t0, %qt_t1, %qt_at, %qt_off, %qt_now;\n"
             "\t.reg .u32 %qt_id, %qt_x, %qt_y, %qt_z, %qt_nx, %qt_ny, %qt_sm, %qt_tid, %qt_step;\n"
             "\t.reg .pred %qt_first, %qt_stamp;\n"
             "\tmov.u64 %qt_t0, %globaltimer;\n\tmov.u32 %qt_tid, %tid.x;\n\tsetp.eq.u32 %qt_first, %qt_tid, 0;\n"
             "\tmov.u32 %qt_x, %ctaid.x;\n\tmov.u32 %qt_y, %ctaid.y;\n\tmov.u32 %qt_z, %ctaid.z;\n"
             "\tmov.u32 %qt_nx, %nctaid.x;\n\tmov.u32 %qt_ny, %nctaid.y;\n"
             "\tmad.lo.u32 %qt_z, %qt_z, %qt_ny, %qt_y;\n\tmad.lo.u32 %qt_id, %qt_z, %qt_nx, %qt_x;\n"
             f"\tmul.wide.u32 %qt_off, %qt_id, {8 * STRIDE};\n\tmov.u64 %qt_at, {TRACE};\n"
             "\tadd.u64 %qt_at, %qt_at, %qt_off;\n\tmov.u32 %qt_step, 0;\n")

    def stamp(phase: int) -> str:  # slot 3 + len(PHASES) · step + phase
        return ("\tmov.u64 %qt_now, %globaltimer;\n"
                f"\tsetp.lt.and.u32 %qt_stamp, %qt_step, {MAX_STEPS}, %qt_first;\n"
                f"\tmul.wide.u32 %qt_off, %qt_step, {8 * len(PHASES)};\n\tadd.u64 %qt_off, %qt_off, %qt_at;\n"
                f"\t@%qt_stamp st.global.u64 [%qt_off+{8 * (3 + phase)}], %qt_now;\n")

    end = ("\tmov.u64 %qt_t1, %globaltimer;\n\tmov.u32 %qt_sm, %smid;\n"
           "\t@%qt_first st.global.u64 [%qt_at], %qt_t0;\n\t@%qt_first st.global.u64 [%qt_at+8], %qt_t1;\n"
           "\tcvt.u64.u32 %qt_off, %qt_sm;\n\t@%qt_first st.global.u64 [%qt_at+16], %qt_off;\n")
    barrier_end = second_barrier + len("\tbar.sync \t0;\n")
    ptx = (ptx[:loop.end()] + stamp(0) + ptx[loop.end():barrier_end] + stamp(1)
           + ptx[barrier_end:back_edge.start()] + stamp(2) + "\tadd.u32 %qt_step, %qt_step, 1;\n"
           + ptx[back_edge.start():])
    ptx = ptx[:body + 1] + start + ptx[body + 1:]
    ptx = ptx.replace("\tret;", end + "\tret;")
    declaration = f".global .align 8 .u64 {TRACE}[{STRIDE * MAX_PROGRAMS}];\n"
    at = ptx.index(".visible .entry")
    return ptx[:at] + declaration + "\n" + ptx[at:]


def summary(trace: np.ndarray) -> dict:
    """The figures the docstring names, from ``trace`` [programs, STRIDE] (start ns, end ns, SM, step times)."""
    start, end, sm = trace[:, 0].astype(np.int64), trace[:, 1].astype(np.int64), trace[:, 2]
    t0 = int(start.min())
    begins, runs = (start - t0) / 1e3, (end - start) / 1e3
    per_sm = {int(s): (int((sm == s).sum()), float((end[sm == s].max() - start[sm == s].min()) / 1e3))
              for s in np.unique(sm)}
    counts = [c for c, _ in per_sm.values()]
    spans = [span for _, span in per_sm.values()]
    figures = {"programs": int(len(trace)), "span_us": float((end.max() - t0) / 1e3),
               "start_median_us": float(np.median(begins)), "start_p90_us": float(np.percentile(begins, 90)),
               "start_last_us": float(begins.max()),
               "run_median_us": float(np.median(runs)), "run_p10_us": float(np.percentile(runs, 10)),
               "run_p90_us": float(np.percentile(runs, 90)), "run_max_us": float(runs.max()),
               "sms": len(per_sm), "programs_per_sm": sorted(set(counts)),
               "sm_span_median_us": float(np.median(spans)), "sm_span_min_us": float(min(spans)),
               "sm_span_max_us": float(max(spans))}
    steps = trace[:, 3:].astype(np.int64).reshape(len(trace), MAX_STEPS, len(PHASES))
    for j in range(MAX_STEPS):
        ran = steps[:, j, 0] > 0
        if ran.any():  # the median time of each phase of step j, from its program's start
            for p, phase in enumerate(PHASES):
                figures[f"step{j}_{phase}_median_us"] = float(np.median((steps[ran, j, p] - start[ran]) / 1e3))
    last = np.where(steps[:, :, 2] > 0, steps[:, :, 2], 0).max(axis=1)
    figures["after_last_step_median_us"] = float(np.median((end - last) / 1e3))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--launches", type=int, default=20, help="MUL_MATs back to back before the trace is read")
    parser.add_argument("--tile", action="append", choices=[f"{rows}x{warps}" for rows, warps in TILES],
                        help="weight rows x warps of the goal kernel to trace (repeat it; default 64x2, the goal's)")
    args = parser.parse_args()
    if args.prepare:
        from bench.prepare import fill_cache

        print(f"prepared, fingerprint {fill_cache(compile_all)}")
        return

    from bench.gpu_common import gpu_or_exit, log, record, time_graph
    from compiler import numerics
    from compiler.mmq_template import mmq_grid
    from compiler.quantize_template import quantize_grid
    from targets.ptx.programmatic_launch import launch_programmatic
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks, reference_of

    cupy = gpu_or_exit(COMMAND)
    compiled = compile_all()
    quantize = bm.load_quantizers(compiled["quantizers"])[(True, True)]
    rng = np.random.default_rng(303)
    for tile in [tuple(int(part) for part in text.split("x")) for text in args.tile or ["64x2"]]:
        label, cfg, _stages = tile_entry(*tile)
        gemm = compiled["gemm"][tile]
        info = gemm.kernels[0]
        plain = load(gemm.ptx, info)
        handle, path = tempfile.mkstemp(suffix=".ptx", prefix="qdot_trace_")
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(traced(gemm.ptx, info.name))
        try:  # CuPy loads the module at its first get_function, from the file
            module = cupy.RawModule(path=path)
            function = module.get_function(info.name)
            trace = module.get_global(TRACE)
        finally:
            os.unlink(path)
        for n, k in SHAPES:
            w_host = random_weight_blocks(n, k, rng, cfg.weights)
            w = cupy.asarray(kernel_weights(cfg, w_host))
            x_host = rng.standard_normal((1, k)).astype(np.float32)
            x, xq = cupy.asarray(x_host), cupy.empty((1, k // 128, 144), dtype=cupy.uint8)
            y = cupy.full((1, n), cupy.nan, dtype=cupy.float32)
            grid = mmq_grid(cfg, 1, n, k, resident=plain.resident_programs())
            programs = grid[0] * grid[1] * grid[2]
            assert programs <= MAX_PROGRAMS, grid
            shared, carveout = plain.spread_for(grid, True)  # as the runner launches the plain kernel
            function.max_dynamic_shared_size_bytes = max(shared, 48 * 1024)
            stream = cupy.cuda.get_current_stream()

            def traced_mul_mat(x=x, xq=xq, y=y, w=w, n=n, k=k, grid=grid, shared=shared, carveout=carveout,
                               function=function, info=info) -> None:
                quantize.launch(x, xq, y, 1, k, n, grid=quantize_grid(1, k), sync=False)
                launch_programmatic(function.kernel.ptr, grid, info.block, shared,
                                    cupy.cuda.get_current_stream().ptr, info.arg_kinds,  # the capture's, in a graph
                                    [xq.data.ptr, w.data.ptr, y.data.ptr, 1, n, k], info.name, carveout=carveout)

            def plain_mul_mat(x=x, xq=xq, y=y, w=w, n=n, k=k, grid=grid, plain=plain) -> None:
                quantize.launch(x, xq, y, 1, k, n, grid=quantize_grid(1, k), sync=False)
                plain.launch(xq, w, y, 1, n, k, grid=grid, sync=False, programmatic=True)

            traced_mul_mat()
            stream.synchronize()
            want = numerics.quantize("q8_1_mmq", x_host).reshape(1, k // 128, 144)
            ref = reference_of(want, w_host, cfg.weights)
            out = cupy.asnumpy(y).astype(np.float64)
            err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
            buffer = cupy.ndarray((MAX_PROGRAMS, STRIDE), dtype=cupy.uint64, memptr=trace)
            for _ in range(args.launches):
                buffer.fill(0)  # a step a program does not run stays 0
                traced_mul_mat()
            stream.synchronize()
            figures = summary(cupy.asnumpy(buffer[:programs]))
            us_traced, us_plain = time_graph(cupy, traced_mul_mat), time_graph(cupy, plain_mul_mat)
            row = {"what": f"qdot {label} program trace", "shape": f"M=1 N={n} K={k}", "grid": list(grid),
                   "registers": plain.registers, "rel_err": err, "ok": err <= 1e-5, "us_mul_mat_traced": us_traced,
                   "us_mul_mat": us_plain, **figures}
            record(row)
            log(json.dumps(row))

if __name__ == "__main__":
    main()

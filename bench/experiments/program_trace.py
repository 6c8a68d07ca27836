"""Experiment: when each program of the one-token decode kernel starts and ends, by the GPU's clock — where the goal
row's 9.5 µs go between the grid's ramp, the programs' own time and the tail.

    python -m bench.experiments.program_trace --prepare     # here: the kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.program_trace [--launches L] # on the GPU machine, with that cache

Runs 278–303 left the one-token GEMM bound neither by its arithmetic (run 303) nor by the wait for the quantize
kernel (run 302); Nsight Compute (run 268) saw its SMs active 77 % of the elapsed cycles. ``traced`` rewrites the
kernel's PTX (a measuring stick, not qdot output): thread 0 of each program reads ``%globaltimer`` first thing, at
the top of each K step once its tiles have arrived, and just before it returns, with ``%smid``, into a
module-global array ``qdot_trace``.
The kernel is launched as the benchmark's MUL_MAT launches it (the quantize kernel zeroing Y, then the GEMM
programmatically), ``--launches`` times back to back on the same arrays; the trace of the last launch is read. Y is
checked against ``compiler.numerics`` once (the trace must not change the result).

Reported per shape (µs from the first program's start): the span to the last program's end; when programs start
(median, 90th percentile, last); how long they run (median, 10th and 90th percentiles, longest); per SM the
programs it ran and its busy span; the median time, from a program's start, at which each K step had its tiles (its
``cp.async.wait_group`` and barrier passed), and from the last of them to the program's end; and the event-timed µs
of the MUL_MAT with the traced and with the plain kernel in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile

import numpy as np

import bench.mmq as bm
from bench.experiments.cluster_reduce import SHAPES, goal_entry

COMMAND = "python -m bench.experiments.program_trace"
TRACE = "qdot_trace"
MAX_PROGRAMS = 1 << 14
MAX_STEPS = 8
STRIDE = 3 + MAX_STEPS
"""u64 per program in the trace: start, end, SM, then the times its first ``MAX_STEPS`` K steps had their tiles
(0 for a step it did not run)."""


def compile_all() -> dict[str, object]:
    """The goal GEMM and the quantize kernels (``bench.mmq``'s), compiled."""
    return {"gemm": bm.compile_kernels([goal_entry()])[0][3], "quantizers": bm.compile_quantizers()}


def traced(ptx: str, name: str) -> str:
    """``ptx`` with each program's start and end times and SM recorded by its thread 0 in ``qdot_trace``
    (``MAX_PROGRAMS`` programs, linear id x + y · nctaid.x + z · nctaid.x · nctaid.y, ``STRIDE`` u64 each), and the
    time at which each of its first ``MAX_STEPS`` K steps has its tiles (after the loop's ``cp.async.wait_group``
    and the barrier after it)."""
    entry = f".visible .entry {name}("
    if ptx.count(entry) != 1 or ptx.count("\tret;") != 1:
        raise ValueError(f"traced: expected one entry '{name}' and one ret")
    loop_wait = re.search(r"\n(\$L__BB\d+_\d+):\n\tcp\.async\.wait_group \t\d+;\n\tbar\.sync \t0;\n", ptx)
    if loop_wait is None:
        raise ValueError("traced: no K loop that starts with cp.async.wait_group and bar.sync")
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
    stamp = ("\tmov.u64 %qt_now, %globaltimer;\n"
             f"\tsetp.lt.and.u32 %qt_stamp, %qt_step, {MAX_STEPS}, %qt_first;\n"
             "\tmul.wide.u32 %qt_off, %qt_step, 8;\n\tadd.u64 %qt_off, %qt_off, %qt_at;\n"
             "\t@%qt_stamp st.global.u64 [%qt_off+24], %qt_now;\n\tadd.u32 %qt_step, %qt_step, 1;\n")
    end = ("\tmov.u64 %qt_t1, %globaltimer;\n\tmov.u32 %qt_sm, %smid;\n"
           "\t@%qt_first st.global.u64 [%qt_at], %qt_t0;\n\t@%qt_first st.global.u64 [%qt_at+8], %qt_t1;\n"
           "\tcvt.u64.u32 %qt_off, %qt_sm;\n\t@%qt_first st.global.u64 [%qt_at+16], %qt_off;\n")
    ptx = ptx[:loop_wait.end()] + stamp + ptx[loop_wait.end():]
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
    steps = trace[:, 3:].astype(np.int64)
    for j in range(steps.shape[1]):
        ran = steps[:, j] > 0
        if ran.any():  # the median time, from its program's start, at which step j had its tiles
            figures[f"step{j}_median_us"] = float(np.median((steps[ran, j] - start[ran]) / 1e3))
    figures["after_last_step_median_us"] = float(np.median(
        (end - np.where(steps > 0, steps, 0).max(axis=1)) / 1e3))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--launches", type=int, default=20, help="MUL_MATs back to back before the trace is read")
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
    label, cfg, stages = goal_entry()
    info = compiled["gemm"].kernels[0]
    plain = load(compiled["gemm"].ptx, info)
    handle, path = tempfile.mkstemp(suffix=".ptx", prefix="qdot_trace_")
    with os.fdopen(handle, "w", encoding="utf-8") as f:
        f.write(traced(compiled["gemm"].ptx, info.name))
    module = cupy.RawModule(path=path)
    os.unlink(path)
    function = module.get_function(info.name)
    trace = module.get_global(TRACE)
    quantize = bm.load_quantizers(compiled["quantizers"])[(True, True)]
    rng = np.random.default_rng(303)
    for n, k in SHAPES:
        w_host = random_weight_blocks(n, k, rng, cfg.weights)
        w = cupy.asarray(kernel_weights(cfg, w_host))
        x_host = rng.standard_normal((1, k)).astype(np.float32)
        x, xq = cupy.asarray(x_host), cupy.empty((1, k // 128, 144), dtype=cupy.uint8)
        y = cupy.full((1, n), cupy.nan, dtype=cupy.float32)
        grid = mmq_grid(cfg, 1, n, k, resident=plain.resident_programs())
        programs = grid[0] * grid[1] * grid[2]
        assert programs <= MAX_PROGRAMS, grid
        shared, carveout = plain.spread_for(grid, True)
        stream = cupy.cuda.get_current_stream()

        def traced_mul_mat() -> None:
            quantize.launch(x, xq, y, 1, k, n, grid=quantize_grid(1, k), sync=False)
            launch_programmatic(function.ptr, grid, info.block, shared, stream.ptr, info.arg_kinds,
                                [xq.data.ptr, w.data.ptr, y.data.ptr, 1, n, k], info.name, carveout=carveout)

        def plain_mul_mat() -> None:
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
               "rel_err": err, "ok": err <= 1e-5, "us_mul_mat_traced": us_traced, "us_mul_mat": us_plain, **figures}
        record(row)
        log(json.dumps(row))


if __name__ == "__main__":
    main()

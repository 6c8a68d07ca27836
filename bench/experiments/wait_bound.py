"""Experiment: how much of the decode MUL_MAT's time beyond its GEMM any finer synchronisation between the quantize
kernel and the GEMM could win back — bounds measured by leaving work out of the PTX, not forms anyone could use.

    python -m bench.experiments.wait_bound --prepare     # here: the kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.wait_bound [--rounds R]  # on the GPU machine, with that cache

At the goal row (M = 1, N = 4096, K = 14336) the MUL_MAT takes about 1 µs more than its one-token kernel alone
(runs 278, 286, 297–301). The GEMM is launched programmatically and waits (``griddepcontrol.wait``) for the whole
quantize grid to finish and its memory to be visible. A flag per K share, set by the quantize program that wrote it
and polled by the GEMM's programs, would wait for less. Before building one, these forms bound what it can gain:

* ``atomic``: ``bench.mmq.measure``'s row of the goal kernel (the quantize kernel zeroing Y, the GEMM after it);
* ``no wait``: the same two kernels with the GEMM's ``griddepcontrol.wait`` removed — the GEMM reads X whenever
  its copies run (timing only: X is the same at every call here, so the bits come out right in steady state,
  but nothing orders them). No synchronisation can be cheaper than none;
* ``empty quantize``: the quantize kernel cut to its ``griddepcontrol.launch_dependents`` (it returns at once, so X
  and the zeroing are the previous call's), before the goal GEMM with its wait: what the grid dependency costs
  with nothing to wait for.

Every form runs at the four decode shapes, two rounds, the order reversed in the second; the ``atomic`` row is
checked against ``compiler.numerics`` first; the other two are timed on fresh arrays of the same shapes and the
same grid.
"""

from __future__ import annotations

import argparse

import bench.mmq as bm
from bench.experiments.cluster_reduce import SHAPES, goal_entry

COMMAND = "python -m bench.experiments.wait_bound"


def compile_all() -> dict[str, object]:
    """The goal GEMM and the quantize kernels (``bench.mmq``'s), compiled."""
    return {"gemm": bm.compile_kernels([goal_entry()])[0][3], "quantizers": bm.compile_quantizers()}


def without_wait(ptx: str) -> str:
    """``ptx`` (a kernel with one ``griddepcontrol.wait``) without it."""
    wait = "\t// begin inline asm\n\tgriddepcontrol.wait;\n\t// end inline asm\n"
    if ptx.count(wait) != 1:
        raise ValueError("without_wait: expected one griddepcontrol.wait")
    return ptx.replace(wait, "")


def returning_at_once(ptx: str) -> str:
    """``ptx`` (a kernel that starts with ``griddepcontrol.launch_dependents``) returning right after it."""
    trigger = "\tgriddepcontrol.launch_dependents;\n\t// end inline asm\n"
    if ptx.count(trigger) != 1:
        raise ValueError("returning_at_once: expected one griddepcontrol.launch_dependents")
    return ptx.replace(trigger, trigger + "\tret;\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, the forms' order reversed every other one")
    args = parser.parse_args()
    if args.prepare:
        from bench.prepare import fill_cache

        print(f"prepared, fingerprint {fill_cache(compile_all)}")
        return

    from bench.gpu_common import gpu_or_exit, log, record, time_graph
    from compiler.mmq_template import mmq_grid
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks

    cupy = gpu_or_exit(COMMAND)
    quantizers, rng, flush = bm.measuring_setup(cupy, bm.compile_quantizers())
    compiled = compile_all()
    label, cfg, stages = goal_entry()
    info = compiled["gemm"].kernels[0]
    gemm = load(compiled["gemm"].ptx, info)
    free_gemm = load(without_wait(compiled["gemm"].ptx), info)
    zeroing = compiled["quantizers"][(True, True)]
    empty = load(returning_at_once(zeroing.ptx), zeroing.kernels[0])
    copy_gbs = bm.copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    for round_ in range(args.rounds):
        for n, k in (SHAPES if round_ % 2 == 0 else SHAPES[::-1]):
            row = bm.measure(cupy, gemm, quantizers, label, cfg, stages, info, 1, n, k, rng, flush)
            record({**row, "form": "atomic", "round": round_})
            w = cupy.asarray(kernel_weights(cfg, random_weight_blocks(n, k, rng, cfg.weights)))
            x = cupy.asarray(rng.standard_normal((1, k)).astype("float32"))
            xq = cupy.empty((1, k // 128, 144), dtype=cupy.uint8)
            y = cupy.zeros((1, n), dtype=cupy.float32)
            grid = mmq_grid(cfg, 1, n, k, resident=gemm.resident_programs())  # measure's grid
            quantize = quantizers[(True, True)]

            def no_wait(x=x, xq=xq, y=y, w=w, n=n, k=k, grid=grid, quantize=quantize) -> None:
                quantize.launch(x, xq, y, 1, k, n, grid=quantize_grid(1, k), sync=False)
                free_gemm.launch(xq, w, y, 1, n, k, grid=grid, sync=False, programmatic=True)

            def empty_quantize(x=x, xq=xq, y=y, w=w, n=n, k=k, grid=grid) -> None:
                empty.launch(x, xq, y, 1, k, n, grid=quantize_grid(1, k), sync=False)
                gemm.launch(xq, w, y, 1, n, k, grid=grid, sync=False, programmatic=True)

            forms = [("no wait", no_wait), ("empty quantize", empty_quantize)]
            for name, mul_mat in (forms if round_ % 2 == 0 else forms[::-1]):
                us = time_graph(cupy, mul_mat)
                weight_gbs = row["weight_GBs"] * row["us_mul_mat"] / us
                record({"what": f"qdot {label} {name}", "form": name, "shape": f"M=1 N={n} K={k}", "round": round_,
                        "us_mul_mat": us, "atomic_us_mul_mat": row["us_mul_mat"], "atomic_us_kernel": row["us_kernel"],
                        "weight_GBs": weight_gbs, "copy_fraction": weight_gbs / copy_gbs})
                log(f"{name:16s} N={n:5d} K={k:5d}: {us:7.2f} us, atomic {row['us_mul_mat']:7.2f} (kernel "
                    f"{row['us_kernel']:6.2f}, quantize {row['us_quantize']:5.2f}), {100 * weight_gbs / copy_gbs:5.1f} "
                    "% of copy")
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

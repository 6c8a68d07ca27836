"""Experiment: the decode grids and launches with the loaded function's registers counted.

    python -m bench.experiments.resident_registers --prepare   # here: fill the kernel cache
    python -m bench.experiments.resident_registers             # on the GPU machine

``resident_programs`` counted shared memory, threads and the per-SM program limit, not registers, and
``spread_shared_bytes`` padded a programmatic one-wave grid by shared memory alone. Several decode kernels
are bound by their registers (``bench.kernel_resources mmq``: q2_K's ggml-order kernels 6 programs per SM
where shared memory allows 14, q5_K's one-token ggml-order kernel 6 for 7, mxfp4's, q3_K's and iq4_xs's 6–8
for 9), so their split count could leave a second wave the model did not see, and their launches were
padded to cap what registers capped already. For every decode kernel of ``bench.mmq`` and every decode
shape where the grid or the launch's shared memory differs, this times the MUL_MAT as before (the same
kernel with its registers not counted) and as now, each checked against ``compiler.numerics`` first
(``bench.mmq.measure``), interleaved, twice.
"""

from __future__ import annotations

import argparse
import dataclasses

import bench.mmq as mmq
from compiler.mmq_template import mmq_grid

REPETITIONS = 2


def decode_entries() -> list[tuple[str, object, int]]:
    return [entry for entry in mmq.selected(None) if entry[1].small_m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--only", metavar="TEXT", help="only the kernels whose label contains TEXT")
    args = parser.parse_args()
    kernels = mmq.compile_kernels([e for e in decode_entries() if args.only is None or args.only in e[0]])
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    import cupy

    from bench.gpu_common import log, record, row_line
    from targets.ptx.runner import load

    log(f"copy bandwidth {mmq.copy_bandwidth(cupy):.0f} GB/s")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    plan = []
    for label, cfg, stages, compiled in kernels:
        now = load(compiled.ptx, compiled.kernels[0])
        before = dataclasses.replace(now, _registers=0)  # its registers not counted: the model before
        for n, k in mmq.DECODE_SHAPES:
            for m in (m for m in mmq.DECODE_MS if m in mmq.LLAMA_US[(n, k)] and m <= cfg.max_m):
                launches = {}
                for name, kernel in (("before", before), ("now", now)):
                    grid = mmq_grid(cfg, m, n, k, resident=kernel.resident_programs())
                    launches[name] = (grid, kernel.shared_bytes_for(grid, cfg.wait_previous_grid))
                if launches["before"] != launches["now"]:
                    plan.append((label, cfg, stages, now, before, m, n, k, launches))
    log(f"{len(plan)} (kernel, shape) pairs differ; registers per thread: "
        + ", ".join(sorted({f'{p[0]}: {p[3].registers}' for p in plan})))
    for rep in range(REPETITIONS):
        for label, cfg, stages, now, before, m, n, k, launches in plan:
            for name, kernel in (("before", before), ("now", now)) if rep == 0 else (("now", now), ("before", before)):
                row = mmq.measure(cupy, kernel, quantizers, f"{label} {name}", cfg, stages, kernel.info, m, n, k,
                                  rng, flush, resident=kernel.resident_programs())
                row.update({"experiment": "resident_registers", "variant": name, "rep": rep,
                            "registers": now.registers, "launch": launches[name]})
                record(row)
                row_line(label, row, variant=name)


if __name__ == "__main__":
    main()

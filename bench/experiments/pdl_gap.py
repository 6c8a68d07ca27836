"""Run 196 (experiment): why a short bench.mmq run's one-token MUL_MAT at 32768 x 8192 sits ~12 us above
quantize + GEMM. Times the same closures as bench.mmq.measure, in several orders, in one fresh process.

    PYTHONPATH=$PWD python bench/experiments/pdl_gap.py LABEL

(on the GPU machine, with the kernel cache of ``python -m bench.prepare mmq`` carried; the script of runs
196–197, moved into ``main``).
"""

from __future__ import annotations

import sys
import numpy as np
from bench import mmq
from bench.gpu_common import time_graph
from compiler.mmq_template import mmq_grid
from compiler.quantize_template import quantize_grid
from targets.ptx.runner import load
from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks


def main() -> None:  # noqa: C901, PLR0915
    import cupy

    label = sys.argv[1]
    (lab, cfg, stages, compiled), = [e for e in mmq.compile_kernels(mmq.selected(label)) if e[0] == label]
    kernel = load(compiled.ptx, compiled.kernels[0])
    info = compiled.kernels[0]
    quantizers, rng, flush = mmq.measuring_setup(cupy, mmq.compile_quantizers())
    print("copy GB/s", round(mmq.copy_bandwidth(cupy)), flush=True)

    def setup(m, n, k):
        w_host = random_weight_blocks(n, k, rng, cfg.weights)
        w = cupy.asarray(kernel_weights(cfg, w_host))
        x = cupy.asarray(rng.standard_normal((m, k)).astype(np.float32))
        xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
        y = cupy.zeros((m, n), dtype=cupy.float32)
        grid = mmq_grid(cfg, m, n, k, resident=kernel.resident_programs())
        q = quantizers[(cfg.needs_zeroed_output, cfg.wait_previous_grid)]
        qargs = (x, xq, y, m, k, n) if cfg.needs_zeroed_output else (x, xq, m, k)
        def quant(): q.launch(*qargs, grid=quantize_grid(m, k), sync=False)
        def kern(pdl=False): kernel.launch(xq, w, y, m, n, k, grid=grid, sync=False, programmatic=pdl,
                                           shared_bytes=info.shared_bytes)  # as run 196: unspread
        def mul_mat(): quant(); kern(cfg.wait_previous_grid)
        def mul_mat_nopdl(): quant(); kern(False)
        def gemm(): y.data.memset_async(0, y.nbytes); kern(False)
        return dict(mul_mat=mul_mat, mul_mat_nopdl=mul_mat_nopdl, gemm=gemm, kernel=kern, quant=quant), (w, x, xq, y)

    def row(tag, fns, order, per_graph=20):
        out = []
        for name in order:
            out.append(f"{name} {time_graph(cupy, fns[name], per_graph=per_graph):7.2f}")
        print(tag, " | ".join(out), flush=True)

    for (m, n, k) in ((1, 32768, 8192), (1, 4096, 14336), (1, 32768, 8192)):
        fns, keep = setup(m, n, k)
        tag = f"N={n} K={k}:"
        row(tag + " first", fns, ["mul_mat", "gemm", "kernel", "quant", "mul_mat", "mul_mat_nopdl", "mul_mat"])
        row(tag + " again", fns, ["mul_mat", "mul_mat_nopdl", "gemm", "mul_mat"])
        row(tag + " per_graph 1", fns, ["mul_mat", "mul_mat_nopdl", "gemm"], per_graph=1)
        row(tag + " per_graph 100", fns, ["mul_mat", "mul_mat_nopdl", "gemm"], per_graph=100)
        del fns, keep
        cupy.get_default_memory_pool().free_all_blocks()
    # the bench's own measure(), twice, as a short run does it
    for rep in range(2):
        r = mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, 1, 32768, 8192, rng, flush)
        print("measure()", rep, {k: round(v, 2) for k, v in r.items() if k.startswith("us_")}, flush=True)


if __name__ == "__main__":
    main()

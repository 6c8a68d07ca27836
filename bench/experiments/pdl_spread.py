"""Run 197 (experiment): is the programmatic launch's extra ~11 us (run 196: iq4_xs's one-token MUL_MAT at
32768 x 8192, not q4_K's) an uneven spread of CTAs over the SMs when more fit per SM than the grid needs?
The same kernels launched with their dynamic shared memory padded so that only ceil(grid / SMs) CTAs fit per SM.

    PYTHONPATH=$PWD python bench/experiments/pdl_spread.py LABEL...

(on the GPU machine, with the kernel cache of ``python -m bench.prepare mmq`` carried; the script of runs
196–197, moved into ``main``).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import numpy as np
from bench import mmq
from bench.gpu_common import time_graph
from compiler.mmq_template import mmq_grid, resident_programs
from compiler.quantize_template import quantize_grid
from targets.ptx.runner import LoadedKernel, load
from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks


def main() -> None:  # noqa: C901, PLR0915
    import cupy

    quantizers, rng, flush = mmq.measuring_setup(cupy, mmq.compile_quantizers())
    props = cupy.cuda.runtime.getDeviceProperties(0)
    sms, smem_sm = props["multiProcessorCount"], props["sharedMemPerMultiprocessor"]
    print("SMs", sms, "smem/SM", smem_sm, flush=True)

    def padded(kernel, per_sm):
        """The kernel with its dynamic shared memory raised so that at most per_sm CTAs fit on an SM."""
        size = smem_sm // per_sm - 1024
        info = dataclasses.replace(kernel.info, shared_bytes=max(kernel.info.shared_bytes, size))
        if info.shared_bytes > 48 * 1024:
            kernel.function.max_dynamic_shared_size_bytes = info.shared_bytes
        return LoadedKernel(info, kernel.function, kernel.block)

    for label in sys.argv[1:]:
        (lab, cfg, stages, compiled), = [e for e in mmq.compile_kernels(mmq.selected(label)) if e[0] == label]
        base = load(compiled.ptx, compiled.kernels[0])
        info = compiled.kernels[0]
        resident = resident_programs(info.shared_bytes, sms, smem_sm, 1024, threads=32 * info.num_warps)
        for (m, n, k) in ((1, 32768, 8192), (1, 4096, 14336)):
            w = cupy.asarray(kernel_weights(cfg, random_weight_blocks(n, k, rng, cfg.weights)))
            x = cupy.asarray(rng.standard_normal((m, k)).astype(np.float32))
            xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
            y = cupy.zeros((m, n), dtype=cupy.float32)
            grid = mmq_grid(cfg, m, n, k, resident=resident)
            ctas = grid[0] * grid[1] * grid[2]
            q = quantizers[(cfg.needs_zeroed_output, cfg.wait_previous_grid)]
            qargs = (x, xq, y, m, k, n) if cfg.needs_zeroed_output else (x, xq, m, k)
            out = []
            for tag, kern in (("as compiled", base), (f"cap {math.ceil(ctas / sms)}/SM", padded(base, math.ceil(ctas / sms)))):
                def mul_mat(pdl=True):
                    q.launch(*qargs, grid=quantize_grid(m, k), sync=False)
                    kern.launch(xq, w, y, m, n, k, grid=grid, sync=False, programmatic=pdl,
                                shared_bytes=kern.info.shared_bytes)  # not the runner's later default
                t = [time_graph(cupy, mul_mat), time_graph(cupy, lambda: mul_mat(False)), time_graph(cupy, mul_mat),
                     time_graph(cupy, mul_mat, per_graph=1), time_graph(cupy, lambda: mul_mat(False), per_graph=1)]
                out.append(f"{tag}: pdl {t[0]:6.2f} {t[2]:6.2f} nopdl {t[1]:6.2f} | single pdl {t[3]:6.2f} nopdl {t[4]:6.2f}")
            print(f"{lab[28:]:22s} N={n} K={k} grid {grid} ({ctas} CTAs, {resident} resident) :: " + " || ".join(out), flush=True)
            del w, x, xq, y
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

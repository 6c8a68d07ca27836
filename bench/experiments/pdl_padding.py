"""Run 199 (experiment): at 4096 x 14336 run 197's residency cap slowed every one-token kernel. Is it the cap
(CTAs per SM) or the padded bytes? The q4_K and iq4_nl one-token kernels with their dynamic shared memory at
several sizes, some keeping 8 CTAs per SM possible, some 7 or 6.

    PYTHONPATH=$PWD python bench/experiments/pdl_padding.py LABEL...

(on the GPU machine, with the kernel cache of ``python -m bench.prepare mmq`` carried)."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np


def main() -> None:
    import cupy
    from bench import mmq
    from bench.gpu_common import time_graph
    from compiler.mmq_template import mmq_grid, resident_programs
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import LoadedKernel, load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks

    quantizers, rng, flush = mmq.measuring_setup(cupy, mmq.compile_quantizers())
    props = cupy.cuda.runtime.getDeviceProperties(0)
    sms, smem_sm = props["multiProcessorCount"], props["sharedMemPerMultiprocessor"]
    for label in sys.argv[1:]:
        (lab, cfg, stages, compiled), = [e for e in mmq.compile_kernels(mmq.selected(label)) if e[0] == label]
        base = load(compiled.ptx, compiled.kernels[0])
        info = compiled.kernels[0]
        resident = resident_programs(info.shared_bytes, sms, smem_sm, 1024, threads=32 * info.num_warps)
        for (m, n, k) in ((1, 4096, 14336), (1, 32768, 8192)):
            w = cupy.asarray(kernel_weights(cfg, random_weight_blocks(n, k, rng, cfg.weights)))
            x = cupy.asarray(rng.standard_normal((m, k)).astype(np.float32))
            xq = cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
            y = cupy.zeros((m, n), dtype=cupy.float32)
            grid = mmq_grid(cfg, m, n, k, resident=resident)
            q = quantizers[(cfg.needs_zeroed_output, cfg.wait_previous_grid)]
            qargs = (x, xq, y, m, k, n) if cfg.needs_zeroed_output else (x, xq, m, k)
            out = []
            sizes = [info.shared_bytes, info.shared_bytes + 256, smem_sm // 8 - 1024, smem_sm // 8 - 1024 + 64,
                     smem_sm // 7 - 1024, smem_sm // 6 - 1024, info.shared_bytes]
            for size in sizes:
                kern = LoadedKernel(dataclasses.replace(info, shared_bytes=size), base.function, base.block)
                per_sm = smem_sm // (size + 1024)

                def plain(kern=kern) -> None:
                    q.launch(*qargs, grid=quantize_grid(m, k), sync=False)
                    kern.launch(xq, w, y, m, n, k, grid=grid, sync=False)

                def alone(kern=kern) -> None:
                    kern.launch(xq, w, y, m, n, k, grid=grid, sync=False)
                out.append(f"{size}B ({per_sm}/SM): {time_graph(cupy, plain):6.2f} {time_graph(cupy, alone):6.2f}")
            print(f"{lab[28:]:22s} N={n} K={k} grid {grid} :: mul_mat (no pdl), kernel alone :: " + " | ".join(out),
                  flush=True)
            del w, x, xq, y
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

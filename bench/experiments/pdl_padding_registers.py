"""Experiment: why a padding that changes no cap cost register-bound decode kernels 15 % (run 209).

    python -m bench.experiments.pdl_padding_registers --prepare   # here: fill the kernel cache
    python -m bench.experiments.pdl_padding_registers             # on the GPU machine (run 212)
    python -m bench.experiments.pdl_padding_registers --carveout  # the same sizes under set carve-outs (run 213)
    python -m bench.experiments.pdl_padding_registers --scan      # every decode kernel, driver's vs 196 KB carve-out

Run 209: mxfp4's and iq4_xs's ggml-order M ≤ 8 decode kernels (128 registers: 8 programs per SM whatever their
shared memory up to 28 KB) took 82.5 µs per programmatic MUL_MAT at N = 32768, K = 8192 padded from 24064 to
24960 B, 70.3 unpadded; run 210: iq4_nl's (86 registers, 9 per SM by shared memory) padded to the same 24960 B
was 3 % faster than unpadded. Here each kernel at several dynamic shared memory sizes, its MUL_MAT with the
programmatic launch and with a plain one, and the kernel alone, median of ``time_graph``; the output of every
padded programmatic launch compared with the plain unpadded one's (two K splits added into zeros: the same bits).
With ``--carveout`` the kernels alone at three of those sizes under each preferred shared-memory carve-out of
``CARVEOUTS`` (``cudaFuncAttributePreferredSharedMemoryCarveout``, percent of the largest; -1 the driver's choice),
with the programs per SM the driver's occupancy calculator reports under it.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

import bench.mmq as mmq
from compiler.format_table import FORMATS
from compiler.occupancy import allocated_shared
from compiler.mmq_template import mmq_grid

LABELS = tuple(f"small_m 64 w2 splitk s2 pdl {weights}" for weights in ("mxfp4", "iq4_xs", "iq4_nl"))
M, N, K = 1, 32768, 8192
CARVEOUTS = (-1, 85, 100)
"""85 % of 228 KB rounds up to the 196 KB configuration (60 KB of L1), 100 is 228 KB (28 KB of L1)."""
CARVEOUT_ATTRIBUTE = 9  # CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--carveout", action="store_true", help="time the kernels alone under set carve-outs")
    parser.add_argument("--scan", action="store_true",
                        help="every decode kernel of bench.mmq alone, the driver's carve-out against 85 %%")
    args = parser.parse_args()
    kernels = mmq.compile_kernels([entry for entry in mmq.selected(None)
                                   if (entry[1].small_m if args.scan else entry[0] in LABELS)])
    quantizers_compiled = mmq.compile_quantizers()
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, log, time_graph
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import LoadedKernel, device_shared, load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks

    cupy = gpu_or_exit("python -m bench.experiments.pdl_padding_registers")
    quantizers, rng, _flush = mmq.measuring_setup(cupy, quantizers_compiled)
    sms, smem_sm, reserved = device_shared(cupy)
    if args.carveout or args.scan:
        carveouts(cupy, kernels, rng, scan=args.scan)
        return
    for label, cfg, _stages, compiled in kernels:
        base = load(compiled.ptx, compiled.kernels[0])
        grid = mmq_grid(cfg, M, N, K, resident=base.resident_programs())
        w = cupy.asarray(kernel_weights(cfg, random_weight_blocks(N, K, rng, cfg.weights)))
        x = cupy.asarray(rng.standard_normal((M, K)).astype(np.float32))
        xq = cupy.empty((M, K // 128, 144), dtype=cupy.uint8)
        y = cupy.zeros((M, N), dtype=cupy.float32)
        quantize = quantizers[(True, True)]
        own = base.info.shared_bytes
        sizes = sorted({own, own + 128, own + 512, smem_sm // 9 - reserved + 1, smem_sm // 8 - reserved,
                        smem_sm // 8 - reserved + 128, smem_sm // 7 - reserved, smem_sm // 6 - reserved})
        log(f"{label}: {base.registers} registers, grid {grid}, {base.resident_programs() // sms} per SM as compiled")
        reference = None
        for size in [s for s in sizes if s >= own]:
            kern = LoadedKernel(dataclasses.replace(base.info, shared_bytes=size), base.function, base.block,
                                _registers=base.registers)

            def mul_mat(programmatic: bool, kern: LoadedKernel = kern) -> None:
                quantize.launch(x, xq, y, M, K, N, grid=quantize_grid(M, K), sync=False, programmatic=False)
                kern.launch(xq, w, y, M, N, K, grid=grid, sync=False, programmatic=programmatic, shared_bytes=size)

            mul_mat(programmatic=True)
            cupy.cuda.get_current_stream().synchronize()
            out = cupy.asnumpy(y)
            if reference is None:
                mul_mat(programmatic=False)
                cupy.cuda.get_current_stream().synchronize()
                reference = cupy.asnumpy(y)
            same = bool(np.array_equal(out, reference))
            times = [time_graph(cupy, lambda: mul_mat(True)), time_graph(cupy, lambda: mul_mat(False)),
                     time_graph(cupy, lambda kern=kern: kern.launch(xq, w, y, M, N, K, grid=grid, sync=False,
                                                                    shared_bytes=size))]
            per_sm = kern.resident_programs() // sms  # compiler.occupancy: shared memory in 128-byte units too
            per_sm_bytes = per_sm * (allocated_shared(size) + reserved)
            log(f"  {size:6d} B ({per_sm}/SM, {per_sm_bytes} B per SM): pdl {times[0]:6.2f}  plain "
                f"{times[1]:6.2f}  kernel {times[2]:6.2f}  output as unpadded plain: {same}")
        del w, x, xq, y
        cupy.get_default_memory_pool().free_all_blocks()


def carveouts(cupy, kernels: list, rng, scan: bool = False) -> None:  # noqa: ANN001
    from bench.gpu_common import log, time_graph
    from targets.ptx.runner import LoadedKernel, load
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks

    driver = cupy.cuda.driver
    for label, cfg, _stages, compiled in kernels:
        base = load(compiled.ptx, compiled.kernels[0])
        grid = mmq_grid(cfg, M, N, K, resident=base.resident_programs())
        if scan:  # zero blocks: the time does not depend on the values, and drawing 32768 rows each takes long
            fmt = FORMATS[cfg.weights]
            w = cupy.zeros(N * (K // fmt.block_values) * fmt.block_bytes, dtype=cupy.uint8)
        else:
            w = cupy.asarray(kernel_weights(cfg, random_weight_blocks(N, K, rng, cfg.weights)))
        xq = cupy.zeros((M, K // 128, 144), dtype=cupy.uint8)
        y = cupy.zeros((M, N), dtype=cupy.float32)
        own = base.info.shared_bytes
        log(f"{label}: {base.registers} registers, grid {grid}")
        for size in (own,) if scan else (own, own + 128, 32329):
            kern = LoadedKernel(dataclasses.replace(base.info, shared_bytes=size), base.function, base.block,
                                _registers=base.registers)
            row = []
            for carveout in (-1, 85) if scan else CARVEOUTS:
                driver.funcSetAttribute(base.function.kernel.ptr, CARVEOUT_ATTRIBUTE, carveout)
                kern.launch(xq, w, y, M, N, K, grid=grid, shared_bytes=size)  # applies the size's opt-in
                held = driver.occupancyMaxActiveBlocksPerMultiprocessor(base.function.kernel.ptr,
                                                                        32 * base.info.num_warps, size)
                us = time_graph(cupy, lambda kern=kern, size=size: kern.launch(xq, w, y, M, N, K, grid=grid,
                                                                             sync=False, shared_bytes=size))
                row.append(f"carveout {carveout:4d}: {held}/SM {us:6.2f}")
            log(f"  {size:6d} B: " + " | ".join(row))
        driver.funcSetAttribute(base.function.kernel.ptr, CARVEOUT_ATTRIBUTE, -1)
        del w, xq, y
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()

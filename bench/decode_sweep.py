"""Sweep of the weights-once (small-M) q4_K × q8_1 kernel's configuration on the decode shapes.

    python -m bench.prepare decode_sweep    # here: compile every variant into the cache
    python -m bench.decode_sweep            # on the GPU machine
    python -m bench.decode_sweep --max-m 1  # the one-token kernels (MmqConfig.max_m), split-K only
    python -m bench.decode_sweep --max-m 1 --l2-prefetch 128 --k-blocks 1 2   # run 52

Decode at M = 1 is bound by how many weight bytes are in flight, which the tile height
(``block_n``), the warps, the cp.async stages and the split-K program count set together;
this run measures each combination (kernel alone and whole MUL_MAT, back to back as CUDA
graphs) so the default in ``bench/mmq.py`` is chosen from measurements. Every variant is
first checked against ``compiler.numerics`` on one shape.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools

import numpy as np

from bench.mmq import DECODE_SHAPES, compile_kernels, compile_quantizers, load_quantizers, measure
from compiler.mmq_template import SMALL_M_MAX, MmqConfig, mmq_grid
from compiler.quantize_template import quantize_grid

# (block_n, num_warps): 16, 32 or 64 weight rows per warp. Run 7 (2026-11-30) swept 16 and 32
# rows per warp with 2, 3, 4 and 6 stages: 32 rows per warp and 2 stages were best everywhere.
TILES = [(16, 1), (32, 1), (64, 2), (128, 4), (64, 1), (128, 2), (256, 4)]
STAGES = [2]
K_BLOCKS = (1, 2, 4)
"""Super-blocks per K step (``MmqConfig.k_blocks``), swept with split-K: 144 · k_blocks contiguous
bytes of a weight row per copy."""
SPLITS = [  # split_factor overrides: None = no split-K (plain stores, no zeroing)
    None, *({"target": t, "max_splits": c, "min_blocks": b}
            for t in (512, 1024, 2048, 4096) for c in (8, 16, 32) for b in (1, 2))]
CHECK_SHAPE = (8, 4096, 4096)


def variants(max_m: int | None = None, l2_prefetch: int = 0,
             k_blocks: tuple[int, ...] = K_BLOCKS) -> list[tuple[str, MmqConfig, int]]:
    """Every tile × stages × split-K choice for M ≤ 8; the split-K ones also with 2 and 4
    super-blocks per K step, and all of those again for M = 1 (``max_m = 1``: the mma's
    odd-token columns are dead, so fewer registers and instructions); ``max_m`` keeps one of
    the two kinds."""
    out = []
    for (bn, warps), stages, split in itertools.product(TILES, STAGES, (False, True)):
        cfg = MmqConfig(small_m=True, block_n=bn, num_warps=warps, split_k=split)
        out.append((f"small_m {bn} w{warps}{' splitk' if split else ''} s{stages}", cfg, stages))
        if not split:
            continue
        for tokens, kb in itertools.product((SMALL_M_MAX, 1), K_BLOCKS):
            if (tokens, kb) != (SMALL_M_MAX, 1):
                extra = (" m1" if tokens == 1 else "") + (f" kb{kb}" if kb > 1 else "")
                label = f"small_m {bn} w{warps} splitk s{stages}{extra}"
                out.append((label, MmqConfig(small_m=True, block_n=bn, num_warps=warps, split_k=True, max_m=tokens,
                                             k_blocks=kb), stages))
    out = [v for v in out if (max_m is None or v[1].max_m == max_m) and v[1].k_blocks in k_blocks]
    if l2_prefetch:
        out = [(f"{label} l2p{l2_prefetch}", dataclasses.replace(cfg, l2_prefetch=l2_prefetch), stages)
               for label, cfg, stages in out]
    return out


def compile_all(max_m: int | None = None, l2_prefetch: int = 0, k_blocks: tuple[int, ...] = K_BLOCKS) -> list:
    compile_quantizers()
    return compile_kernels(variants(max_m, l2_prefetch, k_blocks))


def run(max_m: int | None, l2_prefetch: int = 0, k_blocks: tuple[int, ...] = K_BLOCKS) -> None:
    from bench.gpu_common import gpu_or_exit, log, record, time_graph

    cupy = gpu_or_exit("python -m bench.decode_sweep")
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import random_weight_blocks

    rng = np.random.default_rng()
    flush = cupy.empty(256 << 20, dtype=cupy.uint8)
    quantizers = load_quantizers(compile_quantizers())
    quantize = quantizers[(False, False)]
    operands = {}
    for n, k in DECODE_SHAPES:
        x = cupy.asarray(rng.standard_normal((1, k)).astype(np.float32))
        xq = cupy.empty((1, k // 128, 144), dtype=cupy.uint8)
        quantize.launch(x, xq, 1, k, grid=quantize_grid(1, k), sync=True)
        operands[(n, k)] = (cupy.asarray(random_weight_blocks(n, k, rng)), xq, cupy.zeros((1, n), cupy.float32))
    for label, cfg, stages, compiled in compile_all(max_m, l2_prefetch, k_blocks):
        try:
            kernel = load(compiled.ptx, compiled.kernels[0])
        except ValueError as err:  # more shared memory than a CTA may have (256 rows, kb4)
            record({"what": f"sweep {label}: does not launch", "reason": str(err)})
            log(f"{label}: {err}")
            continue
        info = compiled.kernels[0]
        m, n, k = CHECK_SHAPE
        m = min(m, cfg.max_m)
        checked = measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush)
        record({**checked, "what": f"sweep {label}" + ("" if checked["ok"] else ": FAILED the check")})
        if not checked["ok"]:
            continue
        seen = set()
        for (n, k), split in itertools.product(DECODE_SHAPES, SPLITS[1:] if cfg.split_k else SPLITS[:1]):
            w, xq, y = operands[(n, k)]
            grid = mmq_grid(cfg, 1, n, k, **(split or {}))
            if (n, k, grid) in seen:
                continue
            seen.add((n, k, grid))

            def kernel_only(w=w, xq=xq, y=y, n=n, k=k, grid=grid) -> None:
                kernel.launch(xq, w, y, 1, n, k, grid=grid, sync=False)

            def gemm(y=y, kernel_only=kernel_only) -> None:
                if cfg.split_k:
                    y.fill(0)
                kernel_only()

            us_kernel, us_gemm = time_graph(cupy, kernel_only), time_graph(cupy, gemm)
            weight_bytes = n * k // 256 * 144
            record({"what": f"sweep {label}", "shape": f"M=1 N={n} K={k}", "grid": grid, "split": split,
                    "us_kernel": us_kernel, "us_gemm": us_gemm, "weight_GBs_kernel": weight_bytes / us_kernel / 1e3,
                    "shared_bytes": info.shared_bytes, "num_warps": info.num_warps,
                    "checked_rel_err": checked["rel_err_checked_rows"]})
            log(f"{label:28s} N={n:5d} K={k:5d} grid {grid}: kernel {us_kernel:7.2f} us, gemm {us_gemm:7.2f} us, "
                f"{weight_bytes / us_kernel / 1e3:6.0f} GB/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the variants into the cache")
    parser.add_argument("--max-m", type=int, choices=(1, SMALL_M_MAX),
                        help="only the kernels for M ≤ this (default: both kinds)")
    parser.add_argument("--l2-prefetch", type=int, default=0, choices=(0, 64, 128, 256),
                        help="every variant with this MmqConfig.l2_prefetch (cp.async L2 prefetch-size hint)")
    parser.add_argument("--k-blocks", type=int, nargs="+", default=list(K_BLOCKS), choices=K_BLOCKS,
                        help="only these super-blocks per K step")
    args = parser.parse_args()
    k_blocks = tuple(args.k_blocks)
    if args.prepare:
        print(f"{len(compile_all(args.max_m, args.l2_prefetch, k_blocks))} variants compiled")
    else:
        run(args.max_m, args.l2_prefetch, k_blocks)


if __name__ == "__main__":
    main()

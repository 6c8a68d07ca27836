"""Experiment: are the q4_K kernels' results bit for bit the same with the high nibbles upcast in place?

    python bench/experiments/nibble_ab.py --prepare          # here, once per compiler (see below)
    python bench/experiments/nibble_ab.py --run SEED FILE    # on the GPU machine, once per kernel cache
    python bench/experiments/nibble_ab.py --compare A B      # the two FILEs

Commit 1cf3e87 masks the high nibbles where they sit (16 · q, read by an unsigned mma operand)
and divides the odd sub-blocks' d · sc by 16 where the scales are decoded, instead of shifting
the nibbles down. A power-of-two factor changes no rounding of the exact fold, so the results
should be the same bits; this measures it. The kernels of both compilers run on the same inputs
(``--run`` draws them from SEED; the seed is fresh per GPU run and given to both processes),
without split-K (one split: ``reduce = "add"`` into a zeroed Y is then one exact addition, so
each kernel is deterministic), and ``--compare`` counts the output elements whose bits differ.
Each kernel is also checked against ``compiler.numerics`` (float64, relative error ≤ 1e-5)
and run twice, so that a difference between the compilers is not a difference between launches.

The previous compiler's kernels come from its own checkout (a ``git worktree``), run with this
script's path: ``cd BASE && QDOT_KERNEL_CACHE=… PYTHONPATH=BASE python /path/to/nibble_ab.py
--prepare`` — the script imports the compiler of the ``PYTHONPATH`` it runs under, and the two
trees' kernel templates are the same text.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from compiler.mmq_template import MmqConfig

KERNELS = [  # (label, config, stages, [(M, N, K)])
    ("mmq 64x128 w4 s2 b2", MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2), 2,
     [(512, 4096, 4096), (1000, 3584, 3584), (17, 4097, 1024)]),
    ("mmq 128x128 w8 s2", MmqConfig(block_m=128, block_n=128, num_warps=8), 2, [(512, 3584, 3584), (9, 4096, 2048)]),
    ("small_m 64 w2 splitk", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True), 2,
     [(1, 4096, 14336), (3, 3584, 3584), (8, 4096, 4096), (5, 4097, 2048)]),
    ("small_m 64 w2 splitk m1", MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1), 2,
     [(1, 4096, 14336), (1, 32768, 8192)]),
]


def _compile(cfg: MmqConfig, stages: int):  # noqa: ANN202 - a CompiledKernel
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_kernel

    return get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=stages)


def prepare() -> None:
    for label, cfg, stages, _ in KERNELS:
        _compile(cfg, stages)
        print("compiled", label)


def run(seed: int, path: str) -> None:
    import cupy

    from compiler import numerics
    from compiler.mmq_template import mmq_grid
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import random_weight_blocks

    outputs: dict[str, np.ndarray] = {}
    for index, (label, cfg, stages, shapes) in enumerate(KERNELS):
        compiled = _compile(cfg, stages)
        kernel = load(compiled.ptx, compiled.kernels[0])
        for m, n, k in shapes:
            rng = np.random.default_rng([seed, index, m, n, k])
            w = random_weight_blocks(n, k, rng)
            x = numerics.quantize("q8_1_mmq", rng.standard_normal((m, k)).astype(np.float32))
            x = x.reshape(m, k // 128, 144)
            ref = numerics.dot_scaled(x, w.transpose(1, 0, 2), lhs="q8_1_mmq", rhs="q4_K", use_block_sums=True)
            grid = mmq_grid(cfg, m, n, k, max_splits=1)
            runs = []
            for _ in range(2):
                y = cupy.full((m, n), 0.0 if cfg.needs_zeroed_output else np.nan, dtype=cupy.float32)
                kernel.launch(cupy.asarray(x), cupy.asarray(w), y, m, n, k, grid=grid)
                runs.append(cupy.asnumpy(y))
            out = runs[0].astype(np.float64)
            err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
            same = bool(np.array_equal(runs[0].view(np.uint32), runs[1].view(np.uint32)))
            key = f"{label} M={m} N={n} K={k}"
            outputs[key] = runs[0]
            print(f"{key:44s} grid {grid}: rel err {err:.2e} ({'ok' if err <= 1e-5 else 'WRONG'}), "
                  f"two launches {'identical' if same else 'DIFFER'}", flush=True)
    np.savez(path, **outputs)


def compare(a_path: str, b_path: str) -> int:
    a, b = np.load(a_path), np.load(b_path)
    differing_kernels = 0
    for key in a.files:
        bits_a, bits_b = a[key].view(np.uint32), b[key].view(np.uint32)
        differ = int(np.count_nonzero(bits_a != bits_b))
        worst = float(np.max(np.abs(a[key].astype(np.float64) - b[key]))) if differ else 0.0
        differing_kernels += differ > 0
        print(f"{key:44s} {a[key].size:9d} values, {differ:7d} differ in their bits (largest difference {worst:.3g})")
    print(f"{len(a.files) - differing_kernels} of {len(a.files)} outputs bit-identical")
    return 1 if differing_kernels else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--prepare", action="store_true", help="compile the kernels into the kernel cache")
    mode.add_argument("--run", nargs=2, metavar=("SEED", "FILE"), help="run them on the GPU, save the outputs")
    mode.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two --run outputs bit for bit")
    args = parser.parse_args()
    if args.prepare:
        prepare()
        return 0
    if args.run:
        run(int(args.run[0]), args.run[1])
        return 0
    return compare(*args.compare)


if __name__ == "__main__":
    sys.exit(main())

"""Experiment: does the emulator predict a whole compiled kernel's output bit for bit? (runs 124–125)

    python -m bench.experiments.emulator_vs_gpu --prepare    # here: kernels and inputs (.devrun/emu)
    python -m bench.experiments.emulator_vs_gpu              # on the GPU machine: $OUT/emulator_vs_gpu.npz
    python -m bench.experiments.emulator_vs_gpu --compare F  # here: emulate the same, compare bits
    (--k 1024 on all three: the GEMMs over a longer K, eight to sixteen chained steps)

Since runs 122–123 the emulator's floating-point mma.sync / wgmma compute what the H200's tensor
cores do. Everything else a kernel computes is IEEE arithmetic the emulator takes from the IR
— except that LLVM may fuse a multiply and an add the IR marks ``contract`` into one FMA (run
124 found it; the emulator now does the same). This runs the kernels of
tests/gpu/fidelity_harness.py on the H200 and in the emulator on the same inputs — one PTX and
one IR from the same pipeline, several input sets each — and counts the output elements whose
bits differ. (The GPU suite checks one input set of each since run 126:
tests/gpu/test_emulator_fidelity_gpu.py.)
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from tests.gpu.fidelity_harness import admissible, cases, inputs, matches_none

INPUTS = Path(".devrun/emu")
SEEDS = 3
K_ENV = "QDOT_EMU_K"
"""The GEMMs' K (``--k``; kept in the environment so that ``bench.prepare`` and the GPU run agree)."""
"""Input sets per kernel (seeded here and stored, so the emulator and the GPU read the same bytes)."""


def _cases() -> list:
    k = int(os.environ.get(K_ENV, "0"))
    return cases(k) if k else cases()


def prepare() -> None:
    INPUTS.mkdir(parents=True, exist_ok=True)
    for i, (kernel, case) in enumerate(_cases()):
        kernel.compiled()
        for seed in range(SEEDS):
            arrays, out = inputs(case, 1000 * seed + i)
            np.savez(INPUTS / f"case{i}_s{seed}.npz", *arrays, out=out)


compile_all = prepare
"""What ``python -m bench.prepare experiments.emulator_vs_gpu`` calls (with the GPU suite's kernels)."""


def _stored(i: int, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    z = np.load(INPUTS / f"case{i}_s{seed}.npz")
    return [z[f"arr_{j}"] for j in range(len(z.files) - 1)], z["out"]


def run_gpu() -> None:
    import cupy

    from targets.ptx.runner import load

    results = {}
    for i, (kernel, case) in enumerate(_cases()):
        compiled = kernel.compiled()
        loaded = load(compiled.ptx, compiled.kernels[0])
        for seed in range(SEEDS):
            arrays, out = _stored(i, seed)
            dev = cupy.asarray(out)
            loaded.launch(*(cupy.asarray(a) for a in arrays), dev, case.m, case.n, case.k, grid=kernel.grid)
            results[f"case{i}_s{seed}"] = dev.get()
        print(kernel.label, "done", flush=True)
    np.savez(os.path.join(os.environ.get("OUT", "/tmp"), "emulator_vs_gpu.npz"), **results)


def compare(path: str) -> None:
    gpu = np.load(path)
    for i, (kernel, case) in enumerate(_cases()):
        differ, elements, worst = 0, 0, 0.0
        for seed in range(SEEDS):
            arrays, out = _stored(i, seed)
            allowed = admissible(kernel, arrays, out, (case.m, case.n, case.k))
            mine, theirs = allowed[0], gpu[f"case{i}_s{seed}"]
            wrong = matches_none(theirs, allowed)
            differ += int(wrong.sum())
            elements += mine.size
            if wrong.any() and mine.dtype == np.float32:
                rel = np.abs(mine.astype(np.float64) - theirs) / np.maximum(np.abs(theirs.astype(np.float64)), 1e-30)
                worst = max(worst, float(rel.max()))
        note = f", largest relative difference {worst:.2e}" if worst else ""
        print(f"{kernel.label:52s} {elements:6d} elements, {differ:6d} differ{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile the kernels and write the inputs")
    parser.add_argument("--compare", metavar="NPZ", help="emulate and compare with the GPU's outputs")
    parser.add_argument("--k", type=int, default=0, help=f"the GEMMs' K (default: the harness's; or ${K_ENV})")
    args = parser.parse_args()
    if args.k:
        os.environ[K_ENV] = str(args.k)
    if args.prepare:
        prepare()
    elif args.compare:
        compare(args.compare)
    else:
        run_gpu()


if __name__ == "__main__":
    main()

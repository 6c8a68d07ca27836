"""Experiment: the 8-bit ``ptx.wgmma`` forms on the H200, against the emulator's model (run 68).

    python -m bench.experiments.wgmma_forms_on_gpu --prepare   # here: kernels, inputs, expected D
    python -m bench.experiments.wgmma_forms_on_gpu             # on the GPU machine (CuPy only)

The emulator tests of ``tests/emulator/test_wgmma.py`` check qdot's wgmma kernels against numpy
on the emulator; the 8-bit forms (e4m3 / e5m2 → f32, s8 → s32) are new and no qdot kernel runs
them on the GPU yet. This compiles some of those test kernels here (the GPU machine has no xDSL),
with their shared-memory images, C and the expected D of the emulator's model (float64 sums
rounded once to f32 per wgmma; s8 exact, wrapping in s32), and on the GPU runs each PTX and
compares: bit-exact for s8 and bf16; for e4m3 it reports how many elements differ and by how
much, since Hopper's fp8 accumulation is reported to keep fewer bits than f32. (Since run 69
the GPU suite checks the same kernels, `tests/gpu/test_wgmma_forms_gpu.py`; since run 122 the
expected D is the measured model of `compiler.numerics.tensor_core`, so this now reports no
difference — run 68's figures are against the one-rounding model it had then.)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

OUT = Path(".devrun/wgmma_forms")


def _specs() -> dict:
    from tests.gpu.test_wgmma_forms_gpu import SPECS  # the GPU suite's cases since run 69

    return SPECS


def prepare() -> None:
    from targets.ptx.llvm_ir import emit_llvm_ir
    from targets.ptx.nvptx import llvm_ir_to_ptx
    from tests.emulator.kernel_text import parse
    from tests.wgmma_kernels import build, expected, make_case

    OUT.mkdir(parents=True, exist_ok=True)
    for name, spec in _specs().items():
        kernel = build(spec)
        (OUT / f"{name}.ptx").write_text(llvm_ir_to_ptx(emit_llvm_ir(parse(kernel.text()), "sm_90a"), "sm_90a"))
        case = make_case(spec)
        np.savez(OUT / f"{name}.npz", image=case.image, c=case.c, expected=expected(spec, case),
                 threads=32 * kernel.num_warps, shared_bytes=spec.shared_bytes)
        print(f"{name}: prepared")


def run() -> None:
    import cupy

    for ptx in sorted(OUT.glob("*.ptx")):
        data = np.load(ptx.with_suffix(".npz"))
        kernel = cupy.RawModule(path=str(ptx)).get_function("k")
        shared = int(data["shared_bytes"])
        kernel.max_dynamic_shared_size_bytes = shared
        c = cupy.asarray(data["c"])
        out = cupy.full_like(c, -1) if c.dtype == np.int32 else cupy.full_like(c, cupy.nan)
        kernel((1,), (int(data["threads"]),), (cupy.asarray(data["image"]), c, out), shared_mem=shared)
        got, want = out.get(), data["expected"]
        differ = got != want
        row = {"kernel": ptx.stem, "elements": int(got.size), "differ": int(differ.sum()),
               "exact": bool(not differ.any())}
        if got.dtype == np.float32 and differ.any():
            rel = np.abs(got.astype(np.float64) - want) / np.maximum(np.abs(want.astype(np.float64)), 1e-30)
            row.update({"max_rel_diff": float(rel.max()), "median_rel_diff_of_differing": float(np.median(rel[differ]))})
        print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    prepare() if args.prepare else run()


if __name__ == "__main__":
    main()

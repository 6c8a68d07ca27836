"""Probe: does ``red.global.add.f32`` flush subnormal inputs and results to zero on this GPU?

    QDOT_KERNEL_CACHE=DIR python -m bench.experiments.red_add_subnormals --prepare   # here: compile
    QDOT_KERNEL_CACHE=DIR python -m bench.experiments.red_add_subnormals             # on the GPU machine

The PTX ISA says the f32 addition of ``red`` / ``atom`` on global memory flushes subnormal inputs and results
to sign-preserving zero; the emulator (targets/ptx/emulator/memory.py) models what this prints (run 333 on an
H100). One thread adds ``val`` to ``acc``; one JSON line per pair.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from compiler.kernel_cache import get_or_compile
from tests.kernel_ir import KernelText

PAIRS = [(0.0, 1e-40), (2.0**-126, -(2.0**-126) + 2.0**-149), (1.0, 1e-40), (1e-40, 0.0), (-1e-40, 0.0),
         (1e-39, 1e-39)]


def kernel() -> KernelText:
    k = KernelText(["acc", "val"], name="red_add_subnormals")
    first = k.op(f"arith.cmpi eq, {k.tid}, {k.const(0)} : i32")
    value = k.load("val", k.const(0), "f32")
    k.op(f"ptx.red_global_add {k.address('acc', k.const(0))}, {value} if {first} : f32", results=0)
    return k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile into the kernel cache and stop")
    args = parser.parse_args()
    compiled = get_or_compile(kernel().text(), arch="sm_90", pipeline="")
    if args.prepare:
        return
    import cupy

    from targets.ptx.runner import load

    launched = load(compiled.ptx, compiled.kernels[0])
    for acc0, val in PAIRS:
        acc = cupy.asarray(np.array([acc0], np.float32))
        launched.launch(acc, cupy.asarray(np.array([val], np.float32)), grid=1)
        result = acc.get()
        print(json.dumps({"acc0": float(np.float32(acc0)), "val": float(np.float32(val)), "result": float(result[0]),
                          "result_bits": hex(int(result.view(np.uint32)[0]))}), flush=True)


if __name__ == "__main__":
    main()

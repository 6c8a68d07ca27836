"""Experiment: what the H200's tensor cores compute for floating-point mma.sync and wgmma, bit for bit.

    python -m bench.experiments.tensor_core_probe --prepare   # here: fill the kernel cache
    python -m bench.experiments.tensor_core_probe             # on the GPU machine: $OUT/<form>.npz
    python -m bench.experiments.tensor_core_fit DIR           # here: the models against the data

The emulator's model of a floating-point mma / wgmma was one rounding of the exact sum per
instruction; run 68 found the H200 different in the last bits (bf16) and by ~1e-4 (fp8). This
collects what the hardware does, for fitting a model of its arithmetic offline: for each form,
operands and C from every pair of the distributions of tests/tensor_core_cases.py, and for each
element of D the operand values, C and the D the GPU produced. Forms: ``mma.sync`` m16n8k16
bf16 / f16 and m16n8k32 e4m3 / e5m2 → f32 (one warp per case), ``wgmma`` m64n64k16 bf16 / f16 and
m64n64k32 e4m3 / e5m2 → f32 (tests/wgmma_kernels.py's kernels, one per launch), each fp8 one
also with mixed operands (e4m3 × e5m2, e5m2 × e4m3).
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from compiler.kernel_cache import get_or_compile
from tests.tensor_core_cases import (ACCUMULATORS, MMA_FORMS, OPERANDS, WGMMA_FORMS, mma_inputs, mma_kernel, unpack_d,
                                     wgmma_case)
from tests.wgmma_kernels import build


def compile_all() -> dict[str, object]:
    kernels = {name: get_or_compile(mma_kernel(form).text(), arch="sm_90", pipeline="")
               for name, form in MMA_FORMS.items()}
    kernels.update({name: get_or_compile(build(spec).text(), arch="sm_90a", pipeline="")
                    for name, spec in WGMMA_FORMS.items()})
    return kernels


def run_mma(cupy, kernel, name: str, rng: np.random.Generator, cases: int,  # noqa: ANN001
            operands: list[str]) -> dict[str, np.ndarray]:
    from targets.ptx.runner import load

    loaded = load(kernel.ptx, kernel.kernels[0])
    out: dict[str, list[np.ndarray]] = {key: [] for key in ("a", "b", "c", "d", "dist")}
    for op_dist in operands:
        for acc_dist in ACCUMULATORS:
            case = mma_inputs(rng, name, cases, op_dist, acc_dist)
            d = cupy.full(case["c_regs"].shape, cupy.nan, dtype=cupy.float32)
            loaded.launch(*(cupy.asarray(case[key]) for key in ("a_regs", "b_regs", "c_regs")), d, grid=cases)
            out["a"].append(case["a"].astype(np.float32))  # every value of these formats is an f32
            out["b"].append(case["b"].astype(np.float32))
            out["c"].append(case["c"])
            out["d"].append(unpack_d(d.get()))
            out["dist"].append(np.array([f"{op_dist}/{acc_dist}"] * cases))
    return {key: np.concatenate(value) for key, value in out.items()}


def run_wgmma(cupy, kernel, name: str, rng: np.random.Generator, cases: int,  # noqa: ANN001
              operands: list[str]) -> dict[str, np.ndarray]:
    from targets.ptx.runner import load

    spec = WGMMA_FORMS[name]
    loaded = load(kernel.ptx, kernel.kernels[0])
    out: dict[str, list[np.ndarray]] = {key: [] for key in ("a", "b", "c", "d", "dist")}
    for op_dist in operands:
        for acc_dist in ACCUMULATORS:
            for _ in range(cases):
                case = wgmma_case(spec, rng, op_dist, acc_dist)
                d = cupy.full(case.c.shape, cupy.nan, dtype=cupy.float32)
                loaded.launch(cupy.asarray(case.image), cupy.asarray(case.c), d, grid=1)
                out["a"].append(case.a[0].astype(np.float32)[None])
                out["b"].append(case.b.astype(np.float32)[None])
                out["c"].append(case.c[None])
                out["d"].append(d.get()[None])
                out["dist"].append(np.array([f"{op_dist}/{acc_dist}"]))
    return {key: np.concatenate(value) for key, value in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--cases", type=int, default=256, help="mma.sync cases per distribution pair")
    parser.add_argument("--wgmma-cases", type=int, default=12, help="wgmma cases per distribution pair")
    parser.add_argument("--forms", nargs="+", metavar="FORM", choices=[*MMA_FORMS, *WGMMA_FORMS],
                        default=[*MMA_FORMS, *WGMMA_FORMS], help="the forms to measure (default: all)")
    parser.add_argument("--operands", nargs="+", metavar="DIST", choices=OPERANDS, default=list(OPERANDS),
                        help="the operand distributions, each with every C distribution (default: all)")
    args = parser.parse_args()
    kernels = compile_all()
    if args.prepare:
        return
    import cupy

    rng = np.random.default_rng()
    directory = os.environ.get("OUT", "/tmp/qdot_probe")
    os.makedirs(directory, exist_ok=True)
    for name in args.forms:
        run = run_mma if name in MMA_FORMS else run_wgmma
        data = run(cupy, kernels[name], name, rng, args.cases if name in MMA_FORMS else args.wgmma_cases,
                   args.operands)
        np.savez_compressed(os.path.join(directory, f"{name}.npz"), **data)
        print(name, {key: value.shape for key, value in data.items()}, "NaN in D:", int(np.isnan(data["d"]).sum()))


if __name__ == "__main__":
    main()

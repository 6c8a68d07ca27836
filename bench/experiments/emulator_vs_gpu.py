"""Experiment: does the emulator predict a whole compiled kernel's output bit for bit?

    python -m bench.experiments.emulator_vs_gpu --prepare    # here: kernels and inputs (.devrun/emu)
    python -m bench.experiments.emulator_vs_gpu              # on the GPU machine: $OUT/emulator_vs_gpu.npz
    python -m bench.experiments.emulator_vs_gpu --compare F  # here: emulate the same, compare bits

Since runs 122–123 the emulator's floating-point mma.sync / wgmma compute what the H200's tensor
cores do. Everything else a kernel computes is IEEE arithmetic the emulator takes from the IR
— except that LLVM may fuse a multiply and an add the IR marks ``contract`` into one FMA, which
the emulator cannot see. This runs GEMM and q4_K kernels of several strategies on the H200 and in
the emulator on the same inputs, one PTX and one IR from the same pipeline, and counts the
output elements whose bits differ. Split-K kernels are left out: their float atomic additions
arrive in any order.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel, grid
from tests.gpu import gemm_harness, mmq_harness

INPUTS = Path(".devrun/emu")
M, N, K = 144, 120, 160
SEEDS = 3
"""Input sets per kernel (seeded here, so the emulator and the GPU read the same bytes)."""


@dataclass(frozen=True)
class Kernel:
    label: str
    source: str
    arch: str
    strategy: str
    stages: int
    grid: tuple[int, int, int]
    name: str

    @property
    def pipeline(self) -> str:
        return ptx_pipeline(PtxOptions(arch=self.arch, strategy=self.strategy, num_stages=self.stages))


def _gemm(label: str, cfg: GemmConfig, arch: str, strategy: str, stages: int = 3) -> tuple[Kernel, object]:
    if K % cfg.block_k:
        cfg = replace(cfg, k_divisibility=32)
    case = gemm_harness.GemmCase(cfg, M, N, K, arch, strategy, stages)
    return Kernel(label, gemm_kernel(cfg), arch, strategy, stages, grid(cfg, M, N), cfg.name), case


def _mmq(label: str, case: mmq_harness.MmqCase) -> tuple[Kernel, object]:
    return Kernel(label, mmq_kernel(case.cfg), "sm_90", "promote-int8", case.stages,
                  mmq_grid(case.cfg, case.m, case.n, case.k), case.cfg.name), case


def cases() -> list[tuple[Kernel, object]]:
    mx = dict(lhs="e4m3", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0")
    fp4 = dict(lhs="e2m1", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0")
    return [
        _gemm("e4m3 x e2m1 dequant-bf16 (bf16 mma.sync)", GemmConfig(**mx), "sm_90", "dequant-bf16"),
        _gemm("e4m3 x e2m1 promote-fp8 (e4m3 mma.sync)", GemmConfig(**mx), "sm_90", "promote-fp8"),
        _gemm("e2m1 x e2m1 promote-int8 (s8 mma.sync, fold)", GemmConfig(**fp4), "sm_90", "promote-int8"),
        _gemm("nvfp4 dequant-bf16", GemmConfig(lhs="e2m1", rhs="e2m1", lhs_scale="ue4m3", rhs_scale="ue4m3"), "sm_90",
              "dequant-bf16"),
        _gemm("bf16 x e2m1 dequant-bf16", GemmConfig(lhs="bf16", rhs="e2m1", lhs_scale=None, rhs_scale="ue8m0"),
              "sm_90", "dequant-bf16"),
        _gemm("i8 x i8 promote-int8", GemmConfig(lhs="i8", rhs="i8", lhs_scale=None, rhs_scale=None), "sm_90",
              "promote-int8"),
        _gemm("e4m3 x e2m1 dequant-bf16, bf16 output", GemmConfig(**mx, out="bf16"), "sm_90", "dequant-bf16"),
        _gemm("e2m3 x e2m1 promote-int8", GemmConfig(lhs="e2m3", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0"),
              "sm_90", "promote-int8"),
        _gemm("e4m3 x e2m1 wgmma (sm_90a)", GemmConfig(**mx, block_k=64, num_warps=4), "sm_90a", "dequant-bf16", 2),
        _gemm("fp16 x fp16 wgmma (sm_90a)",
              GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None, block_k=64, num_warps=4), "sm_90a",
              "dequant-bf16", 2),
        _mmq("q4_K mmq 32x64 w4", mmq_harness.MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), 40, 72, 768)),
        _mmq("q4_K decode w4 M=3", mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), 3, 72, 768)),
        _mmq("q4_K one-token kb4", mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=32, num_warps=1, k_blocks=4,
                                                                  max_m=1), 1, 40, 1536)),
    ]


def _inputs(case: object, seed: int) -> tuple[list[np.ndarray], np.ndarray, list[int]]:
    """(input arrays, the poisoned output, scalars) in the kernel's argument order."""
    rng = np.random.default_rng(seed)
    if isinstance(case, gemm_harness.GemmCase):
        data = gemm_harness.make_inputs(case, rng)
        arrays = [data["a"], data["b_t"]] + [data[s] for s in ("sa", "sb") if s in data]
        return arrays, gemm_harness.poisoned_output(case.cfg, case.m, case.n), [case.m, case.n, case.k]
    data = mmq_harness.make_inputs(case, rng)
    return [data["x"], data["w"]], mmq_harness.poisoned_output(case), [case.m, case.n, case.k]


def prepare() -> None:
    from compiler.kernel_cache import get_or_compile

    INPUTS.mkdir(parents=True, exist_ok=True)
    for i, (kernel, case) in enumerate(cases()):
        get_or_compile(kernel.source, arch=kernel.arch, strategy=kernel.strategy, num_stages=kernel.stages,
                       pipeline=kernel.pipeline)
        for seed in range(SEEDS):
            arrays, out, _ = _inputs(case, 1000 * seed + i)
            np.savez(INPUTS / f"case{i}_s{seed}.npz", *arrays, out=out)


compile_all = prepare
"""What ``python -m bench.prepare experiments.emulator_vs_gpu`` calls (with the GPU suite's kernels)."""


def run_gpu() -> None:
    import cupy

    from compiler.kernel_cache import get_or_compile
    from targets.ptx.runner import load

    results = {}
    for i, (kernel, case) in enumerate(cases()):
        compiled = get_or_compile(kernel.source, arch=kernel.arch, strategy=kernel.strategy, num_stages=kernel.stages,
                                  pipeline=kernel.pipeline)
        kernel_fn = load(compiled.ptx, compiled.kernels[0])
        for seed in range(SEEDS):
            z = np.load(INPUTS / f"case{i}_s{seed}.npz")
            arrays = [cupy.asarray(z[f"arr_{j}"]) for j in range(len(z.files) - 1)]
            out = cupy.asarray(z["out"])
            _, _, scalars = _inputs(case, 0)
            kernel_fn.launch(*arrays, out, *scalars, grid=kernel.grid)
            results[f"case{i}_s{seed}"] = out.get()
        print(kernel.label, "done", flush=True)
    np.savez(os.path.join(os.environ.get("OUT", "/tmp"), "emulator_vs_gpu.npz"), **results)


def compare(path: str) -> None:
    from compiler import registry
    from compiler.cli.common import build_pipeline, parse_module, split_chunks
    from targets.ptx.emulator import emulate

    gpu = np.load(path)
    for i, (kernel, case) in enumerate(cases()):
        ctx = registry.make_context()
        module = parse_module(ctx, split_chunks(kernel.source, False)[0], f"{kernel.name}.mlir")
        build_pipeline(registry.pass_factories(), kernel.pipeline).apply(ctx, module)
        differ, elements, worst = 0, 0, 0.0
        for seed in range(SEEDS):
            z = np.load(INPUTS / f"case{i}_s{seed}.npz")
            arrays = [np.ascontiguousarray(z[f"arr_{j}"]) for j in range(len(z.files) - 1)]
            out = np.ascontiguousarray(z["out"])
            _, _, scalars = _inputs(case, 0)
            emulate(module, kernel.name, [*arrays, out, *scalars], kernel.grid)
            want = gpu[f"case{i}_s{seed}"]
            bits = out.view(np.uint32 if out.itemsize == 4 else np.uint16)
            wrong = bits != want.view(bits.dtype)
            differ += int(wrong.sum())
            elements += out.size
            if wrong.any() and out.dtype == np.float32:
                rel = np.abs(out.astype(np.float64) - want) / np.maximum(np.abs(want.astype(np.float64)), 1e-30)
                worst = max(worst, float(rel.max()))
        note = f", largest relative difference {worst:.2e}" if worst else ""
        print(f"{kernel.label:52s} {elements:6d} elements, {differ:6d} differ{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile the kernels and write the inputs")
    parser.add_argument("--compare", metavar="NPZ", help="emulate and compare with the GPU's outputs")
    args = parser.parse_args()
    if args.prepare:
        prepare()
    elif args.compare:
        compare(args.compare)
    else:
        run_gpu()


if __name__ == "__main__":
    main()

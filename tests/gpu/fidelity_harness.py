"""Kernels whose H200 output the emulator must reproduce bit for bit, with their inputs.

The emulator's floating-point mma / wgmma follow ``compiler.numerics.tensor_core`` and a
``contract`` multiply-add rounds once, as LLVM's FMA does; with both, whole compiled kernels come
out of the emulator exactly as the H200 computes them (runs 124–126 of bench/RESULTS.md). These
are the kernels that claim is checked on: a GEMM of every sm_90 / sm_90a strategy and output,
and the q4_K kernels, split-K ones among them. A split-K kernel's programs add their partial sums
into Y with float atomics, which land in any order: 0 + a + b is the same in either, but three
or more splits may round differently from one launch to the next. For those, ``admissible``
emulates each split on its own and forms the sum in every order; the GPU's value must be one of
them, element by element. Used by tests/gpu/test_emulator_fidelity_gpu.py and
bench/experiments/emulator_vs_gpu.py; no xDSL here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import permutations

import numpy as np

from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel, grid
from tests.gpu import gemm_harness, mmq_harness

M, N, K = 144, 120, 160
"""The GEMMs' shape: ragged in M and N against 128-wide tiles, two programs."""


@dataclass(frozen=True)
class Kernel:
    label: str
    source: str
    arch: str
    strategy: str
    stages: int
    grid: tuple[int, int, int]
    name: str
    q4k_fold: str = "auto"

    @property
    def pipeline(self) -> str:
        return ptx_pipeline(PtxOptions(arch=self.arch, strategy=self.strategy, num_stages=self.stages,
                                       q4k_fold=self.q4k_fold))

    @property
    def splits(self) -> int:
        """Programs that add into each output element: a split-K grid's y dimension (1 elsewhere)."""
        return self.grid[1]

    def compiled(self):  # noqa: ANN201 - compiler.kernel_cache.CachedKernel
        from compiler.kernel_cache import get_or_compile

        return get_or_compile(self.source, arch=self.arch, strategy=self.strategy, num_stages=self.stages,
                              pipeline=self.pipeline)


def _gemm(label: str, cfg: GemmConfig, arch: str, strategy: str, stages: int = 3, k: int = K) -> tuple[Kernel, object]:
    if k % cfg.block_k:
        cfg = replace(cfg, k_divisibility=32)
    case = gemm_harness.GemmCase(cfg, M, N, k, arch, strategy, stages)
    return Kernel(label, gemm_kernel(cfg), arch, strategy, stages, grid(cfg, M, N), cfg.name), case


def _mmq(label: str, case: mmq_harness.MmqCase, q4k_fold: str = "auto", **split: int) -> tuple[Kernel, object]:
    return Kernel(label, mmq_kernel(case.cfg), "sm_90", "promote-int8", case.stages,
                  mmq_grid(case.cfg, case.m, case.n, case.k, **split), case.cfg.name, q4k_fold), case


def cases(k: int = K) -> list[tuple[Kernel, object]]:
    """(kernel, its GemmCase or MmqCase) for each kernel checked; ``k``: the GEMMs' K (the q4_K
    kernels keep theirs)."""
    mx = dict(lhs="e4m3", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0")
    fp4 = dict(lhs="e2m1", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0")
    return [
        _gemm("e4m3 x e2m1 dequant-bf16 (bf16 mma.sync)", GemmConfig(**mx), "sm_90", "dequant-bf16", k=k),
        _gemm("e4m3 x e2m1 promote-fp8 (e4m3 mma.sync)", GemmConfig(**mx), "sm_90", "promote-fp8", k=k),
        _gemm("e5m2 x e2m1 promote-fp8 (e5m2 x e4m3 mma.sync)", GemmConfig(**{**mx, "lhs": "e5m2"}), "sm_90",
              "promote-fp8", k=k),
        _gemm("e2m1 x e2m1 promote-int8 (s8 mma.sync, fold)", GemmConfig(**fp4), "sm_90", "promote-int8", k=k),
        _gemm("nvfp4 dequant-bf16", GemmConfig(lhs="e2m1", rhs="e2m1", lhs_scale="ue4m3", rhs_scale="ue4m3"), "sm_90",
              "dequant-bf16", k=k),
        _gemm("bf16 x e2m1 dequant-bf16", GemmConfig(lhs="bf16", rhs="e2m1", lhs_scale=None, rhs_scale="ue8m0"),
              "sm_90", "dequant-bf16", k=k),
        _gemm("i8 x i8 promote-int8", GemmConfig(lhs="i8", rhs="i8", lhs_scale=None, rhs_scale=None), "sm_90",
              "promote-int8", k=k),
        _gemm("e4m3 x e2m1 dequant-bf16, bf16 output", GemmConfig(**mx, out="bf16"), "sm_90", "dequant-bf16", k=k),
        _gemm("e2m3 x e2m1 promote-int8", GemmConfig(lhs="e2m3", rhs="e2m1", lhs_scale="ue8m0", rhs_scale="ue8m0"),
              "sm_90", "promote-int8", k=k),
        _gemm("e4m3 x e2m1 wgmma (sm_90a)", GemmConfig(**mx, block_k=64, num_warps=4), "sm_90a", "dequant-bf16", 2, k),
        _gemm("e4m3 x e2m1 dequant-bf16 promoted (mma.sync)", GemmConfig(**mx, block_k=64, num_warps=4, promote=True),
              "sm_90", "dequant-bf16", k=k),
        _gemm("e4m3 x e2m1 promoted wgmma (sm_90a)", GemmConfig(**mx, block_k=64, num_warps=4, promote=True),
              "sm_90a", "dequant-bf16", 2, k),
        _gemm("fp16 x fp16 mma.sync, operands by ldmatrix .b16",
              GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None, block_k=64, num_warps=8), "sm_90",
              "auto", k=k),
        _gemm("fp16 x fp16 wgmma (sm_90a)",
              GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None, block_k=64, num_warps=4), "sm_90a",
              "dequant-bf16", 2, k),
        _mmq("q4_K mmq 32x64 w4", mmq_harness.MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), 40, 72, 768)),
        _mmq("q4_K decode w4 M=3", mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), 3, 72, 768)),
        _mmq("q4_K decode split-K in two, M=2",
             mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4, split_k=True), 2, 72, 1024),
             max_splits=2, min_blocks=1, target=1 << 20),
        _mmq("q4_K one-token kb4", mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=32, num_warps=1, k_blocks=4,
                                                                  max_m=1), 1, 40, 1536)),
        _mmq("q4_K decode split-K in four, interleaved, M=5",
             mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True,
                                           interleave_splits=True), 5, 72, 2048),
             max_splits=4, min_blocks=1, target=1 << 20),
        _mmq("q4_K one-token split-K in three, fma fold (the decode benchmark's form)",
             mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1,
                                           l2_prefetch=128), 1, 72, 768),
             "fma", max_splits=3, min_blocks=1, target=1 << 20),
        _mmq("q4_0 one-token split-K, weights repacked by tile_weights",
             mmq_harness.MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1,
                                           weights="q4_0", tiled_weights=True), 1, 72, 768),
             max_splits=3, min_blocks=1, target=1 << 20),
    ]


def inputs(case: object, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """(input arrays, the poisoned output) of ``case``, in the kernel's argument order; the
    scalars that follow the output are ``case.m, case.n, case.k``."""
    rng = np.random.default_rng(seed)
    if isinstance(case, gemm_harness.GemmCase):
        data = gemm_harness.make_inputs(case, rng)
        arrays = [data["a"], data["b_t"]] + [data[s] for s in ("sa", "sb") if s in data]
        return arrays, gemm_harness.poisoned_output(case.cfg, case.m, case.n)
    data = mmq_harness.make_inputs(case, rng)
    return [data["x"], mmq_harness.kernel_weights(case.cfg, data["w"])], mmq_harness.poisoned_output(case)


def _lowered(kernel: Kernel):  # noqa: ANN202 - the emulator's prepared kernel
    from compiler import registry
    from compiler.cli.common import build_pipeline, parse_module, split_chunks
    from targets.ptx.emulator import find_kernel, prepare

    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(kernel.source, False)[0], f"{kernel.name}.mlir")
    build_pipeline(registry.pass_factories(), kernel.pipeline).apply(ctx, module)
    return prepare(find_kernel(module, kernel.name))


def _emulate(lowered, kernel: Kernel, arrays: list[np.ndarray], out: np.ndarray, scalars: tuple[int, ...],  # noqa: ANN001
             ctas: list[int] | None = None) -> np.ndarray:
    from targets.ptx.emulator import LaunchOptions, emulate

    result = np.ascontiguousarray(out.copy())
    emulate(lowered, kernel.name, [np.ascontiguousarray(a) for a in arrays] + [result, *scalars], kernel.grid,
            options=LaunchOptions(ctas=ctas))
    return result


def emulated(kernel: Kernel, arrays: list[np.ndarray], out: np.ndarray, scalars: tuple[int, ...]) -> np.ndarray:
    """The emulator's output of ``kernel`` (compiled by the same pipeline as its PTX) on these inputs
    (its CTAs run in grid order, so a split-K kernel's atomics add in the order of the splits)."""
    return _emulate(_lowered(kernel), kernel, arrays, out, scalars)


def admissible(kernel: Kernel, arrays: list[np.ndarray], out: np.ndarray, scalars: tuple[int, ...]) -> np.ndarray:
    """Every output the GPU may give, stacked on a new first axis: the emulator's alone, or for a
    split-K grid of S > 2 splits the f32 sum 0 + p_σ(1) + … + p_σ(S) of the splits' partials in
    each of the S! orders σ (each split emulated on its own into a zeroed Y). ``red.global.add.f32``
    flushes subnormal sums to zero, which the emulator does not; the partials must be normal, or
    the orders would not be all the GPU can produce (refused here rather than checked loosely)."""
    lowered = _lowered(kernel)
    if kernel.splits <= 2:  # 0 + a + b rounds once, in either order
        return _emulate(lowered, kernel, arrays, out, scalars)[None]
    if np.any(out != 0):
        raise ValueError(f"{kernel.label}: a split-K kernel adds into Y, which must start at zero")
    x_programs = kernel.grid[0]
    partials = [_emulate(lowered, kernel, arrays, out, scalars, [x + y * x_programs for x in range(x_programs)])
                for y in range(kernel.splits)]
    tiny = np.finfo(np.float32).tiny
    if any(np.any((p != 0) & (np.abs(p) < tiny)) for p in partials):
        raise ValueError(f"{kernel.label}: a split's partial sum is subnormal; draw other inputs")
    sums = []
    for order in permutations(range(kernel.splits)):
        total = np.zeros_like(out)
        for y in order:
            total = (total + partials[y]).astype(np.float32)
        sums.append(total)
    return np.stack(sums)


def not_finite(values: np.ndarray) -> int:
    """How many elements of a float output (f32, or bf16 as uint16 bits) are NaN or infinite: on these finite
    random inputs, elements nothing wrote (the poison is NaN). The GPU and the emulator start from the same
    poisoned output, so an element neither writes would match bit for bit: the emulated outputs are held to this
    before they are stored. An integer output (poisoned with -1, a value it can hold) counts none."""
    if values.dtype == np.float32:
        return int(np.count_nonzero(~np.isfinite(values)))
    if values.dtype == np.uint16:
        return int(np.count_nonzero((values & 0x7F80) == 0x7F80))
    return 0


def matches_none(got: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Where ``got`` equals, bit for bit, none of the outputs stacked in ``allowed``."""
    return ~np.any(bits(allowed) == bits(got)[None], axis=0)


def bits(values: np.ndarray) -> np.ndarray:
    return values.view(np.uint32 if values.itemsize == 4 else np.uint16)

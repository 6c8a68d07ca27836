"""Template kernels lowered through the PTX pipeline for the emulator tests, and the MMQ kernels' check.

The emulator runs the IR the pipeline leaves (func / arith / ptx), so every emulator test that starts
from a template's text does the same three steps — parse the first chunk with the project's context,
build the pipeline, verify after each pass — and they live here once, so a change to how the tools
build a pipeline reaches all of these tests at the same time as it reaches `qdot-translate`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.mmq_template import (MmqConfig, fixup_grid, fixup_kernel_name, fixup_scalars, fixup_workspace_shape,
                                   mmq_fixup_kernel, mmq_grid, mmq_kernel)
from compiler.pipelines import PtxOptions, ptx_pipeline
from targets.ptx.emulator import emulate
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, poisoned_output, reference


SM90_TWO_STAGES = PtxOptions(arch="sm_90", num_stages=2)
"""What the stream-K and split-K fix-up tests compile with: their K loops are short."""


def lower(text: str, name: str, pipeline: PtxOptions | str, verify_each: bool = True) -> ModuleOp:
    """``text``'s first module through ``pipeline`` (options, or a spec the test rewrote) — a
    ``QdotError`` from the parser or a pass propagates, which is what the refusal tests expect."""
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(text, False)[0], f"{name}.mlir")
    spec = ptx_pipeline(pipeline) if isinstance(pipeline, PtxOptions) else pipeline
    build_pipeline(registry.pass_factories(), spec, verify_each=verify_each).apply(ctx, module)
    return module


def lower_mmq(cfg: MmqConfig, q4k_fold: str = "auto", num_stages: int = 3) -> ModuleOp:
    """The MMQ kernel of ``cfg`` for sm_90, as the benchmarks compile it unless a test asks otherwise."""
    return lower(mmq_kernel(cfg), cfg.name, PtxOptions(arch="sm_90", q4k_fold=q4k_fold, num_stages=num_stages))


def emulate_and_check(module: ModuleOp, case: MmqCase, seed: int, what: str = "") -> None:
    """Run ``module`` on the emulator over fresh seeded inputs into a poisoned Y and compare
    with ``compiler.numerics``."""
    data = make_inputs(case, np.random.default_rng(seed))
    y = poisoned_output(case)
    emulate(module, case.cfg.name, [data["x"], kernel_weights(case.cfg, data["w"]), y, case.m, case.n, case.k],
            mmq_grid(case.cfg, case.m, case.n, case.k))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id}{what}: relative error {err:.3e}"


def fixup_kernel_y(cfg: MmqConfig, args: list, grid: tuple[int, int, int]) -> np.ndarray:
    """Y of a ``cfg.fixup`` GEMM (``args``: X, W as the kernel reads it, M, N, K) run on ``grid`` and then its
    ``mmq_fixup_kernel``, both compiled with ``SM90_TWO_STAGES``: Y and the workspace start as NaN."""
    x, w, m, n, k = args
    y = np.full((m, n), np.nan, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, grid, n), np.nan, dtype=np.float32)
    emulate(lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES), cfg.name, [x, w, y, parts, m, n, k], grid)
    emulate(lower(mmq_fixup_kernel(cfg), fixup_kernel_name(cfg), SM90_TWO_STAGES), fixup_kernel_name(cfg),
            [y, parts, *fixup_scalars(cfg, grid, m, n, k)], fixup_grid(cfg, m, n))
    return y

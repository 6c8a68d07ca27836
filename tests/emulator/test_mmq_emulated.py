"""The q8_1 × q4_K kernels (compiler.mmq_template) compiled for sm_90 and run on the CPU emulator.

Ragged shapes on purpose: M and N not multiples of the tile, so the zero-filled rows
and the bounded stores are exercised; K spans several super-blocks so the K loop and
the pipeline run more than one stage.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline
from targets.ptx.emulator import emulate
from tests.gpu.mmq_harness import MmqCase, check, make_inputs, poisoned_output, reference

CASES = [
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), m=40, n=72, k=768),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), m=3, n=72, k=768),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), m=8, n=64, k=512),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True), m=5, n=40, k=1280),
]


def _compile(cfg: MmqConfig, q4k_fold: str = "auto"):  # noqa: ANN202 - xDSL ModuleOp
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(mmq_kernel(cfg), False)[0], f"{cfg.name}.mlir")
    pipeline = ptx_pipeline(PtxOptions(arch="sm_90", q4k_fold=q4k_fold))
    build_pipeline(registry.pass_factories(), pipeline, verify_each=False).apply(ctx, module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_mmq_kernel_matches_reference(case: MmqCase) -> None:
    module = _compile(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert any("s32.s8.s8.s32" in m for m in mnemonics), sorted(mnemonics)
    reduces = sum(1 for op in module.walk() if op.name == "ptx.red_global_add")
    assert (reduces > 0) == case.cfg.split_k
    _emulate_and_check(module, case, seed=7)


def _emulate_and_check(module, case: MmqCase, seed: int, what: str = "") -> None:  # noqa: ANN001
    """Run ``module`` on the emulator over fresh seeded inputs into a poisoned Y and compare
    with ``compiler.numerics``."""
    data = make_inputs(case, np.random.default_rng(seed))
    y = poisoned_output(case)
    emulate(module, case.cfg.name, [data["x"], data["w"], y, case.m, case.n, case.k],
            mmq_grid(case.cfg, case.m, case.n, case.k))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id}{what}: relative error {err:.3e}"


@pytest.mark.slow
@pytest.mark.parametrize("case", [CASES[0], CASES[3]], ids=[CASES[0].id, CASES[3].id])
def test_fma_fold_matches_reference(case: MmqCase) -> None:
    """``q4k-fold=fma``: the dmin term as an FMA per accumulator and block, no f16 mma."""
    module = _compile(case.cfg, q4k_fold="fma")
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert not any("f16" in m for m in mnemonics), sorted(mnemonics)
    _emulate_and_check(module, case, seed=8, what=" fold=fma")

"""Scale cases the strategy table used to get wrong, compiled and run on the emulator.

Each case is a GEMM kernel of ``compiler.templates`` through the whole PTX pipeline,
checked against ``compiler.numerics`` on the ragged shape of gemm_cases.py:

* a scale on one side only under a per-block rescale (promote-fp8 / promote-int8): the
  unscaled side gets unit scales in the other side's type (ue8m0 1.0), which qdot-lower-mma
  folds at compile time;
* ``auto`` on sm_120a for a one-sided scale, which the block-scaled (native) mma cannot
  take: it must pick a strategy that runs it (promote-fp8, the fp8 mma being native there);
* NVFP4 (ue4m3 per 16) under ``auto`` on sm_89 / sm_90: the 32-wide fp8 / s8 k tiles span
  two scale groups, so auto must pick dequant-bf16 (which folds ue4m3 exactly).

The ``expect`` piece of each case pins the instruction the strategy must produce, so a
case tests the path it names.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compiler.templates import GemmConfig, grid
from targets.ptx.emulator import LaunchOptions, emulate
from tests.emulator.gemm_cases import K, M, N, Case, compile_case
from tests.gpu.gemm_harness import GemmCase, check, make_inputs, reference

CASES = [
    Case("e4m3", "e2m1", None, "ue8m0", "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32"),
    Case("e4m3", "e2m1", "ue8m0", None, "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32"),
    Case("e2m3", "e2m1", None, "ue8m0", "sm_90", "promote-int8", "s32.s8.s8.s32"),
    Case("e2m1", "e2m1", "ue8m0", None, "sm_90", "promote-int8", "s32.s8.s8.s32"),
    Case("e4m3", "e2m1", None, "ue8m0", "sm_120a", "auto", "f32.e4m3.e4m3.f32"),
    Case("e2m1", "e2m1", "ue4m3", "ue4m3", "sm_90", "auto", "f32.bf16.bf16.f32"),
    # on the 99 KB targets 3 stages of the default 128×128×128 dequant-bf16 tile do not fit one CTA
    # (qdot-to-llvm refuses them): a K tile of 64
    Case("e2m1", "e2m1", "ue4m3", "ue4m3", "sm_89", "auto", "f32.bf16.bf16.f32", block_k=64),
    Case("e2m1", "e2m1", None, "ue4m3", "sm_120a", "auto", "f32.bf16.bf16.f32", block_k=64),
]


def _id(case: Case) -> str:
    return f"{case.arch}-{case.strategy}-{case.lhs}x{case.rhs}-{case.lhs_scale or 'none'}-{case.rhs_scale or 'none'}"


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param(c, id=_id(c)) for c in CASES])
def test_scale_case_matches_reference(case: Case) -> None:
    cfg = GemmConfig(lhs=case.lhs, rhs=case.rhs, lhs_scale=case.lhs_scale, rhs_scale=case.rhs_scale,
                     block_k=case.block_k)
    if K % case.block_k:
        cfg = dataclasses.replace(cfg, k_divisibility=32)
    module = compile_case(case, cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert any(case.expect in m for m in mnemonics), f"no mma with {case.expect!r} in {sorted(mnemonics)}"
    gemm = GemmCase(cfg, M, N, K, case.arch, case.strategy)
    data = make_inputs(gemm, np.random.default_rng(20261))
    c = np.full((M, N), -1, dtype=np.int32).view(np.float32)  # NaN-poisoned
    args: list[np.ndarray | int] = [data["a"], data["b_t"]]
    args += [data[s] for s in ("sa", "sb") if s in data]
    args += [c, M, N, K]
    stats = emulate(module, cfg.name, [np.ascontiguousarray(x) if isinstance(x, np.ndarray) else x for x in args],
                    grid(cfg, M, N)[0], options=LaunchOptions(arch=case.arch))
    assert stats.ops["ptx.mma_sync"] > 0
    ok, err = check(gemm, c, reference(gemm, data))
    assert ok, f"{case.id}: relative error {err:.3e}"


@pytest.mark.slow
def test_promote_int8_ue8m0_scale_range() -> None:
    """The ends of the ue8m0 range under promote-int8's magic-number rescale (qdot-lower-mma:
    the block sum x comes out as fma(1.5 · 2^23 + x, sa, −1.5 · 2^23 · sa)): code 0 (2^-127),
    255 (NaN), a large B scale and A scales up to 233 = 231 + the 2 of the e2m1 shifts (so
    sa · 2^-2 = 2^104, the largest that keeps 1.5 · 2^23 · sa finite) are exact — each row
    matches ``compiler.numerics`` on its own, not drowned in the big rows' norm —, and a
    block whose A scale is larger makes its row NaN, never a wrong number."""
    case = Case("e2m1", "e2m1", "ue8m0", "ue8m0", "sm_90", "promote-int8", "s32.s8.s8.s32")
    cfg = GemmConfig(lhs="e2m1", rhs="e2m1", k_divisibility=32)
    module = compile_case(case, cfg)
    gemm = GemmCase(cfg, M, N, K, case.arch, case.strategy)
    data = make_inputs(gemm, np.random.default_rng(20264))
    sa, sb = data["sa"], data["sb"]
    sa[5, 1] = 240  # above the range: row 5 is NaN
    sa[6, 2] = 233  # the top of the range: exact
    sa[7, :] = 0  # 2^-127 in every block
    sa[8, 0] = 255  # NaN in the reference too
    sb[3, 0] = 200  # column 3: 2^73 in its first block
    sb[4, :] = 0
    c = np.full((M, N), -1, dtype=np.int32).view(np.float32)  # NaN-poisoned
    args = [data["a"], data["b_t"], sa, sb, c, M, N, K]
    emulate(module, cfg.name, [np.ascontiguousarray(x) if isinstance(x, np.ndarray) else x for x in args],
            grid(cfg, M, N)[0])
    ref = reference(gemm, data)
    assert np.isnan(c[5]).all() and np.isnan(ref[8]).all() and np.isnan(c[8]).all()
    for row in (r for r in range(M) if r not in (5, 8)):
        want, got = ref[row], c[row].astype(np.float64)
        assert np.isfinite(got).all(), f"row {row}: {got}"
        err = np.linalg.norm(got - want) / max(np.linalg.norm(want), np.finfo(np.float64).tiny)
        assert err <= 1e-5, f"row {row}: relative error {err:.3e}"

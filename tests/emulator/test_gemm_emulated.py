"""The GEMM kernels of ``compiler.templates``, compiled by the PTX pipeline and run on the emulator.

The same inputs, reference and comparison as the GPU suite (tests/gpu/gemm_harness.py:
exact for i32, relative Frobenius error ≤ 1e-5 for f32), on a ragged shape that gives
two CTAs (M = 144 spans two 128-row tiles, N = 120 and K = 160 are not multiples of
the tile). sm_120a kernels cannot run on the H200 the project has, so here is where
they are checked at all. Cases that fail because of a compiler bug are strict xfails
whose reason names the bug (see the emulator report).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compiler.pipelines import PtxOptions
from compiler.templates import GemmConfig, gemm_kernel, grid
from targets.ptx.emulator import EmulationError, LaunchOptions, emulate
from tests.emulator.gemm_cases import K, M, N, Case, compile_case
from tests.emulator.lowering import lower
from tests.gpu.gemm_harness import GemmCase, check, kernel_operands, make_inputs, poisoned_output, reference

CASES = [
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_90", "promote-fp8", "f32.e4m3.e4m3.f32"),
    # promote-fp8 converts a K-contiguous e2m1 tile to e4m3 once per CTA, read back by ldmatrix
    # (the e2m1 side on A, on both sides, and without scales)
    Case("e2m1", "e4m3", "ue8m0", "ue8m0", "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32", ldmatrix_arch=True),
    Case("e2m1", "e2m1", "ue8m0", "ue8m0", "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32", ldmatrix_arch=True),
    Case("e4m3", "e2m1", None, None, "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32", ldmatrix_arch=True),
    Case("e2m3", "e2m1", "ue8m0", "ue8m0", "sm_89", "promote-fp8", "f32.e4m3.e4m3.f32", ldmatrix_arch=True),
    Case("e4m3", "e2m1", None, None, "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    Case("e2m1", "e2m1", "ue8m0", "ue8m0", "sm_90", "promote-int8", "s32.s8.s8.s32"),
    Case("e2m1", "e2m1", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    Case("i8", "i8", None, None, "sm_90", "promote-int8", "s32.s8.s8.s32"),
    Case("bf16", "e2m1", None, "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    Case("e2m3", "e2m1", "ue8m0", "ue8m0", "sm_90", "promote-int8", "s32.s8.s8.s32"),
    Case("e5m2", "e2m1", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    Case("e2m1", "e2m1", "ue4m3", "ue4m3", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32"),
    # fp16 compute folds NVFP4's ue4m3 scales into the values (exact in fp16); ue8m0 ones it
    # applies to the accumulator per block (their range is not fp16's)
    Case("fp16", "e2m1", None, "ue4m3", "sm_90", "dequant-bf16", "f32.f16.f16.f32"),
    Case("fp16", "e2m1", None, "ue8m0", "sm_90", "dequant-bf16", "f32.f16.f16.f32"),
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32", rhs_k_pack=False),
    Case("e4m3", "e2m1", None, None, "sm_90", "auto", "f32.bf16.bf16.f32", rhs_k_pack=False),
    # 3 stages of the 128×128×128 tile need 120832 B of shared memory, more than one sm_120 CTA
    # may have (101376 B): qdot-to-llvm refuses it, so the case runs a K tile of 64, which a GPU
    # could launch
    Case("e2m1", "e2m1", "ue4m3", "ue4m3", "sm_120a", "auto", "f32.bf16.bf16.f32", rhs_k_pack=False, block_k=64),
    Case("e2m1", "e4m3", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32", lhs_k_pack=False),
    Case("e2m1", "e2m1", None, None, "sm_90", "auto", "f32.bf16.bf16.f32", lhs_k_pack=False, rhs_k_pack=False),
    # 16-bit operands read as they are, by ldmatrix .b16 (kWidth 2; fp16 fell back to scalar loads)
    Case("fp16", "fp16", None, None, "sm_90", "auto", "f32.f16.f16.f32", block_k=64),
    Case("bf16", "bf16", None, None, "sm_90", "auto", "f32.bf16.bf16.f32", block_k=64),
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_120a", "native", "kind::mxf8f6f4"),
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_120a", "native", "m8n16.x4.shared.b8x16.b4x16_p64",
         ldmatrix_arch=True),
    Case("e4m3", "e2m1", None, None, "sm_120a", "native", "kind::f8f6f4"),
    Case("e2m1", "e2m1", "ue8m0", "ue8m0", "sm_120a", "native", "kind::mxf4.block_scale"),
    Case("e2m1", "e2m1", "ue4m3", "ue4m3", "sm_120a", "native", "kind::mxf4nvf4"),
    # fp4 on A (e2m1 × e4m3): the mixed mma with its operands the other way round, the packed
    # operand read by the scalar fallback and by the sub-byte ldmatrix
    Case("e2m1", "e4m3", "ue8m0", "ue8m0", "sm_120a", "native",
         "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3"),
    Case("e2m1", "e4m3", "ue8m0", "ue8m0", "sm_120a", "native", "m8n16.x4.shared.b8x16.b4x16_p64",
         ldmatrix_arch=True),
    # unscaled fp4 × fp4: kind::f8f6f4 with both operands e2m1 (not the mxf4 form, which needs scales)
    Case("e2m1", "e2m1", None, None, "sm_120a", "native", "kind::f8f6f4.f32.e2m1.e2m1"),
    Case("e2m1", "e2m1", None, None, "sm_120a", "native", "m8n16.x4.shared.b8x16.b4x16_p64", ldmatrix_arch=True),
    # e5m2 × e2m1: the same mixed block-scaled mma with the other fp8 format on A
    Case("e5m2", "e2m1", "ue8m0", "ue8m0", "sm_120a", "native",
         "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1", ldmatrix_arch=True),
    # B stored N-contiguous ([K/2, N], b_k_major=False): C must be right however qdot-accelerate-matmul stages that
    # tile. Staged N-contiguous, as loaded, no fp4 ldmatrix fits it and the fp4Unpacked operand is read byte by
    # byte, each register byte the low or the high nibble of one packed byte
    Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_120a", "native",
         "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1", ldmatrix_arch=True, b_k_major=False),
]


def _params() -> list:  # noqa: ANN401
    params = []
    for case in CASES:
        marks = [pytest.mark.slow]
        if case.bug:
            marks.append(pytest.mark.xfail(strict=True, raises=(AssertionError, EmulationError), reason=case.bug))
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


@pytest.mark.parametrize("case", _params())
def test_gemm_kernel_matches_reference(case: Case) -> None:
    cfg = GemmConfig(lhs=case.lhs, rhs=case.rhs, lhs_scale=case.lhs_scale, rhs_scale=case.rhs_scale,
                     lhs_k_pack=case.lhs_k_pack, rhs_k_pack=case.rhs_k_pack, block_k=case.block_k,
                     b_k_major=case.b_k_major)
    if K % case.block_k:
        cfg = dataclasses.replace(cfg, k_divisibility=32)
    module = compile_case(case, cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name in ("ptx.mma_sync", "ptx.ldmatrix")}
    assert any(case.expect in m for m in mnemonics), f"no instruction with {case.expect!r} in {sorted(mnemonics)}"
    ctas = grid(cfg, M, N)[0]
    assert ctas == 2
    stats = _emulate_and_check(case, cfg, module, seed=20260)
    assert stats.ops["ptx.mma_sync"] > 0


def _emulate_and_check(case: Case, cfg: GemmConfig, module, seed: int,  # noqa: ANN001, ANN202
                       programs: int | None = None, n: int = N):
    """Run ``module`` on the emulator over fresh seeded inputs into a NaN-poisoned C and compare
    with ``compiler.numerics``; returns the emulator's statistics. ``programs``: a persistent
    kernel's grid (``grid``'s default otherwise); ``n``: N (the module's ``N`` by default)."""
    gemm = GemmCase(cfg, M, n, K, case.arch, case.strategy)
    data = make_inputs(gemm, np.random.default_rng(seed))
    c = poisoned_output(cfg, M, n)
    args: list[np.ndarray | int] = [*kernel_operands(cfg, data), c, M, n, K]
    stats = emulate(module, cfg.name, [np.ascontiguousarray(x) if isinstance(x, np.ndarray) else x for x in args],
                    grid(cfg, M, n, programs)[0], options=LaunchOptions(arch=case.arch))
    ok, err = check(gemm, c, reference(gemm, data), data)
    assert ok, f"{case.id} ({cfg.name}), N = {n}: relative error {err:.3e}"
    return stats


@pytest.mark.slow
@pytest.mark.parametrize("n_divisibility", [1, 8], ids=["halves", "pairs"])
@pytest.mark.parametrize("arch,strategy", [("sm_90", "dequant-bf16"), ("sm_90a", "dequant-bf16"),
                                           ("sm_90", "promote-int8"), ("sm_120a", "native")])
def test_bf16_output(arch: str, strategy: str, n_divisibility: int) -> None:
    """``GemmConfig(out="bf16")``: the f32 accumulator rounded to bf16 by ``arith.truncf`` before
    the store — mma.sync and wgmma accumulators (#qgpu.mma versions 2 and 3), a rescaled int32
    one (promote-int8) and a block-scaled native one; C NaN-poisoned, ragged edges. Each
    register's two bf16 go out as one 4-byte store when N is even: known (``n_divisibility``),
    or else tested at run time, the two 2-byte stores predicated on the test's negation (run
    here with an even N = 120 and an odd N = 119)."""
    lhs = "e2m1" if strategy == "promote-int8" else "e4m3"
    case = Case(lhs, "e2m1", "ue8m0", "ue8m0", arch, strategy, "")
    cfg = GemmConfig(lhs=lhs, rhs="e2m1", block_k=64, num_warps=8 if arch == "sm_90a" else 4, out="bf16",
                     k_divisibility=32, n_divisibility=n_divisibility)
    module = compile_case(case, cfg)
    assert any(op.name == "ptx.cvt" and "bf16x2.f32" in op.ptx_mnemonic() for op in module.walk())
    store_types = {str(op.operands[1].type) for op in module.walk() if op.name == "ptx.st_global"}
    assert store_types == ({"i32"} if n_divisibility > 1 else {"i16", "i32"}), store_types
    _emulate_and_check(case, cfg, module, seed=20262)
    if n_divisibility == 1:
        _emulate_and_check(case, cfg, module, seed=20265, n=N - 1)


@pytest.mark.slow
@pytest.mark.parametrize("arch,strategy", [("sm_90", "dequant-bf16"), ("sm_90a", "dequant-bf16"),
                                           ("sm_90", "promote-int8")])
def test_f32_output_paired_by_parity_at_run_time(arch: str, strategy: str) -> None:
    """Nothing known of N (the default ``n_divisibility=1``): each accumulator pair's 8-byte
    ``st.global.v2`` is predicated on a run-time test of N's parity, and its two 4-byte stores on
    the test's negation. Both run here, into a NaN-poisoned C with a ragged edge: N = 120 (the
    pairs) and N = 119 (the single stores)."""
    lhs = "e2m1" if strategy == "promote-int8" else "e4m3"
    case = Case(lhs, "e2m1", "ue8m0", "ue8m0", arch, strategy, "")
    cfg = GemmConfig(lhs=lhs, rhs="e2m1", block_k=64, num_warps=8 if arch == "sm_90a" else 4, k_divisibility=32)
    module = compile_case(case, cfg)
    store_types = {str(op.operands[1].type) for op in module.walk() if op.name == "ptx.st_global"}
    assert store_types == {"vector<2xi32>", "f32"}, store_types
    for n, seed in ((N, 20266), (N - 1, 20267)):
        _emulate_and_check(case, cfg, module, seed=seed, n=n)


@pytest.mark.slow
@pytest.mark.parametrize("epilogue", ["direct", "staged"])
@pytest.mark.parametrize("arch,strategy", [("sm_90", "dequant-bf16"), ("sm_90a", "dequant-bf16"),
                                           ("sm_90", "promote-int8")])
def test_f32_output_vector_stores(arch: str, strategy: str, epilogue: str) -> None:
    """N known to be a multiple of 8 (``n_divisibility=8``), into a NaN-poisoned C with a ragged
    N (120: the last tile is part-filled) — on mma.sync, wgmma and a rescaled int32 accumulator.
    By default every f32 accumulator pair (2t, 2t + 1) is one 8-byte ``st.global.v2``, bounds-tested
    once. ``epilogue=staged`` on wgmma: the tile goes through shared memory (``st.shared.v2`` of the
    pairs, a barrier, ``ld.shared.v4``) and out as 16-byte ``st.global.v4`` along rows; the
    emulator's race checks see the barriers and the reuse of the pipeline's buffers. These mma.sync
    accumulators (2-D warp grids: warps interleaved along M and N) keep the pairs either way."""
    lhs = "e2m1" if strategy == "promote-int8" else "e4m3"
    case = Case(lhs, "e2m1", "ue8m0", "ue8m0", arch, strategy, "")
    cfg = GemmConfig(lhs=lhs, rhs="e2m1", block_k=64, num_warps=8 if arch == "sm_90a" else 4,
                     k_divisibility=32, n_divisibility=8)
    module = compile_case(case, cfg, epilogue)
    store_types = {str(op.operands[1].type) for op in module.walk() if op.name == "ptx.st_global"}
    staged = epilogue == "staged" and arch == "sm_90a"
    assert store_types == ({"vector<4xi32>"} if staged else {"vector<2xi32>"}), store_types
    shared_pairs = [op for op in module.walk()
                    if op.name == "ptx.st_shared" and str(op.operands[1].type) == "vector<2xi32>"]
    assert bool(shared_pairs) == staged
    _emulate_and_check(case, cfg, module, seed=20263)


@pytest.mark.slow
@pytest.mark.parametrize("arch,strategy,programs", [("sm_90", "dequant-bf16", 1), ("sm_90", "promote-int8", 1),
                                                    ("sm_90a", "dequant-bf16", 1), ("sm_90a", "dequant-bf16", 2)])
def test_persistent_kernel(arch: str, strategy: str, programs: int) -> None:
    """``GemmConfig(persistent=True)``: one loop over (tile, K step) pairs per program, C stored
    under ``scf.if`` at each tile's last step and the accumulator restarted from zero. With one
    program it computes both 128 × 128 tiles of the ragged 144 × 120 C, its copies running ahead
    across the tile boundary (3 stages, 3 K steps per tile); on wgmma the dot still runs one
    step behind (``wgmma.wait_group 1``), the storing branch waiting for it (``0``)."""
    lhs = "e2m1" if strategy == "promote-int8" else "e4m3"
    case = Case(lhs, "e2m1", "ue8m0", "ue8m0", arch, strategy, "")
    cfg = GemmConfig(lhs=lhs, rhs="e2m1", block_k=64, num_warps=8 if arch == "sm_90a" else 4, k_divisibility=32,
                     n_divisibility=8, persistent=True)
    module = compile_case(case, cfg)
    assert grid(cfg, M, N, programs) == (programs, 1, 1)
    if arch == "sm_90a":
        waits = {op.pending.value.data for op in module.walk() if op.name == "ptx.wgmma_wait"}
        assert waits == {0, 1}, waits
    _emulate_and_check(case, cfg, module, seed=20264 + programs, programs=programs)


@pytest.mark.slow
def test_scale_bytes_copied_by_more_threads_than_bytes() -> None:
    """16 warps stage a 128 × 2 scale tile (256 bytes, too narrow for cp.async) with byte copies:
    threads 256–511 have no byte of their own and must redo the last one with its owner's value,
    not a masked-off zero (the emulator rejects two threads writing different values to a byte)."""
    case = Case("e4m3", "e2m1", "ue8m0", "ue8m0", "sm_90", "dequant-bf16", "f32.bf16.bf16.f32")
    cfg = GemmConfig(block_k=64, num_warps=16, k_divisibility=32)
    _emulate_and_check(case, cfg, compile_case(case, cfg), seed=20261)


WGMMA_CASES = [
    # sm_90a dequant-bf16 on wgmma, each against the reference with the emulator's async-protocol,
    # proxy-fence and race checks on: (id, config, stages). Stages ≥ 2 overlap each dot with the
    # next K step (two-slot rings, wait_group 1); K = 128 splits the buffers into swizzle atoms.
    ("k64-w4-overlap", GemmConfig(block_k=64, num_warps=4, k_divisibility=32), 3),
    ("k64-w8-overlap", GemmConfig(block_k=64, num_warps=8, k_divisibility=32), 2),
    ("k64-w4-sync", GemmConfig(block_k=64, num_warps=4, k_divisibility=32), 1),
    ("k128-w4-overlap", GemmConfig(block_k=128, num_warps=4, k_divisibility=32), 2),
    ("e2m1xe2m1-k64-w4", GemmConfig(lhs="e2m1", block_k=64, num_warps=4, k_divisibility=32), 2),
    ("bf16xe2m1-k64-w4", GemmConfig(lhs="bf16", lhs_scale=None, block_k=64, num_warps=4, k_divisibility=32), 2),
    ("fp16xfp16-k64-w4", GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None, block_k=64, num_warps=4,
                                    k_divisibility=32), 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,cfg,stages", WGMMA_CASES, ids=[c[0] for c in WGMMA_CASES])
def test_wgmma_gemm_matches_reference(name: str, cfg: GemmConfig, stages: int) -> None:
    case = Case(cfg.lhs, cfg.rhs, cfg.lhs_scale, cfg.rhs_scale, "sm_90a", "dequant-bf16", "wgmma")
    module = lower(gemm_kernel(cfg), cfg.name, PtxOptions(arch="sm_90a", strategy="dequant-bf16", num_stages=stages))
    stats = _emulate_and_check(case, cfg, module, seed=20262)
    assert stats.ops["ptx.wgmma"] > 0 and stats.ops.get("ptx.mma_sync", 0) == 0
    waits = {op.pending.value.data for op in module.walk() if op.name == "ptx.wgmma_wait"}
    assert waits == ({0, 1} if stages > 1 and cfg.lhs not in ("bf16", "fp16") else {0}), waits
    types = {op.ptx_mnemonic().rsplit(".", 1)[1] for op in module.walk() if op.name == "ptx.wgmma"}
    assert types == ({"f16"} if cfg.lhs == "fp16" else {"bf16"}), types


def _mx_values(fmt: str, codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float64 [rows, K] values of a K-packed MX operand with its ue8m0 scales applied."""
    from compiler import numerics

    values = numerics.decode(fmt, numerics.unpack_fp4(codes) if fmt == "e2m1" else codes).astype(np.float64)
    return values * np.repeat(numerics.decode("ue8m0", scales).astype(np.float64), 32, axis=1)


def _chained(a: np.ndarray, b: np.ndarray, step_k: int, promote: bool) -> np.ndarray:
    """C as the H200's bf16 tensor cores compute it (``compiler.numerics.tensor_core``): k16 fused
    steps chained from zero over the whole K, or over each K step of ``step_k`` with the step sums
    added in f32 (``promote``)."""
    from compiler.numerics.tensor_core import BF16_STEP, fused_dot

    rows, cols = a[:, None, :], b[None, :, :]
    total = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for start in range(0, a.shape[1], step_k):
        part = np.zeros_like(total) if promote else total
        for k16 in range(start, start + step_k, 16):
            part = fused_dot(*np.broadcast_arrays(rows[..., k16:k16 + 16], cols[..., k16:k16 + 16]), part,
                             BF16_STEP, "bf16")
        total = (total + part).astype(np.float32) if promote else part
    return total


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
def test_promoted_accumulation_adds_each_k_step_in_f32(arch: str) -> None:
    """``GemmConfig(promote=True)``: each K step's dot starts from zero and is added to the loop's
    sum by ``add.f32`` (one per accumulator register), on mma.sync and on wgmma (which then waits
    for its own dot). C is, bit for bit, the tensor-core model's k16 chains of each 64-wide step
    added in f32 — and not the whole-K chain the unpromoted kernel computes (the test tells them
    apart on these operands)."""
    k = 256
    case = Case("e4m3", "e2m1", "ue8m0", "ue8m0", arch, "dequant-bf16", "")
    cfg = GemmConfig(block_k=64, num_warps=8 if arch == "sm_90a" else 4, promote=True)
    module = compile_case(case, cfg)
    adds = [sum(op.name == "arith.addf" for op in m.walk())
            for m in (module, compile_case(case, dataclasses.replace(cfg, promote=False)))]
    assert adds[0] - adds[1] == 128 * 128 // (32 * cfg.num_warps), adds  # one per accumulator register
    gemm = GemmCase(cfg, M, N, k, arch, "dequant-bf16")
    data = make_inputs(gemm, np.random.default_rng(20268))
    c = poisoned_output(cfg, M, N)
    emulate(module, cfg.name, [np.ascontiguousarray(x) for x in (data["a"], data["b_t"], data["sa"], data["sb"], c)]
            + [M, N, k], grid(cfg, M, N)[0], options=LaunchOptions(arch=arch))
    a, b = _mx_values("e4m3", data["a"], data["sa"]), _mx_values("e2m1", data["b_t"], data["sb"])
    promoted, chained = _chained(a, b, 64, True), _chained(a, b, 64, False)
    assert np.array_equal(c.view(np.uint32), promoted.view(np.uint32))
    assert np.sum(promoted.view(np.uint32) != chained.view(np.uint32)) > 100


FP16_NVFP4_K_PACKED_N_MAJOR = """
func.func @fp16_nvfp4(%a_ptr: !qdot.ptr<f16>, %b_ptr: !qdot.ptr<i8>, %sb_ptr: !qdot.ptr<f8E4M3FN>,
                      %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %kb = arith.divui %k, %c2 : index
  %ks = arith.divui %k, %c16 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f16> -> !qdot.desc<64x64xf16>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%n, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %ks], [%ks, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x4xf8E4M3FN>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
  %sb = qdot.load %sb_desc[%c0, %c0] : !qdot.desc<64x4xf8E4M3FN> -> tensor<64x4xf8E4M3FN>
  %d = qdot.dot_scaled %a, %b scale %sb, %zero lhs = fp16 rhs = e2m1
       : tensor<64x64xf16> * tensor<32x64xi8>, tensor<64x4xf8E4M3FN> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
"""


def test_fp16_times_nvfp4_stored_n_major() -> None:
    """fp16 × NVFP4 (ue4m3 per 16) with the e2m1 tile packed along K but N-major ([K/2, N], not
    staged: converted in registers). It failed to compile ("kWidth = 2 is not valid for 8-bit
    elements": a per-16 rescale kept the k16 tiles 4 values wide, half a packed register) until
    fp16 compute folded ue4m3 scales into the values, which is exact (|e2m1 · ue4m3| ≥ 2^-10)."""
    import compiler
    from compiler.numerics import dot_scaled
    from compiler.tools import find_ptxas

    kernel = compiler.compile(FP16_NVFP4_K_PACKED_N_MAJOR, arch="sm_90", verify=find_ptxas() is not None)  # ptxas -v
    rng = np.random.default_rng(20261201)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.integers(0, 256, size=(32, 64), dtype=np.uint8)
    sb = rng.integers(0x08, 0x7F, size=(64, 4), dtype=np.uint8)  # ue4m3 codes from subnormal up to 448
    c = np.full((64, 64), np.nan, dtype=np.float32)
    compiler.emulate(kernel, a, b.view(np.int8), sb, c, 64, 64, 64, grid=1)
    want = dot_scaled(a, b, lhs="fp16", rhs="e2m1", b_scale=sb, b_scale_fmt="ue4m3")
    assert np.linalg.norm(c - want) <= 1e-5 * np.linalg.norm(want)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
@pytest.mark.parametrize("rhs_scale", ["ue4m3", "ue8m0"])
def test_promoted_fp16_chain(arch: str, rhs_scale: str) -> None:
    """``GemmConfig(promote=True)`` with fp16 compute (an fp16 operand): fp16 × e2m1 with its
    scales folded (ue4m3) or applied per block (ue8m0), each K step's dot from zero added to the
    f32 sum, on mma.sync and on wgmma — what docs/numerics.md offers against the f16 chain's
    long-K bias; checked against ``compiler.numerics`` on ragged shapes."""
    case = Case("fp16", "e2m1", None, rhs_scale, arch, "dequant-bf16", "")
    cfg = GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale=rhs_scale, block_k=64,
                     num_warps=8 if arch == "sm_90a" else 4, promote=True, k_divisibility=32)
    module = compile_case(case, cfg)
    unpromoted = compile_case(case, dataclasses.replace(cfg, promote=False))
    assert sum(op.name == "arith.addf" for op in module.walk()) > sum(op.name == "arith.addf" for op in unpromoted.walk())
    _emulate_and_check(case, cfg, module, seed=20269)

"""The native mixed fp8 × fp4 GEMM on an sm_120-class GPU (compute capability 12.x), against ``compiler.numerics``.

The project has no sm_120 GPU: these kernels are checked by the emulator only (tests/emulator/test_gemm_emulated.py),
and the emulator and the compiler share the assumptions of reference/ptx.md that no hardware has confirmed — which
nibble of a packed e2m1 byte the ``.b4x16_p64`` ldmatrix widens into the lower register byte (§2.5, [inferred]),
and that ``kind::mxf8f6f4`` reads e2m1 from bits [5:2] of its byte after the ``shl 2``. An error there would give
wrong numbers on the GPU while every CPU test passes, so the first sm_120-class machine settles it here: the
example kernel (examples/mx_gemm_e4m3_e2m1.mlir) and template kernels that stress each assumption separately run on
fresh random inputs into NaN-poisoned C and are compared with the float64 reference as tests/gpu/test_gemm_gpu.py
compares (relative Frobenius error ≤ 1e-5).

Without such a GPU (no CuPy, no device, or a device that is not 12.x) the tests compile their kernels for sm_120a —
filling the kernel cache that travels to the GPU machine, and checking that each kernel holds the instructions it is
meant to run — and then skip.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from compiler.kernel_cache import get_or_compile
from compiler.templates import GemmConfig, grid
from tests.gpu.gemm_harness import GemmCase, check, kernel_operands, make_inputs, poisoned_output, reference, run_case

EXAMPLE = Path(__file__).parents[2] / "examples" / "mx_gemm_e4m3_e2m1.mlir"
EXAMPLE_CFG = GemmConfig(lhs="e4m3", rhs="e2m1", block_k=64, num_warps=8)
"""The example's formats, B layout (K-packed, stored N rows of K/2 bytes), tile and grid, for the harness's inputs,
reference and launch grid."""
FP4_LDMATRIX = "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64"
MIXED_MMA = "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0"
ARCHES = {120: "sm_120a", 121: "sm_121a"}
"""An ``a`` target runs only on its own compute capability; another 12.x device gets the family target sm_120f."""

M, N = 200, 136  # ragged: not multiples of 128
K = 256  # a multiple of 128: the example assumes it (qdot.divisibility)

CASES = [
    # (id, config, stages, instructions the kernel must contain)
    # Triton's best configuration for e4m3 × e2m1; the fp4 B by the sub-byte ldmatrix, then shl 2
    ("e4m3xe2m1-128x128x128-s2", GemmConfig(lhs="e4m3", rhs="e2m1", num_warps=4), 2, (FP4_LDMATRIX, MIXED_MMA)),
    # without scales: the nibble order and the [5:2] placement alone, with no scale selection to blur them
    ("e4m3xe2m1-noscale", GemmConfig(lhs="e4m3", rhs="e2m1", lhs_scale=None, rhs_scale=None, block_k=64), 3,
     (FP4_LDMATRIX, "kind::f8f6f4.f32.e4m3.e2m1.f32")),
    # fp4 on A: the same ldmatrix with the A fragment's rows, the mixed mma the other way round
    ("e2m1xe4m3", GemmConfig(lhs="e2m1", rhs="e4m3", block_k=64), 3,
     (FP4_LDMATRIX, "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0")),
    # B N-contiguous, whichever way qdot-accelerate-matmul stages it. Staged N-contiguous, as loaded, B is read by
    # byte loads and the compiler picks each nibble itself, with no fp4 ldmatrix: then a wrong ldmatrix assumption
    # fails the cases above and not this one, a wrong [5:2] one fails them all
    ("e4m3xe2m1-b-n-contiguous", GemmConfig(lhs="e4m3", rhs="e2m1", block_k=64, b_k_major=False), 3, (MIXED_MMA,)),
]


def _device_arch(cupy) -> str:  # noqa: ANN001
    capability = int(cupy.cuda.Device().compute_capability)
    if capability // 10 != 12:
        pytest.skip(f"the native fp8 × fp4 mma.sync needs an sm_120-class GPU (compute capability 12.x); "
                    f"this one is {capability // 10}.{capability % 10}")
    return ARCHES.get(capability, "sm_120f")


def _launch(compiled, cfg: GemmConfig, gemm: GemmCase, data: dict[str, np.ndarray], cupy) -> np.ndarray:  # noqa: ANN001
    from targets.ptx.runner import load

    c = cupy.asarray(poisoned_output(cfg, gemm.m, gemm.n))
    args = [cupy.asarray(np.ascontiguousarray(value)) for value in kernel_operands(cfg, data)]
    load(compiled.ptx, compiled.kernels[0]).launch(*args, c, gemm.m, gemm.n, gemm.k, grid=grid(cfg, gemm.m, gemm.n))
    return cupy.asnumpy(c)


@pytest.mark.gpu
def test_example_native_gemm_matches_reference(gpu) -> None:  # noqa: ANN001
    """examples/mx_gemm_e4m3_e2m1.mlir as ``--arch sm_120a`` compiles it (native: fp4Padded B, the sub-byte
    ldmatrix, ``shl 2``, the block-scaled mma with ue8m0 scales), on the GPU in hand."""
    source = EXAMPLE.read_text()
    compiled = get_or_compile(source, arch="sm_120a", strategy="native")
    for instruction in (FP4_LDMATRIX, MIXED_MMA):
        assert instruction in compiled.ptx, instruction
    cupy = gpu()
    arch = _device_arch(cupy)
    if arch != "sm_120a":
        compiled = get_or_compile(source, arch=arch, strategy="native")
    gemm = GemmCase(EXAMPLE_CFG, M, N, K, arch, "native")
    data = make_inputs(gemm, np.random.default_rng())
    out = _launch(compiled, EXAMPLE_CFG, gemm, data, cupy)
    ok, err = check(gemm, out, reference(gemm, data), data)
    assert ok, f"{EXAMPLE.name} on {arch}: relative error {err:.3e}"


@pytest.mark.gpu
@pytest.mark.parametrize("cfg,stages,instructions", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_native_template_gemm_matches_reference(cfg: GemmConfig, stages: int, instructions: tuple[str, ...],
                                                gpu) -> None:  # noqa: ANN001
    case = GemmCase(cfg, M, N, K, "sm_120a", "native", stages)
    ptx = case.compiled().ptx or ""
    for instruction in instructions:
        assert instruction in ptx, instruction
    cupy = gpu()
    arch = _device_arch(cupy)
    case = GemmCase(cfg, M, N, K, arch, "native", stages)
    data = make_inputs(case, np.random.default_rng())
    out = run_case(case, data, cupy)
    ok, err = check(case, out, reference(case, data), data)
    assert ok, f"{case.label} on {arch}: relative error {err:.3e}"

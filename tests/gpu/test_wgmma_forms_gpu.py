"""The ``ptx.wgmma`` forms on the H200, against the model of D (sm_90a only).

The kernels are the emulator's wgmma test kernels (tests/wgmma_kernels.py: a shared-memory image,
C loaded, wgmma, D stored), compiled with no pass (they are written at the LLVM level) and run
here with fresh random operands. What the hardware computes, against ``expected``: s8 → s32
exact, wrapping in s32 (and a first wgmma without C: D = A·B, scale-d 0); bf16, f16 and e4m3 / e5m2
(alike or mixed) → f32 as ``compiler.numerics.tensor_core`` models the H200's tensor cores — one fused step per
wgmma that aligns the products and C and truncates them, the fp8 forms keeping 13 bits (run 122
fitted it; before, the model was one rounding of the exact sum and the test allowed 2^-20 /
2^-9 of the magnitudes) — bit for bit, on the specs' operands and on every pair of the operand
and C distributions of tests/tensor_core_cases.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler.kernel_cache import get_or_compile
from tests.tensor_core_cases import ACCUMULATORS, OPERANDS, WGMMA_FORMS, wgmma_case
from tests.wgmma_kernels import SW128, Layout, Spec, build, expected, make_case

SPECS = {
    **{f"{name.removeprefix('wgmma_').replace('_', '-x-')}-n64-sw128": spec for name, spec in WGMMA_FORMS.items()},
    "e4m3-n64-k64-chain": Spec(64, SW128, SW128, type_="e4m3", k_steps=2, b_start=8192, shared_bytes=16384),
    "e4m3-n32-no-swizzle-x-sw128": Spec(32, Layout(0, 1024, 128), SW128, type_="e4m3", b_start=4096,
                                        shared_bytes=8192),
    "e5m2-n64-sw128-x-sw64-k64-chain": Spec(64, SW128, Layout(64, 16, 512), type_="e5m2", k_steps=2, b_start=8192,
                                            shared_bytes=16384),
    "s8-n64-sw128-x-sw64": Spec(64, SW128, Layout(64, 16, 512), type_="s8", b_start=8192, shared_bytes=16384),
    "s8-n128-k128-chain-wraps": Spec(128, SW128, SW128, type_="s8", k_steps=4, b_start=8192,
                                     shared_bytes=8192 + 16384),
    "s8-n64-fresh-then-chained": Spec(64, SW128, SW128, type_="s8", k_steps=2, b_start=8192, shared_bytes=16384,
                                      fresh=True),
}


def _loaded(spec: Spec, gpu):  # noqa: ANN001, ANN202
    """(CuPy, the spec's kernel loaded); compiled first, so that the CPU machine fills the cache."""
    compiled = get_or_compile(build(spec).text(), arch="sm_90a", pipeline="")
    cupy = gpu()
    if int(cupy.cuda.Device().compute_capability) != 90:
        pytest.skip("wgmma needs an sm_90 GPU (H100 / H200)")
    from targets.ptx.runner import load

    return cupy, load(compiled.ptx, compiled.kernels[0])


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(SPECS))
def test_wgmma_form_matches_the_model(name: str, gpu) -> None:  # noqa: ANN001
    spec = SPECS[name]
    cupy, kernel = _loaded(spec, gpu)
    case = make_case(spec, seed=int(np.random.default_rng().integers(1 << 31)))
    c = cupy.asarray(case.c)
    out = cupy.full_like(c, -1) if spec.type_ == "s8" else cupy.full_like(c, cupy.nan)
    kernel.launch(cupy.asarray(case.image), c, out, grid=1)
    np.testing.assert_array_equal(out.get(), expected(spec, case))


@pytest.mark.gpu
@pytest.mark.parametrize("name", [n for n, spec in SPECS.items() if spec.type_ != "s8" and spec.k_steps == 1])
def test_wgmma_form_matches_the_model_on_every_distribution(name: str, gpu) -> None:  # noqa: ANN001
    spec = SPECS[name]
    cupy, kernel = _loaded(spec, gpu)
    rng = np.random.default_rng()
    differing = {}
    for op_dist in OPERANDS:
        for acc_dist in ACCUMULATORS:
            case = wgmma_case(spec, rng, op_dist, acc_dist)
            out = cupy.full(case.c.shape, cupy.nan, dtype=cupy.float32)
            kernel.launch(cupy.asarray(case.image), cupy.asarray(case.c), out, grid=1)
            count = int(np.sum(out.get().view(np.uint32) != expected(spec, case).view(np.uint32)))
            if count:
                differing[f"{op_dist}/{acc_dist}"] = count
    assert not differing, f"elements of D that differ from the model, by distribution: {differing}"

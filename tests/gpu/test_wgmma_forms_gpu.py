"""The ``ptx.wgmma`` forms on the H200, against the emulator's model of D (sm_90a only).

The kernels are the emulator's wgmma test kernels (tests/wgmma_kernels.py: a shared-memory image,
C loaded, wgmma, D stored), compiled with no pass (they are written at the LLVM level) and run
here with fresh random operands. What the hardware computes, against the model (float64 sums
rounded once to f32 per wgmma; s8 summed exactly into wrapping s32):

* s8 → s32: bit-exact, the wrap included, and a first wgmma without C (D = A·B, scale-d 0);
* bf16 → f32 and e4m3 / e5m2 → f32: the tensor cores add with their own intermediate rounding,
  so each element is held to ``bound · (Σ_k |a·b| + |c|)`` — 2^-20 for bf16 (run 68: at most
  1.2e-5 of the element itself, near cancellations) and for the fp8 types the linear worst case
  of a sum of k = 32 terms that keeps 14 bits, 32 · 2^-14 = 2^-9 (fp8 accumulation on Hopper
  keeps about that many; run 68: ~1e-4 off in almost every element; run 70: up to 1.1 × 2^-11
  of the magnitudes, which an earlier bound of 2^-11 failed) — which is why no MX kernel uses
  fp8 wgmma.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler.kernel_cache import get_or_compile
from tests.wgmma_kernels import SW128, Layout, Spec, build, expected, k_per_step, make_case

SPECS = {
    "bf16-n64-sw128": Spec(64, SW128, SW128, b_start=8192, shared_bytes=16384),
    "e4m3-n64-sw128": Spec(64, SW128, SW128, type_="e4m3", b_start=8192, shared_bytes=16384),
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
BOUND = {"bf16": 2.0 ** -20, "e4m3": 2.0 ** -9, "e5m2": 2.0 ** -9}


def magnitudes(spec: Spec, case) -> np.ndarray:  # noqa: ANN001 - tests.wgmma_kernels.Case
    """Σ_k |a·b| + |c| per element of D: the scale of an accumulation's rounding."""
    total = np.zeros(case.c.shape) if spec.fresh else np.abs(case.c).astype(np.float64)
    k = k_per_step(spec) * spec.k_steps
    return total + np.abs(case.a[0][:, :k]) @ np.abs(case.b[:, :k]).T


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(SPECS))
def test_wgmma_form_matches_the_model(name: str, gpu) -> None:  # noqa: ANN001
    spec = SPECS[name]
    compiled = get_or_compile(build(spec).text(), arch="sm_90a", pipeline="")
    cupy = gpu()
    if int(cupy.cuda.Device().compute_capability) != 90:
        pytest.skip("wgmma needs an sm_90 GPU (H100 / H200)")
    from targets.ptx.runner import load

    case = make_case(spec, seed=int(np.random.default_rng().integers(1 << 31)))
    c = cupy.asarray(case.c)
    out = cupy.full_like(c, -1) if spec.type_ == "s8" else cupy.full_like(c, cupy.nan)
    load(compiled.ptx, compiled.kernels[0]).launch(cupy.asarray(case.image), c, out, grid=1)
    got, want = out.get(), expected(spec, case)
    if spec.type_ == "s8":
        np.testing.assert_array_equal(got, want)
        return
    assert np.isfinite(got).all()
    error = np.abs(got.astype(np.float64) - want.astype(np.float64))
    allowed = BOUND[spec.type_] * magnitudes(spec, case)
    assert (error <= allowed).all(), f"{int((error > allowed).sum())} elements beyond the bound, " \
                                     f"worst {float((error / allowed).max()):.2f} × the bound"

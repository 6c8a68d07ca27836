"""``bench.mx_gemm.measure``, the check-then-time step of the MX benchmark and of the experiments
that reuse it (fp16_ldmatrix, fp16_nvfp4_fold), run here with numpy standing in for CuPy and the
PTX emulator standing in for the GPU: the operands it draws, the scales it passes per side (none,
ue8m0 per 32, ue4m3 per 16), the argument order it launches with and the float64 reference it
compares against must agree with the kernel, or the relative error is far from 1e-5."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import compiler
from bench import gpu_common
from bench.mx_gemm import measure
from compiler.templates import GemmConfig, gemm_kernel


class _NumpyAsCupy:
    """The part of CuPy ``measure`` and ``gpu_dequant`` use, on the CPU."""

    cuda = SimpleNamespace(get_current_stream=lambda: SimpleNamespace(synchronize=lambda: None))
    random = SimpleNamespace(default_rng=np.random.default_rng)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(np, name)


class _Emulated:
    """A compiled kernel launched on the PTX emulator, with the runner's ``launch`` signature."""

    def __init__(self, kernel, run: bool = True) -> None:  # noqa: ANN001
        self.kernel, self.run = kernel, run

    def launch(self, *args, grid, sync: bool = True) -> None:  # noqa: ANN001, ANN002
        if self.run:
            compiler.emulate(self.kernel, *args, grid=grid)


@pytest.fixture
def one_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_common, "time_launch", lambda cupy, fn, before_each=None: (fn(), 1.0)[1])


@pytest.mark.parametrize("cfg", [
    GemmConfig(),  # e4m3 × e2m1, ue8m0 on both sides: the benchmark's MX kernels
    GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3"),  # fp16_nvfp4_fold
    GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None),  # fp16_ldmatrix
], ids=["mx", "fp16-nvfp4", "fp16-fp16"])
def test_measure_checks_a_correct_kernel(cfg: GemmConfig, one_launch: None) -> None:
    kernel = compiler.compile(gemm_kernel(cfg), arch="sm_90")
    us, err, ok = measure(_NumpyAsCupy(), np.random.default_rng(5), _Emulated(kernel), cfg, 128, 128, 128)
    assert ok and err < 1e-5 and us == 1.0


def test_measure_fails_a_kernel_that_writes_nothing(one_launch: None) -> None:
    cfg = GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3")
    kernel = compiler.compile(gemm_kernel(cfg), arch="sm_90")
    _, err, ok = measure(_NumpyAsCupy(), np.random.default_rng(5), _Emulated(kernel, run=False), cfg, 128, 128, 128)
    assert not ok and err == float("inf")  # C stays NaN-poisoned


class _OneElementOff(_Emulated):
    """The kernel, then one element of its bf16 C four bf16 ulps off (3 %): a wrong kernel."""

    def launch(self, *args, grid, sync: bool = True) -> None:  # noqa: ANN001, ANN002
        super().launch(*args, grid=grid, sync=sync)
        c = next(a for a in args if isinstance(a, np.ndarray) and a.dtype == np.uint16 and a.ndim == 2)
        c[17, 33] += 4


def test_a_bf16_c_is_checked_element_by_element(one_launch: None) -> None:
    """A review found the bf16 pass mark (relative Frobenius error ≤ 2^-8) passing a C with a 16 × 16 fragment
    zeroed (error 3e-3 at 4096²), and one element 3 % off here; each element must be within a bf16 ulp of the
    float64 result plus the f32 accumulation's bound, as tests/gpu/gemm_harness checks it."""
    cfg = GemmConfig(lhs="bf16", rhs="e2m1", lhs_scale=None, rhs_scale="ue8m0", out="bf16")
    kernel = compiler.compile(gemm_kernel(cfg), arch="sm_90")
    _, err, ok = measure(_NumpyAsCupy(), np.random.default_rng(5), _Emulated(kernel), cfg, 128, 128, 128)
    assert ok, err
    _, err, ok = measure(_NumpyAsCupy(), np.random.default_rng(5), _OneElementOff(kernel), cfg, 128, 128, 128)
    assert not ok and err < 2.0 ** -8  # the Frobenius mark alone would have passed it

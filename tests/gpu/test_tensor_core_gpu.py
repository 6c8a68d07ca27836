"""Floating-point ``mma.sync`` on the H200 against ``compiler.numerics.tensor_core``, bit for bit.

The model was fitted to the H200's results in runs 122 and 132–133 (bench/RESULTS.md); these
tests hold the hardware to it on fresh operands every run — bf16, f16, e4m3, e5m2 and the mixed
fp8 pairs — drawn from every pair of the distributions of tests/tensor_core_cases.py (near 1,
exponents spread, every finite code, subnormals, a subnormal that sets the alignment; C large,
small, zero), plus one vector that shows the alignment at work. The wgmma forms are held to the
same model in test_wgmma_forms_gpu.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler import numerics
from compiler.kernel_cache import get_or_compile
from compiler.numerics.tensor_core import tensor_core_dot
from tests.tensor_core_cases import (ACCUMULATORS, MMA_FORMS, OPERANDS, c_index, mma_inputs, mma_kernel, pack,
                                     unpack_d)

CASES = 32
"""mma.sync per distribution pair: 32 × 128 elements of D each."""


def _compiled(name: str):  # noqa: ANN202
    return get_or_compile(mma_kernel(MMA_FORMS[name]).text(), arch="sm_90", pipeline="")


def _sm90(cupy) -> None:  # noqa: ANN001
    if int(cupy.cuda.Device().compute_capability) != 90:
        pytest.skip("the model was measured on an sm_90 GPU (H100 / H200)")


def _run(cupy, compiled, case: dict[str, np.ndarray], cases: int) -> np.ndarray:  # noqa: ANN001
    from targets.ptx.runner import load

    d = cupy.full(case["c_regs"].shape, cupy.nan, dtype=cupy.float32)
    load(compiled.ptx, compiled.kernels[0]).launch(*(cupy.asarray(case[key]) for key in ("a_regs", "b_regs", "c_regs")),
                                                   d, grid=cases)
    return unpack_d(d.get())


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(MMA_FORMS))
def test_mma_matches_the_model(name: str, gpu) -> None:  # noqa: ANN001
    compiled = _compiled(name)
    cupy = gpu()
    _sm90(cupy)
    types = MMA_FORMS[name].operand_types
    rng = np.random.default_rng()
    differing = {}
    for op_dist in OPERANDS:
        for acc_dist in ACCUMULATORS:
            case = mma_inputs(rng, name, CASES, op_dist, acc_dist)
            got = _run(cupy, compiled, case, CASES)
            want = tensor_core_dot("mma", types, case["a"][:, :, None, :], case["b"][:, None, :, :], case["c"])
            count = int(np.sum(got.view(np.uint32) != want.view(np.uint32)))
            if count:
                differing[f"{op_dist}/{acc_dist}"] = count
    assert not differing, f"elements of D that differ from the model, by distribution: {differing}"


@pytest.mark.gpu
def test_terms_below_the_alignment_are_dropped(gpu) -> None:  # noqa: ANN001
    """1·1 + 15 products of 2^-26 in one bf16 mma: the model says D = 1 exactly (the small terms
    fall below the 25 fraction bits kept under the largest exponent); one rounding of the exact
    sum would give 1 + 15·2^-26 rounded, 1.0000002."""
    compiled = _compiled("mma_bf16")
    cupy = gpu()
    _sm90(cupy)
    one, tiny = numerics.encode("bf16", np.array([1.0, 2.0 ** -13]))
    a = np.full((1, 16, 16), tiny, np.uint16)
    b = np.full((1, 8, 16), tiny, np.uint16)
    a[..., 0], b[..., 0] = one, one
    c = np.zeros((1, 16, 8), np.float32)
    rows, cols = c_index()
    case = {"a_regs": pack(a, "A"), "b_regs": pack(b, "B"), "c_regs": np.ascontiguousarray(c[:, rows, cols])}
    got = _run(cupy, compiled, case, 1)
    assert (got == np.float32(1.0)).all()
    assert np.float32(1.0 + 15 * 2.0 ** -26) != np.float32(1.0)  # one rounding would not give 1

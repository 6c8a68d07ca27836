"""The decode kernels' K splits summed by the fix-up kernel on the GPU (``MmqConfig(small_m=True, split_k=True,
fixup=True)``), and by the GEMM's own last program of each tile (``fixup_in_gemm=True``).

MUL_MAT from f32: the quantize kernel (no zeroing), the split-K GEMM leaving each split's partial Yᵀ tile in a
NaN-filled workspace, the fix-up adding them in split order into a NaN-filled Y. Against the float64 reference, and
launched twice: the two Ys must be the same bits (the atomic split-K kernel's need not be past two splits). The
in-GEMM fix-up adds the same pieces in the same order, so it must give the fix-up kernel's bits, at both launches
(on the same counters, which each launch must leave zero), whichever program of a tile finishes last; and so must
the one-launch MUL_MAT (``quantize_in_gemm``), which also quantizes X itself, bit-exact with the quantize kernel.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from compiler.mmq_choice import choose_mmq
from tests.gpu.mmq_harness import (MmqCase, assert_in_gemm_variants_match, check, fixup_mul_mat, in_gemm_variants,
                                   kernel_weights, make_inputs, reference)

N = 1000  # ragged
CASES = [("q4_K", 1, 3584, {}, False), ("q4_K", 8, 3584, {}, False), ("q4_K", 16, 3584, {}, False),
         ("q8_0", 5, 3584, {}, True), ("q2_K", 32, 3584, {}, False),
         ("q4_K", 8, 5120, {"target": 100000, "max_splits": 20, "min_blocks": 1}, False)]
"""(weights, M, K, mmq_grid's split arguments, W repacked): ``choose_mmq``'s decode kernel for M with the fix-up, on
its default grid, and once on 20 splits of one K step each (4 past the 16 the fix-up loads at once)."""


@pytest.mark.gpu
@pytest.mark.parametrize("weights,m,k,split,tiled", CASES,
                         ids=[f"{w}-M={m}-K={k}{'-20-splits' if s else ''}{'-repacked' if t else ''}"
                              for w, m, k, s, t in CASES])
def test_split_fixup_mul_mat_from_f32(weights: str, m: int, k: int, split: dict, tiled: bool,
                                      gpu) -> None:  # noqa: ANN001
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_fixup_kernel, mmq_grid, mmq_kernel
    from compiler.quantize_template import quantize_kernel
    from targets.ptx.runner import load

    choice = choose_mmq(weights, m, 4096, k, tiled_weights=tiled)
    cfg = replace(choice.cfg, fixup=True)
    assert cfg.small_m and cfg.split_k
    case = MmqCase(cfg, m, N, k, stages=choice.num_stages)
    gemm = get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=choice.num_stages)
    fixup = get_or_compile(mmq_fixup_kernel(cfg), arch="sm_90")
    quantize = get_or_compile(quantize_kernel("q8_1_mmq"), arch="sm_90")
    variants = in_gemm_variants(cfg, choice.num_stages)
    cupy = gpu()
    kernels = [load(c.ptx, c.kernels[0]) for c in (quantize, gemm, fixup)]
    grid = mmq_grid(cfg, m, N, k, **(split or {"resident": kernels[1].resident_programs()}))
    if split:
        assert grid[1] == 20
    data = make_inputs(case, np.random.default_rng())
    x, xq = cupy.asarray(data["x_f32"]), cupy.empty_like(cupy.asarray(data["x"]))
    w = cupy.asarray(kernel_weights(cfg, data["w"]))
    outputs = [fixup_mul_mat(tuple(kernels), cfg, grid, x, xq, w, m, N, k, cupy) for _ in range(2)]
    assert np.array_equal(cupy.asnumpy(xq), data["x"]), "the quantized activations differ from compiler.numerics"
    ok, err = check(outputs[0], reference(case, data))
    assert ok, f"{case.id} on grid {grid}: relative error {err:.3e}"
    assert np.array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32)), \
        f"{case.id} on grid {grid}: two launches differ in {int((outputs[0] != outputs[1]).sum())} elements"

    assert_in_gemm_variants_match(variants, kernels[0], grid, x, xq, w, m, N, k, outputs[0], cupy)

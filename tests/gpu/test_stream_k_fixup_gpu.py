"""Stream-K with the fix-up kernel on the GPU (``MmqConfig(stream_k=True, fixup=True)``), and with the fix-up in the
GEMM (``fixup_in_gemm=True``: the last program of a tile adds its pieces, in the same order, so the same bits).

MUL_MAT from f32 as a user runs it: the quantize kernel (no zeroing: the fix-up GEMM stores every
tile once), the GEMM leaving split tiles' pieces in a NaN-filled workspace, the fix-up kernel adding
them in program order into a NaN-filled Y. Checked against the float64 reference, and launched twice:
the two Ys must be the same bits (the atomic stream-K kernel's need not be, where three or more
programs share a tile).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from compiler.mmq_choice import choose_mmq
from tests.gpu.mmq_harness import (MmqCase, assert_in_gemm_variants_match, check, fixup_mul_mat, in_gemm_variants,
                                   kernel_weights, make_inputs, reference)

N, K = 1000, 3584  # ragged N; K = 14 super-blocks
CASES = [("q4_K", 100, None, False), ("q4_K", 512, None, False), ("q4_K", 512, 7, False), ("q4_K", 65, 300, False),
         ("q4_0", 200, None, False), ("q6_K", 100, None, False), ("q4_K", 100, None, True), ("q8_0", 1000, 131, True)]
"""(weights, M, stream-K programs or None for the default grid, W repacked): the chosen prefill tile made
stream-K with the fix-up; 7 programs put several tiles in one program's share, 300 split every tile among
programs with one or two K steps each (3 or more pieces per tile, in an order atomics would not keep)."""


@pytest.mark.gpu
@pytest.mark.parametrize("weights,m,programs,tiled", CASES,
                         ids=[f"{w}-M={m}-{p or 'SMs'}-programs{'-repacked' if t else ''}" for w, m, p, t in CASES])
def test_fixup_mul_mat_from_f32(weights: str, m: int, programs: int | None, tiled: bool, gpu) -> None:  # noqa: ANN001
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_fixup_kernel, mmq_grid, mmq_kernel
    from compiler.quantize_template import quantize_kernel
    from targets.ptx.runner import load

    choice = choose_mmq(weights, max(m, 65), 4096, 4096, tiled_weights=tiled)  # the prefill tile
    cfg = replace(choice.cfg, stream_k=True, fixup=True)
    case = MmqCase(cfg, m, N, K, stages=choice.num_stages)
    gemm = get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=choice.num_stages)
    fixup = get_or_compile(mmq_fixup_kernel(cfg), arch="sm_90")
    quantize = get_or_compile(quantize_kernel("q8_1_mmq"), arch="sm_90")
    variants = in_gemm_variants(cfg, choice.num_stages)
    cupy = gpu()
    data = make_inputs(case, np.random.default_rng())
    grid = mmq_grid(cfg, m, N, K, programs=programs)
    x, xq = cupy.asarray(data["x_f32"]), cupy.empty_like(cupy.asarray(data["x"]))
    w = cupy.asarray(kernel_weights(cfg, data["w"]))
    kernels = tuple(load(c.ptx, c.kernels[0]) for c in (quantize, gemm, fixup))
    outputs = [fixup_mul_mat(kernels, cfg, grid, x, xq, w, m, N, K, cupy) for _ in range(2)]
    assert np.array_equal(cupy.asnumpy(xq), data["x"]), "the quantized activations differ from compiler.numerics"
    ok, err = check(outputs[0], reference(case, data))
    assert ok, f"{case.id} on grid {grid}: relative error {err:.3e}"
    assert np.array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32)), \
        f"{case.id} on grid {grid}: two launches differ in {int((outputs[0] != outputs[1]).sum())} elements"

    assert_in_gemm_variants_match(variants, kernels[0], grid, x, xq, w, m, N, K, outputs[0], cupy)

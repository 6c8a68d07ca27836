"""Every ggml block pair ``qdot.dot_scaled`` accepts, run on the GPU (the emulator runs the same
kernels in tests/emulator/test_block_pairs_emulated.py).

The MMQ kernels (tests/gpu/test_mmq_gpu.py) take q8_1_mmq activations and q4_K, q4_0 or q8_0
weights; the verifier accepts more pairs (q8_0 × q4_0, q4_0 × q8_0, plain q8_1 on either side,
…), which had run only on the emulator. Here each pair's small kernel (one 16 × 16 tile, two
256-value K steps, promote-int8) runs on the GPU into a NaN-poisoned Y: quantized random inputs
against ``compiler.numerics.dot_scaled`` at relative error ≤ 1e-5, and with every fp16 scale 1 the
exact integer dot, bit for bit. Compiles every kernel (filling the kernel cache) and skips
without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.block_pairs_harness import K, PAIRS, TILE, kernel_text, quantized, reference, unit_scaled


def _run(kernel, cupy, x: np.ndarray, w: np.ndarray) -> np.ndarray:  # noqa: ANN001
    m, n = x.shape[0], w.shape[0]
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    kernel.launch(cupy.asarray(x), cupy.asarray(w), y, m, n, K, grid=(1, 1, 1))
    return cupy.asnumpy(y)


@pytest.mark.gpu
@pytest.mark.parametrize("lhs,rhs", PAIRS, ids=[f"{lhs}-x-{rhs}" for lhs, rhs in PAIRS])
def test_block_pair_on_the_gpu(lhs: str, rhs: str, gpu) -> None:  # noqa: ANN001
    from compiler.kernel_cache import get_or_compile
    from targets.ptx.runner import load

    compiled = get_or_compile(kernel_text(lhs, rhs), arch="sm_90")
    cupy = gpu()
    kernel = load(compiled.ptx, compiled.kernels[0])
    rng = np.random.default_rng()  # fresh inputs every run
    x, w = quantized(lhs, 13, rng), quantized(rhs, 11, rng)  # a ragged 13 × 11 corner of the tile
    y, ref = _run(kernel, cupy, x, w), reference(x, w, lhs, rhs)
    assert np.isfinite(y).all(), f"{lhs} × {rhs}: {int((~np.isfinite(y)).sum())} outputs not written or not finite"
    err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"{lhs} × {rhs}: relative error {err:.3e}"

    x, w = unit_scaled(lhs, TILE, rng), unit_scaled(rhs, TILE, rng)
    y, ref = _run(kernel, cupy, x, w), reference(x, w, lhs, rhs)
    wrong = np.argwhere(y != ref)
    assert not len(wrong), f"{lhs} × {rhs}, unit scales: {len(wrong)} of {y.size} differ, first at " \
                           f"{tuple(wrong[0])}: {y[tuple(wrong[0])]} != {ref[tuple(wrong[0])]}"

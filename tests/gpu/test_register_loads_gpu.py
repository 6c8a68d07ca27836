"""Tiles loaded into registers and stored from them, on the GPU: the kernels of
``tests/passes/test_register_loads_emulated.py`` (a loop summing row-major tiles; column-major tiles whose runs go
down the columns), run on fresh random inputs into NaN-filled outputs and compared with numpy bit for bit (each
element is a sum of f32 in the kernel's order, which numpy's elementwise sums keep). The emulator tests hold the
same kernels to the same answers on the CPU; these hold the GPU's 16-byte loads and stores, their predicates and
the run-time alignment test to them.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.passes.test_register_loads_emulated import COLUMNS, SUM


def _kernel(source: str):  # noqa: ANN202 - a loaded kernel
    from compiler.kernel_cache import get_or_compile
    from targets.ptx.runner import load

    compiled = get_or_compile(source, arch="sm_90")
    return compiled, load


@pytest.mark.gpu
@pytest.mark.parametrize("n,div", [(50, 1), (52, 4), (70, 2), (1000, 4)])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_rows_summed_in_registers_on_the_gpu(n: int, div: int, count: int, gpu) -> None:  # noqa: ANN001
    """Y[0:16, 0:64] = 0 + X[0:16] + X[16:32] + …, zeros past M = 40 and N; the rest of Y untouched."""
    compiled, load = _kernel(SUM.format(div=div))
    cupy = gpu()
    kernel = load(compiled.ptx, compiled.kernels[0])
    m = 40
    x = np.random.default_rng().standard_normal((m, n)).astype(np.float32)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    kernel.launch(y, cupy.asarray(x), m, n, count, grid=(1, 1, 1))
    out = cupy.asnumpy(y)
    padded = np.zeros((16 * max(count, 1), 64), dtype=np.float32)
    rows, cols = min(m, padded.shape[0]), min(n, 64)
    padded[:rows, :cols] = x[:rows, :cols]
    want = np.zeros((16, 64), dtype=np.float32)
    for i in range(count):
        want = want + padded[16 * i:16 * (i + 1)]
    assert np.array_equal(out[:16, :cols], want[:, :cols])
    assert np.isnan(out[16:]).all() and np.isnan(out[:16, 64:]).all()


@pytest.mark.gpu
@pytest.mark.parametrize("m,div", [(40, 4), (42, 2), (37, 1), (44, 1), (4096, 4)])
def test_column_major_tiles_on_the_gpu(m: int, div: int, gpu) -> None:  # noqa: ANN001
    """Column-major Y[:, 0:64] = X[:, 0:64] + X[:, 64:128] (N = 100), one program per 16 rows: 16-byte loads and
    stores down the columns where M is said to be a multiple of 4, 8-byte stores at M = 42, the stores' run-time
    test failing at 37 and holding at 44."""
    compiled, load = _kernel(COLUMNS.format(div=div))
    cupy = gpu()
    kernel = load(compiled.ptx, compiled.kernels[0])
    n = 100
    x_t = np.random.default_rng().standard_normal((n, m)).astype(np.float32)  # X[r, c] = x_t[c, r]
    y_t = cupy.full((n, m), cupy.nan, dtype=cupy.float32)
    kernel.launch(y_t, cupy.asarray(x_t), m, n, grid=(-(-m // 16), 1, 1))
    out = cupy.asnumpy(y_t)
    right = np.zeros((64, m), dtype=np.float32)
    right[:n - 64] = x_t[64:]
    assert np.array_equal(out[:64], x_t[:64] + right)
    assert np.isnan(out[64:]).all()

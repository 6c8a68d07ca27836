"""Tiles loaded into registers (``passes/support/loaded_tiles.py``, ``passes/support/register_loads.py``) on the PTX
emulator: the values each thread loads, zeros outside the descriptor, sums in order, and layouts carried through
loops and branches, against numpy.

The lit tests show the decisions (the blocked layout, 16-byte or single loads); these assemble and run the kernels: ragged
shapes whose tiles straddle M and N, N odd (single loads, each bounds-tested) and a multiple of 4 (16-byte loads),
a loop that sums a dynamic count of tiles, and one that passes a tile through unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler.tools import find_ptxas

PTXAS = find_ptxas() is not None
"""Each kernel's PTX goes through ``ptxas`` too where it is installed (the dev extra installs it): the 16-byte
loads and stores, row- and column-major, and the run-time-tested stores assemble."""

SUM = """
func.func @sum_rows(%y_ptr: !qdot.ptr<f32>, %x_ptr: !qdot.ptr<f32>, %m: index,
                    %n: index {{qdot.divisibility = {div} : i64}}, %count: index)
    attributes {{qdot.kernel, qdot.num_warps = 4 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  %sum = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %zero) -> (tensor<16x64xf32>) {{
    %row = arith.muli %i, %c16 : index
    %t = qdot.load %x_desc[%row, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
    %next = arith.addf %acc, %t : tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }}
  qdot.store %y_desc[%c0, %c0], %sum : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}}
"""


@pytest.mark.parametrize("n,div", [(50, 1), (52, 4), (64, 4), (70, 2)])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_rows_summed_in_registers(n: int, div: int, count: int) -> None:
    """Y[0:16, 0:64] = X[0:16] + X[16:32] + … (``count`` tiles of 16 rows), each tile read with zeros past M = 40 and
    past N; Y written only inside [M, N]. N = 50 and 70: single loads; 52 and 64 (divisible by 4): 16-byte loads."""
    m = 40
    kernel = compiler.compile(SUM.format(div=div), target="ptx", arch="sm_90", verify=PTXAS)
    x = np.random.default_rng(n + count).standard_normal((m, n)).astype(np.float32)
    y = np.full((m, n), np.nan, dtype=np.float32)
    compiler.emulate(kernel, y, x, m, n, count, grid=(1, 1, 1))
    padded = np.zeros((16 * max(count, 1), 64), dtype=np.float32)
    rows, cols = min(m, padded.shape[0]), min(n, 64)
    padded[:rows, :cols] = x[:rows, :cols]
    want = np.zeros((16, 64), dtype=np.float32)
    for i in range(count):  # the kernel's order: 0 + t0 + t1 + …
        want = want + padded[16 * i:16 * (i + 1)]
    assert np.array_equal(y[:16, :cols], want[:, :cols])
    assert np.isnan(y[16:]).all() and np.isnan(y[:16, 64:]).all()  # outside the tile: not written


PASS_THROUGH = """
func.func @pass_through(%a_ptr: !qdot.ptr<f32>, %b_ptr: !qdot.ptr<f32>, %m: index, %n: index, %count: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %t) -> (tensor<16x64xf32>) {
    scf.yield %acc : tensor<16x64xf32>
  }
  %cond = arith.cmpi ult, %m, %n : index
  %s = scf.if %cond -> (tensor<16x64xf32>) {
    scf.yield %r : tensor<16x64xf32>
  } else {
    %u = qdot.load %a[%c1, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
    scf.yield %u : tensor<16x64xf32>
  }
  qdot.store %b[%c0, %c0], %s : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}
"""


@pytest.mark.parametrize("m,n", [(20, 70), (70, 20)])
@pytest.mark.parametrize("count", [0, 3])
def test_tile_passed_through_a_loop_and_a_branch(m: int, n: int, count: int) -> None:
    """B gets A's first 16 × 64 tile (M < N) or its tile one row down (M ≥ N), through a loop that does not change
    it: rows and columns inside [M, N] only, the rest of B as it was."""
    kernel = compiler.compile(PASS_THROUGH, target="ptx", arch="sm_90", verify=PTXAS)
    a = np.random.default_rng(m).standard_normal((m, n)).astype(np.float32)
    b = np.full((m, n), np.nan, dtype=np.float32)
    compiler.emulate(kernel, a, b, m, n, count, grid=(1, 1, 1))
    first = 0 if m < n else 1
    rows, cols = min(16, m - first), min(64, n)
    want = np.full((m, n), np.nan, dtype=np.float32)
    want[:min(16, m), :cols] = 0.0  # rows of the tile past A's last read zeros (M ≥ N: the tile's last row)
    want[:rows, :cols] = a[first:first + rows, :cols]
    assert np.array_equal(b, want, equal_nan=True)


COLUMNS = """
func.func @sum_columns(%y_ptr: !qdot.ptr<f32>, %x_ptr: !qdot.ptr<f32>, %m: index {{qdot.divisibility = {div} : i64}},
                       %n: index)
    attributes {{qdot.kernel, qdot.num_warps = 2 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pid = qdot.program_id x
  %off_m = arith.muli %pid, %c16 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %left = qdot.load %x_desc[%off_m, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %right = qdot.load %x_desc[%off_m, %c64] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %sum = arith.addf %left, %right : tensor<16x64xf32>
  qdot.store %y_desc[%off_m, %c0], %sum : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}}
"""


@pytest.mark.parametrize("m,div", [(40, 4), (48, 4), (42, 2), (37, 1), (44, 1)])
def test_column_major_tiles_in_column_runs(m: int, div: int) -> None:
    """Column-major X and Y (descriptor strides [1, M]): Y[:, 0:64] = X[:, 0:64] + X[:, 64:128], N = 100, one
    program per 16 rows. The blocked layout's runs go down the columns; M a multiple of 4 (said by
    ``qdot.divisibility``) gives 16-byte loads and stores down each column; M = 42 (even, said) single loads and
    8-byte stores; M = 37 and 44 (unsaid) single loads and 16-byte stores under a run-time test, which fails at 37
    (single stores) and holds at 44; ragged last programs; zeros past N and M, Y written inside [M, 64) only."""
    n = 100
    kernel = compiler.compile(COLUMNS.format(div=div), target="ptx", arch="sm_90", verify=PTXAS)
    ptx = kernel.ptx if isinstance(kernel.ptx, str) else kernel.ptx.decode()
    assert ("ld.global.v4.b32" in ptx) == (div == 4)
    assert ("st.global.v2.b32" in ptx) == (div == 2) and ("st.global.v4.b32" in ptx) == (div != 2)
    x_t = np.random.default_rng(m).standard_normal((n, m)).astype(np.float32)  # X column-major: X[r, c] = x_t[c, r]
    y_t = np.full((n, m), np.nan, dtype=np.float32)
    compiler.emulate(kernel, y_t, x_t, m, n, grid=(-(-m // 16), 1, 1))
    right = np.zeros((64, m), dtype=np.float32)
    right[:n - 64] = x_t[64:]
    assert np.array_equal(y_t[:64], x_t[:64] + right)
    assert np.isnan(y_t[64:]).all()

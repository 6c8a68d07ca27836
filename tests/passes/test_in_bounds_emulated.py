"""``qdot.load {in_bounds}`` on the PTX emulator: copies that test no bounds along a declared dimension still
compute the GEMM exactly, with the pipeline's copies ahead kept inside K (``passes/pipeline.py``, ``_ahead_in_loop``),
and a declaration that is false reads past the tensor, which the emulator reports instead of returning zeros.

The lit tests show the copies' forms (tests/lit/qdot-to-llvm/in-bounds-copies.mlir, qdot-pipeline/in-bounds.mlir);
these run them. A and Bᵀ are row-major with K contiguous, so a K position past the end of the last row lies past the
array: the emulator's range check sees a copy that strays there.
"""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler.tools import find_ptxas
from targets.ptx.emulator import EmulationError

PTXAS = find_ptxas() is not None

GEMM = """
func.func @gemm(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index,
                %k: index {{qdot.divisibility = 32 : i64}}) attributes {{qdot.kernel, qdot.num_warps = 1 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pid_m = qdot.program_id x
  %pid_n = qdot.program_id y
  %off_m = arith.muli %pid_m, %c32 : index
  %off_n = arith.muli %pid_n, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<32x32xi32>
  %zero = arith.constant dense<0> : tensor<32x32xi32>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<32x32xi32>) {{
    %a = qdot.load %a_desc[%off_m, %kk] {{in_bounds = {a_declared}}} : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %b = qdot.load %b_desc[%kk, %off_n] {{in_bounds = [true, false]}} : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = i8 rhs = i8 : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
    scf.yield %d : tensor<32x32xi32>
  }}
  qdot.store %c_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xi32>, tensor<32x32xi32>
  func.return
}}
"""


def _run(a_declared: str, m: int, n: int, k: int, stages: int) -> tuple[np.ndarray, np.ndarray]:
    kernel = compiler.compile(GEMM.format(a_declared=a_declared), target="ptx", arch="sm_90",
                              strategy="promote-int8", num_stages=stages, verify=PTXAS)
    rng = np.random.default_rng(m * 1000 + k + stages)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    c = np.full((m, n), -1, dtype=np.int32)
    compiler.emulate(kernel, a, bt, c, m, n, k, grid=(-(-m // 32), -(-n // 32), 1))
    return c, a.astype(np.int64) @ bt.astype(np.int64).T


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("k", [32, 64, 160])
def test_k_declared_in_bounds(stages: int, k: int) -> None:
    """K declared in bounds for A and Bᵀ, rows ragged (M = 40, N = 48: tested): exact at one, two and five K steps,
    where a three-stage ring copies ahead past the loop's end in its last two iterations."""
    c, want = _run("[false, true]", 40, 48, k, stages)
    np.testing.assert_array_equal(c, want)


def test_false_declaration_is_reported() -> None:
    """A's rows declared in bounds while M = 40 is not a multiple of the 32-row tile: the second tile's rows 40–63
    are read untested, past the array, which the emulator reports (a GPU would read whatever lies there)."""
    with pytest.raises(EmulationError, match="out of range"):
        _run("[true, true]", 40, 32, 64, 2)


@pytest.mark.parametrize("stages", [2, 3])
def test_repacked_decode_with_an_empty_split(stages: int) -> None:
    """The q4_K decode kernel over ``tile_weights``' order declares its W tiles and X's K in bounds. Four K splits
    of three super-blocks: splits 0–2 run one step each — every copy ahead lies past their loop's end and takes its
    last tile again — and split 3 runs none, so only its prologue copies, which test their bounds, name a step past
    K. The last 16-row tile is 8 rows of W and 8 zero rows of the padding. Exact against ``compiler.numerics``."""
    from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel
    from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, poisoned_output, reference

    case = MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, tiled_weights=True), m=5, n=40,
                   k=768, stages=stages)
    assert "{in_bounds = [true, true]}" in mmq_kernel(case.cfg)
    kernel = compiler.compile(mmq_kernel(case.cfg), target="ptx", arch="sm_90", strategy="promote-int8",
                              num_stages=stages, verify=PTXAS)
    data = make_inputs(case, np.random.default_rng(stages))
    y = poisoned_output(case)
    tiles = mmq_grid(case.cfg, case.m, case.n, case.k)[0]
    # the kernel reads its split count from the grid: ⌈3 / 4⌉ = 1 super-block each, the fourth split none
    compiler.emulate(kernel, data["x"], kernel_weights(case.cfg, data["w"]), y, case.m, case.n, case.k,
                     grid=(tiles, 4, 1))
    ok, err = check(y, reference(case, data))
    assert ok, f"relative error {err:.3e}"

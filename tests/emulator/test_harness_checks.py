"""The comparisons the GPU and emulator suites share fail on what they say they catch.

Every kernel test of tests/gpu and tests/emulator ends in one of ``quantize_harness.check`` /
``check_zeroed``, ``mmq_harness.check`` or ``gemm_harness.check``; a comparison that returned
"fine" whatever it was given would pass them all. Here each is given the right answer (it must
pass) and the wrong answers its docstring names — a byte off, a row written past M, an element
left unwritten (poisoned), an element off by more than the tolerance — and must fail, on plain
numpy arrays (no kernel is compiled).
"""

from __future__ import annotations

import numpy as np

from compiler.templates import GemmConfig
from tests.gpu import gemm_harness, mmq_harness
from tests.gpu.quantize_harness import (POISON, QuantizeCase, activations, check, check_zeroed, poisoned_output,
                                        poisoned_y, reference)


def test_quantize_check_catches_a_wrong_byte_and_a_row_past_m() -> None:
    case = QuantizeCase("q8_1_mmq", 3, 300)
    expected = reference(case, activations(case.m, case.k, np.random.default_rng(5)))
    out = poisoned_output(case)
    out[:case.m] = expected
    assert check(case, out, expected) is None

    wrong = out.copy()
    wrong[1, 150] ^= 1
    problem = check(case, wrong, expected)
    assert problem is not None and "1 bytes differ; first at row 1, block 1, byte 6" in problem, problem

    past = out.copy()
    past[case.m, 0] = POISON ^ 0xFF
    problem = check(case, past, expected)
    assert problem is not None and "rows past M = 3 were written" in problem, problem


def test_quantize_check_zeroed_catches_an_unzeroed_and_an_extra_row() -> None:
    case = QuantizeCase("q8_1_mmq", 3, 300, zero_n=40)
    y = poisoned_y(case)
    assert np.isnan(y).all() and y.shape == (case.m + 2, 40)
    problem = check_zeroed(case, y)  # the kernel zeroed nothing
    assert problem is not None and "Y[0, 0] = nan" in problem, problem
    y[:case.m] = 0
    assert check_zeroed(case, y) is None
    y[2, 39] = 1.0
    assert "Y[2, 39] = 1.0" in (check_zeroed(case, y) or "")
    y[2, 39] = 0.0
    y[case.m, 5] = 0.0
    assert "rows of Y past M = 3 were written" in (check_zeroed(case, y) or "")
    assert check_zeroed(QuantizeCase("q8_1_mmq", 3, 300), np.full((5, 1), np.nan, np.float32)) is None


def test_mmq_check_catches_nan_and_one_wrong_element() -> None:
    ref = np.random.default_rng(3).standard_normal((64, 256)) * 10
    out = ref.astype(np.float32)
    ok, err = mmq_harness.check(out, ref)
    assert ok and err < mmq_harness.TOLERANCE
    unwritten = out.copy()
    unwritten[17, 200] = np.nan  # the poison a kernel left
    assert mmq_harness.check(unwritten, ref) == (False, float("inf"))
    zeroed = out.copy()
    zeroed[17, 200] = 0.0  # a split-K kernel's unwritten element (its Y starts at zero)
    assert not mmq_harness.check(zeroed, ref)[0]
    off = out.copy()
    off[0, 0] = np.float32(off[0, 0] * (1 + 1e-2))
    assert not mmq_harness.check(off, ref)[0]


def test_gemm_check_catches_each_output_type_s_errors() -> None:
    rng = np.random.default_rng(4)
    i8 = gemm_harness.GemmCase(GemmConfig(lhs="i8", rhs="i8", lhs_scale=None, rhs_scale=None), 32, 24, 64)
    ref = gemm_harness.reference(i8, gemm_harness.make_inputs(i8, rng))
    out = np.rint(ref).astype(np.int32)
    assert gemm_harness.check(i8, out, ref)[0]
    out[5, 7] += 1
    assert not gemm_harness.check(i8, out, ref)[0]
    assert not gemm_harness.check(i8, gemm_harness.poisoned_output(i8.cfg, 32, 24), ref)[0]

    f32 = gemm_harness.GemmCase(GemmConfig(block_k=64), 32, 24, 64)
    ref = gemm_harness.reference(f32, gemm_harness.make_inputs(f32, rng))
    out = ref.astype(np.float32)
    assert gemm_harness.check(f32, out, ref)[0]
    out[3, 3] = gemm_harness.poisoned_output(f32.cfg, 1, 1)[0, 0]
    assert np.isnan(out[3, 3]) and not gemm_harness.check(f32, out, ref)[0]

    bf16 = gemm_harness.GemmCase(GemmConfig(block_k=64, out="bf16"), 32, 24, 64)
    data = gemm_harness.make_inputs(bf16, rng)
    ref = gemm_harness.reference(bf16, data)
    out = gemm_harness.bf16_bits(ref)
    assert gemm_harness.check(bf16, out, ref, data) == (True, 0.0)
    for position, bits in (((0, 0), 0xFFFF), ((9, 9), out[9, 9] ^ 0x0040)):  # poisoned; off by 64 bf16 ulps
        wrong = out.copy()
        wrong[position] = bits
        assert not gemm_harness.check(bf16, wrong, ref, data)[0], (position, hex(int(bits)))

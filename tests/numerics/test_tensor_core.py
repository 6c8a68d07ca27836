"""``compiler.numerics.tensor_core`` against what an H200 computed.

data/h200_tensor_core.npz holds 600 elements of D per form, measured on the H200 in runs 126
(same-type forms, 20 distribution pairs), 132 (mixed fp8, the same 20) and 133 (every form,
subnormal-top; bench/RESULTS.md; written by ``python -m bench.experiments.tensor_core_fit RUN126
RUN132 RUN133 --fixture``): 24 per pair of operand / C distributions, chosen first among those
that one rounding of the exact sum or the model with one parameter moved gets wrong, as operand
codes, C and the hardware's D. The GPU suite checks the same model on fresh operands every run
(tests/gpu/test_tensor_core_gpu.py, test_wgmma_forms_gpu.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.experiments.tensor_core_fit import evaluate, types_of, variants
from compiler import numerics
from compiler.numerics.tensor_core import BF16_STEP, NUMERICS_FORMAT, fused_dot, tensor_core_dot
from tests.tensor_core_cases import MMA_FORMS, WGMMA_FORMS

DATA = Path(__file__).parent / "data" / "h200_tensor_core.npz"
FORMS = {name: (instruction, types_of(type_))
         for name in sorted({key.rsplit("_", 1)[0] for key in np.load(DATA).files})
         for instruction, type_ in [name.split("_", 1)]}
"""The fixture's forms, by name: "wgmma_e4m3_e5m2" → ("wgmma", ("e4m3", "e5m2"))."""


def test_the_fixture_holds_every_form_the_probe_measures() -> None:
    assert set(FORMS) == {*MMA_FORMS, *WGMMA_FORMS}


def _measured(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    z = np.load(DATA)
    a_type, b_type = FORMS[name][1]
    return (numerics.decode(NUMERICS_FORMAT[a_type], z[f"{name}_a"]),
            numerics.decode(NUMERICS_FORMAT[b_type], z[f"{name}_b"]), z[f"{name}_c"], z[f"{name}_d"])


@pytest.mark.parametrize("name", list(FORMS))
def test_model_reproduces_the_h200(name: str) -> None:
    a, b, c, d = _measured(name)
    got = tensor_core_dot(*FORMS[name], a, b, c)
    assert got.view(np.uint32).tolist() == d.view(np.uint32).tolist()


@pytest.mark.parametrize("name", list(FORMS))
def test_the_measured_elements_tell_the_model_from_one_rounding(name: str) -> None:
    """Not vacuous: one rounding of the exact sum (what sm_80 gets here) misses many of them."""
    a, b, c, d = _measured(name)
    once = tensor_core_dot(*FORMS[name], a, b, c, arch="sm_80")
    assert np.mean(once.view(np.uint32) != d.view(np.uint32)) > 0.25


UNSEEN = {(f"mma_{t}", "subnormals at their exponent") for t in ("e4m3", "e5m2", "e4m3_e5m2", "e5m2_e4m3")} | {
    ("wgmma_e5m2_e4m3", "subnormals at their exponent")}
"""Parameters these forms' elements cannot show: sm_90 runs fp8 mma.sync as f16 HMMA (an fp8
subnormal is an f16 number like any other there), and an e5m2 subnormal times the largest
e4m3 stays below the other products of subnormal-top, so no subnormal sets the alignment."""


@pytest.mark.parametrize("name", list(FORMS))
def test_each_parameter_is_pinned_by_the_measured_elements(name: str) -> None:
    """The model with any one parameter moved (``tensor_core_fit.variants``) misses some of the
    stored elements: each parameter is what the H200 shows, not merely consistent with it."""
    a, b, c, d = _measured(name)
    instruction, type_ = name.split("_", 1)
    for label, variant in variants(instruction, type_).items():
        missed = int(np.sum(evaluate(instruction, type_, a, b, c, variant).view(np.uint32) != d.view(np.uint32)))
        assert (missed == 0) == ((name, label) in UNSEEN), f"{label}: {missed} elements differ"


def test_exact_when_nothing_falls_below_the_alignment() -> None:
    a = np.array([[1.5, -0.75, 2.0] + [0.0] * 13])
    b = np.array([[2.0, 4.0, 0.25] + [0.0] * 13])
    c = np.array([0.125], np.float32)
    assert fused_dot(a, b, c, BF16_STEP, "bf16")[0] == np.float32(3.0 - 3.0 + 0.5 + 0.125)


def test_with_positive_terms_the_result_never_exceeds_the_exact_sum() -> None:
    """Truncating each term and rounding the sum toward zero both shrink a positive result: it is
    at most the exact sum, and short of it by less than the 17 truncations and one f32 ulp."""
    rng = np.random.default_rng(3)
    a = numerics.decode("bf16", numerics.encode("bf16", np.exp2(rng.uniform(-12, 12, (4096, 16)))))
    b = numerics.decode("bf16", numerics.encode("bf16", np.exp2(rng.uniform(-12, 12, (4096, 16)))))
    c = np.exp2(rng.uniform(-12, 12, 4096)).astype(np.float32)
    got = fused_dot(a, b, c, BF16_STEP, "bf16").astype(np.float64)
    exact = (a * b).sum(axis=1) + c
    largest = np.maximum((a * b).max(axis=1), c)
    assert (got <= exact).all()
    assert (exact - got < 17 * 2.0 ** -24 * largest + 2.0 ** -23 * exact).all()
    assert (got < exact).mean() > 0.5  # the truncation shows in most of them


def test_unmeasured_forms_round_once() -> None:
    one, tiny = 1.0, 2.0 ** -13
    a = np.array([[one] + [tiny] * 15])
    c = np.zeros(1, np.float32)
    assert tensor_core_dot("mma", "bf16", a, a, c)[0] == np.float32(1.0)  # the 2^-26 products vanish
    once = np.float32(1.0 + 15 * 2.0 ** -26)
    assert tensor_core_dot("mma", "bf16", a, a, c, arch="sm_89")[0] == once
    x = np.array([[1.0] + [2.0 ** -7] * 31])  # e4m3: 1 and a subnormal
    assert tensor_core_dot("wgmma", "e4m3", x, x, c)[0] == np.float32(1.0)  # 13 fraction bits
    assert tensor_core_dot("wgmma", ("e4m3", "e5m2"), x, x, c)[0] == np.float32(1.0)  # mixed: the same step
    assert tensor_core_dot("wgmma", ("e4m3", "e5m2"), x, x, c, "sm_100")[0] == np.float32(1.0 + 31 * 2.0 ** -14)


def test_one_rounding_is_one_rounding_past_an_f32_midpoint() -> None:
    """1 + 2^-24 + 2^-80 lies just above the midpoint of 1 and 1 + 2^-23: the float64 sum (1 + 2^-24) was the
    midpoint itself, whose tie then rounded to 1. Rounded once, it is 1 + 2^-23; a true tie still goes to even."""
    c, b = np.zeros(1, np.float32), np.ones((1, 16))
    above = np.array([[1.0, 2.0 ** -24, 2.0 ** -80] + [0.0] * 13])
    assert tensor_core_dot("mma", "bf16", above, b, c, arch="sm_80")[0] == np.float32(1 + 2.0 ** -23)
    assert tensor_core_dot("mma", "bf16", -above, b, c, arch="sm_80")[0] == -np.float32(1 + 2.0 ** -23)
    below = np.array([[1.0, 2.0 ** -24, -2.0 ** -80] + [0.0] * 13])
    assert tensor_core_dot("mma", "bf16", below, b, c, arch="sm_80")[0] == np.float32(1.0)
    tie = np.array([[1.0, 3 * 2.0 ** -24] + [0.0] * 14])  # between 1 + 2^-23 and 1 + 2^-22: the even one
    assert tensor_core_dot("mma", "bf16", tie, b, c, arch="sm_80")[0] == np.float32(1 + 2.0 ** -22)


def test_sum_rounded_once_equals_the_rational_sum_rounded() -> None:
    """Random terms over a wide exponent range, many near f32 midpoints, against Fractions rounded by hand."""
    from fractions import Fraction

    from compiler.numerics.tensor_core import sum_rounded_once

    rng = np.random.default_rng(5)
    base = rng.integers(1, 1 << 24, size=(400, 1)).astype(np.float64)  # f32 significands
    half = np.full((400, 1), 0.5)  # exactly halfway to the next one
    nudge = rng.choice([0.0, 2.0 ** -40, -(2.0 ** -40)], size=(400, 1)) * rng.random((400, 1))
    noise = np.ldexp(rng.standard_normal((400, 5)), rng.integers(-90, -30, size=(400, 5)))
    terms = np.concatenate([base, half, nudge, noise], axis=1) * 2.0 ** -10
    c = np.zeros(400, np.float32)
    got = sum_rounded_once(terms, c)
    for row, value in zip(terms, got, strict=True):
        exact = sum(Fraction(float(t)) for t in row)
        lower = np.float32(float(exact))
        neighbours = [np.nextafter(lower, np.float32(-np.inf)), lower, np.nextafter(lower, np.float32(np.inf))]
        want = min(neighbours, key=lambda x: (abs(Fraction(float(x)) - exact), int(x.view(np.uint32)) & 1))
        assert value == want, (row, value, want)


def test_non_finite_operands_follow_ieee() -> None:
    a = np.array([[np.inf] + [1.0] * 15])
    b = np.ones((1, 16))
    assert tensor_core_dot("mma", "bf16", a, b, np.zeros(1, np.float32))[0] == np.inf
    assert np.isnan(tensor_core_dot("mma", "bf16", a, -b * 0, np.zeros(1, np.float32))[0])


def test_a_step_takes_its_own_number_of_products() -> None:
    with pytest.raises(ValueError, match="adds 16 products, got 8"):
        fused_dot(np.ones((1, 8)), np.ones((1, 8)), np.zeros(1, np.float32), BF16_STEP, "bf16")

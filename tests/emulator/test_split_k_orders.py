"""The outputs a split-K kernel of more than two splits may give, as the GPU fidelity test allows them.

Its programs add their partial sums into Y with ``red.global.add.f32`` in whatever order they
finish, and three or more f32 additions round differently in different orders, so the H200's
output is not one array but one of S! (tests/gpu/fidelity_harness.admissible). These tests hold
that set to what it claims: it contains the emulator's own whole-grid run (whose CTAs add in
grid order), the orders really do disagree on these inputs (or the check would be the two-split
one again), and an output one unit in the last place away from every order is caught.
"""

from __future__ import annotations

from math import factorial

import numpy as np
import pytest

from tests.gpu.fidelity_harness import admissible, bits, cases, emulated, inputs, matches_none

SPLIT = [(kernel, case) for kernel, case in cases() if kernel.splits > 2]


def test_the_fidelity_kernels_include_split_k_grids_of_three_and_four() -> None:
    assert {3, 4} <= {kernel.splits for kernel, _ in SPLIT}


@pytest.mark.parametrize("kernel, case", SPLIT, ids=[kernel.label for kernel, _ in SPLIT])
def test_every_order_of_the_splits_is_admissible_and_nothing_else(kernel, case) -> None:  # noqa: ANN001
    arrays, out = inputs(case, 11)
    scalars = (case.m, case.n, case.k)
    allowed = admissible(kernel, arrays, out, scalars)
    assert allowed.shape == (factorial(kernel.splits), *out.shape)

    whole = emulated(kernel, arrays, out, scalars)
    assert not matches_none(whole, allowed).any()
    assert np.array_equal(bits(whole), bits(allowed[0]))  # grid order is the first permutation

    disagree = (bits(allowed) != bits(allowed[0])[None]).any(axis=0)
    assert disagree.any(), "every order rounds alike here: the inputs do not test the order"

    nudged = whole.copy()
    spot = np.argwhere(disagree)[0]
    nudged[tuple(spot)] = np.nextafter(allowed[:, spot[0], spot[1]].max(), np.float32(np.inf))
    assert matches_none(nudged, allowed).sum() == 1


def test_a_split_k_output_must_start_at_zero() -> None:
    kernel, case = SPLIT[0]
    arrays, out = inputs(case, 11)
    with pytest.raises(ValueError, match="must start at zero"):
        admissible(kernel, arrays, np.full_like(out, np.nan), (case.m, case.n, case.k))


def test_an_element_nothing_wrote_is_counted_before_the_outputs_are_stored() -> None:
    """The GPU and the emulator start from the same NaN-poisoned output, so an element neither wrote matched bit for
    bit; the stored emulated outputs must have none (bf16 outputs are their bits, integer outputs count none)."""
    from tests.gpu.fidelity_harness import not_finite

    f32 = np.array([1.0, np.nan, np.inf, -2.0], np.float32)
    bf16 = np.array([0x3F80, 0x7FC0, 0xFF80, 0x0000], np.uint16)
    assert (not_finite(f32), not_finite(bf16), not_finite(np.array([-1, 5], np.int32))) == (2, 2, 0)

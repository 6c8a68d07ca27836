"""The edge cases of tests/gpu/test_arith_edges_gpu.py on the emulator, against the same Python references: the GPU
test holds the hardware (and qdot's LLVM translation) to them, this one the emulator, so the two agree with each other
through the references.

The select-guarded shifts are the exception: the emulator reports poison where it is made, not where it is used
(targets/ptx/emulator/arith_ops.py), so a shift by 64 that a select then discards is an error there by design."""

from __future__ import annotations

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import run
from tests.gpu.test_arith_edges_gpu import CASES, N, Case

GUARDED = {"guarded_shl_i64", "guarded_shrui_i32"}


@pytest.mark.parametrize("case", [c for c in CASES if c.arch == "sm_90"], ids=lambda c: c.name)
def test_the_emulator_gives_the_reference(case: Case) -> None:
    inputs = case.inputs(np.random.default_rng(7))
    out = np.full(N, 0x5A, dtype=case.out_dtype)
    if case.name in GUARDED:
        with pytest.raises(EmulationError, match=r"shift by \d+ >= width \d+ .* is poison"):
            run(case.kernel(), [*inputs, out], grid=N // 32)
        return
    run(case.kernel(), [*inputs, out], grid=N // 32)
    want = case.expected(inputs)
    assert np.array_equal(out.view(want.dtype), want), case.name

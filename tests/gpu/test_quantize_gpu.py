"""GPU correctness of the activation-quantize kernels (skipped cleanly without a GPU).

``compiler.quantize_template`` kernels for q8_1_mmq (what the MMQ GEMM reads) and q8_1,
through the default PTX pipeline (``qdot-lower-quantize`` first), on random rows full
of the cases that break a careless quantizer (tests/gpu/quantize_harness.py): M = 1,
7 and 512, a ragged K, a K shorter than one block, tiles of several rows walked by a
loop. The output is poisoned with 0xAB and two rows longer than M; the bytes must
equal ``compiler.numerics.quantize`` (method "cuda") exactly and the extra rows must
keep their poison.

On a machine without a GPU these tests still compile every kernel (filling the
kernel cache that travels to the GPU machine) and then skip.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.quantize_harness import QuantizeCase, activations, check, reference, run_case

CASES = [
    QuantizeCase("q8_1_mmq", 1, 4096),
    QuantizeCase("q8_1_mmq", 7, 1000),  # ragged K: the last block is padded with zeros
    QuantizeCase("q8_1_mmq", 512, 4096),
    QuantizeCase("q8_1_mmq", 512, 11008),
    QuantizeCase("q8_1_mmq", 7, 1000, rows_per_program=4, block_k=256, num_warps=2),  # a loop of steps
    QuantizeCase("q8_1", 1, 4096),
    QuantizeCase("q8_1", 7, 300),
    QuantizeCase("q8_1", 512, 4096),
    QuantizeCase("q8_1", 3, 5),  # K shorter than one block
    QuantizeCase("q8_1", 7, 200, rows_per_program=3, block_k=128),  # idle lanes in the last step
]


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_quantize_matches_numerics(case: QuantizeCase, gpu) -> None:  # noqa: ANN001
    case.compiled()  # compile first: fills the kernel cache even without a GPU
    cupy = gpu()
    x = activations(case.m, case.k, np.random.default_rng())
    problem = check(case, run_case(case, x, cupy), reference(case, x))
    assert problem is None, problem

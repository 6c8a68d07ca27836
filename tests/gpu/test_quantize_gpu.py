"""GPU correctness of the activation-quantize kernels (skipped cleanly without a GPU).

``compiler.quantize_template`` kernels for q8_1_mmq (what the MMQ GEMM reads) and q8_1,
through the default PTX pipeline (``qdot-lower-quantize`` first), on random rows full
of the cases that break a careless quantizer (tests/gpu/quantize_harness.py): both
strategies of the pass (M up to 32 and above), the bench's shapes, a ragged K, a K that
is not a multiple of 4 (4-byte copies), a K shorter than one block, staged tiles in
two waves and with chunk rows computed at run time, and a lanes loop. The output is
poisoned with 0xAB and two rows longer than M; the bytes must equal
``compiler.numerics.quantize`` (method "cuda") exactly and the extra rows must keep
their poison. The kernels that also zero the split-K GEMM's output (``zero_output``, the
decode MUL_MAT's) must leave Y zero in its M rows and NaN past them.

On a machine without a GPU these tests still compile every kernel (filling the
kernel cache that travels to the GPU machine) and then skip.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.quantize_harness import QuantizeCase, activations, check, check_zeroed, reference, run_case

CASES = [
    # the default kernel: one row per program (lanes strategy) for M <= 32, then 8x128 tiles (lanes)
    # while M * K <= 2^21, 8x512 tiles staged through shared memory above
    QuantizeCase("q8_1_mmq", 1, 4096),
    QuantizeCase("q8_1_mmq", 1, 14336),
    QuantizeCase("q8_1_mmq", 7, 1000),  # ragged K: the last block is padded with zeros
    QuantizeCase("q8_1_mmq", 32, 4096),
    QuantizeCase("q8_1_mmq", 33, 4096),
    QuantizeCase("q8_1_mmq", 512, 4096),
    QuantizeCase("q8_1_mmq", 512, 11008),
    QuantizeCase("q8_1_mmq", 512, 14336),
    QuantizeCase("q8_1_mmq", 37, 1000),  # the mid tile (8x128, lanes) while M * K <= 2^21: ragged rows and K
    QuantizeCase("q8_1_mmq", 35, 998),  # the mid tile, K not a multiple of 4
    QuantizeCase("q8_1_mmq", 37, 1000, mid_values=0),  # staged: ragged rows and K
    QuantizeCase("q8_1_mmq", 35, 998, mid_values=0),  # staged, K not a multiple of 4: 4-byte copies
    QuantizeCase("q8_1_mmq", 37, 1000, mid_values=1 << 14),  # the default kernel's three tiles, here its 8x512
    QuantizeCase("q8_1", 1, 4096),
    QuantizeCase("q8_1", 7, 300),
    QuantizeCase("q8_1", 512, 4096),
    QuantizeCase("q8_1", 41, 300),
    QuantizeCase("q8_1", 3, 5),  # K shorter than one block
    QuantizeCase("q8_1", 33, 5),
    # other tiles
    QuantizeCase("q8_1_mmq", 70, 1024, rows_per_program=16, mid_values=0),  # two staged waves
    QuantizeCase("q8_1_mmq", 45, 1300, rows_per_program=8, block_k=640, small_m=4, mid_values=0),  # run-time chunk rows
    QuantizeCase("q8_1_mmq", 3, 5000, rows_per_program=1, block_k=4096, mid_values=0),  # one row of 128 groups
    QuantizeCase("q8_1_mmq", 7, 1000, rows_per_program=4, block_k=256, num_warps=2, small_m=0, mid_values=0),  # lanes loop
    QuantizeCase("q8_1", 7, 200, rows_per_program=3, block_k=128, small_m=0, mid_values=0),  # idle lanes in the last step
    # the kernel that also zeroes Y [M, N] (the decode MUL_MAT's): the bench's decode shapes, a
    # ragged N, more row tiles than one, and an N wider than the programs of a row cover in one step
    QuantizeCase("q8_1_mmq", 1, 14336, zero_n=4096),
    QuantizeCase("q8_1_mmq", 8, 8192, zero_n=32768),
    QuantizeCase("q8_1_mmq", 5, 1000, zero_n=1001),
    QuantizeCase("q8_1_mmq", 40, 640, zero_n=3000),
    QuantizeCase("q8_1_mmq", 40, 640, zero_n=3000, mid_values=0),
]


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_quantize_matches_numerics(case: QuantizeCase, gpu) -> None:  # noqa: ANN001
    case.compiled()  # compile first: fills the kernel cache even without a GPU
    cupy = gpu()
    x = activations(case.m, case.k, np.random.default_rng())
    blocks, y = run_case(case, x, cupy)
    problem = check(case, blocks, reference(case, x)) or check_zeroed(case, y)
    assert problem is None, problem


@pytest.mark.gpu
def test_kernel_over_the_shared_memory_limit_is_refused_by_name(gpu) -> None:  # noqa: ANN001
    """A kernel asking for more shared memory than the device allows per CTA is refused with its
    name and both sizes, not with the driver's bare CUDA_ERROR_INVALID_VALUE."""
    import dataclasses

    from compiler.kernel_cache import get_or_compile
    from compiler.quantize_template import quantize_kernel
    from targets.ptx.runner import load

    compiled = get_or_compile(quantize_kernel("q8_1_mmq"), arch="sm_90")
    cupy = gpu()
    limit = cupy.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"]
    info = dataclasses.replace(compiled.kernels[0], shared_bytes=limit + 1024)
    with pytest.raises(ValueError, match=f"'{info.name}' needs {limit + 1024} B of shared memory"):
        load(compiled.ptx, info)

"""``qdot-accelerate-matmul{pad-block-rows=true}``: the activation tile's 288-byte rows padded to 304 (and any block
tile's rows that are an even number of 16-byte groups apart, except W repacked into one run), the kernels still
computing ``compiler.numerics``' result on the emulator — fresh seeded inputs into a poisoned Y — in the decode
forms (one token, M ≤ 8, two super-blocks per step, repacked or ggml's order) and the prefill's, whose tiles
(activations and ggml-order W of two blocks a row) are both padded; and ``{swizzle-fold-buffers=true}``, the dmin
mma's f16 operands swizzled (the M ≤ 8 and prefill kernels, whose q4_K dmin term is that mma), with and without the
padding."""

from __future__ import annotations

import pytest

from compiler.mmq_template import MmqConfig, mmq_kernel
from compiler.pipelines import PtxOptions
from tests.emulator.lowering import emulate_and_check, lower
from tests.gpu.mmq_harness import MmqCase

CASES = [
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True), m=1, n=72,
            k=768),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, tiled_weights=True), m=8, n=40, k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, k_blocks=2), m=5, n=40, k=1280),
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), m=40, n=72, k=768),
    # q5_K in ggml's order, two super-blocks a K step: two 176-byte blocks a row are 22 bank groups, so its W tile
    # is padded too (K = 1280: the last step half past the tensor)
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, weights="q5_K", k_blocks=2), m=40, n=72, k=1280),
]


def _padded(case: MmqCase, fold: str = "auto", pad: bool = True, swizzle: bool = False):  # noqa: ANN202 - ModuleOp
    return lower(mmq_kernel(case.cfg), case.cfg.name, PtxOptions(arch="sm_90", q4k_fold=fold, pad_block_rows=pad,
                                                                 swizzle_fold_buffers=swizzle))


def _staged_buffers(case: MmqCase) -> str:
    """The kernel after qdot-accelerate-matmul with the option, as text: its staged buffers' encodings."""
    return str(lower(mmq_kernel(case.cfg), case.cfg.name,
                     "qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8 pad-block-rows=true}"))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_padded_kernel_matches_reference(case: MmqCase) -> None:
    staged = _staged_buffers(case)
    assert "q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>" in staged \
        or "q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>" in staged
    if case.cfg.weights == "q5_K":
        assert "q5_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>" in staged
    emulate_and_check(_padded(case, "fma" if case.cfg.small_m else "auto"), case, seed=11, what=" (padded rows)")


FOLDED = [CASES[1], CASES[3]]
"""The M ≤ 8 and prefill cases: their dmin term is the f16 mma (``q4k-fold=auto`` there)."""


@pytest.mark.slow
@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("case", FOLDED, ids=[c.id for c in FOLDED])
def test_swizzled_fold_operands_match_reference(case: MmqCase, pad: bool) -> None:
    text = str(lower(mmq_kernel(case.cfg), case.cfg.name, "qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90 "
                     "strategy=promote-int8 swizzle-fold-buffers=true}"))
    assert "xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2" in text  # the fold operands swizzled
    emulate_and_check(_padded(case, pad=pad, swizzle=True), case, seed=12, what=" (swizzled fold operands)")

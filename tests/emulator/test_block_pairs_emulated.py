"""Every ggml block pair ``qdot.dot_scaled`` accepts, compiled for sm_90 and run on the emulator.

The verifier's pairs (``dialects.qdot.formats.block_pairs_sorted()``: ggml's vec_dot pairings,
q8_1_mmq standing in for q8_1 on either side) are more than the MMQ kernels of
``compiler.mmq_template`` use (q8_1_mmq × q4_K), so each gets the same small kernel here: one
16 × 16 tile, a K step of 256 values (one q4_K super-block, two q8_1_mmq blocks, eight q8_0 /
q8_1 / q4_0 blocks), written for the pair from ``compiler.format_table``. The pipeline is the default
one (``qdot-accelerate-matmul{arch=sm_90}`` picks ``promote-int8`` for blocks), so every pair
runs on s8 / u8 mma.sync. Two checks per pair:

* quantized random inputs (``compiler.numerics.quantize``) against ``compiler.numerics.dot_scaled``
  at relative error ≤ 1e-5, with ``use_block_sums`` where a q4_K min term meets a q8_1 stored sum
  (llama.cpp's MMQ meaning: -dmin·m·s, not -dmin·m·d·Σq, which differs by ~1e-2);
* every fp16 scale 1 (random quants, sums and 6-bit scales and mins): Y is an integer below 2^24,
  which the f32 result must equal bit for bit.

Block pairs the verifier refuses are refused here too, with the verifier's diagnostic at the op.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

import compiler
from compiler.api import CompiledKernel
from compiler.diagnostics import QdotError, location_of
from dialects.qdot.formats import BLOCK_FORMATS, BLOCK_PAIRS, block_pairs_sorted
from tests.gpu.block_pairs_harness import DOT_LINE, K, PAIRS, TILE, kernel_text, quantized, reference, unit_scaled

REFUSED_PAIRS = [(str(lhs), str(rhs)) for lhs, rhs in product(BLOCK_FORMATS, repeat=2) if (lhs, rhs) not in BLOCK_PAIRS]


def _emulate(kernel: CompiledKernel, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    m, n = x.shape[0], w.shape[0]
    y = np.full((m, n), np.nan, np.float32)  # a value the kernel does not write stays NaN
    compiler.emulate(kernel, x, w, y, m, n, K, grid=(1, 1, 1))
    return y


@pytest.mark.slow
@pytest.mark.parametrize("lhs,rhs", PAIRS, ids=[f"{lhs}-x-{rhs}" for lhs, rhs in PAIRS])
def test_block_pair_matches_reference(lhs: str, rhs: str) -> None:
    kernel = compiler.compile(kernel_text(lhs, rhs), arch="sm_90")
    mnemonics = {op.ptx_mnemonic() for op in kernel.lowered.walk() if op.name == "ptx.mma_sync"}
    assert any(m.endswith(("s32.s8.s8.s32", "s32.u8.s8.s32", "s32.s8.u8.s32")) for m in mnemonics), mnemonics

    rng = np.random.default_rng(sum(map(ord, lhs + rhs)))
    x, w = quantized(lhs, 13, rng), quantized(rhs, 11, rng)  # a ragged 13 × 11 corner of the tile
    y, ref = _emulate(kernel, x, w), reference(x, w, lhs, rhs)
    err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"{lhs} × {rhs}: relative error {err:.3e}"

    x, w = unit_scaled(lhs, TILE, rng), unit_scaled(rhs, TILE, rng)
    y, ref = _emulate(kernel, x, w), reference(x, w, lhs, rhs)
    assert np.abs(ref).max() < 2**24 and (ref == np.rint(ref)).all()
    wrong = np.argwhere(y != ref)
    assert not len(wrong), f"{lhs} × {rhs}, unit scales: {len(wrong)} of {y.size} differ, first at " \
                           f"{tuple(wrong[0])}: {y[tuple(wrong[0])]} != {ref[tuple(wrong[0])]}"


@pytest.mark.parametrize("lhs,rhs", REFUSED_PAIRS, ids=[f"{lhs}-x-{rhs}" for lhs, rhs in REFUSED_PAIRS])
def test_unpaired_blocks_are_refused_at_the_op(lhs: str, rhs: str) -> None:
    with pytest.raises(QdotError) as refusal:
        compiler.compile(kernel_text(lhs, rhs), arch="sm_90")
    assert refusal.value.op is not None and location_of(refusal.value.op) == f"<source>:{DOT_LINE}:5"
    assert f"'qdot.dot_scaled' op unsupported block pair lhs = {lhs}, rhs = {rhs}" in refusal.value.render()


def test_every_accepted_pair_is_a_pair_of_blocks() -> None:
    """The verifier's pairs are all ones ``kernel_text`` can write (two block formats), and the
    harness's list (the GPU machine's, which cannot ask the verifier) is the verifier's, in its
    order; ``DOT_LINE`` is where the op is."""
    assert set(BLOCK_PAIRS) <= set(product(BLOCK_FORMATS, repeat=2))
    assert PAIRS == [(str(lhs), str(rhs)) for lhs, rhs in block_pairs_sorted()]
    assert kernel_text("q8_0", "q8_0").splitlines()[DOT_LINE - 1].lstrip().startswith("%d = qdot.dot_scaled")

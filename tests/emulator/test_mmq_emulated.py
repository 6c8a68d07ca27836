"""The q8_1 × q4_K kernels (compiler.mmq_template) compiled for sm_90 and run on the CPU emulator
(and the same kernels with q4_0 and q8_0 weights).

Ragged shapes on purpose: M and N not multiples of the tile, so the zero-filled rows
and the bounded stores are exercised; K spans several super-blocks so the K loop and
the pipeline run more than one stage.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from compiler import compile as qdot_compile
from compiler.mmq_template import (MmqConfig, mmq_grid, mmq_kernel, resident_programs, split_factor,
                                   spread_shared_bytes, tile_weights)
from dialects.ptx.memory import CpAsyncOp
from targets.ptx.emulator import emulate
from tests.emulator.lowering import emulate_and_check, lower_mmq
from tests.gpu.mmq_harness import MmqCase, check, integer_inputs, kernel_weights, make_inputs, poisoned_output, reference

CASES = [
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), m=40, n=72, k=768),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), m=3, n=72, k=768),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4), m=8, n=64, k=512),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True), m=5, n=40, k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1), m=1, n=72, k=768),
    # two super-blocks per K step; 5 blocks: the splits share whole steps, the last step half masked
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, k_blocks=2), m=5, n=40, k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=32, num_warps=1, k_blocks=4, max_m=1), m=1, n=40, k=1536),
    # splits interleaved by K step: split 0 takes super-blocks 0, 2, 4 and split 1 takes 1, 3; with two
    # per step, split 0's steps are (0, 1) and (4, 5), the second half past the tensor
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, interleave_splits=True), m=5, n=40,
            k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, k_blocks=2, interleave_splits=True), m=5,
            n=40, k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, interleave_splits=True), m=1,
            n=72, k=768),
    # weights repacked by tile_weights (N = 72: the second 64-row tile is 8 rows and 56 zero blocks)
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True), m=1, n=72,
            k=768),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, interleave_splits=True,
                      tiled_weights=True), m=5, n=40, k=1280),
    # one 64-row tile over N = 40 without splits: 24 zero rows of the repacked W, computed, not stored
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, tiled_weights=True), m=2, n=40, k=512),
    # the prefill kernels reading W repacked (64-column tiles: the second is 8 columns and 56 zero blocks)
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, tiled_weights=True), m=40, n=72, k=768),
    # the n tile widened past 8 tokens (max_m): 16 for M = 12, 64 on 4 warps for M = 40 over repacked W, the
    # weights still read once by a grid with no M dimension
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=16), m=12, n=72, k=768),
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=4, split_k=True, max_m=64, tiled_weights=True), m=40, n=72,
            k=768),
    MmqCase(MmqConfig(small_m=True, block_n=32, num_warps=2, max_m=32, k_blocks=2), m=17, n=40, k=1280),
    # griddepcontrol.wait first: a no-op for one grid at a time
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, wait_previous_grid=True), m=2, n=40,
            k=512),
    # ... and after the first weight copies (W marked qdot.not_written_by_previous_grid), repacked, one token
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, wait_previous_grid=True,
                      weights_before_wait=True, tiled_weights=True), m=1, n=40, k=512),
    # with the next two K steps' weights asked of L2 first (qdot.prefetch; the emulator checks every address):
    # repacked, and in ggml's order with N = 40 ragged against 16-row tiles (rows past N not asked for)
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, wait_previous_grid=True,
                      weights_before_wait=True, tiled_weights=True, prefetch_steps=2), m=1, n=40, k=1280),
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, prefetch_steps=2), m=3, n=40, k=1280),
]



@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_mmq_kernel_matches_reference(case: MmqCase) -> None:
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    # the q4_K side is u8: its nibbles are upcast in place (a high nibble as 16 q)
    assert any("s32.s8.u8.s32" in m or "s32.u8.s8.s32" in m for m in mnemonics), sorted(mnemonics)
    reduces = sum(1 for op in module.walk() if op.name == "ptx.red_global_add")
    assert (reduces > 0) == case.cfg.split_k
    emulate_and_check(module, case, seed=7)


OTHER_WEIGHT_CASES = [
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, weights=w), m=40, n=72, k=768) for w in ("q4_0", "q8_0")
] + [
    MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, weights=w), m=5, n=40, k=1280)
    for w in ("q4_0", "q8_0")
] + [
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q4_0"), m=1, n=72, k=768),
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True, weights="q4_0"),
            m=40, n=72, k=768),
] + [
    MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights=w, tiled_weights=True),
            m=1, n=72, k=768) for w in ("q4_0", "q8_0")
]


@pytest.mark.slow
@pytest.mark.parametrize("case", OTHER_WEIGHT_CASES, ids=[c.id for c in OTHER_WEIGHT_CASES])
def test_other_weights_match_reference(case: MmqCase) -> None:
    """q4_0 and q8_0 weights in the same kernels: eight 32-value blocks per K step, each scaled by its
    d (q4_0: d / 16 of its nibbles made s8 as 16 · (code − 8)), no dmin fold — an s8 × s8 mma."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    grid = (7, 1, 1) if case.cfg.stream_k else mmq_grid(case.cfg, case.m, case.n, case.k)
    data = make_inputs(case, np.random.default_rng(9))
    y = poisoned_output(case)
    emulate(module, case.cfg.name, [data["x"], kernel_weights(case.cfg, data["w"]), y, case.m, case.n, case.k], grid)
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id}: relative error {err:.3e}"


def _super_block_cases(weights: str) -> list[MmqCase]:
    """One prefill and four decode kernels (two super-blocks per stage, split-K, one-token, repacked
    weights) reading 256-value ``weights`` super-blocks."""
    return [
        MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, weights=weights), m=40, n=72, k=768),
        MmqCase(MmqConfig(small_m=True, block_n=32, num_warps=2, k_blocks=2, weights=weights), m=3, n=40, k=1280),
        MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, weights=weights), m=5, n=40, k=1280),
        MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights=weights), m=1, n=72,
                k=768),
        MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights=weights,
                          tiled_weights=True), m=1, n=72, k=768),
    ]


Q6K_CASES = _super_block_cases("q6_K")
Q5K_CASES = _super_block_cases("q5_K")
Q3K_CASES = _super_block_cases("q3_K")
Q2K_CASES = _super_block_cases("q2_K")
IQ4XS_CASES = _super_block_cases("iq4_xs")


@pytest.mark.slow
@pytest.mark.parametrize("case", Q6K_CASES, ids=[c.id for c in Q6K_CASES])
def test_q6_K_weights_match_reference(case: MmqCase) -> None:
    """q6_K weights in the same kernels: one 210-byte super-block per K step, its ql nibbles and qh
    bit pairs joined into s8 code − 32, each 32-value block's mma as two m16n8k16 halves weighted by
    their int8 scales in s32, then scaled by d · d_x — no fold, no magic-number form."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=10)


def _aligned_pair_cases(weights: str) -> list[MmqCase]:
    """Two 2-aligned super-blocks per K step with K a multiple of 512 (``k_divisibility``): each row's pair
    starts 4-aligned and is copied by 4-byte cp.async, row by row; N ragged (rows past it zero-filled), K
    split in two and three (a split's share a whole number of pairs)."""
    pairs = {"small_m": True, "k_blocks": 2, "k_divisibility": 512, "weights": weights}
    return [MmqCase(MmqConfig(block_n=32, num_warps=2, split_k=True, max_m=1, **pairs), m=1, n=40, k=1536),
            MmqCase(MmqConfig(block_n=16, num_warps=1, split_k=True, **pairs), m=5, n=40, k=2560),
            MmqCase(MmqConfig(block_n=64, num_warps=2, **pairs), m=3, n=72, k=1024)]


ALIGNED_PAIR_CASES = _aligned_pair_cases("q6_K") + _aligned_pair_cases("q3_K") + _aligned_pair_cases("q2_K")


@pytest.mark.slow
@pytest.mark.parametrize("case", ALIGNED_PAIR_CASES, ids=[c.id for c in ALIGNED_PAIR_CASES])
def test_aligned_pairs_of_2_aligned_blocks(case: MmqCase) -> None:
    """q6_K's 210-byte and q3_K's 110-byte blocks in ggml's order, two per K step with K a multiple of 512:
    every weight byte arrives by 4-byte cp.async (the emulator refuses a misaligned one), none by the
    2-byte synchronous copy the kernels take at K a multiple of 256 only; q2_K's 84-byte blocks, 4-aligned
    one by one, by 8-byte cp.async in pairs."""
    module = lower_mmq(case.cfg)
    sizes = {op.size.value.data for op in module.walk() if isinstance(op, CpAsyncOp)}
    assert (8 if case.cfg.weights == "q2_K" else 4) in sizes, sorted(sizes)
    assert not any(op.name == "ptx.ld_global" for op in module.walk()), "a synchronous copy is left"
    emulate_and_check(module, case, seed=23)


PREFILL_PAIR_CASES = [
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, k_blocks=2, k_divisibility=512, weights=w), m=40, n=72,
            k=1536, stages=s) for w, s in (("q6_K", 1), ("q3_K", 2), ("q2_K", 2), ("q4_K", 2))
] + [  # K of three steps: the second stage's second step lies past K, read as zeros
    MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, k_blocks=2, weights="q6_K"), m=40, n=72, k=768, stages=2),
    MmqCase(MmqConfig(block_m=16, block_n=32, num_warps=2, k_blocks=4, weights="q4_0"), m=20, n=40, k=1280, stages=2),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", PREFILL_PAIR_CASES, ids=[c.id for c in PREFILL_PAIR_CASES])
def test_prefill_with_several_steps_per_stage(case: MmqCase) -> None:
    """The prefill kernel with two (four) K steps per stage: with K a multiple of 512 q6_K's and q3_K's pairs are
    copied by 4-byte cp.async, q2_K's by 8-byte (no synchronous copy left); q4_K's dmin fold per step; a K that
    is not a multiple of the stage's steps (no ``k_divisibility``) ends in a stage half past K, its blocks zeros."""
    module = lower_mmq(case.cfg, num_stages=case.stages)
    if case.cfg.k_divisibility == 512 and case.cfg.weights != "q4_K":
        sizes = {op.size.value.data for op in module.walk() if isinstance(op, CpAsyncOp)}
        assert (8 if case.cfg.weights == "q2_K" else 4) in sizes, sorted(sizes)
        assert not any(op.name == "ptx.ld_global" for op in module.walk()), "a synchronous copy is left"
    emulate_and_check(module, case, seed=25)


@pytest.mark.slow
@pytest.mark.parametrize("weights", ("q6_K", "q3_K", "q2_K"))
def test_aligned_pairs_in_one_stage(weights: str) -> None:
    """The form bench.mmq times for q6_K and q3_K (run 227: 0.79–0.99 × the two-stage one's time), and q2_K's: each
    step's copy waited for in the same iteration and its one buffer reused by the next — six steps per
    program here (no K split), N ragged."""
    cfg = MmqConfig(small_m=True, block_n=64, num_warps=2, max_m=1, k_blocks=2, k_divisibility=512, weights=weights)
    emulate_and_check(lower_mmq(cfg, num_stages=1), MmqCase(cfg, m=1, n=72, k=3072, stages=1), seed=24)


@pytest.mark.slow
@pytest.mark.parametrize("case", Q3K_CASES, ids=[c.id for c in Q3K_CASES])
def test_q3_K_weights_match_reference(case: MmqCase) -> None:
    """q3_K weights in the same kernels: one 110-byte super-block per K step (2-aligned), its qs bit pairs
    and hmask bits joined into s8 32 · (code − 4), each 32-value block's mma as two m16n8k16 halves
    weighted by their 6-bit scales − 32 in s32, then scaled by d / 32 · d_x — q6_K's plan."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=16)


@pytest.mark.slow
@pytest.mark.parametrize("case", Q2K_CASES, ids=[c.id for c in Q2K_CASES])
def test_q2_K_weights_match_reference(case: MmqCase) -> None:
    """q2_K weights in the same kernels: one 84-byte super-block per K step, its 2-bit codes made u8 and
    multiplied by their 4-bit scale per 16 values (at most 45) at use, each 32-value block one m16n8k32 scaled
    by d · d_x in the magic form, and its 4-bit mins per 16 values a second m16n8k32 against the activations'
    int8 values (the min broadcast as the weight operand), folded by −dmin · d_x. The reference dequantizes
    both sides."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    integer = "u8.s8" if case.cfg.small_m else "s8.u8"  # q2_K the lhs of the decode kernels
    assert mnemonics == {f"mma.sync.aligned.m16n8k32.row.col.s32.{integer}.s32"}, sorted(mnemonics)
    mmas = sum(1 for op in module.walk() if op.name == "ptx.mma_sync")
    assert mmas % 2 == 0  # each block's two: the scaled codes' and the mins'
    emulate_and_check(module, case, seed=17)


@pytest.mark.slow
@pytest.mark.parametrize("case", Q5K_CASES, ids=[c.id for c in Q5K_CASES])
def test_q5_K_weights_match_reference(case: MmqCase) -> None:
    """q5_K weights in the same kernels: one 176-byte super-block per K step, its qs nibbles and qh
    bits joined into s8 codes 0..31, each 32-value block's s32 sum scaled by d · sc · d_x (the magic
    form), and q4_K's dmin term as one f16 mma per super-block against the q8_1_mmq sums."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
                         "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=12)


def _block_cases(weights: str) -> list[MmqCase]:
    """Two prefill kernels (ggml's order, repacked) and three decode kernels (split-K, one-token, repacked)
    reading eight 32-value ``weights`` blocks per K step."""
    return [
        MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, weights=weights), m=40, n=72, k=768),
        MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4, weights=weights, tiled_weights=True), m=40, n=72, k=768),
        MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, weights=weights), m=5, n=40, k=1280),
        MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights=weights), m=1, n=72,
                k=768),
        MmqCase(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights=weights,
                          tiled_weights=True), m=1, n=72, k=768),
    ]


MINNED_CASES = _block_cases("q4_1") + _block_cases("q5_1")
Q5_0_CASES = _block_cases("q5_0")


@pytest.mark.slow
@pytest.mark.parametrize("fold", ["auto", "fma", "mma"])
@pytest.mark.parametrize("case", MINNED_CASES, ids=[c.id for c in MINNED_CASES])
def test_q4_1_and_q5_1_weights_match_reference(case: MmqCase, fold: str) -> None:
    """q4_1 and q5_1 weights in the same kernels: eight 20- / 24-byte blocks per K step, their codes made
    u8 (q5_1's fifth bit from the block's qh word: an s8 × u8 mma), each block's s32 sum scaled by
    d · d_x (the magic form), and the + m taken against the q8_1_mmq sums — one f16 mma per K step
    (``auto`` in the prefill order, ``q4k-fold=mma`` in both) or an FMA per block (``auto`` as the
    decode kernels' lhs, ``q4k-fold=fma``)."""
    module = lower_mmq(case.cfg, q4k_fold=fold)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    integer = ("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32" if case.cfg.small_m
               else "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32")
    # auto: the f16 mma fold in the prefill order only (weights the rhs), an FMA per block as the decode lhs
    fold_mma = {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"} if fold == "mma" or (
        fold == "auto" and not case.cfg.small_m) else set()
    assert mnemonics == {integer} | fold_mma, sorted(mnemonics)
    emulate_and_check(module, case, seed=13, what=f" fold={fold}")


@pytest.mark.slow
@pytest.mark.parametrize("case", Q5_0_CASES, ids=[c.id for c in Q5_0_CASES])
def test_q5_0_weights_match_reference(case: MmqCase) -> None:
    """q5_0 weights: eight 22-byte blocks per K step (2-aligned: their quants and qh words read in 16-bit
    halves), codes made s8 8 · (code − 16) from the nibbles and the qh word's bits, scaled by d / 8 —
    an s8 × s8 mma, no fold."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=14)


MXFP4_CASES = _block_cases("mxfp4")
IQ4NL_CASES = _block_cases("iq4_nl")


@pytest.mark.slow
@pytest.mark.parametrize("case", IQ4NL_CASES, ids=[c.id for c in IQ4NL_CASES])
def test_iq4_nl_weights_match_reference(case: MmqCase) -> None:
    """ggml's iq4_nl weights: eight 18-byte blocks per K step (2-aligned, as q4_0's), each code looked up as
    s8 in kvalues_iq4nl (two table halves and a third prmt picking per byte), each block's s32 sum scaled by
    d · d_x — an s8 × s8 mma, no fold."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=18)


@pytest.mark.slow
@pytest.mark.parametrize("case", IQ4XS_CASES, ids=[c.id for c in IQ4XS_CASES])
def test_iq4_xs_weights_match_reference(case: MmqCase) -> None:
    """ggml's iq4_xs weights: one 136-byte super-block per K step, its codes looked up as iq4_nl's (eight
    32-value spans of q4_0's nibble pairs), each 32-value block's s32 sum scaled by d · (ls − 32) · d_x, the
    6-bit ls joined from scales_l and scales_h once per CTA — an s8 × s8 mma, no fold."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=19)


@pytest.mark.slow
@pytest.mark.parametrize("case", MXFP4_CASES, ids=[c.id for c in MXFP4_CASES])
def test_mxfp4_weights_match_reference(case: MmqCase) -> None:
    """ggml's mxfp4 weights: eight 17-byte blocks per K step (their quants at every alignment: words at
    1 and 3 mod 4 from the two aligned words around them), e2m1 codes looked up as s8 kvalues, each
    block's s32 sum scaled by 2^(e − 128) · d_x — an s8 × s8 mma, no fold."""
    module = lower_mmq(case.cfg)
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert mnemonics == {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"}, sorted(mnemonics)
    emulate_and_check(module, case, seed=15)


INTEGER_CASES = (IQ4XS_CASES[::2] + IQ4NL_CASES[::2] + Q6K_CASES[::2] + Q3K_CASES[::2] + Q2K_CASES[::2] + Q5K_CASES[::2] + MINNED_CASES[::2] + Q5_0_CASES[::2]
                 + MXFP4_CASES[::2])


@pytest.mark.slow
@pytest.mark.parametrize("case", INTEGER_CASES, ids=[c.id for c in INTEGER_CASES])
def test_super_block_integer_part_is_exact(case: MmqCase) -> None:
    """d = 1 and random codes (q6_K: random int8 scales in -4..3, q3_K 6-bit ones − 32 in -4..3; q5_K: sc = 1,
    m = 0; q4_1, q5_1: m = 0): Y is the exact integer dot of the activations' quants with sc · (code − 32),
    sc · (code − 4) or the 5-bit codes, bit for bit — each half block's s32 sum times its scale, added in s32;
    each value's qh (hmask) bits found where ggml puts them."""
    module = lower_mmq(case.cfg)
    data = integer_inputs(case, np.random.default_rng(11))
    y = poisoned_output(case)
    emulate(module, case.cfg.name, [data["x"], kernel_weights(case.cfg, data["w"]), y, case.m, case.n, case.k],
            mmq_grid(case.cfg, case.m, case.n, case.k))
    assert np.array_equal(y.astype(np.int64), data["exact"]), int((y.astype(np.int64) != data["exact"]).sum())



@pytest.mark.slow
@pytest.mark.parametrize("case", [CASES[0], CASES[3]], ids=[CASES[0].id, CASES[3].id])
def test_fma_fold_matches_reference(case: MmqCase) -> None:
    """``q4k-fold=fma``: the dmin term as an FMA per accumulator and block, no f16 mma."""
    module = lower_mmq(case.cfg, q4k_fold="fma")
    mnemonics = {op.ptx_mnemonic() for op in module.walk() if op.name == "ptx.mma_sync"}
    assert not any("f16" in m for m in mnemonics), sorted(mnemonics)
    emulate_and_check(module, case, seed=8, what=" fold=fma")


STREAM_K = MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True)


@pytest.mark.slow
@pytest.mark.parametrize("programs,what,cfg", [
    (7, "shares of 2 super-blocks: most tiles split between two programs", STREAM_K),
    (5, "shares of 3 = one whole tile each", STREAM_K),
    (2, "shares of 6: two whole tiles each, one segment after another", STREAM_K),
    (13, "more programs than iterations: the last has no work", STREAM_K),
    (7, "W repacked by tile_weights (the second 64-column tile 8 columns and 56 zero blocks)",
     dataclasses.replace(STREAM_K, tiled_weights=True)),
])
def test_stream_k_matches_reference(programs: int, what: str, cfg: MmqConfig) -> None:
    """Stream-K over 4 tiles × 3 super-blocks: whatever the grid, each (tile, super-block)
    iteration is computed by one program, whole tiles are stored and the pieces of split
    ones added (Y zeroed first); the emulator's checks cover the shared buffers each program
    reuses from one segment to the next."""
    case = MmqCase(cfg, m=40, n=72, k=768)
    module = lower_mmq(cfg)
    data = make_inputs(case, np.random.default_rng(programs))
    y = poisoned_output(case)
    assert (y == 0).all()  # a stream-K kernel adds into Y
    emulate(module, cfg.name, [data["x"], kernel_weights(cfg, data["w"]), y, case.m, case.n, case.k], (programs, 1, 1))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id} on {programs} programs ({what}): relative error {err:.3e}"


def test_stream_k_grid() -> None:
    """The SMs' slots, never more programs than (tile, super-block) iterations."""
    assert mmq_grid(MmqConfig(block_m=128, block_n=128, stream_k=True), 512, 3584, 3584) == (132, 1, 1)
    assert mmq_grid(MmqConfig(block_m=64, block_n=128, min_blocks_per_sm=2, stream_k=True), 512, 3584, 3584) == \
        (264, 1, 1)
    assert mmq_grid(STREAM_K, 40, 72, 768) == (12, 1, 1)  # 4 tiles × 3 super-blocks
    assert mmq_grid(STREAM_K, 40, 72, 768, programs=7) == (7, 1, 1)
    with pytest.raises(ValueError, match="stream_k is an option of the mmq kernel"):
        MmqConfig(small_m=True, stream_k=True)


def test_split_k_grid_balances_the_splits() -> None:
    """The default split count is the fewest splits with the longest split as short as the
    target gives: 56 super-blocks (K = 14336) on 64 tiles would be 16 splits of 3 or 4; 14 of 4
    take as long with fewer programs. Counts that divide evenly stay; overrides are honoured."""
    decode = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
    assert split_factor(64, 14336) == 14
    assert mmq_grid(decode, 1, 4096, 14336) == (64, 14, 1)
    assert mmq_grid(decode, 1, 32768, 8192) == (512, 2, 1)
    assert mmq_grid(decode, 1, 4096, 4096) == (64, 8, 1)
    assert mmq_grid(decode, 1, 3584, 3584) == (56, 7, 1)
    assert split_factor(4, 768) == 1  # 3 super-blocks, at least 2 per split
    assert split_factor(64, 14336, target=1 << 20, max_splits=19, min_blocks=1) == 19  # 3 each


def test_split_k_grid_avoids_a_short_second_wave() -> None:
    """With the programs the GPU holds at once (``resident``), a grid that would overflow them by a
    few takes the split count of least waves · (longest split + a program's overhead): the H200's
    132 SMs hold 8 one-token programs of 27136 B of shared memory each (1056: q4_K's 1024 fit, 2
    splits stay), 7 of 31488 B (q6_K: 924, so 3 splits, 1536 programs in two full-ish waves), 5 of
    39424 B (q8_0: 660, one split, and 10 at K = 14336 where 14 would overflow). Grids that fit keep
    the default (run 185)."""
    h200 = {"sms": 132, "shared_per_sm": 233472}
    assert [resident_programs(smem, **h200) for smem in (27136, 29184, 31488, 39424)] == [1056, 924, 924, 660]
    assert resident_programs(0, **h200) == 132 * 32  # no shared memory: the per-SM program limit
    assert resident_programs(4096, **h200, threads=256) == 132 * 8  # 2048 threads per SM
    assert resident_programs(15360, **h200, registers=166) == 132 * 6  # q2_K's decode: its registers bound it
    decode = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
    for resident, big, long_k in ((1056, 2, 14), (924, 3, 14), (660, 1, 10)):
        assert mmq_grid(decode, 1, 32768, 8192, resident=resident) == (512, big, 1)
        assert mmq_grid(decode, 1, 4096, 14336, resident=resident) == (64, long_k, 1)
        assert mmq_grid(decode, 1, 4096, 4096, resident=resident) == (64, 8, 1)
    assert split_factor(512, 8192, resident=1 << 20) == split_factor(512, 8192) == 2
    with pytest.raises(ValueError, match="resident must be the programs the GPU holds at once"):
        mmq_grid(decode, 1, 32768, 8192, resident=0)
    with pytest.raises(ValueError, match="resident_programs: sms must be a positive int, got 0"):
        resident_programs(1024, 0, 233472)


def test_spread_shared_bytes_caps_a_one_wave_grid() -> None:
    """The least dynamic shared memory (in 128-byte steps) at which an SM no longer takes more than ⌈programs /
    132⌉ programs of a one-wave grid; as it is where the kernel's own already caps them or the grid takes
    more than one wave (runs 196–199)."""
    h200 = {"sms": 132, "shared_per_sm": 233472}
    fits = lambda size: 233472 // (size + 1024)  # noqa: E731
    # iq4_xs's one-token kernel (24064 B: 9 per SM) at 32768 x 8192, 1024 programs: 8 per SM
    assert spread_shared_bytes(24064, 1024, **h200) == 24960 and fits(24960) == 8 and fits(24960 - 128) == 9
    assert spread_shared_bytes(27136, 1024, **h200) == 27136  # q4_K's: 8 per SM already
    assert fits(spread_shared_bytes(27136, 896, **h200)) == 7  # 4096 x 14336: 7 of 8
    assert spread_shared_bytes(31488, 1536, **h200) == 31488  # two waves: not capped
    assert spread_shared_bytes(15360, 1, **h200) == 115840  # one program: one per SM (116736 − 1024, up to 128 B)
    assert fits(spread_shared_bytes(15360, 1, **h200)) == 1
    with pytest.raises(ValueError, match="spread_shared_bytes: programs must be a positive int, got 0"):
        spread_shared_bytes(1024, 0, **h200)


SMALL_M_GRID_CONFIGS = [
    MmqConfig(small_m=True),
    MmqConfig(small_m=True, block_n=16, num_warps=1, max_m=3),
    MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True),
    MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1),
    MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, k_blocks=2, max_m=5),
    MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, interleave_splits=True),
    MmqConfig(small_m=True, block_n=32, num_warps=1, split_k=True, interleave_splits=True, max_m=1),
]


@pytest.mark.parametrize("cfg", SMALL_M_GRID_CONFIGS, ids=[c.name for c in SMALL_M_GRID_CONFIGS])
def test_small_m_grid_does_not_depend_on_m(cfg: MmqConfig) -> None:
    """Weights once (seed 000 §12.4: M never appears in the launch grid as a dimension that
    multiplies weight traffic): a decode grid is the same for every M the kernel serves, with
    split-K's defaults and overrides alike, so M tokens cost one pass over the weights."""
    for n, k, split in ((4096, 14336, {}), (32768, 8192, {}), (40, 1280, {}), (72, 2048, {"max_splits": 4}),
                        (4097, 4096, {"target": 1 << 20, "max_splits": 19, "min_blocks": 1})):
        grids = {m: mmq_grid(cfg, m, n, k, **split) for m in range(1, cfg.max_m + 1)}
        assert len(set(grids.values())) == 1, f"{cfg.name}, N = {n}, K = {k} {split}: {grids}"
        assert grids[1][0] == -(-n // cfg.block_n), grids[1]  # x: the weight-row tiles


@pytest.mark.parametrize("cfg,m,advice", [
    (MmqConfig(small_m=True, block_n=16, num_warps=1), 12,
     r"got M = 12: rows 8\.\.11 of Y would be left unwritten; use a small_m config with max_m ≥ 12 \(at most "
     r"SMALL_M_WIDEST = 64\) or the mmq kernel \(MmqConfig\(small_m=False\)\)"),
    (MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True), 9, r"row 8 of Y .* max_m ≥ 9 .* mmq kernel"),
    (MmqConfig(small_m=True, block_n=64, num_warps=4, split_k=True, max_m=64), 65,
     r"row 64 of Y .* use the mmq kernel \(MmqConfig\(small_m=False\)\) for M > 64: max_m cannot exceed "
     r"SMALL_M_WIDEST = 64"),
    (MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1), 2,
     r"serves M ≤ 1, got M = 2: row 1 of Y would be left unwritten; use a small_m config with max_m ≥ 2"),
    (MmqConfig(small_m=True, max_m=3), 8, r"rows 3\.\.7 of Y .* max_m ≥ 8 \(at most SMALL_M_WIDEST = 64"),
])
def test_small_m_grid_refuses_m_past_max_m(cfg: MmqConfig, m: int, advice: str) -> None:
    """A decode kernel's grid for more tokens than it serves would leave rows of Y unwritten
    (the audit's M = 12 on the M ≤ 8 kernel): refused, saying which kernel serves that M."""
    with pytest.raises(ValueError, match=f"mmq_grid: {cfg.name} .*{advice}"):
        mmq_grid(cfg, m, 4096, 4096)
    assert mmq_grid(cfg, cfg.max_m, 4096, 4096)[0] == -(-4096 // cfg.block_n)
    assert mmq_grid(MmqConfig(block_m=16, block_n=64), m, 4096, 4096) == (-(-m // 16) * 64, 1, 1)


def test_max_m_is_a_small_m_option() -> None:
    with pytest.raises(ValueError, match="max_m must be 1 to 64, got 65"):
        MmqConfig(small_m=True, max_m=65)
    with pytest.raises(ValueError, match="max_m is an option of the small_m kernel"):
        MmqConfig(max_m=1)
    with pytest.raises(ValueError, match="k_blocks must be a power of two, got 3"):
        MmqConfig(small_m=True, k_blocks=3)
    with pytest.raises(ValueError, match="k_blocks > 1 is an option of the small_m and mmq kernels, not of stream_k"):
        MmqConfig(stream_k=True, k_blocks=2)
    assert "%m_bound" not in mmq_kernel(MmqConfig(small_m=True))
    assert "%m_bound = arith.minui %m, %c1" in mmq_kernel(MmqConfig(small_m=True, max_m=1))


def test_k_divisibility_option() -> None:
    """The K the kernel assumes a multiple of: named in the kernel (``_kd512``), stated on ``%k``; a value
    that is not a power of two from 256 up is refused when the config is made."""
    cfg = MmqConfig(small_m=True, k_blocks=2, k_divisibility=512, weights="q6_K")
    assert cfg.name == "small_m_q8_1_q6_K_128_w4_kb2_kd512"
    assert "%k: index {qdot.divisibility = 512 : i64}" in mmq_kernel(cfg)
    assert "%k: index {qdot.divisibility = 256 : i64}" in mmq_kernel(MmqConfig(small_m=True))
    for bad in (128, 768):
        with pytest.raises(ValueError, match=f"k_divisibility must be a power of two ≥ 256, got {bad}"):
            MmqConfig(k_divisibility=bad)


def test_k_divisibility_is_checked_at_launch() -> None:
    """A K the kernel was not compiled for (five super-blocks, for K a multiple of 512) is refused before the
    launch — the runner and the emulator ask the same ``check_divisibility`` — not read misaligned."""
    from compiler.api import compile as compile_kernel

    cfg = MmqConfig(small_m=True, block_n=16, num_warps=1, k_blocks=2, k_divisibility=512, weights="q6_K")
    info = compile_kernel(mmq_kernel(cfg), arch="sm_90", num_stages=2).kernels[0]
    info.check_divisibility([0, 0, 0, 1, 40, 1024])
    with pytest.raises(ValueError, match=r"argument 5 of 'small_m_q8_1_q6_K_16_w1_kb2_kd512' must be a multiple "
                                         r"of 512 \(the kernel was compiled with qdot.divisibility = 512\), got 1280"):
        info.check_divisibility([0, 0, 0, 1, 40, 1280])


def test_weights_option() -> None:
    """A weight format the kernels do not take is refused when the config is made; the others
    name their kernels and index eight 32-value blocks per K step (q4_K's text has no %kwb)."""
    with pytest.raises(ValueError, match="weights must be one of q4_K, q4_0, q8_0, q6_K, q5_K, q4_1, q5_0, q5_1, "
                                         "mxfp4, q3_K, q2_K, iq4_nl, iq4_xs, got 'q8_1'"):
        MmqConfig(weights="q8_1")
    assert MmqConfig(weights="q8_0").name == "mmq_q8_1_q8_0_64x128_w4"
    assert "%kwb" not in mmq_kernel(MmqConfig())
    assert "%kkw = arith.muli %kk, %c8 : index" in mmq_kernel(MmqConfig(weights="q4_0"))


def test_interleave_splits_option() -> None:
    """Split y of S reads K steps y, y + S, …: the loop starts at the program's y index and steps by
    the grid's y extent; the contiguous form is unchanged, and the option needs split-K."""
    with pytest.raises(ValueError, match="interleave_splits is an option of the small_m kernel with split_k"):
        MmqConfig(small_m=True, interleave_splits=True)
    with pytest.raises(ValueError, match="interleave_splits"):
        MmqConfig(interleave_splits=True)
    base = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
    one = dataclasses.replace(base, interleave_splits=True)
    two = dataclasses.replace(base, interleave_splits=True, k_blocks=2)
    assert one.name == base.name.replace("_splitk", "_splitk_il")
    assert "scf.for %kk = %pid_k to %kw step %splits iter_args" in mmq_kernel(one)
    assert "%k_step = arith.muli %splits, %c2 : index" in mmq_kernel(two)
    assert "scf.for %kk = %k_lo to %kw step %k_step iter_args" in mmq_kernel(two)
    assert "%k_per" not in mmq_kernel(one) and "%k_per" in mmq_kernel(base)
    # the lit test of the lowering holds the template's text, byte for byte
    lit = Path(__file__).resolve().parents[1] / "lit" / "targets" / "ptx" / "split-k-interleaved.mlir"
    text = lit.read_text(encoding="utf-8")
    small = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, interleave_splits=True)
    assert text[text.index("func.func"):] == mmq_kernel(small)[mmq_kernel(small).index("func.func"):]


def test_tiled_weights_option() -> None:
    """Kernels with one K step per stage (``tile_weights`` groups one step's blocks per row); the
    weight descriptor is then a matrix of tiles · K/256 · block_n rows of one step's blocks, K
    contiguous, and the load's row the program's tile and K step times block_n — the decode
    kernel's W is its lhs ([rows, K]), the prefill kernel's its rhs ([K, rows])."""
    with pytest.raises(ValueError, match="tiled_weights needs k_blocks = 1"):
        MmqConfig(small_m=True, tiled_weights=True, k_blocks=2)
    prefill = mmq_kernel(MmqConfig(tiled_weights=True))
    assert "qdot.make_desc %w_ptr, [%c1, %w_rows], [%c1, %c1]" in prefill
    assert "%w_row = arith.addi %w_tile_row, %w_step : index" in prefill
    assert "%w = qdot.load %w_desc[%c0, %w_row]" in prefill
    assert "%w_row" not in mmq_kernel(MmqConfig())
    cfg = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, tiled_weights=True)
    text = mmq_kernel(cfg)
    assert cfg.name == "small_m_q8_1_q4_K_64_w2_splitk_wt"
    assert "qdot.make_desc %w_ptr, [%w_rows, %c1], [%c1, %c1]" in text
    assert "%tile_first = arith.muli %pid, %kw : index" in text
    assert "%w_row = arith.muli %w_step, %c64 : index" in text
    assert "%w = qdot.load %w_desc[%w_row, %c0]" in text
    eight = mmq_kernel(dataclasses.replace(cfg, weights="q8_0"))
    assert "qdot.make_desc %w_ptr, [%w_rows, %c8], [%c8, %c1]" in eight and "%kkw" not in eight
    assert "%w_row" not in mmq_kernel(dataclasses.replace(cfg, tiled_weights=False))


@pytest.mark.parametrize("weights,bv,size", [("q4_K", 256, 144), ("q4_0", 32, 18), ("q8_0", 32, 34), ("q6_K", 256, 210),
                                               ("q5_K", 256, 176)])
def test_tile_weights_order(weights: str, bv: int, size: int) -> None:
    """Block b of row r (ggml's [N, K/bv, bytes]) lands in tile r // rows, K step b // (256 / bv),
    row r % rows, unchanged; the rows of the last tile past N are zero blocks."""
    rng = np.random.default_rng(5)
    per = 256 // bv
    w = rng.integers(0, 256, size=(40, 3 * per, size), dtype=np.uint8)
    cfg = MmqConfig(small_m=True, block_n=16, weights=weights, tiled_weights=True)
    tiled = tile_weights(w, cfg)
    assert tiled.shape == (3, 3, 16, per * size) and tiled.flags.c_contiguous
    for r, b in ((0, 0), (17, 3 * per - 1), (39, per)):
        step, within = divmod(b, per)
        assert np.array_equal(tiled[r // 16, step, r % 16, within * size:(within + 1) * size], w[r, b])
    assert not tiled[2, :, 8:].any()
    assert np.array_equal(tile_weights(w.reshape(40, -1), cfg), tiled)
    eight = tile_weights(w, dataclasses.replace(cfg, block_n=8))
    assert np.array_equal(eight.transpose(0, 2, 1, 3).reshape(40, 3 * per, size), w)


def test_tile_weights_refusals() -> None:
    """What is not the config's blocks, or a config that reads ggml's order, is refused by name."""
    cfg = MmqConfig(small_m=True, block_n=16, tiled_weights=True)
    w = np.zeros((40, 3, 144), np.uint8)
    for bad in (w.astype(np.int16), w[..., :100], w.reshape(40, 3, 16, 9), w[:, :1, :100], w[:0]):
        with pytest.raises(ValueError, match="tile_weights: expected q4_K blocks as uint8"):
            tile_weights(bad, cfg)
    with pytest.raises(ValueError, match="tile_weights: expected q8_0 blocks .* K a multiple of 256"):
        tile_weights(np.zeros((4, 7, 34), np.uint8), dataclasses.replace(cfg, weights="q8_0"))
    with pytest.raises(ValueError, match=r"tile_weights: small_m_q8_1_q4_K_16_w4 reads W in ggml's order"):
        tile_weights(w, dataclasses.replace(cfg, tiled_weights=False))


def test_l2_prefetch_option() -> None:
    """64, 128 or 256 bytes or none; in the kernel's name and as ``qdot.l2_prefetch``."""
    with pytest.raises(ValueError, match=r"l2_prefetch must be 0 \(none\), 64, 128 or 256 \(bytes\), got 32"):
        MmqConfig(small_m=True, l2_prefetch=32)
    hinted = MmqConfig(small_m=True, l2_prefetch=128)
    assert hinted.name.endswith("_l2p128")
    assert "qdot.l2_prefetch = 128 : i64" in mmq_kernel(hinted)
    assert "l2_prefetch" not in mmq_kernel(MmqConfig(small_m=True))


@pytest.mark.slow
def test_l2_prefetch_hint_changes_no_value() -> None:
    """The one-token decode kernel as benchmarked (``q4k-fold=fma``) with ``l2_prefetch = 128``:
    every cp.async carries the hint, and Y is bit for bit what the kernel without it writes (the
    hint only tells L2 how much to fetch; the emulator ignores it)."""
    plain = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1)
    case = MmqCase(plain, m=1, n=72, k=768)
    data = make_inputs(case, np.random.default_rng(11))
    outputs = []
    for cfg in (plain, dataclasses.replace(plain, l2_prefetch=128)):
        module = lower_mmq(cfg, q4k_fold="fma")
        hints = {op.l2_prefetch_bytes for op in module.walk() if isinstance(op, CpAsyncOp)}
        assert hints == {cfg.l2_prefetch or None}, (cfg.name, hints)
        y = poisoned_output(case)
        emulate(module, cfg.name, [data["x"], data["w"], y, case.m, case.n, case.k],
                mmq_grid(cfg, case.m, case.n, case.k))
        outputs.append(y)
    ok, err = check(outputs[1], reference(case, data))
    assert ok, f"relative error {err:.3e}"
    assert np.array_equal(outputs[0], outputs[1])


@pytest.mark.slow
def test_one_token_kernel_leaves_rows_past_max_m() -> None:
    """A max_m = 1 kernel launched with M = 2 computes row 0 and leaves row 1 as it was (on a
    grid built for M = 1: ``mmq_grid`` refuses M = 2; the grid does not depend on M)."""
    case = MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, max_m=1), m=2, n=40, k=512)
    module = lower_mmq(case.cfg)
    data = make_inputs(case, np.random.default_rng(3))
    y = poisoned_output(case)
    emulate(module, case.cfg.name, [data["x"], data["w"], y, case.m, case.n, case.k],
            mmq_grid(case.cfg, case.cfg.max_m, case.n, case.k))
    ok, err = check(y[:1], reference(case, data)[:1])
    assert ok, f"row 0: relative error {err:.3e}"
    assert np.isnan(y[1]).all()


def test_weights_before_wait_option() -> None:
    """``weights_before_wait`` marks W ``qdot.not_written_by_previous_grid`` (and nothing else), so the compiled
    kernel's wait comes after its first weight copies and before the activations'; it needs the wait it moves."""
    with pytest.raises(ValueError, match="weights_before_wait is an option of wait_previous_grid"):
        MmqConfig(small_m=True, weights_before_wait=True)
    waits = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                      tiled_weights=True)
    early = dataclasses.replace(waits, weights_before_wait=True)
    assert early.name == waits.name + "_wbw"
    text = mmq_kernel(early)
    assert text.count("qdot.not_written_by_previous_grid") == 1
    assert "%w_ptr: !qdot.ptr<!qdot.block<q4_K>> {qdot.not_written_by_previous_grid}" in text
    assert mmq_kernel(waits) == text.replace(" {qdot.not_written_by_previous_grid}", "").replace("_wbw", "")
    ptx = qdot_compile(text, arch="sm_90", strategy="promote-int8", num_stages=2).ptx
    body = ptx[ptx.index(".entry"):]
    before, after = body.split("griddepcontrol.wait;")
    # the first stage: 9 of W's 16-byte copies per thread (64 rows of 144 bytes, 64 threads), then X's 3
    assert before.count("cp.async.cg.shared.global") == 9
    assert after.index("cp.async.cg.shared.global") < after.index("cp.async.commit_group")
    # three stages: qdot-pipeline's prologue copies both stages' weights first, so both go ahead of the wait
    ptx = qdot_compile(text, arch="sm_90", strategy="promote-int8", num_stages=3).ptx
    before, after = ptx[ptx.index(".entry"):].split("griddepcontrol.wait;")
    assert before.count("cp.async.cg.shared.global") == 18
    assert "cp.async.commit_group" not in before


def test_prefetch_steps_option() -> None:
    """``prefetch_steps`` asks L2 for the program's next K steps' weight tiles before its K loop: a loop of
    ``qdot.prefetch`` from the share's second step, as many steps as asked and not past the share; it needs the
    split-K weights-once kernel with contiguous splits, and at most ``MAX_PREFETCH_STEPS``."""
    with pytest.raises(ValueError, match="prefetch_steps is an option of the small_m kernel with split_k"):
        MmqConfig(prefetch_steps=1)
    with pytest.raises(ValueError, match="prefetch_steps is an option of the small_m kernel with split_k"):
        MmqConfig(small_m=True, prefetch_steps=1)
    with pytest.raises(ValueError, match="prefetch_steps is an option of the small_m kernel with split_k"):
        MmqConfig(small_m=True, split_k=True, interleave_splits=True, prefetch_steps=1)
    with pytest.raises(ValueError, match="prefetch_steps must be 0 to 16, got 17"):
        MmqConfig(small_m=True, split_k=True, prefetch_steps=17)
    base = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True)
    three = dataclasses.replace(base, prefetch_steps=3)
    assert three.name == base.name + "_pf3" and "qdot.prefetch" not in mmq_kernel(base)
    text = mmq_kernel(three)
    assert "  %pf_lo = arith.addi %k_lo, %c1 : index" in text
    assert "  %pf_end = arith.addi %pf_lo, %c3 : index" in text
    assert "  %pf_hi = arith.minui %pf_end, %k_hi : index" in text
    assert "    qdot.prefetch %w_desc[%p_row, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>>" in text
    ggml = mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, prefetch_steps=1))
    assert "    qdot.prefetch %w_desc[%off_n, %kp] : !qdot.desc<64x1x!qdot.block<q4_K>>" in ggml

"""The template kernel kinds added since the first ptxas tests (the bf16 epilogue, paired f32
stores, the magic-number MX rescale, stream-K, the zeroing quantize kernel, decode K steps of
several super-blocks, programmatic dependent launch, persistent GEMMs, the 16-byte raw reads of
the dequantize-once conversion, the staged f32 epilogue, promote-fp8's e4m3 staging on sm_89,
fp16 × NVFP4 with folded scales), through ptxas.

The emulator and the GPU suite check what these kernels compute; this checks, on any
machine with ptxas, that the PTX qdot emits for each of them assembles for its target
(``compiler.compile(..., verify=True)`` runs ``ptxas -v`` and raises on a rejection), and
that each contains the instruction its feature is about (the bf16 pair stores are 4-byte
stores, the f32 pairs 8-byte ones, the MX int8 block mma starts from 1.5 · 2^23's bits, stream-K
adds split tiles atomically, the zeroing kernel stores more than the plain one,
the grid-dependency kernels carry their griddepcontrol instruction, the L2-prefetch kernel its
hinted cp.async, the persistent kernels' wgmma runs one step behind and their tile arithmetic
is 32-bit, the conversion reads 16-byte runs with ld.shared.v4, the staged epilogue stores
16-byte row pieces).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler import compile as qdot_compile
from compiler.mmq_template import MmqConfig, mmq_fixup_kernel, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.quantize_template import quantize_kernel
from compiler.templates import GemmConfig, gemm_kernel
from compiler.tools import find_ptxas

pytestmark = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")

KERNELS = [
    # (id, source, arch, strategy, stages, a PTX instruction the kernel must contain)
    # promote-fp8 on sm_89 with the e2m1 tile converted to e4m3 once per CTA: every operand by ldmatrix
    ("gemm-promote-fp8-staged-sm89", gemm_kernel(GemmConfig(block_k=64, num_warps=8)), "sm_89", "promote-fp8", 3,
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
    # fp16 compute with NVFP4's ue4m3 scales folded into the values: the f16 mma, no per-block rescale
    ("gemm-fp16-nvfp4-folded", gemm_kernel(GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3",
                                                      block_k=64, num_warps=8)), "sm_90", "dequant-bf16", 3,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ("gemm-bf16-out-sm90", gemm_kernel(GemmConfig(block_k=64, num_warps=8, out="bf16")), "sm_90", "dequant-bf16", 3,
     "st.global.b16"),
    ("gemm-bf16-out-pairs-sm90a",
     gemm_kernel(GemmConfig(block_n=256, block_k=64, num_warps=8, out="bf16", n_divisibility=8)), "sm_90a",
     "dequant-bf16", 4, "st.global.b32"),
    ("gemm-bf16-out-int8", gemm_kernel(GemmConfig(lhs="e2m1", out="bf16")), "sm_90", "promote-int8", 3,
     "cvt.rn.bf16x2.f32"),
    ("gemm-f32-pairs-sm90a", gemm_kernel(GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8)),
     "sm_90a", "dequant-bf16", 4, "st.global.v2.b32"),
    ("gemm-f32-pairs-int8", gemm_kernel(GemmConfig(lhs="e2m1", n_divisibility=8)), "sm_90", "promote-int8", 3,
     "st.global.v2.b32"),
    ("gemm-mx-int8-magic-rescale", gemm_kernel(GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8)), "sm_90",
     "promote-int8", 3, "1262485504;"),
    ("mmq-stream-k", mmq_kernel(MmqConfig(block_m=128, block_n=128, num_warps=8, stream_k=True)), "sm_90",
     "promote-int8", 2, "red.global.add.f32"),
    ("quantize-zero-y", quantize_kernel("q8_1_mmq", zero_output=True), "sm_90", "auto", 3, "st.global"),
    ("quantize-launch-dependents", quantize_kernel("q8_1_mmq", zero_output=True, launch_dependents=True), "sm_90",
     "auto", 3, "griddepcontrol.launch_dependents;"),
    ("decode-four-super-blocks-per-step",
     mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, k_blocks=4)), "sm_90",
     "promote-int8", 2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    ("decode-interleaved-splits",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, interleave_splits=True)),
     "sm_90", "promote-int8", 2, "%nctaid.y"),
    ("decode-wait-previous-grid",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True)),
     "sm_90", "promote-int8", 2, "griddepcontrol.wait;"),
    ("decode-weights-before-wait",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True,
                          weights_before_wait=True, tiled_weights=True)), "sm_90", "promote-int8", 2,
     "griddepcontrol.wait;"),
    ("decode-prefetch-steps",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                          weights_before_wait=True, tiled_weights=True, prefetch_steps=3)), "sm_90", "promote-int8", 2,
     "prefetch.global.L2"),
    ("decode-prefetch-steps-ggml-order",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, prefetch_steps=2)), "sm_80",
     "promote-int8", 2, "prefetch.global.L2"),
    ("gemm-persistent-wgmma",
     gemm_kernel(GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8, persistent=True)), "sm_90a",
     "dequant-bf16", 3, "wgmma.wait_group.sync.aligned 1;"),
    ("gemm-persistent-int8", gemm_kernel(GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8,
                                                    persistent=True)), "sm_90", "promote-int8", 3, "div.u32"),
    ("gemm-dequant-16-byte-raw-reads", gemm_kernel(GemmConfig(block_k=64, num_warps=8)), "sm_90", "dequant-bf16", 3,
     "ld.shared.v4.b32"),
    # q4_0 / q8_0 weights: eight 32-value blocks per K step, s8 × s8 (q4_0's nibbles made 16 · (code − 8))
    ("mmq-q4_0-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q4_0")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
    ("decode-q4_0-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q4_0")), "sm_90",
     "promote-int8", 2, "-2139062144;"),
    ("decode-q8_0-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q8_0")), "sm_90",
     "promote-int8", 2, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
    # q6_K weights: each 32-value block as two m16n8k16 halves weighted by the int8 scales in s32
    ("mmq-q6_K-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q6_K")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"),
    ("decode-q6_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q6_K")), "sm_90",
     "promote-int8", 2, "cvt.s32.s8"),
    ("decode-tiled-q6_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q6_K", tiled_weights=True)),
     "sm_90", "promote-int8", 2, "mad.lo.s32"),
    # q5_K weights: qs nibbles and the qh bit joined into s8 codes (one lop3 per register), q4_K's dmin fold
    ("mmq-q5_K-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q5_K")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ("decode-q5_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q5_K")), "sm_90",
     "promote-int8", 2, "lop3.b32"),
    ("decode-tiled-q5_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q5_K", tiled_weights=True)),
     "sm_90", "promote-int8", 2, "cp.async.cg.shared.global"),
    # q4_1 weights: codes made u8 (and + shift), its + m by the f16 fold mma against q8_1_mmq's sums in the
    # prefill, by FMA as the decode kernels' lhs
    ("mmq-q4_1-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q4_1")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"),
    ("decode-q4_1-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q4_1")), "sm_90",
     "promote-int8", 2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    ("decode-tiled-q4_1-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q4_1", tiled_weights=True)),
     "sm_90", "promote-int8", 2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    # q5_0 / q5_1 weights: q4_0's nibbles joined with the qh word's bits (a multiply spreads them), q5_0
    # s8 × s8 with no fold, q5_1 u8 with q4_1's m fold
    ("mmq-q5_0-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q5_0")), "sm_90", "promote-int8", 2,
     ", 270549120;"),  # × 0x10204080: the fifth bits spread to bit 7 of each byte
    ("decode-q5_0-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q5_0")), "sm_90",
     "promote-int8", 2, ", 270549120;"),
    ("mmq-q5_1-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q5_1")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ("decode-tiled-q5_1-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q5_1", tiled_weights=True)),
     "sm_90", "promote-int8", 2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    # mxfp4 weights: e2m1 codes looked up as s8 by prmt from two table words (the kvalues of codes 0-3, 4-7),
    # 17-byte blocks read at every alignment (two aligned words and a prmt at 1 and 3 mod 4)
    ("mmq-mxfp4-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="mxfp4")), "sm_90", "promote-int8", 2,
     ", 50462976, 201852420, "),
    ("decode-tiled-mxfp4-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="mxfp4",
                          tiled_weights=True)), "sm_90", "promote-int8", 2, ", 50462976, 201852420, "),
    # q3_K weights: 2-bit fields and hmask bits joined into s8 32 · (code − 4) (the low bits masked by
    # 0x60606060), each 32-value block as two m16n8k16 halves weighted by the 6-bit scales − 32 in s32
    ("mmq-q3_K-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q3_K")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"),
    ("decode-tiled-q3_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q3_K",
                          tiled_weights=True)), "sm_90", "promote-int8", 2, "1616928864"),
    # q2_K weights: u8 codes 0..3 times their 4-bit scale (s8 × u8 as the prefill's rhs, u8 × s8 as the decode
    # kernels' lhs), and the 4-bit mins per 16 values a second m16n8k32 whose operand repeats each min (prmt)
    ("mmq-q2_K-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q2_K")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"),
    ("decode-tiled-q2_K-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="q2_K",
                          tiled_weights=True)), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    # iq4_nl weights: each code looked up in kvalues_iq4nl by two prmt of the table's halves and a third
    # picking per byte (selectors 0x3210 + 4 where a code's top bit is set)
    ("decode-tiled-iq4_nl-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="iq4_nl",
                          tiled_weights=True)), "sm_90", "promote-int8", 2, "839922192"),
    # iq4_xs weights: iq4_nl's lookup, and each 32 values' d · (ls − 32) from the packed 6-bit ls, once per CTA
    ("decode-tiled-iq4_xs-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, weights="iq4_xs",
                          tiled_weights=True)), "sm_90", "promote-int8", 2, "839922192"),
    ("mmq-iq4_xs-weights", mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="iq4_xs")), "sm_90", "promote-int8", 2,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
    ("decode-l2-prefetch",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, l2_prefetch=128)),
     "sm_90", "promote-int8", 2, "cp.async.cg.shared.global.L2::128B"),
    # weights repacked by tile_weights: each K step's tile one run of 16-byte copies
    ("decode-tiled-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True)),
     "sm_90", "promote-int8", 2, "cp.async.cg.shared.global"),
    # the bank-conflict layouts, each from its kernel attribute: the one-token kernel's activation rows padded
    # (qdot.pad_block_rows, choose_mmq's for q4_K, q3_K, q4_1 and q5_1) or its token 0 read as every column
    # (qdot.broadcast_rhs: every lane of an ldmatrix matrix on one row address), and the 8-token kernel's fold
    # operands swizzled (qdot.swizzle_fold_buffers, choose_mmq's), still read by ldmatrix
    ("decode-tiled-padded-rows",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True,
                          q4k_fold="fma", pad_block_rows=True)),
     "sm_90", "promote-int8", 2, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
    ("decode-tiled-broadcast-rhs",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True,
                          q4k_fold="fma", broadcast_rhs=True)),
     "sm_90", "promote-int8", 2, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
    ("decode-tiled-swizzled-folds",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, tiled_weights=True,
                          swizzle_fold_buffers=True)),
     "sm_90", "promote-int8", 2, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ("decode-tiled-q8_0-weights",
     mmq_kernel(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, weights="q8_0", tiled_weights=True)),
     "sm_90", "promote-int8", 2, "cp.async.cg.shared.global"),
    # native sm_120a at Triton's best configuration for mixed fp8 × fp4 (128×128×128, 4 warps, 2 stages, where
    # ptxas is at its register limit): fp4 B read by the sub-byte ldmatrix from fp4Padded rows, fp4 on A (the
    # block-scaled mma the other way round), and unscaled fp4 × fp4 (kind::f8f6f4: without scales there is no
    # packed fp4 form). lit targets/ptx/assemble.mlir assembles e4m3 × e2m1 kernels only.
    ("gemm-native-e4m3xe2m1-sm120a", gemm_kernel(GemmConfig(lhs="e4m3", rhs="e2m1", num_warps=4)), "sm_120a",
     "native", 2, "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64"),
    ("gemm-native-e2m1xe4m3-sm120a", gemm_kernel(GemmConfig(lhs="e2m1", rhs="e4m3", num_warps=4)), "sm_120a",
     "native", 2, "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0"),
    ("gemm-native-e2m1xe2m1-unscaled-sm120a",
     gemm_kernel(GemmConfig(lhs="e2m1", rhs="e2m1", lhs_scale=None, rhs_scale=None, num_warps=4)), "sm_120a", "native",
     2, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"),
]


@pytest.mark.parametrize("source,arch,strategy,stages,instruction", [k[1:] for k in KERNELS],
                         ids=[k[0] for k in KERNELS])
def test_kernel_assembles(source: str, arch: str, strategy: str, stages: int, instruction: str) -> None:
    kernel = qdot_compile(source, arch=arch, strategy=strategy, num_stages=stages, verify=True)
    assert kernel.artifact.report is not None and "Used" in kernel.artifact.report
    assert instruction in kernel.ptx


STREAM_K_FIXUP = MmqConfig(min_blocks_per_sm=2, stream_k=True, fixup=True)  # choose_mmq's from M = 96
SPLIT_K_FIXUP = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, fixup=True)


@pytest.mark.parametrize("source,stages,instruction", [
    (mmq_kernel(STREAM_K_FIXUP), 2, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"),
    (mmq_fixup_kernel(STREAM_K_FIXUP), 2, "ld.global.v4.b32"),  # four pieces at once
    (mmq_fixup_kernel(STREAM_K_FIXUP, unroll=0), 2, "ld.global.v4.b32"),  # the loop alone
    (mmq_kernel(SPLIT_K_FIXUP), 2, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"),
    (mmq_fixup_kernel(SPLIT_K_FIXUP), 2, "ld.global.v4.b32"),
    (mmq_kernel(replace(STREAM_K_FIXUP, fixup_in_gemm=True)), 2, "atom.global.add.u32"),
    (mmq_kernel(replace(SPLIT_K_FIXUP, fixup_in_gemm=True)), 2, "atom.global.add.u32"),
    (mmq_kernel(replace(SPLIT_K_FIXUP, max_m=8, fixup_in_gemm=True, quantize_in_gemm=True)), 2, "bar.red.or.pred"),
], ids=["stream-k-gemm", "stream-k-fixup", "stream-k-fixup-loop", "split-k-gemm", "split-k-fixup",
        "stream-k-in-gemm", "split-k-in-gemm", "split-k-one-launch"])
def test_fixup_kernels_assemble_without_atomics(source: str, stages: int, instruction: str) -> None:
    """The fix-up GEMMs store their pieces in a workspace and the fix-up kernels add them with 16-byte register
    loads: ptxas takes each, and none adds atomically (that is what makes their Y the same bits every launch). The
    GEMMs with the fix-up in their last program (and the one-launch decode, which also quantizes X) count their
    programs in with an integer atom.global.add and vote with bar.red.or.pred; their sums are no atomics either."""
    kernel = qdot_compile(source, arch="sm_90", strategy="promote-int8", num_stages=stages, verify=True)
    assert kernel.artifact.report is not None and "Used" in kernel.artifact.report
    assert instruction in kernel.ptx and "red.global.add" not in kernel.ptx


def test_stream_k_fixup_stores_y_in_16_byte_runs() -> None:
    """The stream-K fix-up's sums (a blocked layout of 16-byte runs) reach Y as st.global.v4, not v2 pairs."""
    kernel = qdot_compile(mmq_fixup_kernel(STREAM_K_FIXUP), arch="sm_90", verify=True)
    assert "st.global.v4.b32" in kernel.ptx and "st.global.v2" not in kernel.ptx


@pytest.mark.parametrize("cfg,arch,stages", [
    (GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8), "sm_90a", 3),
    (GemmConfig(block_k=64, num_warps=8, min_blocks_per_sm=2, n_divisibility=8), "sm_90a", 2),
], ids=["128x256", "128x128-b2"])
def test_staged_epilogue_assembles(cfg: GemmConfig, arch: str, stages: int) -> None:
    """``qdot-to-llvm{epilogue=staged}``: the pairs go to shared memory, rows come back as 16-byte
    vectors and leave as 16-byte global stores — and ptxas takes it."""
    pipeline = ptx_pipeline(PtxOptions(arch=arch, strategy="dequant-bf16", num_stages=stages, epilogue="staged"))
    kernel = qdot_compile(gemm_kernel(cfg), arch=arch, pipeline=pipeline, verify=True)  # the pipeline carries them
    assert kernel.artifact.report is not None and "Used" in kernel.artifact.report
    assert "st.shared.v2.b32" in kernel.ptx and "st.global.v4.b32" in kernel.ptx
    assert "st.global.v2.b32" not in kernel.ptx


def test_prefill_reads_repacked_q6_K_in_16_byte_copies() -> None:
    """The prefill kernel with q6_K weights: in ggml's order a K step's 210-byte blocks start 2-aligned
    and are loaded 2 bytes at a time (``ld.global.b16``); repacked by ``tile_weights`` (a program's
    128 rows of a step one 26880-byte run) there is no global load but cp.async — and ptxas takes both."""
    ptx = {}
    for tiled in (False, True):
        kernel = qdot_compile(mmq_kernel(MmqConfig(min_blocks_per_sm=2, weights="q6_K", tiled_weights=tiled)),
                              arch="sm_90", strategy="promote-int8", num_stages=2, verify=True)
        assert kernel.artifact.report is not None and "Used" in kernel.artifact.report
        ptx[tiled] = kernel.ptx
    assert "ld.global.b16" in ptx[False]
    assert "ld.global" not in ptx[True] and "cp.async.cg.shared.global" in ptx[True]


def test_persistent_tile_arithmetic_is_32_bit() -> None:
    """A 64-bit division is a subroutine call in SASS; in the persistent loop, which carries a
    whole accumulator tile, its calling convention made ptxas spill 5 KB of registers on the
    promote-int8 kernel (255 registers) and run 26 × slower (run 60). The loop's tile
    arithmetic is 32-bit: its divisions are ``div.u32`` and the spills stay at the one-tile
    kernel's level (80 bytes there, 20 here)."""
    import re

    from compiler.templates import grid

    cfg = GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8, persistent=True)
    kernel = qdot_compile(gemm_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=3, verify=True)
    # the loop's six divisions are 32-bit; the one 64-bit division left is the program's tile
    # count, once before the loop (a 64-bit loop had six more, and 5 KB of spills)
    assert len(re.findall(r"\b(?:div|rem)\.u64", kernel.ptx)) <= 1
    assert len(re.findall(r"\bdiv\.u32", kernel.ptx)) >= 6
    spilled = re.search(r"(\d+) bytes spill stores", kernel.artifact.report or "")
    assert spilled is not None and int(spilled.group(1)) <= 128, kernel.artifact.report
    assert grid(cfg, 1000, 1000) == (32, 1, 1) and grid(cfg, 8192, 8192) == (132, 1, 1)
    assert grid(cfg, 8192, 8192, programs=264) == (264, 1, 1)


def test_grid_dependency_is_recorded_for_the_runner() -> None:
    """Only a kernel that waits for the previous grid may be launched programmatically: the
    kernel metadata says which (and survives the kernel cache's JSON)."""
    from targets.ptx.kernel_info import KernelInfo

    decode = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
    plain = qdot_compile(mmq_kernel(decode), arch="sm_90", strategy="promote-int8", num_stages=2).kernels[0]
    waits = qdot_compile(mmq_kernel(MmqConfig(**{**decode.__dict__, "wait_previous_grid": True})), arch="sm_90",
                         strategy="promote-int8", num_stages=2).kernels[0]
    assert (plain.waits_previous_grid, waits.waits_previous_grid) == (False, True)
    assert KernelInfo.from_json(waits.to_json()) == waits
    assert waits.name.endswith("_pdl")


def test_argument_divisibility_is_recorded_for_the_runner() -> None:
    """The runner refuses a launch whose N breaks ``qdot.divisibility`` (the paired stores rely
    on it): the kernel metadata carries it per argument, through the kernel cache's JSON."""
    from compiler.templates import GemmConfig, gemm_kernel
    from targets.ptx.kernel_info import KernelInfo

    plain = qdot_compile(gemm_kernel(GemmConfig(block_k=64)), arch="sm_90", strategy="dequant-bf16").kernels[0]
    even = qdot_compile(gemm_kernel(GemmConfig(block_k=64, n_divisibility=8, k_divisibility=32)), arch="sm_90",
                        strategy="dequant-bf16").kernels[0]
    assert plain.arg_kinds[-3:] == ("index", "index", "index")  # M, N, K
    assert plain.arg_divisibility == (1,) * 5 + (1, 1, 128)  # the default: K a multiple of 128
    assert even.arg_divisibility == (1,) * 5 + (1, 8, 32)
    assert KernelInfo.from_json(even.to_json()) == even


def test_zeroing_quantize_kernel_adds_stores() -> None:
    plain = qdot_compile(quantize_kernel("q8_1_mmq"), arch="sm_90", verify=True).ptx
    zeroing = qdot_compile(quantize_kernel("q8_1_mmq", zero_output=True), arch="sm_90", verify=True).ptx
    assert zeroing.count("st.global") > plain.count("st.global")
    assert "st.global.v4.b32" in zeroing  # the zeros in 16-byte runs (under a run-time test of N)


def test_one_token_decode_kernel_drops_the_odd_tokens_rescale() -> None:
    """``MmqConfig(max_m=1)`` bounds the tokens at min(M, 1): the mma's odd-token columns are
    never stored, so ptxas drops their rescale (the magic-number fold's ``FFMA``) from the K loop."""
    from bench.sass_census import census
    from compiler.tools import find_tool

    if find_tool("cuobjdump") is None:
        pytest.skip("cuobjdump not installed")
    decode = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
    counts = {}
    for max_m in (8, 1):
        kernel = qdot_compile(mmq_kernel(MmqConfig(**{**decode.__dict__, "max_m": max_m})), arch="sm_90",
                              strategy="promote-int8", num_stages=2)
        counts[max_m], _ = census(kernel.ptx, "sm_90")
    assert counts[1]["IMMA"] == counts[8]["IMMA"] > 0
    assert counts[1]["FFMA"] * 3 < counts[8]["FFMA"] * 2, (counts[1]["FFMA"], counts[8]["FFMA"])
    assert sum(counts[1].values()) < sum(counts[8].values())


def test_lit_prefill_kernel_keeps_spills_out_of_its_k_loop() -> None:
    """tests/lit/targets/ptx/mmq-assemble.mlir lets the small prefill kernel of mmq-q4k.mlir spill
    on sm_90 (ptxas parks one value across the loop); what it must not do is spill per K step."""
    from pathlib import Path

    from bench.sass_census import census, loop_spills
    from compiler.tools import find_tool

    if find_tool("cuobjdump") is None:
        pytest.skip("cuobjdump not installed")
    source = Path(__file__).parents[1] / "lit" / "targets" / "ptx" / "mmq-q4k.mlir"
    counts, _ = census(qdot_compile(source.read_text(), arch="sm_90").ptx, "sm_90")
    assert counts["IMMA"] == 16
    assert not loop_spills(counts), counts


@pytest.mark.parametrize("weights, tiled", [("q4_K", False), ("q4_K", True), ("q6_K", False), ("q8_0", True)])
def test_chosen_prefill_kernel_holds_two_programs_per_sm(weights: str, tiled: bool) -> None:
    """``choose_mmq``'s prefill rests on two programs per SM (runs 111–118: its registers and shared memory were sized
    for it), and a lowering change that adds a register or a stage's bytes would halve that without failing a
    numerics test. The kernels here span the choice's tiles: q4_K in both orders of W (the M = 512 goal rows),
    q6_K's 64 × 64 tile, q8_0 repacked (the most shared memory, 108 KB). ptxas 13.0 today: 255, 255, 198 and 229
    registers; q4_K's 255 leave it 12 (ggml's order) or 20 bytes (repacked) to spill, which cost the K loop two
    ``LDL`` per step — pinned, so that more spilling inside the loop is seen."""
    from bench.sass_census import census, loop_spills
    from compiler.mmq_choice import choose_mmq
    from compiler.occupancy import programs_per_sm
    from compiler.tools import find_tool
    from targets.ptx.ptxas import assemble

    choice = choose_mmq(weights, 512, 4096, 4096, tiled_weights=tiled)
    kernel = qdot_compile(mmq_kernel(choice.cfg), arch="sm_90", strategy="promote-int8", num_stages=choice.num_stages)
    info, resources = kernel.kernels[0], assemble(kernel.ptx, "sm_90").kernels[0]
    programs, limiter = programs_per_sm(info.shared_bytes, info.num_warps * 32, resources.registers)
    assert programs >= 2, (programs, limiter, resources, info.shared_bytes)
    if find_tool("cuobjdump") is not None:
        counts, _ = census(kernel.ptx, "sm_90")
        assert loop_spills(counts).get("STL", 0) == 0 and loop_spills(counts).get("LDL", 0) <= 2, loop_spills(counts)

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// What --remarks says of a q4_0 side (and of its int8 partner):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// No q4_0 dot reads a block sum or makes a second (fold) mma, in any case of the file (one mma each):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: grep -c 'qgpu.mma ' %t.ir | filecheck %s --check-prefix=MMA-COUNT
// RUN: not grep -e 'part = "s' -e 'fold' -e 'part = "d"} : !qgpu.memdesc<[0-9x]*!qdot.block<q4_0>' %t.ir
// MMA-COUNT: {{^6$}}
//
// ggml's q4_0 (block_q4_0: fp16 d, 16 bytes of nibbles; 32 values per 18-byte block, value p the
// low nibble of byte p, value p + 16 its high nibble, each a code c worth (c − 8) · d) on the MMQ
// plan of mmq-q4k.mlir / mmq-q8.mlir, on every arch and under every strategy that takes ggml
// blocks. The decisions this file pins:
// * a q4_0 tile is staged raw — !qdot.block<q4_0> elements, unswizzled (vec = 1, one phase),
//   blocks contiguous along K — like every ggml block;
// * its `qs` view (16 bytes per block, valueDim = the K dimension) is loaded into the ISA
//   arrangement with kWidth = 4, and qgpu.upcast from = q4_0 to = s8 doubles K (two values per
//   byte) and keeps kWidth 4: the s8 value is 16 · (c − 8), exact in s8 (−128 … 112), so the −8
//   needs no block sum of the other side (unlike q4_K's dmin) and no rank-1 fold;
// * its scale is the derived part `d16` (d / 16, undoing the 16 of the upcast), never `d`, one
//   f32 per 32 values in the #qgpu.dot_scale layout of its side;
// * that scale (like a q8_0 side's `d`) is decoded once per CTA where each of its values is read
//   by 8 threads or more (DECODE_ONCE_READERS), as q4_K's scales are (mmq-q4k.mlir): the part's
//   view loaded into a #qgpu.blocked layout (one column's or row's blocks per thread), written to
//   an f32 #qgpu.shared buffer by qgpu.local_alloc — before any operand view of the step is read —
//   and the mma's scale operand loaded from that buffer. The mma's scale layouts give each rhs
//   (N side) value to 8 lanes × the warps along M, always ≥ 8: the prefill kernel's W (weights on
//   N) is decoded once. Each lhs (M side) value goes to the 4 lanes of a quad × the warps along N:
//   with one warp along N — the decode kernels, whose n tile is 8 tokens — d16 is read where it is
//   used, straight from the block view; with 2 warps along N (warpsPerCTA [1, 2]) it too is
//   decoded once, and 2 warps along M ([2, 1]) do not count. @q4_0_q8_0, @q4_0_q8_0_w2 and
//   @q4_0_q8_0_w2_m pin both sides of the rule;
// * one s8 × s8 mma (lhs = s8 rhs = s8, never u8: the upcast is signed) with rescale = per_block
//   and qdot.scale_bits = 17, no fold operands, no second mma, no `s`/`s_pad` part read — not
//   even from a q8_1 partner, whose sums only q4_K's dmin term reads.

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="q4_0") (q8_1_mmq
// activations as the lhs, tokens on M; eight q4_0 blocks per column and K step of 256), trimmed
// to one 32 × 16 tile and one warp.
// CHECK-LABEL: func.func @mmq_q4_0
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<8x16x!qdot.block<q4_0>>) -> !qgpu.memdesc<8x16x!qdot.block<q4_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// W is the rhs: each d16 is read by the 8 lanes holding its column, so it is decoded once, right
// after the allocs — a blocked load of the `d16` view (a column's 8 blocks per thread), stored
// back to an f32 shared buffer with columns contiguous.
// CHECK-NEXT:    %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:    %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[WDS:.*]] = qgpu.local_alloc %[[WDR]] : (tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>) -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// X: quants and d as for every block dot (q8_1_mmq's d is not decoded once: only q4_0 / q8_0
// sides and q4_K's scales are).
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<32x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<32x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
//
// W: 8 blocks × 16 bytes = 128 bytes of nibbles per column, 256 s8 values after the upcast (K
// doubles along dimension 0, the rhs's K), kWidth 4 on both sides of the upcast ...
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = q4_0 to = s8 : tensor<128x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// ... and d / 16 per block (8 per column) as its scale, read from the decoded f32 buffer.
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x8xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
//
// One s8 × s8 mma, per-block scales, no fold operands; nothing after it but the yield.
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[XQ]], %[[WU]], %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<32x16xf32, [[MMA]]>
// CHECK:       qdot.store %y_desc[%{{.*}}, %{{.*}}], %{{.*}} : !qdot.desc<32x16xf32>, tensor<32x16xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-q4_0.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × q4_0: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q4_0.mlir:[[# @LINE + 23]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q4_0 → s8: whole blocks staged in shared memory, the packed nibbles made s8 (16 · (code − 8)) at use
func.func @mmq_q4_0(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %kwb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<8x16x!qdot.block<q4_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %c0] : !qdot.desc<8x16x!qdot.block<q4_0>> -> tensor<8x16x!qdot.block<q4_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_0
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q4_0>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`, split-K) with MmqConfig(weights="q4_0"), trimmed to one
// 16-row weight tile: q4_0 is the lhs, so its chain moves to opIdx 0 — the qs view runs along
// dimension 1 (valueDim = 1), the upcast doubles K along dimension 1, d16 is the lhs scale —
// and X's quants and d are read K-major (valueDim = 0) for opIdx 1. With q4_0 on M and one warp
// (along N) each d16 is read by the 4 lanes of a quad only: not decoded once, no blocked load,
// the scale loaded from the block view right where the mma needs it. The split-K store keeps
// {reduce = "add"} and takes the mma layout directly.
// CHECK-LABEL: func.func @small_m_q4_0
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<16x8x!qdot.block<q4_0>>) -> !qgpu.memdesc<16x8x!qdot.block<q4_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = q4_0 to = s8 : tensor<16x128xi8, {{.*}}> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// d16 straight from the block view, in the lhs scale layout (no blocked load, no f32 buffer: the
// allocs, operand loads and mma are back to back):
// CHECK-NEXT:    %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<8x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<16x8xf32, [[MMA]]>
// CHECK:       qdot.store %yt_desc[%{{.*}}, %{{.*}}], %{{.*}} {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-q4_0.mlir:[[# @LINE + 30]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q4_0 × q8_1_mmq: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q4_0.mlir:[[# @LINE + 29]]:5: remark: qdot-accelerate-matmul: lhs q4_0 → s8: whole blocks staged in shared memory, the packed nibbles made s8 (16 · (code − 8)) at use; rhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8
func.func @small_m_q4_0(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %y_ptr: !qdot.ptr<f32>,
                        %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %kwb = arith.divui %k, %c32 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x8x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kkw] : !qdot.desc<16x8x!qdot.block<q4_0>> -> tensor<16x8x!qdot.block<q4_0>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_0 rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<q4_0>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// q4_0 weights (lhs) × q8_0: neither side has block sums; the q8_0 side keeps its plain `d`
// and raw s8 quants (no upcast), the q4_0 side gets the upcast and d16. One warp: both sides of
// the decode-once rule in one dot — the rhs q8_0's d (8 lanes per value) is decoded once, first
// thing after the allocs, and its scale operand read from the f32 buffer; the lhs q4_0's d16
// (4 lanes of a quad, 1 warp along N) is read from its block view where the mma needs it.
// CHECK-LABEL: func.func @q4_0_q8_0
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x4x!qdot.block<q4_0>>) -> !qgpu.memdesc<16x4x!qdot.block<q4_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x32x!qdot.block<q8_0>>) -> !qgpu.memdesc<4x32x!qdot.block<q8_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XDR:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[XDS:.*]] = qgpu.local_alloc %[[XDR]] : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x64xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %[[WQ]] from = q4_0 to = s8 : tensor<16x64xi8, {{.*}}> -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x32xi8, #qgpu.block_part<{format = "q8_0", part = "qs", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<128x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDS]] : !qgpu.memdesc<32x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x32xf32, [[MMA]]>
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK:       qdot.store
func.func @q4_0_q8_0(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x4x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x32x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<16x32xf32>) {
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x4x!qdot.block<q4_0>> -> tensor<16x4x!qdot.block<q4_0>>
    %x = qdot.load %x_desc[%kk, %c0] : !qdot.desc<4x32x!qdot.block<q8_0>> -> tensor<4x32x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_0 rhs = q8_0
         : tensor<16x4x!qdot.block<q4_0>> * tensor<4x32x!qdot.block<q8_0>> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x32xf32>, tensor<16x32xf32>
  func.return
}

// -----

// The same dot with two warps, split along N (the 16 × 32 tile: warpsPerCTA [1, 2]): each lhs
// d16 is now read by 4 lanes × 2 warps = 8 threads, so the q4_0 side is decoded once too — both
// scale parts widened into f32 buffers (blocked loads over both warps) before any operand view is
// read, and both mma scales loaded from them.
// CHECK-LABEL: func.func @q4_0_q8_0_w2
// CHECK:       scf.for {{.*}} -> (tensor<16x32xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}>>) {
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x4x!qdot.block<q4_0>>)
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x32x!qdot.block<q8_0>>)
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %[[WDR]] : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XDR:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[XDS:.*]] = qgpu.local_alloc %[[XDR]] : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_0 to = s8 : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  qgpu.block_part %[[XS]] {part = "qs"}
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDS]] : !qgpu.memdesc<32x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK:       qdot.store
func.func @q4_0_q8_0_w2(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x4x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x32x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<16x32xf32>) {
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x4x!qdot.block<q4_0>> -> tensor<16x4x!qdot.block<q4_0>>
    %x = qdot.load %x_desc[%kk, %c0] : !qdot.desc<4x32x!qdot.block<q8_0>> -> tensor<4x32x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_0 rhs = q8_0
         : tensor<16x4x!qdot.block<q4_0>> * tensor<4x32x!qdot.block<q8_0>> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x32xf32>, tensor<16x32xf32>
  func.return
}

// -----

// Two warps split along M instead (a 32 × 8 tile: warpsPerCTA [2, 1]): warps along M do not share
// an lhs row, each d16 is still read by one quad (4 threads) — read from the block view at use,
// not decoded once — while the rhs q8_0's d (8 lanes × 2 warps) is decoded once.
// CHECK-LABEL: func.func @q4_0_q8_0_w2_m
// CHECK:       scf.for {{.*}} -> (tensor<32x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>>) {
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x4x!qdot.block<q4_0>>)
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x8x!qdot.block<q8_0>>)
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<8x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XDR:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<8x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[XDS:.*]] = qgpu.local_alloc %[[XDR]] : {{.*}} -> !qgpu.memdesc<8x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_0 to = s8 : {{.*}} -> tensor<32x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d16"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  qgpu.block_part %[[XS]] {part = "qs"}
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDS]] : !qgpu.memdesc<8x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<8x4xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK:       qdot.store
func.func @q4_0_q8_0_w2_m(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<32x4x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x8x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x8xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<32x8xf32>) {
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<32x4x!qdot.block<q4_0>> -> tensor<32x4x!qdot.block<q4_0>>
    %x = qdot.load %x_desc[%kk, %c0] : !qdot.desc<4x8x!qdot.block<q8_0>> -> tensor<4x8x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_0 rhs = q8_0
         : tensor<32x4x!qdot.block<q4_0>> * tensor<4x8x!qdot.block<q8_0>> -> tensor<32x8xf32>
    scf.yield %d : tensor<32x8xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x8xf32>, tensor<32x8xf32>
  func.return
}

// -----

// q8_1 activations × q4_0 weights (llama.cpp's vec-dot pairing for q4_0): q8_1 blocks carry
// their sums, but with a q4_0 partner they are not read — the −8 is in the s8 values — so the
// q8_1 side reads `qs` and `d` only, and the mma has no fold operands. q4_0 is the rhs, so its d16
// is decoded once (right after the allocs) and the mma's rhs scale read from that f32 buffer.
// CHECK-LABEL: func.func @q8_1_q4_0
// CHECK:       qgpu.local_alloc %{{.*}} : (tensor<32x4x!qdot.block<q8_1>>)
// CHECK-NEXT:  qgpu.local_alloc %{{.*}} : (tensor<4x16x!qdot.block<q4_0>>)
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %{{.*}} {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %[[WDR]] : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NOT:   part = "s"
// CHECK:       %[[XD:.*]] = qgpu.local_load %{{.*}} : {{.*}}format = "q8_1", part = "d", blocks = 4, valueDim = 1}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   part = "s"
// CHECK:       %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_0 to = s8 : tensor<64x16xi8, {{.*}}> -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1,
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %{{.*}}, %[[WU]], %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} :
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK:       qdot.store
func.func @q8_1_q4_0(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<32x4x!qdot.block<q8_1>>
  %w_desc = qdot.make_desc %w_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<4x16x!qdot.block<q4_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %x = qdot.load %x_desc[%c0, %kk] : !qdot.desc<32x4x!qdot.block<q8_1>> -> tensor<32x4x!qdot.block<q8_1>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<4x16x!qdot.block<q4_0>> -> tensor<4x16x!qdot.block<q4_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1 rhs = q4_0
         : tensor<32x4x!qdot.block<q8_1>> * tensor<4x16x!qdot.block<q4_0>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

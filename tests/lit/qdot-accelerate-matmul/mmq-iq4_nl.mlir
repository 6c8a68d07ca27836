// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// What --remarks says of an iq4_nl side (and of its int8 partner):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// No iq4_nl dot reads a block sum or makes a second (fold) mma, in any case of the file (one mma each);
// its scale is its `d`, never a `d16`, and nothing is treated as e2m1:
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: grep -c 'qgpu.mma ' %t.ir | filecheck %s --check-prefix=MMA-COUNT
// RUN: not grep -e 'part = "s' -e 'fold' -e 'd16' -e 'e2m1' -e 'lhs = u8' -e 'rhs = u8' %t.ir
// MMA-COUNT: {{^3$}}
//
// ggml's iq4_nl (block_iq4_nl: an fp16 d, then 16 bytes of nibbles; 32 values per 18-byte block,
// value p the low nibble of byte p, value p + 16 its high nibble, as q4_0 — each nibble an index into
// the non-linear table kvalues_iq4nl, −127 … 113) on mxfp4's plan (mmq-mxfp4.mlir), on every arch
// and under every strategy that takes ggml blocks. The decisions this file pins:
// * an iq4_nl tile is staged raw — !qdot.block<iq4_nl> elements, unswizzled, blocks contiguous
//   along K — like every ggml block;
// * its `qs` view (16 bytes per block) is loaded with kWidth = 4 and qgpu.upcast from = iq4_nl
//   to = s8 doubles K and keeps kWidth 4: each value becomes its kvalues_iq4nl entry, exact in s8
//   (a table lookup: no offset to take out), so no block sum of the other side and no rank-1 fold;
// * its scale is the part `d`, the block's fp16 d as it is (the looked-up values are the kvalues
//   themselves), one f32 per 32 values in the #qgpu.dot_scale layout of its side — decoded once per
//   CTA where 8 threads or more read each (ONE_D_FORMATS with the fp16 formats' DECODE_ONCE_READERS;
//   not mxfp4's 4): on the prefill's N side (8 lanes), but on the decode kernel's M side (the 4 lanes
//   of a quad) read where it is used, as q4_0's d16 is;
// * one s8 × s8 mma with rescale = per_block and qdot.scale_bits = 17, no fold operands.

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="iq4_nl") (q8_1_mmq
// activations as the lhs, tokens on M; eight iq4_nl blocks per column and K step of 256), trimmed
// to one 32 × 16 tile and one warp.
// CHECK-LABEL: func.func @mmq_iq4_nl
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<8x16x!qdot.block<iq4_nl>>) -> !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// W is the rhs: each d is read by the 8 lanes holding its column, so it is decoded once, right
// after the allocs — a blocked load of the `d` view (a column's 8 blocks per thread), stored back
// to an f32 shared buffer with columns contiguous.
// CHECK-NEXT:    %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:    %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[WDS:.*]] = qgpu.local_alloc %[[WDR]] : (tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>) -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// X: quants and d as for every block dot.
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<32x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<32x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
//
// W: the raw qs view, 8 blocks × 16 bytes = 128 bytes of nibbles per column, 256 s8 values after the
// upcast (K doubles along dimension 0, the rhs's K), kWidth 4 on both sides of the upcast ...
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<128x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// ... and d per block (8 per column) as its scale, read from the decoded f32 buffer.
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x8xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
//
// One s8 × s8 mma, per-block scales, no fold operands; nothing after it but the yield.
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[XQ]], %[[WU]], %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<32x16xf32, [[MMA]]>
// CHECK:       qdot.store %y_desc[%{{.*}}, %{{.*}}], %{{.*}} : !qdot.desc<32x16xf32>, tensor<32x16xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × iq4_nl: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 23]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs iq4_nl → s8: whole blocks staged in shared memory, the packed nibbles looked up as s8 in kvalues_iq4nl at use{{$}}
func.func @mmq_iq4_nl(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_nl>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<8x16x!qdot.block<iq4_nl>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %c0] : !qdot.desc<8x16x!qdot.block<iq4_nl>> -> tensor<8x16x!qdot.block<iq4_nl>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = iq4_nl
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`, split-K) with MmqConfig(weights="iq4_nl"), trimmed to one
// 16-row weight tile: iq4_nl is the lhs, so its chain moves to opIdx 0 — the qs view runs along
// dimension 1 (valueDim = 1), the upcast doubles K along dimension 1, d is the lhs scale — and X's
// quants and d are read K-major (valueDim = 0) for opIdx 1. With iq4_nl on M and one warp (along N)
// each d is read by the 4 lanes of a quad only, below the fp16 formats' 8: no decode-once buffer
// (unlike mxfp4's 2^(e − 128)) — right after the allocs come the qs view and its upcast, and d is
// loaded from the block view straight into the lhs scale layout. The split-K store keeps
// {reduce = "add"} and takes the mma layout directly.
// CHECK-LABEL: func.func @small_m_iq4_nl
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<16x8x!qdot.block<iq4_nl>>) -> !qgpu.memdesc<16x8x!qdot.block<iq4_nl>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<16x128xi8, {{.*}}> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// d from the block view, in the lhs scale layout:
// CHECK-NEXT:    %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<8x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<16x8xf32, [[MMA]]>
// CHECK:       qdot.store %yt_desc[%{{.*}}, %{{.*}}], %{{.*}} {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 30]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for iq4_nl × q8_1_mmq: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 29]]:5: remark: qdot-accelerate-matmul: lhs iq4_nl → s8: whole blocks staged in shared memory, the packed nibbles looked up as s8 in kvalues_iq4nl at use; rhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8{{$}}
func.func @small_m_iq4_nl(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_nl>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<16x8x!qdot.block<iq4_nl>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kkw] : !qdot.desc<16x8x!qdot.block<iq4_nl>> -> tensor<16x8x!qdot.block<iq4_nl>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_nl rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<iq4_nl>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// iq4_nl weights (lhs) × q8_0: neither side has block sums; the q8_0 side keeps its plain `d` and raw
// s8 quants (no upcast), the iq4_nl side gets the upcast and d. One warp: each d by its own reader
// count — the rhs q8_0's (8 lanes per value) decoded once right after the allocs, the lhs iq4_nl's
// (4 lanes of a quad) read from its block view where it is used.
// CHECK-LABEL: func.func @iq4_nl_q8_0
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x4x!qdot.block<iq4_nl>>) -> !qgpu.memdesc<16x4x!qdot.block<iq4_nl>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x32x!qdot.block<q8_0>>) -> !qgpu.memdesc<4x32x!qdot.block<q8_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XDR:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[XDS:.*]] = qgpu.local_alloc %[[XDR]] : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x64xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<16x64xi8, {{.*}}> -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x32xi8, #qgpu.block_part<{format = "q8_0", part = "qs", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<128x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDS]] : !qgpu.memdesc<32x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x32xf32, [[MMA]]>
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK:       qdot.store
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 17]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for iq4_nl × q8_0: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-iq4_nl.mlir:[[# @LINE + 16]]:5: remark: qdot-accelerate-matmul: lhs iq4_nl → s8: whole blocks staged in shared memory, the packed nibbles looked up as s8 in kvalues_iq4nl at use; rhs q8_0 → s8: whole blocks staged in shared memory, the int8 quants read as s8{{$}}
func.func @iq4_nl_q8_0(%w_ptr: !qdot.ptr<!qdot.block<iq4_nl>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<16x4x!qdot.block<iq4_nl>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x32x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<16x32xf32>) {
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x4x!qdot.block<iq4_nl>> -> tensor<16x4x!qdot.block<iq4_nl>>
    %x = qdot.load %x_desc[%kk, %c0] : !qdot.desc<4x32x!qdot.block<q8_0>> -> tensor<4x32x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_nl rhs = q8_0
         : tensor<16x4x!qdot.block<iq4_nl>> * tensor<4x32x!qdot.block<q8_0>> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x32xf32>, tensor<16x32xf32>
  func.return
}

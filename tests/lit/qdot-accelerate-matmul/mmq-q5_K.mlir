// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// q5_K takes none of q6_K's sub-block factors nor q4_K's in-place parts:
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: not grep -e '_sub' -e 'scale16' -e 'to = u8' %t.ir
//
// ggml's q5_K (block_q5_K: fp16 d, fp16 dmin, scales[12] packed as q4_K's, qh[32] the top bit of
// each value, qs[128] its low four bits; 256 values in 176 bytes) on the MMQ plan of mmq-q4k.mlir.
// The decisions this file pins:
// * the tile is staged raw, unswizzled, blocks contiguous along K, like every ggml block;
// * its quants are two raw views, `qs` (128 bytes per block) and `qh` (32), each loaded into the
//   ISA arrangement with kWidth 4; `qgpu.upcast from = q5_K to = s8` takes qs as its source and qh
//   as its `high` operand and gives K = 2 × qs's = 8 × qh's s8 values (the codes 0..31, exact);
// * its per-32 scale is the part `scale` (d · sc, as q4_K's but not divided by 16: nothing is
//   upcast in place), decoded once per CTA into shared f32 as q4_K's;
// * its dmin term is q4_K's: against q8_1_mmq one f16 mma per super-block (`m_pad` × `s_pad`,
//   scaled by dmin and −1), against q8_1 the FMA fold (`min` against the activations' `s`);
// * one s8 × s8 mma, rescale = per_block, qdot.scale_bits = 17 (the magic-number fold applies:
//   |Σ| ≤ 32 · 31 · 127 < 2^22).

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="q5_K"), trimmed to one
// 32 × 16 tile and one warp: q8_1_mmq activations as the lhs, W the rhs, one super-block per K step.
// CHECK-LABEL: func.func @mmq_q5_K
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<1x16x!qdot.block<q5_K>>) -> !qgpu.memdesc<1x16x!qdot.block<q5_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q5_K", part = "scale", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[SCB:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{{.*}}>>
// CHECK-NEXT:    %[[SCS:.*]] = qgpu.local_alloc %[[SCB]]
// CHECK:         %[[XD:.*]] = qgpu.local_load %{{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[LV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q5_K", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[L:.*]] = qgpu.local_load %[[LV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[HV:.*]] = qgpu.block_part %[[WS]] {part = "qh"} : {{.*}} -> !qgpu.memdesc<32x16xi8, #qgpu.block_part<{format = "q5_K", part = "qh", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[H:.*]] = qgpu.local_load %[[HV]] : {{.*}} -> tensor<32x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[L]] high %[[H]] from = q5_K to = s8 : tensor<128x16xi8, {{.*}}> high tensor<32x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %[[SCS]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %{{.*}}, %[[W]], %{{.*}} scale %[[XD]], %[[D]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK:         qgpu.block_part %[[XS]] {part = "s_pad"}
// CHECK:         qgpu.block_part %[[WS]] {part = "m_pad"} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.block_part<{format = "q5_K", part = "m_pad", blocks = 1, valueDim = 0}>>
// CHECK:         qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x1xf32, #qgpu.block_part<{format = "q5_K", part = "dmin", blocks = 1, valueDim = 0}>>
// CHECK:         %[[F:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[R]] scale %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"}
// CHECK-NEXT:    scf.yield %[[F]]
// REMARK: mmq-q5_K.mlir:[[# @LINE + 21]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × q5_K: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q5_K.mlir:[[# @LINE + 20]]:5: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 32x16 tile each), kWidth 4, scales applied to the f32 accumulator per 32-value block; q5_K dmin term as an f16 mma per super-block (q4k-fold=auto)
// REMARK: mmq-q5_K.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q5_K → s8: whole blocks staged in shared memory, the qs nibbles and qh bits joined into s8 (codes 0..31) at use
func.func @mmq_q5_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q5_K>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q5_K>> -> !qdot.desc<1x16x!qdot.block<q5_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q5_K>> -> tensor<1x16x!qdot.block<q5_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q5_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q5_K>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`) against plain q8_1 activations: q5_K is the lhs, so its chain
// moves to opIdx 0 (qs and qh along dimension 1, valueDim = 1; the upcast multiplies qh's K by 8
// along dimension 1), and without q8_1_mmq's per-32 sums in f16 the dmin term is the FMA fold:
// `min` (dmin · m) against the activations' block sums `s`, the mma's fold operands.
// CHECK-LABEL: func.func @small_m_q5_K
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<q5_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q5_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK:         qgpu.block_part %[[WS]] {part = "scale"}
// CHECK:         qgpu.block_part %[[WS]] {part = "min"}
// CHECK:         %[[LV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q5_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[L:.*]] = qgpu.local_load %[[LV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[HV:.*]] = qgpu.block_part %[[WS]] {part = "qh"} : {{.*}} -> !qgpu.memdesc<16x32xi8, #qgpu.block_part<{format = "q5_K", part = "qh", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[H:.*]] = qgpu.local_load %[[HV]] : {{.*}} -> tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[L]] high %[[H]] from = q5_K to = s8 : {{.*}} -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK:         qgpu.block_part %{{.*}} {part = "s"} : !qgpu.memdesc<8x8x!qdot.block<q8_1>
// CHECK:         qgpu.mma %[[W]], %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} fold %{{.*}}, %{{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:    scf.yield
// REMARK: mmq-q5_K.mlir:[[# @LINE + 22]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q5_K × q8_1: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q5_K.mlir:[[# @LINE + 21]]:5: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 16x8 tile each), kWidth 4, scales applied to the f32 accumulator per 32-value block; q5_K dmin term as an FMA per block (q4k-fold=auto)
// REMARK: mmq-q5_K.mlir:[[# @LINE + 20]]:5: remark: qdot-accelerate-matmul: lhs q5_K → s8: whole blocks staged in shared memory, the qs nibbles and qh bits joined into s8 (codes 0..31) at use; rhs q8_1 → s8: whole blocks staged in shared memory, the int8 quants read as s8
func.func @small_m_q5_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q5_K>>, %y_ptr: !qdot.ptr<f32>,
                        %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c32 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q5_K>> -> !qdot.desc<16x1x!qdot.block<q5_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<8x8x!qdot.block<q8_1>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q5_K>> -> tensor<16x1x!qdot.block<q5_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<8x8x!qdot.block<q8_1>> -> tensor<8x8x!qdot.block<q8_1>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q5_K rhs = q8_1
         : tensor<16x1x!qdot.block<q5_K>> * tensor<8x8x!qdot.block<q8_1>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// q8_1_mmq × q4_K, the prefill kernel of compiler/mmq_template.py (tokens on the mma's M side),
// trimmed to one 32 × 16 tile and one warp. The plan is llama.cpp's MMQ on every arch and
// under every strategy that accepts ggml blocks (auto, promote-int8, native):
// * both operands are staged as raw blocks — !qdot.block<...> elements, no swizzle (vec = 1,
//   one phase), blocks contiguous along K (order = [1, 0] for X, [0, 1] for W) — before any
//   register load of the step;
// * q4_K's 6-bit scales are decoded once per CTA: a blocked load of the `scale` view (a
//   column's 8 sub-blocks per thread), stored back to an f32 shared buffer with columns
//   contiguous (order = [0, 1]), and read from there into the #qgpu.dot_scale layout;
// * the int8 quants are read from the `qs` views into the ISA arrangement (kWidth = 4); q4_K's
//   128 bytes of nibbles per column become 256 s8 values in registers (qgpu.upcast from = q4_K),
//   the K extent doubling; X's d (one f32 per 32 values: 2 blocks × 4 = 8 per row) loads
//   straight from the q8_1_mmq header;
// * the s8 mma rescales each 32-value block by d_x · d_w·sc, and says its scales are narrow
//   (qdot.scale_bits = 17: an fp16 d times a 6-bit sc), which lets qdot-lower-mma fold the
//   s32 → f32 conversion into the scaling (its magic-number form);
// * the dmin term, −Σ_j s_j · dmin·m_j per super-block, is a second mma (fp16, K = 16 = the 8
//   sub-blocks padded: `s_pad` of X, `m_pad` of W, both decoded once into f16 shared buffers and
//   read as mma fragments, W's through a transposed view) accumulating onto the first, rescaled
//   once by −1 (X's side) and dmin (W's side).

// CHECK-LABEL: func.func @mmq
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<1x16x!qdot.block<q4_K>>) -> !qgpu.memdesc<1x16x!qdot.block<q4_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// Decode the scales once: blocked load, register → shared alloc.
// CHECK-NEXT:    %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale16", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[SCR:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SC:.*]] = qgpu.local_alloc %[[SCR]] : (tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>) -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// X: quants of two blocks per row (K = 256), then d per 32 values.
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<32x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<32x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[DV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %[[DV]] : {{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
//
// W: 128 bytes of nibbles per column, 256 s8 values after the upcast; the decoded scale read
// back from shared memory (not from the raw blocks).
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = q4_K to = u8 : tensor<128x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[SCB:.*]] = qgpu.local_load %[[SC]] : !qgpu.memdesc<16x8xf32, {{.*}}> -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
//
// The s8 mma with its per-block scales and no rank-1 fold.
// CHECK-NEXT:    %[[INT:.*]] = qgpu.mma %[[XQ]], %[[WU]], %{{.*}} scale %[[D]], %[[SCB]] lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
//
// The dmin mma: X's sums, padded to 16 per row (8 per block), and W's 6-bit mins, padded to
// 16 per column, both decoded to shared memory before either is read back (the two copies
// share one barrier after their stores) ...
// CHECK-NEXT:    %[[SPV:.*]] = qgpu.block_part %[[XS]] {part = "s_pad"} : {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.block_part<{format = "q8_1_mmq", part = "s_pad", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[SPR:.*]] = qgpu.local_load %[[SPV]] : {{.*}} -> tensor<32x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SP:.*]] = qgpu.local_alloc %[[SPR]] : {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[MPV:.*]] = qgpu.block_part %[[WS]] {part = "m_pad"} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.block_part<{format = "q4_K", part = "m_pad", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[MPR:.*]] = qgpu.local_load %[[MPV]] : {{.*}} -> tensor<16x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[MP:.*]] = qgpu.local_alloc %[[MPR]] : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// ... the sums as the A fragment ...
// CHECK-NEXT:    %[[SPA:.*]] = qgpu.local_load %[[SP]] : {{.*}} -> tensor<32x16xf16, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 2}>>
// CHECK-NEXT:    %[[NEG:.*]] = arith.constant dense<-1.000000e+00> : tensor<32x1xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// ... the mins as the B fragment (K-major: a transposed view) ...
// CHECK-NEXT:    %[[MPT:.*]] = qgpu.memdesc_trans %[[MP]] {order = array<i64: 1, 0>} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[MPB:.*]] = qgpu.local_load %[[MPT]] : {{.*}} -> tensor<16x16xf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 2}>>
// ... and dmin, one per column, as W's scale.
// CHECK-NEXT:    %[[DMV:.*]] = qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x1xf32, #qgpu.block_part<{format = "q4_K", part = "dmin", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[DM:.*]] = qgpu.local_load %[[DMV]] : {{.*}} -> tensor<16x1xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[SPA]], %[[MPB]], %[[INT]] scale %[[NEG]], %[[DM]] lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<32x16xf32, [[MMA]]>
// CHECK:       qdot.store %y_desc[%{{.*}}, %{{.*}}], %{{.*}} : !qdot.desc<32x16xf32>, tensor<32x16xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// CHECK-NOT:   qdot.dot_scaled
func.func @mmq(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x16x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q4_K>> -> tensor<1x16x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q4_K>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// Four warps (2 × 2 over the 64 × 64 tile): every warp decodes its share of the scales and of
// the padded sums and mins — the blocked layouts spread the 64 rows / columns over all 128
// threads (warpsPerCTA = [4, 1]) — and the mma layout splits M and N, for both mmas.
// CHECK-LABEL: func.func @mmq_four_warps
// CHECK:       qgpu.local_load %{{.*}} : !qgpu.memdesc<64x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale16", blocks = 1, valueDim = 0}>> -> tensor<64x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:       qgpu.mma {{.*}} lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<64x64xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK:       qgpu.local_load %{{.*}} : !qgpu.memdesc<64x16xf16, #qgpu.block_part<{format = "q8_1_mmq", part = "s_pad", blocks = 2, valueDim = 1}>> -> tensor<64x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:       qgpu.local_load %{{.*}} : !qgpu.memdesc<64x16xf16, #qgpu.block_part<{format = "q4_K", part = "m_pad", blocks = 1, valueDim = 0}>> -> tensor<64x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK:       qgpu.mma {{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"} : {{.*}} -> tensor<64x64xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
func.func @mmq_four_warps(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                          %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<64x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x64x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<64x2x!qdot.block<q8_1_mmq>> -> tensor<64x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x64x!qdot.block<q4_K>> -> tensor<1x64x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_K
         : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<1x64x!qdot.block<q4_K>> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// A decode tile of two q4_K super-blocks along K (`MmqConfig(k_blocks=2)`): the dmin fold's f16
// mma runs over K = 2 × 16 padded sub-blocks, so each side has one scale per super-block — dmin
// per (row, super-block) on the weight side, −1 per (token, super-block) on the activation side.
// (A single scale per row once applied the first super-block's dmin to both; the mma's verifier
// refuses that type, but only a verifier run after this pass would have seen it.)

// CHECK-LABEL: func.func @two_super_blocks
// CHECK:       %[[MP:.*]] = qgpu.local_load %{{.*}} -> tensor<16x32xf16, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 2}>>
// CHECK-NEXT:  %[[DMV:.*]] = qgpu.block_part %{{.*}} {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x2xf32, #qgpu.block_part<{format = "q4_K", part = "dmin", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:  %[[DM:.*]] = qgpu.local_load %[[DMV]] : {{.*}} -> tensor<16x2xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:       %[[SP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x8xf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 2}>>
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant dense<-1.000000e+00> : tensor<8x2xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  qgpu.mma %[[MP]], %[[SP]], %{{.*}} scale %[[DM]], %[[NEG]] lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"}
func.func @two_super_blocks(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>,
                            %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x2x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q4_K>> -> tensor<16x2x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q4_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// The prefill order of `MmqConfig(k_blocks=2)`: two q6_K super-blocks per K step as the dot's rhs
// ([2, N] blocks, W read as [K/256, N]) are read and multiplied one super-block at a time, as the
// decode order's lhs is (q4k-fold-two-super-blocks.mlir): the rhs views of block 0, then of block 1
// (`first = 1`), the activations' q8_1_mmq blocks 0-1, then 2-3, each slice's s8 mma with its
// per-16 `rhs_sub` scales chained through the accumulator.

// CHECK-LABEL: func.func @prefill_two_super_blocks
// CHECK:       qgpu.block_part %[[XS:[0-9]+]] {part = "qs", count = 2 : i64} : {{.*}} -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 4, valueDim = 1}>>
// CHECK:       qgpu.block_part %[[WS:[0-9]+]] {part = "ql", count = 1 : i64} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q6_K", part = "ql", blocks = 2, valueDim = 0}>>
// CHECK:       qgpu.block_part %[[WS]] {part = "sc", count = 1 : i64}
// CHECK:       %[[P0:[0-9]+]] = qgpu.mma %{{[0-9]+}}, %{{[0-9]+}}, %acc_i scale %{{[0-9]+}}, %{{[0-9]+}} rhs_sub %{{[0-9]+}} lhs = s8 rhs = s8
// CHECK:       qgpu.block_part %[[XS]] {part = "qs", first = 2 : i64, count = 2 : i64}
// CHECK:       qgpu.block_part %[[WS]] {part = "ql", first = 1 : i64, count = 1 : i64} : {{.*}} blocks = 2, valueDim = 0, first = 1}>>
// CHECK:       qgpu.block_part %[[WS]] {part = "sc", first = 1 : i64, count = 1 : i64}
// CHECK:       %[[P1:[0-9]+]] = qgpu.mma %{{[0-9]+}}, %{{[0-9]+}}, %[[P0]] scale %{{[0-9]+}}, %{{[0-9]+}} rhs_sub %{{[0-9]+}} lhs = s8 rhs = s8
// CHECK-NOT:   = qgpu.mma
// CHECK:       scf.yield %[[P1]]
func.func @prefill_two_super_blocks(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>,
                                    %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 512 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<16x4x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<2x16x!qdot.block<q6_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<16x4x!qdot.block<q8_1_mmq>> -> tensor<16x4x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<2x16x!qdot.block<q6_K>> -> tensor<2x16x!qdot.block<q6_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q6_K
         : tensor<16x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<q6_K>> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

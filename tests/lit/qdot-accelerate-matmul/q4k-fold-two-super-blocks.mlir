// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// A decode tile of two q4_K super-blocks along K (`MmqConfig(k_blocks=2)`) is read and multiplied
// one super-block at a time: views of block 0, then of block 1 (`first = 1`; of the activations'
// q8_1_mmq blocks 0-1, then 2-3), each slice's s8 mma and dmin fold chained through the
// accumulator, so a slice's operands are live only around its own mmas. Each fold has one dmin
// per row (a single dmin scale for a two-super-block fold once folded both with the first
// super-block's dmin, unseen until the verifier ran after this pass).

// CHECK-LABEL: func.func @two_super_blocks
// CHECK:       qgpu.block_part %[[WS:[0-9]+]] {part = "qs", count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK:       qgpu.block_part %[[XS:[0-9]+]] {part = "qs", count = 2 : i64} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 4, valueDim = 0}>>
// CHECK:       %[[INT0:[0-9]+]] = qgpu.mma {{.*}} lhs = u8 rhs = s8
// CHECK:       qgpu.block_part %[[WS]] {part = "dmin", count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x1xf32
// CHECK:       %[[F0:[0-9]+]] = qgpu.mma %{{[0-9]+}}, %{{[0-9]+}}, %[[INT0]] scale {{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin"
// CHECK:       qgpu.block_part %[[WS]] {part = "qs", first = 1 : i64, count = 1 : i64} : {{.*}} blocks = 2, valueDim = 1, first = 1}>>
// CHECK:       qgpu.block_part %[[XS]] {part = "qs", first = 2 : i64, count = 2 : i64}
// CHECK:       %[[INT1:[0-9]+]] = qgpu.mma %{{[0-9]+}}, %{{[0-9]+}}, %[[F0]] scale {{.*}} lhs = u8 rhs = s8
// CHECK:       qgpu.block_part %[[WS]] {part = "dmin", first = 1 : i64, count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x1xf32
// CHECK:       qgpu.mma %{{[0-9]+}}, %{{[0-9]+}}, %[[INT1]] scale {{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin"
// CHECK-NOT:   = qgpu.mma
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

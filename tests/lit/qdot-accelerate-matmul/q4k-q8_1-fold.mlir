// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// q8_1 (plain 32-value blocks, 36 bytes each) × q4_K: the dmin term as a rank-1 fold of the s8
// mma (`fold %fa, %fb`: acc += … − s_x[row, kb] · (dmin·m)[col, kb], an FMA per accumulator and
// block at lowering). q4_K's `min` = dmin·m is decoded once per CTA like its `scale` (blocked
// load, register → shared, columns contiguous); X's sums `s` load straight from the blocks. Only
// q8_1_mmq activations take the fp16 dmin mma instead (mmq-q4k.mlir).

// CHECK-LABEL: func.func @q8_1_q4k
// CHECK:       %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x8x!qdot.block<q8_1>>) -> !qgpu.memdesc<16x8x!qdot.block<q8_1>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:  %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<1x16x!qdot.block<q4_K>>)
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "scale16"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  %[[SC:.*]] = qgpu.local_alloc
// CHECK-NEXT:  %[[MNV:.*]] = qgpu.block_part %[[WS]] {part = "min"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_K", part = "min", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:  %[[MNR:.*]] = qgpu.local_load %[[MNV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[MN:.*]] = qgpu.local_alloc %[[MNR]] : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "q8_1", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load %[[XQV]]
// CHECK-NEXT:  %[[DV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q8_1", part = "d", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[D:.*]] = qgpu.local_load %[[DV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NEXT:  %[[SV:.*]] = qgpu.block_part %[[XS]] {part = "s"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q8_1", part = "s", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[S:.*]] = qgpu.local_load %[[SV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_K to = u8
// CHECK-NEXT:  %[[SCB:.*]] = qgpu.local_load %[[SC]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NEXT:  %[[MNB:.*]] = qgpu.local_load %[[MN]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[XQ]], %[[WU]], %{{.*}} scale %[[D]], %[[SCB]] fold %[[S]], %[[MNB]] lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK-NOT:   lhs = fp16
func.func @q8_1_q4k(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c32 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<16x8x!qdot.block<q8_1>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x16x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x16xf32>) {
    %kkx = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<16x8x!qdot.block<q8_1>> -> tensor<16x8x!qdot.block<q8_1>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q4_K>> -> tensor<1x16x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1 rhs = q4_K
         : tensor<16x8x!qdot.block<q8_1>> * tensor<1x16x!qdot.block<q4_K>> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

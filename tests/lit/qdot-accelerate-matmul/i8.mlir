// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// i8 × i8 with an i32 accumulator is the s8 mma on every arch and under every strategy that
// accepts it (native included: sm_120a has no faster integer path): both operands read
// straight into the ISA arrangement (kWidth 4), no upcast, no scales, no rescale, the
// accumulator converted to the #qgpu.mma layout as i32.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>

// CHECK-LABEL: func.func @i8_i8
// CHECK:       %[[A:.*]] = qgpu.local_alloc %a : (tensor<64x64xi8>) -> !qgpu.memdesc<64x64xi8, #qgpu.shared<{{[^>]*}}order = [1, 0]}>>
// CHECK:       %[[B:.*]] = qgpu.local_alloc %b : (tensor<64x64xi8>) -> !qgpu.memdesc<64x64xi8, #qgpu.shared<{{[^>]*}}order = [1, 0]}>>
// CHECK:       %[[AR:.*]] = qgpu.local_load %[[A]] : {{.*}} -> tensor<64x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %[[B]] : {{.*}} -> tensor<64x64xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[C:.*]] = qgpu.convert_layout %acc : {{.*}} -> tensor<64x64xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK:       %[[D:.*]] = qgpu.mma %[[AR]], %[[BR]], %[[C]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8"} : {{.*}} -> tensor<64x64xi32, [[MMA]]>
// CHECK:       qgpu.convert_layout %[[D]]
// CHECK-NOT:   qgpu.upcast
// CHECK-NOT:   qgpu.dot_scale
func.func @i8_i8(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %acc: tensor<64x64xi32, #bl>) -> tensor<64x64xi32, #bl>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<64x64xi8> * tensor<64x64xi8> -> tensor<64x64xi32, #bl>
  func.return %d : tensor<64x64xi32, #bl>
}

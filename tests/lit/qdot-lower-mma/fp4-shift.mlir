// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// kind::f8f6f4 with an fp4Unpacked operand: ldmatrix .b4x16_p64 leaves each fp4 value as a
// 0000xxxx byte, the mma wants it as 00xxxx00, so every register of that operand is shifted
// left by two (one shl.b32 per register; no carries cross bytes) and the shifted registers —
// not the loaded ones — feed the instruction.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>

// CHECK-LABEL: func.func @e4m3_e2m1
// CHECK:       %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]] = builtin.unrealized_conversion_cast %a
// CHECK:       %[[B0:.*]], %[[B1:.*]] = builtin.unrealized_conversion_cast %b
// CHECK:       %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.shli %[[B0]], %[[TWO]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[B1]], %[[TWO]] : i32
// CHECK-NOT:   arith.shli %[[A0]]
// CHECK:       ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e4m3.e2m1.f32 A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[S0]], %[[S1]]] C[
// CHECK-NOT:   scale_a
func.func @e4m3_e2m1(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e2m1 : tensor<16x32xf8E4M3FN, #a>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#au = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// The fp4 operand on the A side: its four registers are shifted, B's are not.
// CHECK-LABEL: func.func @e2m1_e4m3
// CHECK:       %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]] = builtin.unrealized_conversion_cast %a
// CHECK:       %[[B0:.*]], %[[B1:.*]] = builtin.unrealized_conversion_cast %b
// CHECK:       %[[S0:.*]] = arith.shli %[[A0]], %[[TWO:.*]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[A1]], %[[TWO]] : i32
// CHECK-NEXT:  %[[S2:.*]] = arith.shli %[[A2]], %[[TWO]] : i32
// CHECK-NEXT:  %[[S3:.*]] = arith.shli %[[A3]], %[[TWO]] : i32
// CHECK:       ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e2m1.e4m3.f32 A[%[[S0]], %[[S1]], %[[S2]], %[[S3]]] B[%[[B0]], %[[B1]]]
func.func @e2m1_e4m3(%a: tensor<16x16xi8, #au>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e2m1 rhs = e4m3 : tensor<16x16xi8, #au>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#au = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>

// Unscaled e2m1 × e2m1: both sides unpacked, both shifted (4 + 2 shifts for one k tile).
// CHECK-LABEL: func.func @e2m1_e2m1
// CHECK-COUNT-6: arith.shli %{{.*}}, %{{.*}} : i32
// CHECK-NOT:   arith.shli
// CHECK:       ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e2m1.e2m1.f32
func.func @e2m1_e2m1(%a: tensor<16x16xi8, #au>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e2m1 rhs = e2m1 : tensor<16x16xi8, #au>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// fp6 in 8-bit containers (00xxxxxx, as the mma wants them) is not shifted.
// CHECK-LABEL: func.func @e2m3_e5m2
// CHECK-NOT:   arith.shli
// CHECK:       ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e2m3.e5m2.f32
func.func @e2m3_e5m2(%a: tensor<16x32xf6E2M3FN, #a>, %b: tensor<32x8xf8E5M2, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e2m3 rhs = e5m2 : tensor<16x32xf6E2M3FN, #a>, tensor<32x8xf8E5M2, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

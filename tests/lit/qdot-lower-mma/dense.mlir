// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// qgpu.mma without scales: one ptx.mma_sync per (k tile, m tile, n tile) of the layouts,
// chaining the accumulator registers through the k tiles.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// bf16: m16n8k16 .f32.bf16.bf16.f32; K = 32 is two k tiles, the second accumulating into the
// first one's results.
// CHECK-LABEL: func.func @bf16
// CHECK:       %[[A0:.*]], %[[A1:.*]], %[[A2:.*]], %[[A3:.*]], %[[A4:.*]], %[[A5:.*]], %[[A6:.*]], %[[A7:.*]] = builtin.unrealized_conversion_cast %a
// CHECK:       %[[B0:.*]], %[[B1:.*]], %[[B2:.*]], %[[B3:.*]] = builtin.unrealized_conversion_cast %b
// CHECK:       %[[C0:.*]], %[[C1:.*]], %[[C2:.*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK:       %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[B0]], %[[B1]]] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK-NEXT:  %[[E0:.*]], %[[E1:.*]], %[[E2:.*]], %[[E3:.*]] = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%[[A4]], %[[A5]], %[[A6]], %[[A7]]] B[%[[B2]], %[[B3]]] C[%[[D0]], %[[D1]], %[[D2]], %[[D3]]]
// CHECK-NEXT:  %[[R:.*]] = builtin.unrealized_conversion_cast %[[E0]], %[[E1]], %[[E2]], %[[E3]] : f32, f32, f32, f32 to tensor<16x8xf32, #qgpu.mma
// CHECK-NEXT:  func.return %[[R]]
// CHECK-NOT:   qgpu.mma %
func.func @bf16(%a: tensor<16x32xbf16, #a>, %b: tensor<32x8xbf16, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = bf16 rhs = bf16 : tensor<16x32xbf16, #a>, tensor<32x8xbf16, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// fp16: the same shape with .f16 operands.
// CHECK-LABEL: func.func @fp16
// CHECK:       ptx.mma_sync m16n8k16 f32.f16.f16.f32
func.func @fp16(%a: tensor<16x16xf16, #a>, %b: tensor<16x8xf16, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = fp16 rhs = fp16 : tensor<16x16xf16, #a>, tensor<16x8xf16, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// s8 × s8 into i32: m16n8k32 .s32.s8.s8.s32, no conversion of the accumulator.
// CHECK-LABEL: func.func @s8
// CHECK:       %[[C0:.*]], %[[C1:.*]], %[[C2:.*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c : {{.*}} to i32, i32, i32, i32
// CHECK:       %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[D0]], %[[D1]], %[[D2]], %[[D3]] : i32, i32, i32, i32 to tensor<16x8xi32
// CHECK-NOT:   arith.sitofp
func.func @s8(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) -> tensor<16x8xi32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return %d : tensor<16x8xi32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// e4m3 × e4m3 (promote-fp8): the fp8 mma, without a kind.
// CHECK-LABEL: func.func @e4m3_e4m3
// CHECK-NOT:   arith.shli
// CHECK:       ptx.mma_sync m16n8k32 f32.e4m3.e4m3.f32 A[
// CHECK-NOT:   arith.shli
func.func @e4m3_e4m3(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e4m3 : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// A 32×16 output is 2 × 2 mma tiles per k tile: 4 instructions, each reading its own A and
// B registers and writing its own accumulators.
// CHECK-LABEL: func.func @tiles
// CHECK-COUNT-4: ptx.mma_sync m16n8k16 f32.bf16.bf16.f32
// CHECK-NOT:   ptx.mma_sync
// CHECK:       builtin.unrealized_conversion_cast {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 to tensor<32x16xf32
func.func @tiles(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) -> tensor<32x16xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = bf16 rhs = bf16 : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma> -> tensor<32x16xf32, #mma>
  func.return %d : tensor<32x16xf32, #mma>
}

// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of q5_0 and q5_1, one case per rule. q5_0's codes become s8 only
// (8 · (code − 16)) and q5_1's u8 only; both take their fifth bits from a high operand, which must
// be the blocks' qh words — i32, one per 32 values, in the #qgpu.dot_scale layout of the result's
// side with `operand = true` (the threads holding the block's values; on the B side the accumulator
// columns 2t, 2t + 1 are not them); q5_0's scale view is `d8`, never `d` (which would scale by 8 too
// much).
// COUNT: {{^5$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#w = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
func.func @to_u8(%x: tensor<16x32xi8, #a>, %h: tensor<16x2xi32, #w>) {
  %u = qgpu.upcast %x high %h from = q5_0 to = u8 : tensor<16x32xi8, #a> high tensor<16x2xi32, #w> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q5_0 to = u8 is not an exact conversion; q5_0 upcasts to s8{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @no_high(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q5_1 to = u8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q5_1 takes a high operand (its codes' top bits)

// -----

// the words in the accumulator layout of a B operand: not the threads of the operand's columns
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#acc = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @accumulator_columns(%x: tensor<32x8xi8, #b>, %h: tensor<8x2xi32, #acc>) {
  %u = qgpu.upcast %x high %h from = q5_0 to = s8 : tensor<32x8xi8, #b> high tensor<8x2xi32, #acc> -> tensor<64x8xi8, #b>
  func.return
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op high of from = q5_0 must be the blocks' qh words: i32 of shape [8, 2] (one per 32 values) in #qgpu.dot_scale<{opIdx = 1, parent = ..., operand = true}> of the result's parent (the threads of the operand's values), got tensor<8x2xi32, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>>

// -----

// one word per 32 values: a [16, 4] high for 64 values is the wrong shape
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#w = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
func.func @shape(%x: tensor<16x32xi8, #a>, %h: tensor<16x4xi32, #w>) {
  %u = qgpu.upcast %x high %h from = q5_1 to = u8 : tensor<16x32xi8, #a> high tensor<16x4xi32, #w> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op high of from = q5_1 must be the blocks' qh words: i32 of shape [16, 2]

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_d(%m: !qgpu.memdesc<8x16x!qdot.block<q5_0>, #sh>) {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<8x16x!qdot.block<q5_0>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q5_0", part = "d", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:128: error: q5_0 blocks have no part 'd'; parts: d8, qh, qs

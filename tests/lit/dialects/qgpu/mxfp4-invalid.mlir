// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of ggml's mxfp4, one case per rule. Its nibbles become s8 only (each
// ggml's kvalues entry, −12..12: u8 has no negative values, and bf16 / e4m3 are the OCP e2m1 operand's
// conversions, scaled by an external ue8m0 — not this block's); a block's views are its `qs` and `d`
// (2^(e − 128)) — no `d16` (its values are not scaled by 16) and no `min` (it has no offset).
// COUNT: {{^4$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_u8(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = mxfp4 to = u8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = mxfp4 to = u8 is not an exact conversion; mxfp4 upcasts to s8{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_e4m3(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = mxfp4 to = e4m3 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = mxfp4 to = e4m3 is not an exact conversion; mxfp4 upcasts to s8{{$}}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_d16(%m: !qgpu.memdesc<8x16x!qdot.block<mxfp4>, #sh>) {
  %v = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<8x16x!qdot.block<mxfp4>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "mxfp4", part = "d16", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:131: error: mxfp4 blocks have no part 'd16'; parts: d, qs

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_min(%m: !qgpu.memdesc<8x16x!qdot.block<mxfp4>, #sh>) {
  %v = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<8x16x!qdot.block<mxfp4>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "mxfp4", part = "min", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:131: error: mxfp4 blocks have no part 'min'; parts: d, qs

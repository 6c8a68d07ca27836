// The qgpu verifier rules of q5_K's upcast, one case each, reported at the op: its `high` operand
// (the codes' top bits, one per value: an eighth of the result's K) is required, sized by the bits
// per value (a quarter of the K, q6_K's size, is refused), and joins mma operands only.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// upcast: q5_K without its top bits
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>) {
  %u = qgpu.upcast %l from = q5_K to = s8 : tensor<128x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q5_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q5_K takes a high operand (its codes' top bits){{$}}

// -----

// upcast: q6_K's quarter of the K is not q5_K's eighth
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>, %h: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q5_K to = s8 : tensor<128x8xi8, #b> high tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q5_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op high must be [32, 8] with kWidth = 4 (the result's K / 8: 8 codes' top bits per byte), got [64, 8] with kWidth = 4{{$}}

// -----

// upcast: q5_K's codes are 0..31, unsigned bytes in place are q4_K's alone
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>, %h: tensor<32x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q5_K to = u8 : tensor<128x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q5_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q5_K to = u8 is not an exact conversion; q5_K upcasts to s8{{$}}

// -----

// upcast: the top bits join mma operands only, not a cooperatively dequantized (blocked) tile
#bl = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bh = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bo = #qgpu.blocked<{sizePerThread = [1, 64], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%l: tensor<16x64xi8, #bl>, %h: tensor<16x8xi8, #bh>) {
  %u = qgpu.upcast %l high %h from = q5_K to = s8 : tensor<16x64xi8, #bl> high tensor<16x8xi8, #bh> -> tensor<16x128xi8, #bo>
  func.return
}
// CHECK: q5_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a q5_K upcast converts mma operands (#qgpu.dot_op), not blocked tiles{{$}}

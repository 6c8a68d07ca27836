// The qgpu verifier rules of qgpu.upcast from = q3_K, one case each, reported at the op: its qs bytes hold
// four values each (the result's K is four times the source's), it takes the codes' top bits as a high
// operand an eighth of the result's K, it reads kWidth 4, and it makes s8 only.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// the result's K is the source's times 4, not 2
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>, %h: tensor<16x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q3_K to = s8 : tensor<64x8xi8, #b> high tensor<16x8xi8, #b> -> tensor<128x8xi8, #b>
  func.return
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [256, 8] (the source [64, 8] with K times 4), got [128, 8]{{$}}

// -----

// without its top bits
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l from = q3_K to = s8 : tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q3_K takes a high operand (its codes' top bits){{$}}

// -----

// the hmask bytes cover an eighth of the result's K (a bit per value), not a quarter
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>, %h: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q3_K to = s8 : tensor<64x8xi8, #b> high tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op high must be [32, 8] with kWidth = 4 (the result's K / 8: 8 codes' top bits per byte), got [64, 8] with kWidth = 4{{$}}

// -----

// a thread's bytes 4t..4t+3 hold its values of all four quarters of a span (the four 2-bit fields of its bytes) only
// at kWidth 4
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b8 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b8>, %h: tensor<32x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q3_K to = s8 : tensor<64x8xi8, #b8> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a q3_K upcast reads kWidth = 4 (a thread's bytes 4t..4t+3 then hold its values of all 4 parts of a span), got kWidth = 8{{$}}

// -----

// s8 only: 32 · (code − 4) is signed
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>, %h: tensor<32x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q3_K to = u8 : tensor<64x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q3_K to = u8 is not an exact conversion; q3_K upcasts to s8{{$}}

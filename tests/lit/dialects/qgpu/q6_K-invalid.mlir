// The qgpu verifier rules of q6_K's two new operands, one case each, reported at the op: the upcast's
// `high` (the codes' top bits: q6_K and q5_K take it, nothing else does; q6_K's a quarter of the result's K) and the
// mma's `lhs_sub` / `rhs_sub` (i32 factors per 16 values, per-block s8 only, in the scale's layout).
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// upcast: q6_K without its top bits
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>) {
  %u = qgpu.upcast %l from = q6_K to = s8 : tensor<128x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q6_K takes a high operand (its codes' top bits){{$}}

// -----

// upcast: a high operand for a format that has none
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>, %h: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q4_K to = s8 : tensor<128x8xi8, #b> high tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op only q3_K, q5_0, q5_1, q5_K, q6_K take a high operand, got from = q4_K{{$}}

// -----

// upcast: the high bytes cover a quarter of the result's K
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<128x8xi8, #b>, %h: tensor<128x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q6_K to = s8 : tensor<128x8xi8, #b> high tensor<128x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op high must be [64, 8] with kWidth = 4 (the result's K / 4: 4 codes' top bits per byte), got [128, 8] with kWidth = 4{{$}}

// -----

// mma: integer factors per half block only split per-block s8 sums
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %s: tensor<8x2xi32, #sb>) {
  %d = qgpu.mma %a, %b, %c rhs_sub %s lhs = e4m3 rhs = e4m3 : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> rhs_sub tensor<8x2xi32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs_sub splits each per-block s8 / u8 sum in two: it needs rescale = "per_block" and integer operands, got lhs = e4m3, rhs = e4m3{{$}}

// -----

// mma: one factor per 16 values
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %s: tensor<8x1xi32, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_sub %s lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_sub tensor<8x1xi32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs_sub must have shape [8, 2] (one factor per 16 values), got [8, 1]{{$}}

// -----

// mma: the factors are integers
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %s: tensor<16x2xf32, #sa>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs_sub %s lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> lhs_sub tensor<16x2xf32, #sa> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs_sub must hold i32 factors, got f32{{$}}

// -----

// upcast: the top bits join mma operands only, not a cooperatively dequantized (blocked) tile
#bl = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bh = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bo = #qgpu.blocked<{sizePerThread = [1, 64], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%l: tensor<16x64xi8, #bl>, %h: tensor<16x16xi8, #bh>) {
  %u = qgpu.upcast %l high %h from = q6_K to = s8 : tensor<16x64xi8, #bl> high tensor<16x16xi8, #bh> -> tensor<16x128xi8, #bo>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a q6_K upcast converts mma operands (#qgpu.dot_op), not blocked tiles{{$}}

// -----

// mma: the factors sit where their side's scales do (the same #qgpu.dot_scale layout)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#so = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %s: tensor<8x2xi32, #so>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_sub %s lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_sub tensor<8x2xi32, #so> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: q6_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs_sub must have the layout of the matching scale, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>, got #qgpu.dot_scale<{{.*}}operand = true}>{{$}}

// The qgpu verifier rules for q2_K, one case each, reported at the op. qgpu.upcast from = q2_K: it makes u8
// only (the codes 0..3), its qs bytes hold four values each (the result's K is four times the source's),
// it takes no high operand, it reads kWidth 4 and keeps it, a blocked upcast's thread run holds whole
// 128-value spans, and its optional integer scale (the 4-bit scale per 16 values it multiplies into the
// codes) is i8 [rows, K/16], one byte each, in the side's operand scale layout. qgpu.mma's lhs_min /
// rhs_min (q2_K's min per 16 values, `_verify_min`): one side only, with fold operands, integer operands,
// the min side's operand at kWidth 4 (each register's four values share one min), i8, shape [rows, K/16],
// in that side's operand scale layout.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// COUNT: {{^21$}}

// to = u8 only: the codes 0..3 are unsigned (the min term is a second mma, not an offset in s8)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l from = q2_K to = s8 : tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q2_K to = s8 is not an exact conversion; q2_K upcasts to u8{{$}}

// -----

// nor a float: a q2_K value needs its block's d, sc, dmin and m, which the mma applies
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l from = q2_K to = bf16 : tensor<64x8xi8, #b> -> tensor<256x8xbf16, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q2_K to = bf16 is not an exact conversion; q2_K upcasts to u8{{$}}

// -----

// the result's K is the source's times 4 (four 2-bit codes per byte), not 2
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l from = q2_K to = u8 : tensor<64x8xi8, #b> -> tensor<128x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [256, 8] (the source [64, 8] with K times 4), got [128, 8]{{$}}

// -----

// a q2_K code is its whole 2-bit field: no top bits to join (q3_K's hmask has no q2_K counterpart)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b>, %h: tensor<32x8xi8, #b>) {
  %u = qgpu.upcast %l high %h from = q2_K to = u8 : tensor<64x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op only q3_K, q5_0, q5_1, q5_K, q6_K take a high operand, got from = q2_K{{$}}

// -----

// a thread's bytes 4t..4t+3 hold its values of all four quarters of a span (the four 2-bit fields of its
// bytes) only at kWidth 4
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b8 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%l: tensor<64x8xi8, #b8>) {
  %u = qgpu.upcast %l from = q2_K to = u8 : tensor<64x8xi8, #b8> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a q2_K upcast reads kWidth = 4 (a thread's bytes 4t..4t+3 then hold its values of all 4 parts of a span), got kWidth = 8{{$}}

// -----

// and the result keeps kWidth 4: every value stays in its thread (K times 4, kWidth as it was)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#b16 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 16}>
func.func @f(%l: tensor<64x8xi8, #b>) {
  %u = qgpu.upcast %l from = q2_K to = u8 : tensor<64x8xi8, #b> -> tensor<256x8xi8, #b16>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result kWidth must be 4 (source kWidth = 4 of q2_K), got 16{{$}}

// -----

// a blocked (cooperative) upcast: a byte's four 2-bit fields are values p, p + 32, p + 64, p + 96 of a
// 128-value half super-block, so each thread's run along K holds whole 128-value spans (64 is half of one)
#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @blocked_half_span(%x: tensor<32x16xi8, #src>) {
  %u = qgpu.upcast %x from = q2_K to = u8 : tensor<32x16xi8, #src> -> tensor<32x64xi8, #dst>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op each thread's run of 64 values along K must hold whole 128-value q2_K spans (a byte's four 2-bit fields are 32 values apart){{$}}

// -----

// the integer scale follows the operand's threads (operand = true: a B-operand thread holds column g, the
// column of its codes), not the accumulator's (columns 2t, 2t + 1)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%l: tensor<64x8xi8, #b>, %s: tensor<8x16xi8, #sb>) {
  %u = qgpu.upcast %l scale %s from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x16xi8, #sb> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale of from = q2_K must be its integer scales: i8 of shape [8, 16] (one per 16 values) in #qgpu.dot_scale<{opIdx = 1, parent = ..., operand = true}> of the result's parent (the threads of the operand's values), got tensor<8x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>}>>{{$}}

// -----

// one scale per 16 values ([N, K/16] of the result), not per 32
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f(%l: tensor<64x8xi8, #b>, %s: tensor<8x8xi8, #ob>) {
  %u = qgpu.upcast %l scale %s from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x8xi8, #ob> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale of from = q2_K must be its integer scales: i8 of shape [8, 16] (one per 16 values) in #qgpu.dot_scale<{opIdx = 1, parent = ..., operand = true}> of the result's parent (the threads of the operand's values), got tensor<8x8xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>>{{$}}

// -----

// one byte per scale (i8, four to a register), not an i32 register each
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f(%l: tensor<64x8xi8, #b>, %s: tensor<8x16xi32, #ob>) {
  %u = qgpu.upcast %l scale %s from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x16xi32, #ob> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale of from = q2_K must be its integer scales: i8 of shape [8, 16] (one per 16 values) in #qgpu.dot_scale<{opIdx = 1, parent = ..., operand = true}> of the result's parent (the threads of the operand's values), got tensor<8x16xi32, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>>{{$}}

// -----

// integer factors (i8), not the E8M0 scales a float upcast takes
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f(%l: tensor<64x8xi8, #b>, %s: tensor<8x16xf8E8M0FNU, #ob>) {
  %u = qgpu.upcast %l scale %s from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x16xf8E8M0FNU, #ob> -> tensor<256x8xi8, #b>
  func.return
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale of from = q2_K must be its integer scales: i8 of shape [8, 16] (one per 16 values) in #qgpu.dot_scale<{opIdx = 1, parent = ..., operand = true}> of the result's parent (the threads of the operand's values), got tensor<8x16xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>>{{$}}

// -----

// qgpu.mma: mins on one side only (a min per 16 values weights the other side's values)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @both(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %ma: tensor<16x2xi8, #oa>, %mb: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb lhs_min %ma rhs_min %mb lhs = u8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> lhs_min tensor<16x2xi8, #oa> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op lhs_min and rhs_min: a min per 16 values weights the other side's values; give it on one side only{{$}}

// -----

// the mins' sum is scaled by fa · fb: no mins without fold operands
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @no_fold(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_min %mb lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min weights the fold term: it needs fold operands (fa · fb scale its sum){{$}}

// -----

// the mins are repeated into the operand of a second s8 mma: integer operands only
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @float_operands(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb rhs_min %mb lhs = e4m3 rhs = e4m3 {rescale = "per_block"}
     : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min is the operand of a second s8 mma: it needs integer operands, got lhs = e4m3, rhs = e4m3{{$}}

// -----

// each register of the min side's operand holds four consecutive k of one 16-value half only at kWidth 4,
// so one min repeated in its four bytes stands for it: not at kWidth 8 (q2_K on the left, lhs_min)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
func.func @k_width_8(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %ma: tensor<16x2xi8, #oa>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb lhs_min %ma lhs = u8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> lhs_min tensor<16x2xi8, #oa> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op lhs_min repeats a min over each operand register's four values: the lhs operand needs kWidth = 4, got kWidth = 8{{$}}

// -----

// integer mins (q2_K's 4-bit m is an integer; dmin is the fold's f32 factor)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f32_mins(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x2xf32, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb rhs_min %mb lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xf32, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min must hold i8 mins (one byte each, the operand's values), got f32{{$}}

// -----

// one byte per min (i8, four to a register: a prmt repeats each into its operand register), not an i32
// register each
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @i32_mins(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x2xi32, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb rhs_min %mb lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi32, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min must hold i8 mins (one byte each, the operand's values), got i32{{$}}

// -----

// one min per 16 values, [N, K/16], not one per 32
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @per_32(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x1xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb rhs_min %mb lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x1xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min must have shape [8, 2] (one min per 16 values), got [8, 1]{{$}}

// -----

// lhs_min has the lhs's rows, [M, K/16]
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @lhs_rows(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %ma: tensor<8x2xi8, #oa>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb lhs_min %ma lhs = u8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> lhs_min tensor<8x2xi8, #oa> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op lhs_min must have shape [16, 2] (one min per 16 values), got [8, 2]{{$}}

// -----

// the mins follow the operand's threads (operand = true: a B-operand thread holds column g), not
// the accumulator's (columns 2t, 2t + 1) as rhs_sub's factors do
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @scale_layout(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %mb: tensor<8x2xi8, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb rhs_min %mb lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_min must be in its side's operand scale layout, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, operand = true}>, got #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>{{$}}

// -----

// and in its own side's: lhs_min in the B side's operand layout
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @other_side(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
    %sb: tensor<8x1xf32, #sb>, %ma: tensor<16x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %sb lhs_min %ma lhs = u8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> lhs_min tensor<16x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op lhs_min must be in its side's operand scale layout, #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>, got #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>{{$}}

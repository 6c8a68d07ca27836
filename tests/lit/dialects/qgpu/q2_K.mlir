// qgpu.upcast from = q2_K: its qs bytes (four 2-bit fields per byte, laid out as q3_K's) make four times
// as many u8 values, the codes 0..3, with no high operand (a q2_K code is its 2-bit field); kWidth 4 on every
// side; optionally times an integer `scale`, the block's 4-bit scale per 16 values (i8 [rows, K/16], one byte
// each, in the side's *operand* scale layout, `operand = true`: sc · code ≤ 45 stays a u8). And qgpu.mma's
// `rhs_min` / `lhs_min`: q2_K's 4-bit min per 16 values, i8 in the operand scale layout too, beside the fold
// operands (the activations' d, the blocks' dmin), with the min side's operand at kWidth 4. The round trips
// and the shapes accepted.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
// CHECK-LABEL: func.func @q2_K_sides
// CHECK:       qgpu.upcast %{{[^ ]*}} from = q2_K to = u8 : tensor<16x64xi8, {{.*}}kWidth = 4}>> -> tensor<16x256xi8, {{.*}}kWidth = 4}>>
// CHECK:       qgpu.upcast %{{[^ ]*}} from = q2_K to = u8 : tensor<64x8xi8, {{.*}}kWidth = 4}>> -> tensor<256x8xi8, {{.*}}kWidth = 4}>>
// CHECK:       qgpu.upcast %qa scale %sa from = q2_K to = u8 : tensor<16x64xi8, {{.*}}>, tensor<16x16xi8, #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>> -> tensor<16x256xi8, {{.*}}kWidth = 4}>>
// CHECK:       qgpu.upcast %qb scale %sb from = q2_K to = u8 : tensor<64x8xi8, {{.*}}>, tensor<8x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>> -> tensor<256x8xi8, {{.*}}kWidth = 4}>>
func.func @q2_K_sides(%qa: tensor<16x64xi8, #a>, %qb: tensor<64x8xi8, #b>, %sa: tensor<16x16xi8, #oa>, %sb: tensor<8x16xi8, #ob>) {
  %ua = qgpu.upcast %qa from = q2_K to = u8 : tensor<16x64xi8, #a> -> tensor<16x256xi8, #a>
  %ub = qgpu.upcast %qb from = q2_K to = u8 : tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  %va = qgpu.upcast %qa scale %sa from = q2_K to = u8 : tensor<16x64xi8, #a>, tensor<16x16xi8, #oa> -> tensor<16x256xi8, #a>
  %vb = qgpu.upcast %qb scale %sb from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x16xi8, #ob> -> tensor<256x8xi8, #b>
  func.return
}

// -----

// The prefill kernel's mma, one 32-value block: q8_1_mmq's s8 values on the left (their d both the scale
// and the fold factor), q2_K's u8 sc · code on the right with its d, dmin (the fold) and 4-bit mins
// (rhs_min, the operand scale layout: a B-operand thread holds column g); no rhs_sub, the scales are in
// the codes.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
// CHECK-LABEL: func.func @q2_K_rhs_min
// CHECK:       qgpu.mma %a, %b, %c scale %xd, %d fold %xd, %dmin rhs_min %mn lhs = s8 rhs = u8 {qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-SAME:  fold tensor<16x1xf32, {{.*}}>, tensor<8x1xf32, {{.*}}> rhs_min tensor<8x2xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>> -> tensor<16x8xf32
// the generic form: the mins are the last of eleven operand segments (a, b, c, scales, folds, subs, mins)
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q2_K_rhs_min"
// CHECK-GENERIC:       "qgpu.mma"(%a, %b, %c, %xd, %d, %xd, %dmin, %mn) <{lhs = #qgpu<format s8>, rhs = #qgpu<format u8>, rescale = "per_block", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1>
func.func @q2_K_rhs_min(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %xd: tensor<16x1xf32, #sa>,
                        %d: tensor<8x1xf32, #sb>, %dmin: tensor<8x1xf32, #sb>, %mn: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %r = qgpu.mma %a, %b, %c scale %xd, %d fold %xd, %dmin rhs_min %mn lhs = s8 rhs = u8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb>
       fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %r : tensor<16x8xf32, #mma>
}

// -----

// The decode kernels' mma: q2_K on the left, its mins per 16 values lhs_min (rows g and g + 8 of an
// A-operand thread), two 32-value blocks.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
// CHECK-LABEL: func.func @q2_K_lhs_min
// CHECK:       qgpu.mma %a, %b, %c scale %d, %xd fold %dmin, %xd lhs_min %mn lhs = u8 rhs = s8 {rescale = "per_block"}
// CHECK-SAME:  lhs_min tensor<16x4xi8, #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>> -> tensor<16x8xf32
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q2_K_lhs_min"
// CHECK-GENERIC:       "qgpu.mma"(%a, %b, %c, %d, %xd, %dmin, %xd, %mn) <{lhs = #qgpu<format u8>, rhs = #qgpu<format s8>, rescale = "per_block", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0>
func.func @q2_K_lhs_min(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %d: tensor<16x2xf32, #sa>,
                        %dmin: tensor<16x2xf32, #sa>, %mn: tensor<16x4xi8, #oa>, %xd: tensor<8x2xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %r = qgpu.mma %a, %b, %c scale %d, %xd fold %dmin, %xd lhs_min %mn lhs = u8 rhs = s8 {rescale = "per_block"}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb>
       fold tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> lhs_min tensor<16x4xi8, #oa> -> tensor<16x8xf32, #mma>
  func.return %r : tensor<16x8xf32, #mma>
}

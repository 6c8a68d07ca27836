// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | not grep -e 'm16n8k32' -e '1262485504'
// `lhs_sub` / `rhs_sub` (q6_K's int8 scale per 16 values): one side's integer factor for each half
// of a 32-value scale block. An m16n8k32 s8 tile splits into two m16n8k16 ones without moving a
// register — A's registers 0-1 hold k 0-15 of rows g / g + 8 and 2-3 k 16-31; B's register 0
// k 0-15 of column g and 1 k 16-31 — so each k tile becomes two m16n8k16 mmas from a zero
// accumulator, each half's s32 sum is multiplied by its factor and the two added in s32 (exact),
// and only then converted (sitofp: never the magic-number form, whose 2^22 bound such a sum can
// pass — q6_K reaches 2^24) and folded with the f32 scales as every per-block sum is. No m16n8k32
// mma and no magic constant (1262485504) anywhere in the file.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The factors on B (the prefill kernel's q6_K W): a thread's two accumulator columns 2t, 2t + 1
// each have their own pair (lo, hi) — registers 0-1 of %sub for column 2t, 2-3 for 2t + 1.
// CHECK-LABEL: func.func @rhs_sub
// CHECK:       %[[A0:[^,]*]], %[[A1:[^,]*]], %[[A2:[^,]*]], %[[A3:.*]] = builtin.unrealized_conversion_cast %a
// CHECK-NEXT:  %[[B0:[^,]*]], %[[B1:.*]] = builtin.unrealized_conversion_cast %b
// CHECK:       %[[S0:[^,]*]], %[[S1:[^,]*]], %[[S2:[^,]*]], %[[S3:.*]] = builtin.unrealized_conversion_cast %sub : {{.*}} to i32, i32, i32, i32
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[LO0:[^,]*]], %[[LO1:[^,]*]], %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k16 s32.s8.s8.s32 A[%[[A0]], %[[A1]]] B[%[[B0]]] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  %[[HI0:[^,]*]], %[[HI1:[^,]*]], %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k16 s32.s8.s8.s32 A[%[[A2]], %[[A3]]] B[%[[B1]]] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  %[[W0:.*]] = arith.muli %[[LO0]], %[[S0]] : i32
// CHECK-NEXT:  %[[W1:.*]] = arith.muli %[[HI0]], %[[S1]] : i32
// CHECK-NEXT:  %[[X0:.*]] = arith.addi %[[W0]], %[[W1]] : i32
// CHECK-NEXT:  %[[W2:.*]] = arith.muli %[[LO1]], %[[S2]] : i32
// CHECK-NEXT:  %[[W3:.*]] = arith.muli %[[HI1]], %[[S3]] : i32
// CHECK-NEXT:  arith.addi %[[W2]], %[[W3]] : i32
// the last two registers (row g + 8) reuse the columns' factors
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S0]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S1]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S2]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S3]] : i32
// CHECK-NEXT:  arith.addi
// then the usual per-block fold of each exact sum: sitofp, the scale product, multiply-add
// CHECK-NEXT:  %[[F0:.*]] = arith.sitofp %[[X0]] : i32 to f32
// CHECK-NEXT:  %[[P0:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  arith.mulf %[[F0]], %[[P0]] fastmath<contract> : f32
func.func @rhs_sub(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                   %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %sub: tensor<8x2xi32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_sub %sub lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_sub tensor<8x2xi32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The factors on A (the decode kernels' q6_K W), two k tiles: rows g and g + 8 have their own
// pairs, shared by both columns — row g's four halves are registers 0-3 of %sub, row g + 8's 4-7
// — so k tile 0 reads 0-1 (accumulator positions 0, 1) and 4-5 (positions 2, 3), k tile 1 the
// next block's 2-3 and 6-7.
// CHECK-LABEL: func.func @lhs_sub
// CHECK:       %[[S0:[^,]*]], %[[S1:[^,]*]], %[[S2:[^,]*]], %[[S3:[^,]*]], %[[S4:[^,]*]], %[[S5:[^,]*]], %[[S6:[^,]*]], %[[S7:.*]] = builtin.unrealized_conversion_cast %sub
// CHECK:       ptx.mma_sync m16n8k16 s32.s8.s8.s32
// CHECK-NEXT:  ptx.mma_sync m16n8k16 s32.s8.s8.s32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S0]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S1]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S0]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S1]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S4]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S5]] : i32
// CHECK:       ptx.mma_sync m16n8k16 s32.s8.s8.s32
// CHECK-NEXT:  ptx.mma_sync m16n8k16 s32.s8.s8.s32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S2]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S3]] : i32
// CHECK:       arith.muli %{{.*}}, %[[S6]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[S7]] : i32
func.func @lhs_sub(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                   %sa: tensor<16x2xf32, #sa>, %sb: tensor<8x2xf32, #sb>, %sub: tensor<16x4xi32, #sa>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs_sub %sub lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> lhs_sub tensor<16x4xi32, #sa> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// {qdot.scale_bits = n} on a per-block s8 mma says every scale has at most n significant bits.
// With n ≤ 22, −1.5 · 2^23 · s is exact in f32 whatever s is (1.5 adds one bit), so the magic-
// number rescale applies to scales that are not powers of two: the block mma starts from
// 0x4B400000 (1262485504), its result read as f32 is 1.5 · 2^23 + x, and the fused
// fma(1.5 · 2^23 + x, s, −1.5 · 2^23 · s) is x · s rounded once — no sitofp, no scale product
// per register. qdot-accelerate-matmul sets n = 17 on the q4_K × q8_1 block dots (an fp16 d,
// 11 bits, times a 6-bit sc). Wider or unstated scales keep sitofp and the scale product.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// One m16n8 tile: a thread holds two rows and two columns, so s is A's scale (rows g, g + 8),
// −1.5 · 2^23 · s is one multiply per row, shared by both columns; B's scale goes into the
// accumulating FMA.
// CHECK-LABEL: func.func @narrow
// CHECK:       %[[C0:[^,]*]], %[[C1:[^,]*]], %[[C2:[^,]*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK:       %[[SA0:[^,]*]], %[[SA1:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to f32, f32
// CHECK-NEXT:  %[[SB0:[^,]*]], %[[SB1:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to f32, f32
// CHECK-NEXT:  %[[M:.*]] = arith.constant 1262485504 : i32
// CHECK-NEXT:  %[[D0:[^,]*]], %[[D1:[^,]*]], %[[D2:[^,]*]], %[[D3:.*]] = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[M]], %[[M]], %[[M]], %[[M]]]
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB400000 : f32
// CHECK-NEXT:  %[[NM0:.*]] = arith.mulf %[[SA0]], %[[NEG]] : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[D0]] : i32 to f32
// CHECK-NEXT:  %[[X0:.*]] = math.fma %[[F0]], %[[SA0]], %[[NM0]] : f32
// CHECK-NEXT:  %[[P0:.*]] = arith.mulf %[[X0]], %[[SB0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[A0:.*]] = arith.addf %[[P0]], %[[C0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[F1:.*]] = arith.bitcast %[[D1]] : i32 to f32
// CHECK-NEXT:  %[[X1:.*]] = math.fma %[[F1]], %[[SA0]], %[[NM0]] : f32
// CHECK-NEXT:  %[[P1:.*]] = arith.mulf %[[X1]], %[[SB1]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %[[P1]], %[[C1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[NM1:.*]] = arith.mulf %[[SA1]], %[[NEG]] : f32
// CHECK-NEXT:  %[[F2:.*]] = arith.bitcast %[[D2]] : i32 to f32
// CHECK-NEXT:  math.fma %[[F2]], %[[SA1]], %[[NM1]] : f32
// CHECK:       math.fma %{{.*}}, %[[SA1]], %[[NM1]] : f32
// CHECK-NOT:   arith.sitofp
// CHECK-NOT:   math.fma
func.func @narrow(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                  %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// Two m tiles, one n tile (the decode kernels' shape: weight rows on M, a few tokens on N): a
// thread holds four rows but two columns, so s is B's scale — two −1.5 · 2^23 · s products
// instead of four.
// CHECK-LABEL: func.func @narrow_fewer_columns
// CHECK:       %[[SB0:[^,]*]], %[[SB1:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to f32, f32
// CHECK:       %[[NEG:.*]] = arith.constant 0xCB400000 : f32
// CHECK-NEXT:  %[[NM0:.*]] = arith.mulf %[[SB0]], %[[NEG]] : f32
// CHECK:       math.fma %{{.*}}, %[[SB0]], %[[NM0]] : f32
// CHECK:       %[[NM1:.*]] = arith.mulf %[[SB1]], %[[NEG]] : f32
// CHECK:       math.fma %{{.*}}, %[[SB1]], %[[NM1]] : f32
// CHECK-COUNT-6: math.fma
// CHECK-NOT:   arith.mulf %{{.*}}, %[[NEG]] : f32
// CHECK-NOT:   arith.sitofp
// CHECK-NOT:   math.fma
func.func @narrow_fewer_columns(%a: tensor<32x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<32x8xf32, #mma>,
                                %sa: tensor<32x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) -> tensor<32x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<32x32xi8, #a>, tensor<32x8xi8, #b>, tensor<32x8xf32, #mma>, tensor<32x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<32x8xf32, #mma>
  func.return %d : tensor<32x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// With the q4_K dmin term as a fold (q4k-fold=fma): the magic rescale, then the fold's FMA.
// CHECK-LABEL: func.func @narrow_with_fold
// CHECK:       %[[FA0:[^,]*]], %{{.*}} = builtin.unrealized_conversion_cast %fa : {{.*}} to f32, f32
// CHECK:       ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[M:.*]], %[[M]], %[[M]], %[[M]]]
// CHECK:       math.fma
// CHECK-NEXT:  %[[P0:.*]] = arith.mulf
// CHECK-NEXT:  %[[A0:.*]] = arith.addf %[[P0]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[NFA0:.*]] = arith.negf %[[FA0]] : f32
// CHECK-NEXT:  %[[Q0:.*]] = arith.mulf %[[NFA0]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %[[Q0]], %[[A0]] fastmath<contract> : f32
// CHECK-NOT:   arith.sitofp
func.func @narrow_with_fold(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                            %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>,
                            %fa: tensor<16x1xf32, #sa>, %fb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %fb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb>
       fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// 23 significant bits is too many (−1.5 · 2^23 · s would round): sitofp and the scale product.
// CHECK-LABEL: func.func @too_wide
// CHECK:       %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  arith.sitofp
// CHECK-NOT:   math.fma
func.func @too_wide(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                    %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 23 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// A constant scale is judged by its value, whatever qdot.scale_bits says of the registers: 0.1
// has 24 significant bits, so sitofp and the scale product.
// CHECK-LABEL: func.func @wide_splat
// CHECK:       %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  arith.sitofp
// CHECK-NOT:   math.fma
func.func @wide_splat(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                      %sb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %sa = arith.constant dense<0.1> : tensor<16x1xf32, #sa>
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// ue8m0 scales with fewer columns than rows per thread: s is B's decoded scale, and as a ue8m0
// scale (up to 2^127) it keeps the overflow guard, fma(n, 0, n), which makes its block NaN where
// −1.5 · 2^23 · s would be −inf.
// CHECK-LABEL: func.func @ue8m0_fewer_columns
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to i32
// CHECK:       ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK:       arith.andi %[[SB]], %{{.*}} : i32
// CHECK:       %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB400000 : f32
// CHECK-NEXT:  %[[NM:.*]] = arith.mulf %[[S]], %[[NEG]] : f32
// CHECK-NEXT:  %[[P:.*]] = arith.mulf %[[NM]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[GUARD:.*]] = arith.addf %[[P]], %[[NM]] fastmath<contract> : f32
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:  math.fma %[[F]], %[[S]], %[[GUARD]] : f32
func.func @ue8m0_fewer_columns(%a: tensor<32x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<32x8xf32, #mma>,
                               %sa: tensor<32x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) -> tensor<32x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<32x32xi8, #a>, tensor<32x8xi8, #b>, tensor<32x8xf32, #mma>, tensor<32x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<32x8xf32, #mma>
  func.return %d : tensor<32x8xf32, #mma>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// Splat constant scales — the unit scales qdot-accelerate-matmul gives the unscaled side of
// a per-block rescale, in the other side's scale type (ue8m0 1.0) or in f32 when neither side
// has scales — are read at compile time: no registers, no decode, the constant folded into
// the factor and erased. And no constant is built that nothing uses (the zero accumulator
// exists only for per-block rescales).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// Unit ue8m0 on the lhs, real ue8m0 on the rhs (e2m3 × e2m1 under promote-int8: exp = [3, 1]):
// the known side, 2^-4, takes the magic-number conversion (fma(d, 2^-4, −1.5 · 2^23 · 2^-4),
// both constants), the decoded rhs scale the accumulating FMA.
// CHECK-LABEL: func.func @unit_lhs
// CHECK-NOT:   dense<
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to i32
// CHECK-NOT:   builtin.unrealized_conversion_cast %{{.*}} : tensor<16x1xf8E8M0FNU
// CHECK:       %[[D0:.*]], %[[D1:.*]], %{{.*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK:       arith.maxnumf
// CHECK-NEXT:  arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  arith.mulf
// CHECK-NEXT:  %[[SB0:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[UNIT:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant -7.864320e+05 : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[D0]] : i32 to f32
// CHECK-NEXT:  %[[X0:.*]] = math.fma %[[F0]], %[[UNIT]], %[[NEG]] : f32
// CHECK-NEXT:  arith.mulf %[[X0]], %[[SB0]] fastmath<contract> : f32
// CHECK:       arith.maxnumf
// CHECK-NEXT:  arith.mulf
// CHECK-NEXT:  %[[SB1:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[F1:.*]] = arith.bitcast %[[D1]] : i32 to f32
// CHECK-NEXT:  math.fma %[[F1]], %[[UNIT]], %[[NEG]] : f32
// CHECK-NEXT:  arith.mulf %{{.*}}, %[[SB1]] fastmath<contract> : f32
// CHECK-NOT:   arith.constant {{.*}} : f32
// CHECK:       func.return
func.func @unit_lhs(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                    %sb: tensor<8x1xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %sa = arith.constant dense<1.0> : tensor<16x1xf8E8M0FNU, #sa>
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 3, 1>}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// f32 unit scales on both sides (promote-int8 of unscaled e2m1 × e2m1, exp = [1, 1]): every
// factor is the one constant 0.25, taken by the magic-number conversion; the accumulation is
// a plain add.
// CHECK-LABEL: func.func @unit_both
// CHECK-NOT:   dense<
// CHECK:       %[[Q:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCA400000 : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:  %[[X0:.*]] = math.fma %[[F0]], %[[Q]], %[[NEG]] : f32
// CHECK-NEXT:  arith.addf %[[X0]], %{{.*}} : f32
// CHECK-COUNT-3: math.fma %{{.*}}, %[[Q]], %[[NEG]] : f32
// CHECK-NOT:   arith.constant {{.*}} : f32
// CHECK:       func.return
func.func @unit_both(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %sa = arith.constant dense<1.0> : tensor<16x1xf32, #sa>
  %sb = arith.constant dense<1.0> : tensor<8x1xf32, #sb>
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 1, 1>}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// Without a rescale the mma chains the accumulator: no zero (nor any other constant) is built.
// CHECK-LABEL: func.func @dense
// CHECK-NOT:   arith.constant
// CHECK:       %[[C0:[^,]*]], %[[C1:[^,]*]], %[[C2:[^,]*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK-NOT:   arith.constant
// CHECK:       %[[D0:[^,]*]], %[[D1:[^,]*]], %[[D2:[^,]*]], %[[D3:.*]] = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{{.*}}] B[{{.*}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK-NEXT:  ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{{.*}}] B[{{.*}}] C[%[[D0]], %[[D1]], %[[D2]], %[[D3]]]
// CHECK-NOT:   arith.constant
// CHECK:       func.return
func.func @dense(%a: tensor<16x32xbf16, #a>, %b: tensor<32x8xbf16, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = bf16 rhs = bf16 : tensor<16x32xbf16, #a>, tensor<32x8xbf16, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// Real ue8m0 on the lhs, unit on the rhs: the known side (the rhs's 1.0; the 2^-2 of the
// shifts rides on the decoded lhs scale) takes the magic-number conversion, so −1.5 · 2^23 · s
// is a constant and no lhs scale is multiplied by 1.5 · 2^23: the lhs scale's whole range
// (codes up to 254) stays exact.
// CHECK-LABEL: func.func @unit_rhs
// CHECK:       %[[D0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK:       %[[SAU:.*]] = arith.mulf %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB400000 : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[D0]] : i32 to f32
// CHECK-NEXT:  %[[X0:.*]] = math.fma %[[F0]], %[[ONE]], %[[NEG]] : f32
// CHECK-NEXT:  arith.mulf %[[X0]], %[[SAU]] fastmath<contract> : f32
// CHECK:       func.return
func.func @unit_rhs(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                    %sa: tensor<16x1xf8E8M0FNU, #sa>) -> tensor<16x8xf32, #mma> {
  %sb = arith.constant dense<1.0> : tensor<8x1xf8E8M0FNU, #sb>
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 1, 1>}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

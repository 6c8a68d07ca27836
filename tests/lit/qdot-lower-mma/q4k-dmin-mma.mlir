// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// The q4_K dmin term of q4_K × q8_1_mmq as an mma ({qdot.fold = "dmin"}): K = 16 holds a super-
// block's eight (s_j, m_j) pairs (padded), so one m16n8k16 f16 mma from zero gives Σ_j s_j·m_j
// per output element, exact in f32; the per-block rescale then applies dmin · (−1) once per
// super-block: acc += (Σ s·m) · (−dmin), a contracted multiply-add per accumulator register. The
// −1 side is a splat constant: read at compile time (one multiply per dmin register, reused by
// both columns of the thread), never materialized as registers.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The decode kernel's form: the mins are A (weight rows), dmin A's scale, the sums B with −1.
// CHECK-LABEL: func.func @dmin_weights_lhs
// CHECK:       %[[C0:.*]], %[[C1:.*]], %[[C2:.*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK-NEXT:  %[[DM0:[^,]*]], %[[DM1:.*]] = builtin.unrealized_conversion_cast %dmin : {{.*}} to f32, f32
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[P0:.*]], %[[P1:.*]], %[[P2:.*]], %[[P3:.*]] = ptx.mma_sync m16n8k16 f32.f16.f16.f32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  %[[NEG1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:  %[[K0:.*]] = arith.mulf %[[DM0]], %[[NEG1]] : f32
// CHECK-NEXT:  %[[T0:.*]] = arith.mulf %[[P0]], %[[K0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[A0:.*]] = arith.addf %[[T0]], %[[C0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[T1:.*]] = arith.mulf %[[P1]], %[[K0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[A1:.*]] = arith.addf %[[T1]], %[[C1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[K1:.*]] = arith.mulf %[[DM1]], %[[NEG1]] : f32
// CHECK-NEXT:  %[[T2:.*]] = arith.mulf %[[P2]], %[[K1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[A2:.*]] = arith.addf %[[T2]], %[[C2]] fastmath<contract> : f32
// CHECK-NEXT:  %[[T3:.*]] = arith.mulf %[[P3]], %[[K1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[A3:.*]] = arith.addf %[[T3]], %[[C3]] fastmath<contract> : f32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[A0]], %[[A1]], %[[A2]], %[[A3]] : f32, f32, f32, f32 to tensor<16x8xf32
// CHECK-NOT:   ptx.mma_sync
// CHECK-NOT:   dense<-1.000000e+00>
func.func @dmin_weights_lhs(%m: tensor<16x16xf16, #a>, %s: tensor<16x8xf16, #b>, %c: tensor<16x8xf32, #mma>,
                            %dmin: tensor<16x1xf32, #sa>) -> tensor<16x8xf32, #mma> {
  %neg = arith.constant dense<-1.000000e+00> : tensor<8x1xf32, #sb>
  %d = qgpu.mma %m, %s, %c scale %dmin, %neg lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"}
     : tensor<16x16xf16, #a>, tensor<16x8xf16, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The prefill kernel's form: the sums are A with −1, the mins B with dmin per column (2t, 2t + 1).
// CHECK-LABEL: func.func @dmin_weights_rhs
// CHECK:       %[[DM0:[^,]*]], %[[DM1:.*]] = builtin.unrealized_conversion_cast %dmin : {{.*}} to f32, f32
// CHECK:       %[[P0:.*]], %[[P1:.*]], %[[P2:.*]], %[[P3:.*]] = ptx.mma_sync m16n8k16 f32.f16.f16.f32
// CHECK-NEXT:  %[[NEG1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:  %[[K0:.*]] = arith.mulf %[[NEG1]], %[[DM0]] : f32
// CHECK-NEXT:  arith.mulf %[[P0]], %[[K0]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  %[[K1:.*]] = arith.mulf %[[NEG1]], %[[DM1]] : f32
// CHECK-NEXT:  arith.mulf %[[P1]], %[[K1]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  arith.mulf %[[P2]], %[[K0]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  arith.mulf %[[P3]], %[[K1]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf
// CHECK-NEXT:  builtin.unrealized_conversion_cast
func.func @dmin_weights_rhs(%s: tensor<16x16xf16, #a>, %m: tensor<16x8xf16, #b>, %c: tensor<16x8xf32, #mma>,
                            %dmin: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %neg = arith.constant dense<-1.000000e+00> : tensor<16x1xf32, #sa>
  %d = qgpu.mma %s, %m, %c scale %neg, %dmin lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"}
     : tensor<16x16xf16, #a>, tensor<16x8xf16, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

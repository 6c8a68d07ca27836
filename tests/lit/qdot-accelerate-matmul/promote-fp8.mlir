// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-fp8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=promote-fp8}' | filecheck %s
// strategy=promote-fp8: fp4/fp6 become e4m3 in registers (exact), e5m2 stays e5m2, and the
// fp8 mma runs them (native on sm_89, emulated by ptxas on sm_90, still legal there). Forced on
// sm_120a it makes the same choices, output for output: an e4m3/e5m2 qgpu.mma (the plain fp8
// mma.sync), not the fp4 operand and fp4Padded staging of the native strategy there.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// Unscaled e4m3 × e2m1: the packed fp4 operand is loaded as 4 packed bytes (kWidth 4 bytes =
// 8 values) and upcast to e4m3 with kWidth 8, which both sides then share. No fp4Padded
// staging (that is the native path), no rescale.
// CHECK-LABEL: func.func @e4m3_e2m1
// CHECK-NOT:   fp4Padded
// CHECK:       %[[AR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 8}>>
// CHECK:       %[[BP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %[[BP]] from = e2m1 to = e4m3 : tensor<32x32xi8, {{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8"} :
func.func @e4m3_e2m1(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// With ue8m0 scales on both sides the scales are not folded into e4m3 (they may not fit):
// each scale block gets its own mma and the fp32 accumulator takes d · sa · sb
// (rescale = "per_block"); neither scale layout follows the B operand (no operand = true).
// CHECK-LABEL: func.func @e4m3_e2m1_ue8m0
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 :
// CHECK:       %[[SA:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]]}>>
// CHECK:       %[[SB:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} scale %[[SA]], %[[SB]] lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// CHECK-NOT:   qdot.exp
func.func @e4m3_e2m1_ue8m0(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                           %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 × e2m1 with scales: both sides are upcast to e4m3 (not the packed mxf4 kinds).
// CHECK-LABEL: func.func @e2m1_e2m1_ue8m0
// CHECK:       %[[AR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 8}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 : {{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
func.func @e2m1_e2m1_ue8m0(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                           %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e5m2 stays e5m2 (its range does not fit e4m3); fp6 e3m2 is promoted to e4m3.
// CHECK-LABEL: func.func @e5m2_e3m2
// CHECK-NOT:   qgpu.upcast %{{.*}} from = e5m2
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e3m2 to = e4m3 :
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = e5m2 rhs = e4m3 {qdot.strategy = "promote-fp8"}
func.func @e5m2_e3m2(%a: tensor<32x64xf8E5M2>, %b: tensor<64x32xf6E3M2FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e5m2 rhs = e3m2 : tensor<32x64xf8E5M2> * tensor<64x32xf6E3M2FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// auto promises the fastest *legal* strategy: a dot that dequant-bf16 (or native with unit
// ue8m0 scales on the unscaled side) can run must not end in a diagnostic. On sm_120a native
// refuses a scale on one side only, so auto takes the next legal strategy, promote-fp8 (the fp8
// mma is native there), with unit ue8m0 scales for the unscaled lhs and a per-block rescale.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @e4m3_e2m1_rhs_scaled
// CHECK:       %[[UA:.*]] = arith.constant dense<1.000000e+00> : tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0,
// CHECK:       %[[SB:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1,
// CHECK:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %[[UA]], %[[SB]] lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// CHECK-NOT:   qdot.dot_scaled
func.func @e4m3_e2m1_rhs_scaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

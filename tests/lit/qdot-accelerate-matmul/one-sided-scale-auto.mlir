// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// auto promises the fastest *legal* strategy: a dot that dequant-bf16 (or native with unit
// ue8m0 scales on the unscaled side) can run must not end in a diagnostic.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @e4m3_e2m1_rhs_scaled
// CHECK:       qgpu.mma
// CHECK-NOT:   qdot.dot_scaled
func.func @e4m3_e2m1_rhs_scaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

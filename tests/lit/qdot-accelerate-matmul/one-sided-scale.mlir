// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefix=FP8
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s --check-prefix=INT8
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89}' | filecheck %s --check-prefix=FP8
// MXFP8-style activations without scales times scaled MXFP4 weights (a scale on one side only)
// is legal for qdot.dot_scaled; under a per-block rescale the unscaled side must get unit
// scales of the same kind as the other side's, giving a qgpu.mma that verifies.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// FP8-LABEL: func.func @e4m3_e2m1_rhs_scaled
// FP8:       qgpu.mma {{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// FP8-SAME:  tensor<32x2x[[S:[a-zA-Z0-9]+]], #qgpu.dot_scale<{opIdx = 0, {{.*}}>>, tensor<32x2x[[S]], #qgpu.dot_scale<{opIdx = 1,
func.func @e4m3_e2m1_rhs_scaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// e4m3 has no exact int8 form: promote-int8 refuses the first case at the dot.
// INT8:      one-sided-scale.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is e4m3

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// INT8-LABEL: func.func @e2m3_e2m1_rhs_scaled
// INT8:       qgpu.mma {{.*}} scale {{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.exp = array<i64: 3, 1>, rescale = "per_block"}
// INT8-SAME:  tensor<32x2x[[S:[a-zA-Z0-9]+]], #qgpu.dot_scale<{opIdx = 0, {{.*}}>>, tensor<32x2x[[S]], #qgpu.dot_scale<{opIdx = 1,
func.func @e2m3_e2m1_rhs_scaled(%a: tensor<32x64xf6E2M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = e2m3 rhs = e2m1
     : tensor<32x64xf6E2M3FN> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

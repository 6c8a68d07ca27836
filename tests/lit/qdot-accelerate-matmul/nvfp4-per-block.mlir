// RUN: qdot-opt %s --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=AUTO
// RUN: qdot-opt %s --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89}' | filecheck %s --check-prefix=AUTO
// RUN: qdot-opt %s --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s --check-prefix=EXPLICIT
// RUN: qdot-opt %s --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefix=EXPLICIT
// An s8 or fp8 mma spans 32 K values, two NVFP4 scale groups, so a per-block rescale cannot
// apply them. auto must pick a strategy that can (dequant-bf16 folds ue4m3 exactly); an
// explicit promote-int8 / promote-fp8 must either lower correctly or be refused at the dot —
// never produce a qgpu.mma that fails verification.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// AUTO-LABEL:   func.func @nvfp4
// AUTO:         qgpu.upcast {{.*}} scale {{.*}} from = e2m1 to = bf16
// AUTO:         qgpu.upcast {{.*}} scale {{.*}} from = e2m1 to = bf16
// AUTO:         qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// AUTO-NOT:     error
// EXPLICIT-NOT: error: 'qgpu.mma' op
// EXPLICIT:     {{nvfp4-per-block.mlir:22:3: error: 'qdot.dot_scaled' op|qgpu.mma}}
// EXPLICIT-NOT: error: 'qgpu.mma' op
func.func @nvfp4(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                 %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

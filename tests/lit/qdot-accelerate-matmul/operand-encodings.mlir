// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// qdot.dot_scaled's verifier lets an operand carry any encoding (a pass before may have laid the
// tiles out); this pass stages each operand to shared memory from its register layout, so an
// encoding that is not one is refused at the dot (it became a qgpu.local_alloc the verifier refused,
// reported as the pass's bug). A register layout of the tile, or no encoding, is taken.

func.func @string_encoding(%a: tensor<32x64xf8E4M3FN, "dot_a">, %b: tensor<64x32xf8E4M3FN>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = e4m3 : tensor<32x64xf8E4M3FN, "dot_a"> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// CHECK: operand-encodings.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op qdot-accelerate-matmul: its lhs operand tensor<32x64xf8E4M3FN, "dot_a"> carries an encoding it cannot stage from (tensor has no qgpu layout encoding (#qgpu.blocked, mma, dot_op or dot_scale), got "dot_a"); give it a qgpu register layout of its tile, or none

// -----

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @shared_encoding(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x32xf8E4M3FN, #shared>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = e4m3 : tensor<32x64xf8E4M3FN> * tensor<64x32xf8E4M3FN, #shared> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// CHECK: operand-encodings.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op qdot-accelerate-matmul: its rhs operand tensor<64x32xf8E4M3FN, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>> carries an encoding it cannot stage from

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @register_layout
// CHECK:       qgpu.local_alloc %{{.*}} : (tensor<32x64xf8E4M3FN, #qgpu.blocked
// CHECK:       qgpu.mma
func.func @register_layout(%a: tensor<32x64xf8E4M3FN, #bl>, %b: tensor<64x32xf8E4M3FN>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = e4m3 : tensor<32x64xf8E4M3FN, #bl> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

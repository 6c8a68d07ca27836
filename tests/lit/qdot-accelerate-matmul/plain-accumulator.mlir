// XFAIL: *
// Bug: with an accumulator tensor that has no encoding (a plain function) the pass emits qgpu.convert_layout from/to the unencoded tensor, which the qgpu verifier rejects.
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// The qdot level is written with plain tensors (DESIGN.md §2); a function that takes and
// returns an unencoded accumulator must come out verified, the mma in its #qgpu.mma layout
// and the function's own types unchanged.

// CHECK-LABEL: func.func @plain
// CHECK-SAME:  %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK:       qgpu.mma {{.*}} -> tensor<32x32xf32, #qgpu.mma<{{.*}}>>
// CHECK:       func.return %{{.*}} : tensor<32x32xf32>
func.func @plain(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

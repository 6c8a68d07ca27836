// XFAIL: *
// Bug: not supported yet. qgpu.upcast unpacks e2m1 along K only (its verifier doubles K, and
// a #qgpu.dot_op source of the packed [K, N/2] bytes gives B lane group g byte column g, while
// the bf16 operand's column g lives in byte column g/2, shared by groups 2j and 2j+1; no
// register op re-distributes that), so qdot-accelerate-matmul now refuses N/M-packed fp4 at the dot
// (strategy-refusals.mlir) instead of building a qgpu.mma that fails verification. Needs an
// N-packing upcast in dialects/qgpu + passes/support/upcasts.py.
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// fp4 packed along N (B is [K, N/2]) cannot take the native path, and strategy.py sends it
// to dequant-bf16 ("use 'dequant-bf16' for M/N-packed fp4"; auto does the same): the upcast
// must unpack along N, giving a [K, N] = [64, 32] bf16 operand.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @n_packed
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = bf16 : tensor<64x16xi8, {{.*}}> -> tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1,
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @n_packed(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN> * tensor<64x16xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

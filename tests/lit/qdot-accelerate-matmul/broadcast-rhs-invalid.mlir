// RUN: not qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' -o /dev/null 2>&1 | filecheck %s
// qdot.broadcast_rhs reads a ggml block dot's rhs tile as its first row (broadcast-rhs.mlir); on a kernel with any
// other dot it is refused at that dot, which names its operands, rather than ignored.
// CHECK: broadcast-rhs-invalid.mlir:[[# @LINE + 12]]:3: error: 'qdot.dot_scaled' op the kernel's qdot.broadcast_rhs reads the rhs tile of a dot of ggml blocks as its first row; this dot's operands are e4m3 and e2m1, not blocks (remove the attribute, or give the kernel only block dots)
func.func @not_blocks(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index,
                      %n: index, %k: index {qdot.divisibility = 64 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.broadcast_rhs} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%n, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
  %d = qdot.dot_scaled %a, %b, %zero lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

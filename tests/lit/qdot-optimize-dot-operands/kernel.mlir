// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a},qdot-optimize-dot-operands' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a},qdot-optimize-dot-operands,qdot-lower-local-load{arch=sm_120a}' | filecheck %s --check-prefix=LOAD
// After qdot-accelerate-matmul: weights kept as [N, K/2] (K contiguous) and transposed with
// qdot.trans for the dot. accelerate-matmul stages the transposed tile in fp4Padded shared
// memory; this pass stages the untransposed tile instead — fp4Padded, K still contiguous —
// so the copy is a plain row copy and the fp4 ldmatrix still reads the transposed view.

// CHECK-LABEL: func.func @weights_n_major
// CHECK:       scf.for
// CHECK-NOT:     qdot.trans
// CHECK:         %[[S:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [1, 0], fp4Padded = true}>>
// CHECK-NEXT:    %[[V:.*]] = qgpu.memdesc_trans %[[S]] {order = array<i64: 1, 0>} : {{.*}} -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1], fp4Padded = true}>>
// CHECK:         qgpu.local_load %[[V]] : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}fp4Unpacked = true}>>
// LOAD-LABEL:  func.func @weights_n_major
// LOAD-COUNT-4: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// LOAD-NOT:    qgpu.local_load
func.func @weights_n_major(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %bt = qdot.load %b_desc[%c0, %kkb] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %b = qdot.trans %bt {order = array<i64: 1, 0>} : tensor<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// RUN: qdot-translate %s --print-pipeline --arch sm_120a | filecheck %s --check-prefix=PIPELINE
// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s
// RUN: qdot-translate %S/../../../../examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_120a | filecheck %s
// The default sm_120a pipeline (what the README's `qdot-translate examples/mx_gemm_e4m3_e2m1.mlir
// --target ptx --arch sm_120a` runs) reads the fp4Padded operand with the fp4 ldmatrix: the
// pipeline must hand the arch to qdot-lower-local-load (which otherwise lowers for sm_90,
// where only the ld.shared fallback exists — a regression this file guards against).

// PIPELINE:    qdot-lower-local-load{arch=sm_120a}
// CHECK-NOT:   ld.shared.b16
// CHECK:       ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
// CHECK-NOT:   ld.shared.b16
func.func @mixed(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                 %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

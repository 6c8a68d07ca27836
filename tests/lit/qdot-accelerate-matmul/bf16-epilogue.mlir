// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// A GEMM that writes bf16 rounds its f32 accumulator with arith.truncf before the store. The
// accumulator leaves the K loop in its #qgpu.mma layout; the truncf takes that layout too (its
// 16-bit form keeps every element in the same thread), so the store writes the encoded bf16
// tile and no layout conversion is left between the loop and the store.

// CHECK-LABEL: func.func @epilogue
// CHECK:       %[[ACC:.*]] = scf.for
// CHECK:       scf.yield %{{.*}} : tensor<16x16xf32, #qgpu.mma<{versionMajor = 2, {{.*}}}>>
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[C:.*]] = arith.truncf %[[ACC]] : tensor<16x16xf32, #qgpu.mma<[[ENC:.*]]>> to tensor<16x16xbf16, #qgpu.mma<[[ENC]]>>
// CHECK-NEXT:  qdot.store %c_desc[%{{.*}}, %{{.*}}], %[[C]] : !qdot.desc<16x16xbf16>, tensor<16x16xbf16, #qgpu.mma<[[ENC]]>>
// CHECK-NOT:   qgpu.convert_layout

func.func @epilogue(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<bf16>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x16xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<16x16xbf16>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<16x16xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kkb] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x16xi8> -> tensor<32x16xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e2m1 rhs = e2m1 : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %out = arith.truncf %acc : tensor<16x16xf32> to tensor<16x16xbf16>
  qdot.store %c_desc[%c0, %c0], %out : !qdot.desc<16x16xbf16>, tensor<16x16xbf16>
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=SM90
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a}' | not grep qgpu.convert_layout
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | not grep qgpu.convert_layout
// In a kernel the accumulator takes the #qgpu.mma layout through the whole K loop: the zero
// init becomes an mma-encoded constant, the scf.for carries the encoded tensor, the mma
// accumulates into the block argument directly, and the result is stored in the mma layout
// (a store takes any distributed layout) — no qgpu.convert_layout is left anywhere.

// B is [K/2, N] with stride 1 along K: it is staged K-contiguous (order = [0, 1]) in the
// fp4Padded layout, the one ldmatrix .b4x16_p64 reads.
// CHECK-LABEL: func.func @gemm
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, [[MMA:#qgpu.mma<[^>]*>]]>
// CHECK:       %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<32x32xf32, [[MMA]]>) {
// CHECK:         qgpu.local_alloc %{{.*}} : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1], fp4Padded = true}>>
// CHECK:         %[[D:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[ACC]] lhs = e4m3 rhs = e2m1 {qdot.strategy = "native"} : {{.*}} -> tensor<32x32xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[D]] : tensor<32x32xf32, [[MMA]]>
// CHECK:       qdot.store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !qdot.desc<32x32xf32>, tensor<32x32xf32, [[MMA]]>
// CHECK-NOT:   qgpu.convert_layout
// SM90-LABEL:  func.func @gemm
// SM90:        scf.for {{.*}} -> (tensor<32x32xf32, #qgpu.mma<{{.*}}>>) {
// SM90:          qgpu.upcast %{{.*}} from = e4m3 to = bf16
// SM90:          qgpu.upcast %{{.*}} from = e2m1 to = bf16
// SM90:          qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM90:        qdot.store {{.*}} tensor<32x32xf32, #qgpu.mma<{{.*}}>>
// SM90-NOT:    qgpu.convert_layout
func.func @gemm(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
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

// -----

// i8 × i8 accumulating in i32 over the loop: the i32 zero is re-encoded the same way.
// CHECK-LABEL: func.func @gemm_i8
// CHECK:       %[[ZERO:.*]] = arith.constant dense<0> : tensor<16x16xi32, [[MMA:#qgpu.mma<[^>]*>]]>
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<16x16xi32, [[MMA]]>) {
// CHECK:         %[[D:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[ACC]] lhs = s8 rhs = s8
// CHECK:         scf.yield %[[D]] : tensor<16x16xi32, [[MMA]]>
// CHECK:       qdot.store {{.*}} tensor<16x16xi32, [[MMA]]>
// CHECK-NOT:   qgpu.convert_layout
func.func @gemm_i8(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x16xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x16xi32>
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<16x16xi32>) {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x16xi8> -> tensor<32x16xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = i8 rhs = i8 : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
    scf.yield %d : tensor<16x16xi32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<16x16xi32>, tensor<16x16xi32>
  func.return
}

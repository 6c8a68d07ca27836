// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90a}' | filecheck %s --check-prefix=WGMMA
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90}' | not grep qgpu.convert_layout
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90a}' | not grep qgpu.convert_layout
// An accumulator promoted each K step (GemmConfig(promote=True)): the dot starts from the zero
// constant and its result is added to the loop-carried sum by arith.addf. The sum takes the
// dot's #qgpu.mma layout like a plain accumulator: the zero becomes an mma-encoded constant that
// both the loop's init and the dot read, the addf adds two encoded tensors, the loop carries
// the encoded sum, and no qgpu.convert_layout is left. (The zero the dot reads is the same
// constant, encoded where the dot is.)

// CHECK-LABEL: func.func @promoted
// CHECK:       %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32, [[MMA:#qgpu.mma<[^>]*>]]>
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x32xf32, [[MMA]]>) {
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32, [[MMA]]>
// CHECK-NEXT:    %[[D:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[ZERO]] lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} : {{.*}} -> tensor<64x32xf32, [[MMA]]>
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[ACC]], %[[D]] : tensor<64x32xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[SUM]] : tensor<64x32xf32, [[MMA]]>
// CHECK:       qdot.store {{.*}} tensor<64x32xf32, [[MMA]]>
// CHECK-NOT:   qgpu.convert_layout
// WGMMA-LABEL: func.func @promoted
// WGMMA:         %[[D:.*]] = qgpu.warp_group_dot {{.*}} -> tensor<64x32xf32, [[MMA:#qgpu.mma<\{versionMajor = 3[^>]*>]]>
// WGMMA-NEXT:    %[[SUM:.*]] = arith.addf %{{.*}}, %[[D]] : tensor<64x32xf32, [[MMA]]>
// WGMMA-NEXT:    scf.yield %[[SUM]] : tensor<64x32xf32, [[MMA]]>
// WGMMA-NOT:   qgpu.convert_layout
func.func @promoted(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                    %k: index) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<bf16> -> !qdot.desc<64x32xbf16>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x32xf32>) {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<64x32xbf16> -> tensor<64x32xbf16>
    %d = qdot.dot_scaled %a, %b, %zero lhs = bf16 rhs = bf16 : tensor<64x64xbf16> * tensor<64x32xbf16> -> tensor<64x32xf32>
    %sum = arith.addf %acc_i, %d : tensor<64x32xf32>
    scf.yield %sum : tensor<64x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x32xf32>, tensor<64x32xf32>
  func.return
}

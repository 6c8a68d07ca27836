// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=1}' | filecheck %s --check-prefix=SYNC
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline --verify-diagnostics | filecheck %s --check-prefix=REMARK
// A wgmma dot whose operands are register → shared buffers written in the loop and whose
// accumulator is only carried runs one K step behind (passes/support/warp_group_pipeline.py):
// the buffers become two-slot rings indexed by a slot the loop flips, the stores into them are
// qgpu.local_store (no barrier of their own: the cp.async wait at the top of the iteration and
// the dot's fence and barrier order them), the dot returns with one dot still running
// (pendings = 1), and a qgpu.warp_group_dot_wait after the loop waits for the last one before
// the accumulator is stored. Without pipelining (num-stages=1) the dot stays synchronous.

// CHECK-LABEL: func.func @overlap
// CHECK:       %[[RA:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, mutable>
// CHECK-NEXT:  %[[RB:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>, mutable>
// CHECK-NEXT:  %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[ACC:.*]], %{{.*}}, %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACCI:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[SLOT:.*]] = %[[S0]])
// CHECK:       qgpu.async_wait {pending = 1}
// CHECK:       %[[VA:.*]] = qgpu.memdesc_index %[[RA]][%[[SLOT]]]
// CHECK-NEXT:  qgpu.local_store %{{.*}}, %[[VA]] {qdot.readers_synced, qdot.reader_syncs}
// CHECK-NEXT:  %[[VB:.*]] = qgpu.memdesc_index %[[RB]][%[[SLOT]]]
// CHECK-NEXT:  qgpu.local_store %{{.*}}, %[[VB]] {qdot.readers_synced, qdot.reader_syncs}
// CHECK-NEXT:  %[[D:.*]] = qgpu.warp_group_dot %[[VA]], %[[VB]], %[[ACCI]] lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16", pendings = 1 : i64}
// CHECK:       %[[NEXT:.*]] = arith.xori %[[SLOT]], %{{.*}} : index
// CHECK-NEXT:  scf.yield %[[D]], %{{.*}}, %{{.*}}, %[[NEXT]]
// CHECK:       %[[DONE:.*]] = qgpu.warp_group_dot_wait %[[ACC]] {pendings = 0 : i64}
// CHECK:       qdot.store %{{.*}}, %[[DONE]]
// SYNC-LABEL:  func.func @overlap
// SYNC-NOT:    local_store
// SYNC:        qgpu.warp_group_dot %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
// SYNC-NOT:    warp_group_dot_wait
// REMARK: wgmma-overlap.mlir:[[# @LINE + 17]]:3: remark: qdot-pipeline: 3 stages: {{.*}}; its wgmma runs one iteration behind
func.func @overlap(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

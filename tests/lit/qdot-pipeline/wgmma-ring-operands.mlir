// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline --verify-diagnostics | filecheck %s --check-prefix=REMARK
// The remark says so too: neither loop's wgmma is said to run one iteration behind.
// REMARK-NOT: iteration behind
// REMARK: remark: qdot-pipeline: 3 stages: 2 tiles
// REMARK-NOT: iteration behind
// REMARK: remark: qdot-pipeline: 3 stages: 3 tiles
// REMARK-NOT: iteration behind
// A wgmma loop that reads an operand straight from its cp.async ring is not overlapped
// (passes/support/warp_group_pipeline.py): the ring slot the dot reads is overwritten by the
// copies of a later iteration while an asynchronous wgmma left in flight could still be reading
// it, so the dot stays synchronous — no two-slot register-staging rings, no pendings = 1, no
// qgpu.warp_group_dot_wait after the loop. And a register-staged buffer read by that wgmma is
// not marked readers-synced (passes/support/shared_stores.py, mark_readers_synced_by): the
// barrier of the cp.async wait does not order an asynchronous wgmma of the previous iteration
// before its stores, so its lowering keeps its own barrier in front of them.

// bf16 × bf16: both operands are the cp.async ring's stages, read in place by the dot.
// CHECK-LABEL: func.func @bf16_ring
// CHECK:       %[[RA:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, mutable>
// CHECK-NEXT:  %[[RB:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>, mutable>
// CHECK-NOT:   memdesc<2x
// CHECK:       scf.for
// CHECK:       qgpu.async_wait {pending = 1}
// CHECK-NOT:   qgpu.local_store
// CHECK:       qgpu.async_commit
// CHECK-NOT:   qgpu.local_store
// CHECK:       %[[VA:.*]] = qgpu.memdesc_index %[[RA]][%[[READ:[0-9]+]]]
// CHECK-NEXT:  %[[VB:.*]] = qgpu.memdesc_index %[[RB]][%[[READ]]]
// CHECK-NEXT:  %[[D:.*]] = qgpu.warp_group_dot %[[VA]], %[[VB]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
// CHECK:       scf.yield %[[D]],
// CHECK-NOT:   qgpu.warp_group_dot_wait
// CHECK:       qdot.store
func.func @bf16_ring(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = bf16 rhs = bf16
         : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// bf16 × e2m1 (ue8m0 scales, folded into the bf16 values): B is dequantized once per CTA into a
// register-staged buffer, but A is still read from its cp.async ring, so the loop is not
// overlapped either, and B's buffer, read by the wgmma, keeps the barrier before its stores
// (no qdot.readers_synced on its qgpu.local_alloc).
// CHECK-LABEL: func.func @bf16_e2m1
// CHECK-NOT:   memdesc<2x
// CHECK:       scf.for
// CHECK:       qgpu.async_wait {pending = 1}
// CHECK-NOT:   readers_synced
// CHECK:       qgpu.async_commit
// CHECK-NOT:   readers_synced
// CHECK:       %[[VA:.*]] = qgpu.memdesc_index %{{.*}} : !qgpu.memdesc<3x64x64xbf16,
// CHECK-NOT:   readers_synced
// CHECK:       %[[UP:.*]] = qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16
// CHECK-NEXT:  %[[B:.*]] = qgpu.local_alloc %[[UP]] : (tensor<64x64xbf16,
// CHECK-NEXT:  %[[D:.*]] = qgpu.warp_group_dot %[[VA]], %[[B]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
// CHECK-NOT:   readers_synced
// CHECK:       scf.yield %[[D]],
// CHECK-NOT:   qgpu.warp_group_dot_wait
// CHECK:       qdot.store
func.func @bf16_e2m1(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<i8>, %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>,
              %m: index, %n: index, %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a, %b scale %sb, %acc_i lhs = bf16 rhs = e2m1
         : tensor<64x64xbf16> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

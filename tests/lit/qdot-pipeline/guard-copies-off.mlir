// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3 guard-copies=false}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3 guard-copies=false}' --remarks=qdot-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// partial-range.mlir's K split loop with qdot-pipeline's guard-copies=false: no copy tests that the loop runs
// its K position (no `if`). The prologue's copies of W, which may lie past an empty share's end, give up W's
// in_bounds declaration and test their bounds; the loop's copies ahead keep it and take a position the loop
// runs (the share's last, an `arith.minui` with it computed before the loop), so past the share's end they
// copy its last tile again — the form before the guard, kept for A/B runs and for kernels it does not pay.

// CHECK-LABEL: func.func @split
// CHECK-NOT:   if %
// CHECK:       qgpu.async_copy %w_desc[%c0, %{{.*}}], %{{.*}} : !qdot.desc<16x32xi8>
// CHECK-NEXT:  qgpu.memdesc_index
// CHECK-NEXT:  qgpu.async_copy %x_desc[%{{.*}}, %c0], %{{.*}} : !qdot.desc<32x8xi8>
// CHECK:       scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK-NEXT:    qgpu.async_wait {pending = 1}
// CHECK:         %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK-NEXT:    %[[AT:.*]] = arith.minui %[[AHEAD]], %{{.*}} : index
// CHECK-NEXT:    qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %w_desc[%c0, %[[AT]]], %{{.*}} {in_bounds = [false, true]} : !qdot.desc<16x32xi8>
// CHECK-NEXT:    qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %x_desc[%[[AHEAD]], %c0], %{{.*}} : !qdot.desc<32x8xi8>
// CHECK-NOT:   if %
// REMARK: guard-copies-off.mlir:[[# @LINE + 15]]:3: remark: qdot-pipeline: 3 stages: 2 tiles (16x32xi8, 32x8xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight; a loop over a share of K, but guard-copies=false: a tile declared in bounds copied ahead past the share's end takes its last tile again{{$}}
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @split(%w_ptr: !qdot.ptr<i8>, %x_ptr: !qdot.ptr<i8>, %y_ptr: !qdot.ptr<i32>, %n: index, %m: index,
                 %k: index, %k_lo: index, %k_hi: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %x_desc = qdot.make_desc %x_ptr, [%k, %m], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %k_lo to %k_hi step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %w = qdot.load %w_desc[%c0, %kk] {in_bounds = [false, true]} : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %x = qdot.load %x_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
    %ws = qgpu.local_alloc %w : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %xs = qgpu.local_alloc %x : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
    %wr = qgpu.local_load %ws : !qgpu.memdesc<16x32xi8, #sa> -> tensor<16x32xi8, #a>
    %xr = qgpu.local_load %xs : !qgpu.memdesc<32x8xi8, #sb> -> tensor<32x8xi8, #b>
    %d = qgpu.mma %wr, %xr, %acc_i lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
    scf.yield %d : tensor<16x8xi32, #mma>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

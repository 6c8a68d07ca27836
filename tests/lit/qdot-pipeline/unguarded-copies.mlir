// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// guard-copies-off.mlir's kernel under the default pipeline, once with qdot.unguarded_copies and once without: the
// attribute asks for guard-copies=false's form for its own kernel only (MmqConfig(guard_copies=False) writes it), so
// @split's copies ahead take the share's last tile again (an `arith.minui`, no `if`) while @guarded's, in the same
// module, test that the loop runs their K position.

// CHECK-LABEL: func.func @split
// CHECK-NOT:   if %
// CHECK:       scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK:         %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK-NEXT:    %[[AT:.*]] = arith.minui %[[AHEAD]], %{{.*}} : index
// CHECK-NEXT:    qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %w_desc[%c0, %[[AT]]], %{{.*}} {in_bounds = [false, true]} : !qdot.desc<16x32xi8>
// CHECK-NOT:   if %
// CHECK-LABEL: func.func @guarded
// CHECK:       scf.for
// CHECK:         qgpu.async_copy %w_desc[%c0, %{{.*}}], %{{.*}} if %{{.*}} {in_bounds = [false, true]} : !qdot.desc<16x32xi8>
// REMARK: unguarded-copies.mlir:[[# @LINE + 17]]:3: remark: qdot-pipeline: 3 stages: 2 tiles (16x32xi8, 32x8xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight; a loop over a share of K, but the kernel's qdot.unguarded_copies: a tile declared in bounds copied ahead past the share's end takes its last tile again{{$}}
// REMARK: unguarded-copies.mlir:[[# @LINE + 39]]:3: remark: qdot-pipeline: 3 stages: 2 tiles (16x32xi8, 32x8xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight; a loop over a share of K (from a run-time position): a tile declared in bounds copied only if the loop runs its K position{{$}}
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @split(%w_ptr: !qdot.ptr<i8>, %x_ptr: !qdot.ptr<i8>, %y_ptr: !qdot.ptr<i32>, %n: index, %m: index,
                 %k: index, %k_lo: index, %k_hi: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64,
                                                    qdot.unguarded_copies} {
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

func.func @guarded(%w_ptr: !qdot.ptr<i8>, %x_ptr: !qdot.ptr<i8>, %y_ptr: !qdot.ptr<i32>, %n: index, %m: index,
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

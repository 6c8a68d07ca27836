// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline 2>&1 | grep prologue | filecheck %s --check-prefix=REMARK
// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=2}' | filecheck %s --check-prefix=TWO
// A kernel that waits for the previous grid (qdot.wait_previous_grid) and stages a tile over an argument
// marked qdot.not_written_by_previous_grid beside others: the prologue copies the marked tile of every
// stage first, then the others' stage by stage, so that qdot-to-llvm's griddepcontrol.wait (after the
// leading marked reads, passes/support/grid_wait.py) lets two stages of weights stream, not one. The
// first commit group holds both marked tiles and X's first; the loop is as without the mark.

// CHECK-LABEL: func.func @weights_marked
// CHECK:       %[[XRING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x16x32xi8,
// CHECK-NEXT:  %[[WRING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x8xi8,
// CHECK-NEXT:  %[[S0:.*]] = arith.constant 0 : index
// CHECK:       %[[K1:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK:       %[[W0:.*]] = qgpu.memdesc_index %[[WRING]][%[[S0]]]
// CHECK-NEXT:  qgpu.async_copy %w_desc[%c0, %c0], %[[W0]]
// CHECK-NEXT:  %[[W1:.*]] = qgpu.memdesc_index %[[WRING]][%[[S1:[0-9]+]]]
// CHECK-NEXT:  qgpu.async_copy %w_desc[%[[K1]], %c0], %[[W1]]
// CHECK-NEXT:  %[[X0:.*]] = qgpu.memdesc_index %[[XRING]][%[[S0]]]
// CHECK-NEXT:  qgpu.async_copy %x_desc[%c0, %c0], %[[X0]]
// CHECK-NEXT:  qgpu.async_commit
// CHECK-NEXT:  %[[X1:.*]] = qgpu.memdesc_index %[[XRING]][%[[S1]]]
// CHECK-NEXT:  qgpu.async_copy %x_desc[%c0, %[[K1]]], %[[X1]]
// CHECK-NEXT:  qgpu.async_commit
// CHECK-NOT:   qgpu.async_copy
// CHECK:       scf.for
// CHECK-NEXT:    qgpu.async_wait {pending = 1}
// REMARK: grid-wait-order.mlir:[[# @LINE + 22]]:3: remark: qdot-pipeline: prologue: the 2 stages' copies of 32x8xi8 (qdot.not_written_by_previous_grid) first, so that they go ahead of the kernel's griddepcontrol.wait; the other tiles' after them
// REMARK-NOT: prologue
// Two stages: one prologue group, nothing to reorder.
// TWO-LABEL:   func.func @weights_marked
// TWO:         qgpu.async_copy %x_desc
// TWO-NEXT:    %{{.*}} = qgpu.memdesc_index
// TWO-NEXT:    qgpu.async_copy %w_desc
// TWO-NEXT:    qgpu.async_commit
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @weights_marked(%x_ptr: !qdot.ptr<i8>, %w_ptr: !qdot.ptr<i8> {qdot.not_written_by_previous_grid}, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %w_desc = qdot.make_desc %w_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %x_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %w_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %bs = qgpu.local_alloc %b : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
    %ar = qgpu.local_load %as : !qgpu.memdesc<16x32xi8, #sa> -> tensor<16x32xi8, #a>
    %br = qgpu.local_load %bs : !qgpu.memdesc<32x8xi8, #sb> -> tensor<32x8xi8, #b>
    %d = qgpu.mma %ar, %br, %acc_i lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
    scf.yield %d : tensor<16x8xi32, #mma>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

// -----

// Every staged tile marked: the wait goes after the whole prologue anyway, so its order stays stage by stage.
// CHECK-LABEL: func.func @all_marked
// CHECK:       qgpu.async_copy %x_desc[%c0, %c0]
// CHECK-NEXT:  %{{.*}} = qgpu.memdesc_index
// CHECK-NEXT:  qgpu.async_copy %w_desc[%c0, %c0]
// CHECK-NEXT:  qgpu.async_commit
// CHECK:       qgpu.async_copy %x_desc
// CHECK-NEXT:  %{{.*}} = qgpu.memdesc_index
// CHECK-NEXT:  qgpu.async_copy %w_desc
// CHECK-NEXT:  qgpu.async_commit
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @all_marked(%x_ptr: !qdot.ptr<i8> {qdot.not_written_by_previous_grid}, %w_ptr: !qdot.ptr<i8> {qdot.not_written_by_previous_grid}, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %w_desc = qdot.make_desc %w_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %x_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %w_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %bs = qgpu.local_alloc %b : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
    %ar = qgpu.local_load %as : !qgpu.memdesc<16x32xi8, #sa> -> tensor<16x32xi8, #a>
    %br = qgpu.local_load %bs : !qgpu.memdesc<32x8xi8, #sb> -> tensor<32x8xi8, #b>
    %d = qgpu.mma %ar, %br, %acc_i lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
    scf.yield %d : tensor<16x8xi32, #mma>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

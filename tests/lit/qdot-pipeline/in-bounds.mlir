// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// A load that declares in_bounds (here A's K dimension) has no bounds test to zero-fill a tile past
// the loop's end, so its copies ahead in the loop take min(ahead, last), the loop's last position
// lb + ⌊(ub − lb − 1) / step⌋ · step computed before the loop: the last two iterations copy the
// last tile again into a slot nobody reads. Its copy keeps the declaration; the prologue's copies,
// which an empty loop would not run, drop it and test their bounds. B, which declares nothing,
// is copied ahead as before (ring.mlir), from the unclamped position.

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  %[[K:[^:]*]]: index)
// CHECK:       qgpu.async_copy %a_desc[%c0, %c0], %{{[0-9]+}} : !qdot.desc<16x32xi8>
// CHECK-NEXT:  qgpu.memdesc_index
// CHECK-NEXT:  qgpu.async_copy %b_desc[%c0, %c0], %{{[0-9]+}} : !qdot.desc<32x8xi8>
// CHECK:       qgpu.async_copy %a_desc[%c0, %{{[0-9]+}}], %{{[0-9]+}} : !qdot.desc<16x32xi8>
// CHECK:       %[[SPAN:.*]] = arith.subi %[[K]], %c0 : index
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[SPAN1:.*]] = arith.subi %[[SPAN]], %[[ONE]] : index
// CHECK-NEXT:  %[[STEPS:.*]] = arith.divui %[[SPAN1]], %c32 : index
// CHECK-NEXT:  %[[LAST_OFF:.*]] = arith.muli %[[STEPS]], %c32 : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.addi %c0, %[[LAST_OFF]] : index
// CHECK-NEXT:  scf.for %[[IV:.*]] = %c0 to %[[K]] step %c32
// CHECK-NEXT:    qgpu.async_wait {pending = 1}
// CHECK:         %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK-NEXT:    %[[AT:.*]] = arith.minui %[[AHEAD]], %[[LAST]] : index
// CHECK-NEXT:    %[[AW:.*]] = qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %a_desc[%c0, %[[AT]]], %[[AW]] {in_bounds = [false, true]} : !qdot.desc<16x32xi8>
// CHECK-NEXT:    %[[BW:.*]] = qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %b_desc[%[[AHEAD]], %c0], %[[BW]] : !qdot.desc<32x8xi8>
// CHECK-NEXT:    qgpu.async_commit
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @gemm(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %a_desc[%c0, %kk] {in_bounds = [false, true]} : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
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

// A run-time step (the decode's interleaved K splits step by the grid's y extent): the last position
// would cost a division, so the copy ahead takes ahead < ub ? ahead : iv, the iteration's own tile.
// CHECK-LABEL: func.func @gemm_step
// CHECK-SAME:  %[[K:[^:]*]]: index, %[[STEP:[^:]*]]: index)
// CHECK-NOT:   arith.divui
// CHECK:       scf.for %[[IV:.*]] = %c0 to %[[K]] step %[[STEP]]
// CHECK:         %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK-NEXT:    %[[RUNS:.*]] = arith.cmpi ult, %[[AHEAD]], %[[K]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.select %[[RUNS]], %[[AHEAD]], %[[IV]] : index
// CHECK-NEXT:    %[[AW:.*]] = qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %a_desc[%c0, %[[AT]]], %[[AW]] {in_bounds = [false, true]}
// CHECK-NEXT:    %[[BW:.*]] = qgpu.memdesc_index
// CHECK-NEXT:    qgpu.async_copy %b_desc[%[[AHEAD]], %c0], %[[BW]] : !qdot.desc<32x8xi8>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
func.func @gemm_step(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index, %step: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %c0 to %k step %step iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %a_desc[%c0, %kk] {in_bounds = [false, true]} : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
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

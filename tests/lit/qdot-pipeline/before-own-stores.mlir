// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline 2>&1 | grep prologue | filecheck %s --check-prefix=REMARK
// A kernel that stores to global memory ahead of its K loop (here X's tile into a scratch, as the one-launch decode
// GEMM quantizes its activations, then a barrier) and stages W, which it never stores to, beside the scratch: the
// prologue's W copies, both stages', go before the store, so W streams while the stores' work runs; the scratch
// tiles' copies stay at the loop, after the store and the barrier. They are committed together (W's with X's
// first group), as the grid wait's reordering commits its early copies.

// CHECK-LABEL: func.func @weights_before_own_stores
// CHECK:       %[[WRING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x8xi8,
// CHECK:       qgpu.async_copy %w_desc[%c0, %c0],
// CHECK:       qgpu.async_copy %w_desc[%{{.*}}, %c0],
// CHECK-NOT:   qgpu.async_commit
// CHECK:       qdot.store %xs_desc[%c0, %c0], %xt
// CHECK-NEXT:  qdot.barrier
// CHECK:       qgpu.async_copy %x_desc[%c0, %c0],
// CHECK-NEXT:  qgpu.async_commit
// CHECK:       qgpu.async_copy %x_desc[%c0, %{{.*}}],
// CHECK-NEXT:  qgpu.async_commit
// CHECK-NOT:   qgpu.async_copy
// CHECK:       scf.for
// REMARK: before-own-stores.mlir:[[# @LINE + 20]]:3: remark: qdot-pipeline: prologue: the copies of 32x8xi8 for the first 2 K steps (an array the kernel never stores to) go before the kernel's stores to global memory ahead of the loop, so they stream meanwhile; the other tiles' at the loop
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @weights_before_own_stores(%x_ptr: !qdot.ptr<i8>, %w_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %xs_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %w_desc = qdot.make_desc %w_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %xt = arith.constant dense<1> : tensor<16x32xi8, #bl>
  qdot.store %xs_desc[%c0, %c0], %xt : !qdot.desc<16x32xi8>, tensor<16x32xi8, #bl>
  qdot.barrier
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

// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=2}' | filecheck %s
// A guarded K-split loop (partial-range.mlir) whose kernel stores to global memory ahead of it (the one-launch
// decode's quantize, own-stores.mlir): W's prologue copy may go before the stores only if everything it uses is
// defined there, the loop's end included, which its `if %runs` test compares with. With k_hi defined before the
// store, the copy and its test go there; with k_hi defined after it, they stay at the loop (this used to build a
// test of a value not yet defined: IR that did not verify).

// CHECK-LABEL: func.func @bound_before_stores
// CHECK:       %[[KHI:.*]] = arith.addi %k_lo, %k_len
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %k_lo, %[[KHI]] : index
// CHECK-NEXT:  qgpu.memdesc_index
// CHECK-NEXT:  qgpu.async_copy %w_desc[%k_lo, %c0], %{{.*}} if %[[RUNS]] {in_bounds = [true, false]}
// CHECK:       qdot.store %xs_desc
// CHECK:       scf.for

// CHECK-LABEL: func.func @bound_after_stores
// CHECK:       qdot.store %xs_desc
// CHECK:       %[[KHI:.*]] = arith.addi %k_lo, %k_len
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %k_lo, %[[KHI]] : index
// CHECK:       qgpu.async_copy %w_desc[%k_lo, %c0], %{{.*}} if %[[RUNS]] {in_bounds = [true, false]}
// CHECK:       scf.for

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @bound_before_stores(%x_ptr: !qdot.ptr<i8>, %w_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index, %k_lo: index, %k_len: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %xs_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %w_desc = qdot.make_desc %w_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %k_hi = arith.addi %k_lo, %k_len : index
  %xt = arith.constant dense<1> : tensor<16x32xi8, #bl>
  qdot.store %xs_desc[%c0, %c0], %xt : !qdot.desc<16x32xi8>, tensor<16x32xi8, #bl>
  qdot.barrier
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %k_lo to %k_hi step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %x_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %w_desc[%kk, %c0] {in_bounds = [true, false]} : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
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

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @bound_after_stores(%x_ptr: !qdot.ptr<i8>, %w_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index, %k_lo: index, %k_len: index)
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
  %k_hi = arith.addi %k_lo, %k_len : index
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  %acc = scf.for %kk = %k_lo to %k_hi step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
    %a = qdot.load %x_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %w_desc[%kk, %c0] {in_bounds = [true, false]} : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
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

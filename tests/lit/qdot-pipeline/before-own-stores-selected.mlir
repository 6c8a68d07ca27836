// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// before-own-stores.mlir with the tile's pointer chosen at run time between the array the kernel stores to
// and another (arith.select): the tile may be the stored array, so its prologue copies stay after the store
// and the barrier. Only a pointer that was an argument itself was traced, and this one's copies went first.

// CHECK-LABEL: func.func @selected_pointer
// CHECK:       qdot.store %xs_desc[%c0, %c0], %xt
// CHECK-NEXT:  qdot.barrier
// CHECK:       qgpu.async_copy %x_desc[%c0, %c0],
// CHECK:       qgpu.async_copy %x_desc[%c0, %{{.*}}],
// CHECK:       scf.for
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @selected_pointer(%x_ptr: !qdot.ptr<i8>, %y_ptr: !qdot.ptr<i8>, %w_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>,
                            %m: index, %n: index, %k: index, %pick: i1)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %chosen = arith.select %pick, %x_ptr, %y_ptr : !qdot.ptr<i8>
  %x_desc = qdot.make_desc %chosen, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
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

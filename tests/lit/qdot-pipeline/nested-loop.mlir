// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s --check-prefix=PLAIN
// A K loop inside another loop (stream-K's segments: one K loop per output tile a program
// touches, from a k0 that depends on the segment). Everything qdot-pipeline builds goes in
// the outer loop's body, before the K loop: the rings, and the prologue copies from the
// segment's own tile origin and first K step. After the K loop the wait for every copy, whose
// barrier also keeps the next segment's prologue from overwriting a stage before every
// thread has finished reading it (the emulated stream-K tests fail without it). Its copies are not guarded by
// the K loop's end (partial-range.mlir's `if %runs`): a segment's copies ahead past its end read the next K steps
// of its own tile, one tile per segment, and the test cost the 255-register stream-K kernels spills (ptxas).
// PLAIN-NOT:   qgpu.async_copy {{.*}} if

// CHECK-LABEL: func.func @segments
// CHECK:       scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         %[[OFFM:.*]] = arith.muli %[[S]]
// CHECK-NEXT:    %[[K0:.*]] = arith.muli %[[S]]
// CHECK-NEXT:    %[[ARING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x16x32xi8
// CHECK-NEXT:    %[[BRING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x8xi8
// CHECK:         qgpu.async_copy %a_desc[%[[OFFM]], %[[K0]]]
// CHECK:         qgpu.async_copy %b_desc[%[[K0]], %{{.*}}]
// CHECK-NEXT:    qgpu.async_commit
// CHECK:         qgpu.async_copy %a_desc[%[[OFFM]], %[[K1:.*]]],
// CHECK:         qgpu.async_copy %b_desc[%[[K1]], %{{.*}}]
// CHECK-NEXT:    qgpu.async_commit
// CHECK:         %[[ACC:.*]], %{{.*}}, %{{.*}} = scf.for %{{.*}} = %[[K0]] to %{{.*}} step
// CHECK-NEXT:      qgpu.async_wait {pending = 1}
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    qgpu.async_wait {pending = 0}
// CHECK-NEXT:    qdot.store %c_desc[%[[OFFM]], %{{.*}}], %[[ACC]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>

func.func @segments(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index,
                    %segments: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
  scf.for %s = %c0 to %segments step %c1 {
    %off_m = arith.muli %s, %c16 : index
    %k0 = arith.muli %s, %c32 : index
    %acc = scf.for %kk = %k0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<16x8xi32, #mma>) {
      %a = qdot.load %a_desc[%off_m, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
      %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
      %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
      %bs = qgpu.local_alloc %b : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
      %ar = qgpu.local_load %as : !qgpu.memdesc<16x32xi8, #sa> -> tensor<16x32xi8, #a>
      %br = qgpu.local_load %bs : !qgpu.memdesc<32x8xi8, #sb> -> tensor<32x8xi8, #b>
      %d = qgpu.mma %ar, %br, %acc_i lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
      scf.yield %d : tensor<16x8xi32, #mma>
    }
    qdot.store %c_desc[%off_m, %c0], %acc : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  }
  func.return
}

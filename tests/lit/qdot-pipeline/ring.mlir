// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=2}' | filecheck %s --check-prefix=TWO
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=4}' | filecheck %s --check-prefix=FOUR
// qdot-pipeline{num-stages=3} (the default): each local_alloc(qdot.load) of the K loop
// becomes a 3-stage ring filled by async copies. The prologue copies the tiles of the first
// two iterations (lb and lb + step) into stages 0 and 1, one commit group each; every
// iteration first waits until its own tile has landed (async_wait {pending = 1}: one younger
// group may still be in flight), then copies the tile two iterations ahead into the stage the
// previous iteration read (the write stage), commits, and computes on the read stage; the
// stage indices are carried by the loop (read from 0, write from 2, both + 1 mod 3); after
// the loop a final wait drains every copy.

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:  (%{{[^:]*}}: !qdot.ptr<i8>, %{{[^:]*}}: !qdot.ptr<i8>, %{{[^:]*}}: !qdot.ptr<i32>, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[K:[^:]*]]: index)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:   %[[ADESC:.*]] = qdot.make_desc %a_ptr
// CHECK-DAG:   %[[BDESC:.*]] = qdot.make_desc %b_ptr
// CHECK:       %[[ARING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x16x32xi8, #qgpu.shared<{{[^>]*}}order = [1, 0]}>, mutable>
// CHECK-NEXT:  %[[BRING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x8xi8, #qgpu.shared<{{[^>]*}}order = [0, 1]}>, mutable>
//              prologue, stage 0: the tile of iteration lb
// CHECK-NEXT:  %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[A0:.*]] = qgpu.memdesc_index %[[ARING]][%[[S0]]] : !qgpu.memdesc<3x16x32xi8, {{.*}}> -> !qgpu.memdesc<16x32xi8, {{.*}}, mutable>
// CHECK-NEXT:  qgpu.async_copy %[[ADESC]][%[[C0]], %[[C0]]], %[[A0]]
// CHECK-NEXT:  %[[B0:.*]] = qgpu.memdesc_index %[[BRING]][%[[S0]]]
// CHECK-NEXT:  qgpu.async_copy %[[BDESC]][%[[C0]], %[[C0]]], %[[B0]]
// CHECK-NEXT:  qgpu.async_commit
//              prologue, stage 1: the tile of iteration lb + step
// CHECK:       %[[K1:.*]] = arith.addi %[[C0]], %{{.*}} : index
// CHECK:       %[[A1:.*]] = qgpu.memdesc_index %[[ARING]][%[[S1:[0-9a-z_]+]]]
// CHECK-NEXT:  qgpu.async_copy %[[ADESC]][%[[C0]], %[[K1]]], %[[A1]]
// CHECK-NEXT:  %[[B1:.*]] = qgpu.memdesc_index %[[BRING]][%[[S1]]]
// CHECK-NEXT:  qgpu.async_copy %[[BDESC]][%[[K1]], %[[C0]]], %[[B1]]
// CHECK-NEXT:  qgpu.async_commit
// CHECK-NOT:   qgpu.async_copy
// CHECK:       %[[READ0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[WRITE0:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[ACC:.*]], %{{.*}}, %{{.*}} = scf.for %[[IV:.*]] = %[[C0]] to %[[K]] step %[[C32]] iter_args(%{{.*}} = %{{.*}}, %[[READ:.*]] = %[[READ0]], %[[WRITE:.*]] = %[[WRITE0]]) -> (tensor<16x8xi32, #qgpu.mma<{{.*}}>>, index, index) {
// CHECK-NEXT:    qgpu.async_wait {pending = 1}
// CHECK-NEXT:    %[[N1:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[AHEAD:.*]] = arith.muli %[[C32]], %[[N1]] : index
// CHECK-NEXT:    %[[KN:.*]] = arith.addi %[[IV]], %[[AHEAD]] : index
// CHECK-NEXT:    %[[AW:.*]] = qgpu.memdesc_index %[[ARING]][%[[WRITE]]]
// CHECK-NEXT:    qgpu.async_copy %[[ADESC]][%[[C0]], %[[KN]]], %[[AW]]
// CHECK-NEXT:    %[[BW:.*]] = qgpu.memdesc_index %[[BRING]][%[[WRITE]]]
// CHECK-NEXT:    qgpu.async_copy %[[BDESC]][%[[KN]], %[[C0]]], %[[BW]]
// CHECK-NEXT:    qgpu.async_commit
// CHECK-NEXT:    %[[AR:.*]] = qgpu.memdesc_index %[[ARING]][%[[READ]]]
// CHECK-NEXT:    %[[BR:.*]] = qgpu.memdesc_index %[[BRING]][%[[READ]]]
// CHECK-NEXT:    qgpu.local_load %[[AR]] : !qgpu.memdesc<16x32xi8, {{.*}}, mutable> -> tensor<16x32xi8,
// CHECK-NEXT:    qgpu.local_load %[[BR]] : !qgpu.memdesc<32x8xi8, {{.*}}, mutable> -> tensor<32x8xi8,
// CHECK-NEXT:    %[[D:.*]] = qgpu.mma
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[R1:.*]] = arith.addi %[[READ]], %[[ONE]] : index
// CHECK-NEXT:    %[[RN:.*]] = arith.remui %[[R1]], %[[THREE]] : index
// CHECK-NEXT:    %[[W1:.*]] = arith.addi %[[WRITE]], %[[ONE]] : index
// CHECK-NEXT:    %[[WN:.*]] = arith.remui %[[W1]], %[[THREE]] : index
// CHECK-NEXT:    scf.yield %[[D]], %[[RN]], %[[WN]] : tensor<16x8xi32, {{.*}}>, index, index
// CHECK-NEXT:  }
// CHECK-NEXT:  qgpu.async_wait {pending = 0}
// CHECK-NEXT:  qdot.store %{{.*}}[%{{.*}}, %{{.*}}], %[[ACC]]
// CHECK-NOT:   qdot.load
// num-stages=4: three prologue groups, pending = 2, the write stage starts at 3 and the
// copy goes 3 iterations ahead.
// FOUR-LABEL:  func.func @gemm
// FOUR:        qgpu.local_alloc : () -> !qgpu.memdesc<4x16x32xi8, {{.*}}, mutable>
// FOUR-COUNT-3: qgpu.async_commit
// FOUR:        %[[W0:.*]] = arith.constant 3 : index
// FOUR-NEXT:   scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[W0]])
// FOUR-NEXT:     qgpu.async_wait {pending = 2}
// FOUR-NEXT:     %[[N3:.*]] = arith.constant 3 : index
// FOUR-NEXT:     arith.muli %{{.*}}, %[[N3]] : index
// FOUR:        qgpu.async_wait {pending = 0}
// TWO-LABEL:   func.func @gemm
// TWO:         qgpu.local_alloc : () -> !qgpu.memdesc<2x16x32xi8, {{.*}}, mutable>
// TWO:         qgpu.local_alloc : () -> !qgpu.memdesc<2x32x8xi8, {{.*}}, mutable>
// TWO-COUNT-2: qgpu.async_copy
// TWO-NEXT:    qgpu.async_commit
// TWO-NOT:     qgpu.async_copy
// TWO:         %[[READ0:.*]] = arith.constant 0 : index
// TWO-NEXT:    %[[WRITE0:.*]] = arith.constant 1 : index
// TWO-NEXT:    scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[READ0]], %{{.*}} = %[[WRITE0]])
// TWO-NEXT:      qgpu.async_wait {pending = 0}
// TWO:           %[[MOD:.*]] = arith.constant 2 : index
// TWO:           arith.remui %{{.*}}, %[[MOD]] : index
// TWO:         qgpu.async_wait {pending = 0}
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
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
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

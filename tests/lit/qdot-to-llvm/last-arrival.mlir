// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-to-llvm' --remarks=qdot-to-llvm 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// qdot.last_arrival becomes the arrival of CUDA's grid barrier: a barrier, a release fence, thread 0's atomic
// increment of counter [index] (i32, 4-byte stride), an acquire fence, the verdict (old = count - 1), the
// counter's reset by the last program's thread 0 and a voting barrier that hands the verdict to every thread
// (and orders their later loads after thread 0's acquire). The verdict is the branch condition of what follows.

// CHECK-LABEL: func.func @arrive
// CHECK-SAME:  (%[[C:[^:]+]]: i64, %[[S:[^:]+]]: index)
// CHECK:       %[[TILE:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  ptx.fence_acq_rel_gpu
// CHECK-NEXT:  %[[TID:.+]] = ptx.special_reg tid.x
// CHECK-NEXT:  %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[FIRST:.+]] = arith.cmpi eq, %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT:  %[[T64:.+]] = arith.index_cast %[[TILE]] : index to i64
// CHECK-NEXT:  %[[TWO:.+]] = arith.constant 2 : i64
// CHECK-NEXT:  %[[OFF:.+]] = arith.shli %[[T64]], %[[TWO]] : i64
// CHECK-NEXT:  %[[ADDR:.+]] = arith.addi %[[C]], %[[OFF]] : i64
// CHECK-NEXT:  %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[OLD:.+]] = ptx.atom_global_add %[[ADDR]], %[[ONE]] if %[[FIRST]] : i32
// CHECK-NEXT:  ptx.fence_acq_rel_gpu
// CHECK-NEXT:  %[[S32:.+]] = arith.index_cast %[[S]] : index to i32
// CHECK-NEXT:  %[[LASTOLD:.+]] = arith.subi %[[S32]], %[[ONE]] : i32
// CHECK-NEXT:  %[[IS:.+]] = arith.cmpi eq, %[[OLD]], %[[LASTOLD]] : i32
// CHECK-NEXT:  %[[MINE:.+]] = arith.andi %[[FIRST]], %[[IS]] : i1
// CHECK-NEXT:  ptx.st_global %[[ADDR]], %[[ZERO]] if %[[MINE]] : i32
// CHECK-NEXT:  %[[LAST:.+]] = ptx.bar_red_or %[[MINE]]
// CHECK-NEXT:  cf.cond_br %[[LAST]], ^[[THEN:.+]], ^[[END:.+]]
// CHECK-NOT:   qdot.last_arrival
// REMARK:      last-arrival.mlir:[[# @LINE + 3]]:3: remark: qdot-to-llvm: last arrival: bar.sync, fence.acq_rel.gpu, thread 0's atom.global.add.u32 on the counter, fence.acq_rel.gpu, bar.red.or.pred of its verdict; the last program's thread 0 sets the counter back to 0
func.func @arrive(%counts: !qdot.ptr<i32>, %splits: index) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %tile = qdot.program_id x
  %last = qdot.last_arrival %counts[%tile], %splits : !qdot.ptr<i32>
  scf.if %last {
    %again = qdot.last_arrival %counts[%tile], %splits : !qdot.ptr<i32>
  }
  func.return
}

// REQUIRES: ptxas
// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_90 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %s --target ptx --arch sm_80 | filecheck %s
// qdot.last_arrival in PTX, on every target (sm_80 and later have all three instructions): bar.sync 0,
// fence.acq_rel.gpu, thread 0's predicated atom.global.add.u32 (the other lanes read 0), the second fence, the
// reset of the counter by the last program's thread 0, and bar.red.or.pred (LLVM's convergent barrier
// intrinsic), before the branch on the verdict.

// CHECK:       .entry arrive
// CHECK:       bar.sync 0;
// CHECK-NEXT:  // begin inline asm
// CHECK-NEXT:  fence.acq_rel.gpu;
// CHECK:       mov.b32 [[OLD:%r[0-9]+]], 0;
// CHECK-NEXT:  @%qdot_p atom.global.add.u32 [[OLD]], [[[ADDR:%rd[0-9]+]]], {{%r[0-9]+}};
// CHECK-NEXT:  }
// CHECK-NEXT:  // end inline asm
// CHECK-NEXT:  // begin inline asm
// CHECK-NEXT:  fence.acq_rel.gpu;
// CHECK:       setp.eq.b32 {{%p[0-9]+}}, [[OLD]],
// CHECK:       @%qdot_p st.global.b32 [[[ADDR]]], {{%r[0-9]+}};
// CHECK:       bar.red.or.pred [[LAST:%p[0-9]+]], 0, {{%p[0-9]+}};
// CHECK-NEXT:  not.pred [[SKIP:%p[0-9]+]], [[LAST]];
// CHECK-NEXT:  @[[SKIP]] bra
func.func @arrive(%counts: !qdot.ptr<i32>, %flags: !qdot.ptr<i32>, %splits: index) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %tile = qdot.program_id x
  %last = qdot.last_arrival %counts[%tile], %splits : !qdot.ptr<i32>
  scf.if %last {
    %again = qdot.last_arrival %flags[%tile], %splits : !qdot.ptr<i32>
  }
  func.return
}

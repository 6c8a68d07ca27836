// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: qdot-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC
// The three instructions of qdot.last_arrival's protocol: ptx.fence_acq_rel_gpu (no operands),
// ptx.atom_global_add (i64 address, i32 value, optional predicate; the old value, i32) and
// ptx.bar_red_or (an i1 vote; every thread's OR). An atom of another type is refused.

// CHECK-LABEL: func.func @sync
// CHECK-SAME:  (%[[A:[^:]+]]: i64, %[[V:[^:]+]]: i32, %[[P:[^:]+]]: i1)
// CHECK:       ptx.fence_acq_rel_gpu
// CHECK-NEXT:  %[[OLD:.+]] = ptx.atom_global_add %[[A]], %[[V]] if %[[P]] : i32
// CHECK-NEXT:  %{{.+}} = ptx.atom_global_add %[[A]], %[[OLD]] : i32
// CHECK-NEXT:  %{{.+}} = ptx.bar_red_or %[[P]]
// CHECK-GENERIC: "ptx.fence_acq_rel_gpu"() : () -> ()
// CHECK-GENERIC: "ptx.atom_global_add"(%{{.+}}, %{{.+}}, %{{.+}}) : (i64, i32, i1) -> i32
// CHECK-GENERIC: "ptx.atom_global_add"(%{{.+}}, %{{.+}}) : (i64, i32) -> i32
// CHECK-GENERIC: "ptx.bar_red_or"(%{{.+}}) : (i1) -> i1
func.func @sync(%a: i64, %v: i32, %p: i1) {
  ptx.fence_acq_rel_gpu
  %old = ptx.atom_global_add %a, %v if %p : i32
  %old2 = ptx.atom_global_add %a, %old : i32
  %any = ptx.bar_red_or %p
  func.return
}

// -----

%a, %v = "test.op"() : () -> (i64, f32)
// CHECK: sync.mlir:[[# @LINE + 2]]:1: error: 'ptx.atom_global_add' op operand 'value' at position 1 does not verify
// CHECK-GENERIC: sync.mlir:[[# @LINE + 1]]:1: error: 'ptx.atom_global_add' op operand 'value' at position 1 does not verify
%old = "ptx.atom_global_add"(%a, %v) : (i64, f32) -> i32

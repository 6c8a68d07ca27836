// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// ptx.prefetch_global_l2 (prefetch.global.L2): an i64 address and an optional predicate; every target has it
// (targets/ptx/prefetch.mlir: the PTX it becomes).

// CHECK-LABEL: func.func @prefetch
// CHECK-SAME:  (%[[A:[^:]+]]: i64, %[[P:[^:]+]]: i1)
// CHECK:       ptx.prefetch_global_l2 %[[A]] if %[[P]]
// CHECK-NEXT:  ptx.prefetch_global_l2 %[[A]]{{$}}
func.func @prefetch(%a: i64, %p: i1) {
  ptx.prefetch_global_l2 %a if %p
  ptx.prefetch_global_l2 %a
  func.return
}

// -----

%a = "test.op"() : () -> i32
ptx.prefetch_global_l2 %a
// CHECK: prefetch.mlir:[[# @LINE - 1]]:24: error: operand is used with type i64, but has been previously used or defined with type i32

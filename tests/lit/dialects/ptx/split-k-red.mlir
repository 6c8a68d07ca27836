// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: qdot-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC
// ptx.red_global_add (red.global.add.f32, the split-K store): an i64 address, an f32 value and
// an optional bounds predicate; any other value type is refused.

// CHECK-LABEL: func.func @red
// CHECK-SAME:  (%[[A:[^:]+]]: i64, %[[V:[^:]+]]: f32, %[[P:[^:]+]]: i1)
// CHECK:       ptx.red_global_add %[[A]], %[[V]] if %[[P]] : f32
// CHECK-NEXT:  ptx.red_global_add %[[A]], %[[V]] : f32
// CHECK-GENERIC: "ptx.red_global_add"(%{{.+}}, %{{.+}}, %{{.+}}) : (i64, f32, i1) -> ()
// CHECK-GENERIC: "ptx.red_global_add"(%{{.+}}, %{{.+}}) : (i64, f32) -> ()
func.func @red(%a: i64, %v: f32, %p: i1) {
  ptx.red_global_add %a, %v if %p : f32
  ptx.red_global_add %a, %v : f32
  func.return
}

// -----

%a, %v = "test.op"() : () -> (i64, i32)
ptx.red_global_add %a, %v : i32
// CHECK: split-k-red.mlir:[[# @LINE - 1]]:1: error: 'ptx.red_global_add' op red.global.add takes an f32 value, got i32
// CHECK-GENERIC: split-k-red.mlir:[[# @LINE - 2]]:1: error: 'ptx.red_global_add' op red.global.add takes an f32 value, got i32

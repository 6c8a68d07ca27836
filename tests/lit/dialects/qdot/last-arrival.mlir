// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// qdot.last_arrival: true in the last of `count` programs to arrive at counter `index` of an i32 array
// (the in-GEMM split-K fix-up's test). Refusals: last-arrival-invalid.mlir.

// CHECK-LABEL: func.func @arrive
// CHECK-SAME:  (%[[C:[^:]+]]: !qdot.ptr<i32>, %[[S:[^:]+]]: index)
// CHECK:       %[[T:.+]] = qdot.program_id x
// CHECK-NEXT:  %{{.+}} = qdot.last_arrival %[[C]][%[[T]]], %[[S]] : !qdot.ptr<i32>
// CHECK-GENERIC: "qdot.last_arrival"(%{{.+}}, %{{.+}}, %{{.+}}) : (!qdot.ptr<i32>, index, index) -> i1
func.func @arrive(%counts: !qdot.ptr<i32>, %splits: index) attributes {qdot.kernel} {
  %tile = qdot.program_id x
  %last = qdot.last_arrival %counts[%tile], %splits : !qdot.ptr<i32>
  func.return
}

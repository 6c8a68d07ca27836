// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// qdot.store {reduce = "add"}: the split-K store (each element added to what memory holds), a
// property of the op, printed in the attribute dictionary; a plain store prints none.

// CHECK-LABEL: func.func @split_k_store
// CHECK-SAME:  (%[[D:[^:]+]]: !qdot.desc<16x8xf32>, %[[O:[^:]+]]: index, %[[T:[^:]+]]: tensor<16x8xf32>)
// CHECK:       qdot.store %[[D]][%[[O]], %[[O]]], %[[T]] {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
// CHECK-NEXT:  qdot.store %[[D]][%[[O]], %[[O]]], %[[T]] : !qdot.desc<16x8xf32>, tensor<16x8xf32>
// CHECK-GENERIC: "qdot.store"(%{{.+}}) <{reduce = "add"}> : (!qdot.desc<16x8xf32>, index, index, tensor<16x8xf32>) -> ()
// CHECK-GENERIC-NEXT: "qdot.store"(%{{.+}}) : (!qdot.desc<16x8xf32>, index, index, tensor<16x8xf32>) -> ()
func.func @split_k_store(%d: !qdot.desc<16x8xf32>, %off: index, %t: tensor<16x8xf32>) attributes {qdot.kernel} {
  qdot.store %d[%off, %off], %t {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  qdot.store %d[%off, %off], %t : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

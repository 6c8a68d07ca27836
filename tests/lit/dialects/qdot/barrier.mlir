// RUN: qdot-opt %s | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s --check-prefix=LOWERED
// qdot.barrier: every thread of the program meets here, its global accesses before it visible to all after it
// (the quantize-in-GEMM kernel's stores of its scratch rows, read back by its K loop's copies); qdot-to-llvm makes
// it bar.sync 0.

// CHECK-LABEL: func.func @meet
// CHECK-NEXT:  qdot.barrier
// CHECK-GENERIC: "qdot.barrier"() : () -> ()
// LOWERED-LABEL: func.func @meet
// LOWERED-NEXT:  ptx.bar_sync
// LOWERED-NOT:   qdot.barrier
func.func @meet() attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  qdot.barrier
  func.return
}

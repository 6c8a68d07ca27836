// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// qdot.last_arrival refuses counters that are not i32 and a constant count below 1.

func.func @f32_counters(%counts: !qdot.ptr<f32>, %splits: index) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  // CHECK: last-arrival-invalid.mlir:[[# @LINE + 1]]:3: error: 'qdot.last_arrival' op counters must be !qdot.ptr<i32>, got !qdot.ptr<f32>
  %last = qdot.last_arrival %counts[%c0], %splits : !qdot.ptr<f32>
  func.return
}

// -----

func.func @no_programs(%counts: !qdot.ptr<i32>) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  // CHECK: last-arrival-invalid.mlir:[[# @LINE + 1]]:3: error: 'qdot.last_arrival' op count must be at least 1, got 0
  %last = qdot.last_arrival %counts[%c0], %c0 : !qdot.ptr<i32>
  func.return
}

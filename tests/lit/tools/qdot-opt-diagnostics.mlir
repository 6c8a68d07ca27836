// Every malformed input is one 'file:line:col: error:' line, never a traceback.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not qdot-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=STATUS
// RUN: not qdot-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PIPELINE

func.func @ok(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  func.return %b : i32
}
// CHECK-LABEL: func.func @ok

// -----

func.func @type_mismatch(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i64
  func.return %b : i32
}
// CHECK: qdot-opt-diagnostics.mlir:15:19: error: operand is used with type i64

// -----

func.func @verifier(%a: i32) -> i64 {
  %b = arith.addi %a, %a : i32
  func.return %b : i32
}
// CHECK: qdot-opt-diagnostics.mlir:24:3: error: 'func.return' op Expected arguments to have the same types as the function output types

// STATUS: error: operand is used with type i64
// STATUS-NOT: Traceback
// PIPELINE: qdot-opt: error: unknown pass 'no-such-pass'; the passes are qdot-lower-quantize, qdot-accelerate-matmul,

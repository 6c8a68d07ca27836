// MLIR-style expected-error annotations are checked, not just printed — with
// --verify-diagnostics only: without it they are comments, and the errors fail the run.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics
// RUN: not qdot-opt %s --split-input-file --verify-diagnostics -p 'bogus' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not qdot-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=PLAIN

func.func @verifier(%a: i32) -> i64 {
  %b = arith.addi %a, %a : i32
  // expected-error @+1 {{Expected arguments to have the same types}}
  func.return %b : i32
}

// -----

func.func @same_line(%a: i32) -> i64 {
  %b = arith.addi %a, %a : i32
  func.return %b : i32 // expected-error {{'func.return' op Expected arguments}}
}
// BAD: qdot-opt: error: unknown pass 'bogus'
// PLAIN: qdot-opt-expected-error.mlir:10:3: error: 'func.return' op Expected arguments
// PLAIN: qdot-opt-expected-error.mlir:17:3: error: 'func.return' op Expected arguments

// MLIR-style expected-error annotations are checked, not just printed.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics
// RUN: not qdot-opt %s --split-input-file --verify-diagnostics -p 'bogus' 2>&1 | filecheck %s --check-prefix=BAD

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
// BAD: invalid pass pipeline

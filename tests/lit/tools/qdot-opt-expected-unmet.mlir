// RUN: not qdot-opt %s --split-input-file --verify-diagnostics 2> %t.err
// RUN: filecheck %s < %t.err
// RUN: grep -c ' error: ' %t.err | filecheck %s --check-prefix=COUNT
// With --verify-diagnostics, every expected-error annotation must be met and every annotation
// must parse; each one that is not, is an error at the annotation (as mlir-opt reports them),
// and the run fails. A chunk stops at its first error, so the expectations after the one it
// met are unmet: the run used to pass on the first alone. An annotation that does not parse
// used to be a comment, which checks nothing.

func.func @second_never_produced() {
  %x = arith.addi %y, %y : i32 // expected-error {{undefined}}
  func.return // expected-error {{this is never produced}}
}
// CHECK-NOT: unexpected diagnostic
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 3]]:18: error: expected error "this is never produced" was not

// -----

func.func @unclosed(%a: i32) -> i64 {
  // expected-error @+1 {{Expected arguments
  func.return %a : i32
}
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 2]]:3: error: 'func.return' op Expected arguments
// CHECK: qdot-opt: error: unexpected diagnostic (no matching expected-error)
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 5]]:6: error: malformed expected-error annotation: no closing

// -----

func.func @misspelt(%a: i32) -> i64 {
  func.return %a : i32 // expected-eror {{Expected arguments}}
}
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 2]]:3: error: 'func.return' op Expected arguments
// CHECK: qdot-opt: error: unexpected diagnostic (no matching expected-error)
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 4]]:27: error: unknown annotation 'expected-eror'; did you mean

// -----

func.func @nothing_wrong() {
  // expected-error @below {{never}}
  func.return
}
// CHECK: qdot-opt-expected-unmet.mlir:[[# @LINE - 3]]:6: error: expected error "never" was not produced

// -----

// Met, every one: nothing to say.
func.func @met(%a: i32) -> i64 {
  func.return %a : i32 // expected-error {{Expected arguments}}
}

// COUNT: {{^8$}}

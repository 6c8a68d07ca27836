// Each parse error is reported where the mistake was written, not where xDSL's parser
// noticed it (the end of the file, the next line, the module): an undefined value at its
// first use, an unknown operation at its name (with the closest name of its dialect), a
// constant out of range at its operation, a redefined symbol at its second definition, an
// unclosed region at the end of input, naming where the region began.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @undefined_value(%a: i32) -> i32 {
  %b = arith.addi %zz, %a : i32
  func.return %b : i32
}
// CHECK: qdot-opt-locations.mlir:9:19: error: use of undefined value '%zz'

// -----

func.func @unknown_op(%a: i32) -> i32 {
  %b = qdot.dot_scale %a : i32
  func.return %b : i32
}
// CHECK: qdot-opt-locations.mlir:17:8: error: Operation qdot.dot_scale is not registered; did you mean 'qdot.dot_scaled'?

// -----

func.func @constant_out_of_range(%a: i32) -> i32 {
  %c = arith.constant 99999999999 : i32
  %b = arith.addi %c, %a : i32
  func.return %b : i32
}
// CHECK: qdot-opt-locations.mlir:25:3: error: Integer value 99999999999 is out of range for type i32

// -----

func.func @twice(%a: i32) -> i32 {
  func.return %a : i32
}
func.func @twice(%a: i32) -> i32 {
  func.return %a : i32
}
// CHECK: qdot-opt-locations.mlir:36:1: error: 'func.func' op redefinition of symbol '@twice' (first defined at {{.*}}qdot-opt-locations.mlir:33:1)

// -----

func.func @stray_token(%a: i32) -> i32 {
  func.return %a : i32
  42
}
// CHECK: qdot-opt-locations.mlir:45:3: error: expected an operation, a block label or the '}' that closes the region opened at 43:40, got '42'

// -----

// Only comments: an empty module, as mlir-opt reads it.
// CHECK: builtin.module {
// CHECK-NEXT: }

// -----

func.func @lone_caret(%a: i32) -> i32 {
  func.return %a : i32
  ^
}
// CHECK: qdot-opt-locations.mlir:[[# @LINE - 2]]:3: error: Expected suffix identifier after '^'

// -----

func.func @unclosed(%a: i32) -> i32 {
  func.return %a : i32
// CHECK: qdot-opt-locations.mlir:[[# @LINE + 1]]:1: error: unexpected end of input: the region opened at [[# @LINE - 2]]:37 is not closed with '}'

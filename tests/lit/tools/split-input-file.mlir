// --split-input-file splits at a line that holds '// -----' alone (spaces around it allowed), as
// each test file writes it. A longer rule of dashes, or the marker inside a string, is text: the
// split there began a chunk mid-line, and its errors were at columns of that fragment.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @one() {
  func.return
}
// ----------------------------------------------------------------------------------------------
func.func @same_chunk() attributes {note = "a // ----- b"} {
  func.return
}
// CHECK:      func.func @one
// CHECK:      func.func @same_chunk() attributes {note = "a // ----- b"}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK-NEXT: }

  // -----  

func.func @undefined() {
  %b = arith.addi %zz, %zz : i32
  func.return
}
// CHECK-NEXT: // -----
// CHECK-NEXT: split-input-file.mlir:[[# @LINE - 4]]:19: error: use of undefined value '%zz'

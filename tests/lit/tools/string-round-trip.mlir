// A string with a non-ASCII character prints as itself and reads back as the same string: xDSL escaped
// each of its UTF-8 bytes ("f\C3\A9"), which its lexer reads as bytes, so a symbol named @"fé" printed in
// generic form, or a location's file name with an accent, did not parse back.
// RUN: qdot-opt %s --print-op-generic | qdot-opt | filecheck %s
// RUN: qdot-opt %s --print-debuginfo | qdot-opt --print-debuginfo | filecheck %s --check-prefix=LOC

// CHECK: func.func @"fé"()
// LOC:   func.return loc("café.mlir":2:5)
func.func @"fé"() {
  func.return loc("café.mlir":2:5)
}

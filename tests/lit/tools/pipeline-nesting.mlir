// Regions nested deeper than 64 are a located error at the op of the 65th, in both tools, not an
// internal RecursionError (200 nested scf.execute_region ended as one); 64 are read, printed in
// either form and read back (the generic form's 'builtin.module' region is not counted).
// RUN: python -c "import sys; n = int(sys.argv[1]); print('func.func @f() {\n' + '  scf.execute_region {\n' * n + '  scf.yield\n  }\n' * n + '  func.return\n}')" 200 > %t.deep.mlir
// RUN: python -c "import sys; n = int(sys.argv[1]); print('func.func @f() {\n' + '  scf.execute_region {\n' * n + '  scf.yield\n  }\n' * n + '  func.return\n}')" 63 > %t.limit.mlir
// RUN: not qdot-opt %t.deep.mlir 2>&1 | filecheck %s --check-prefix=DEEP
// RUN: not qdot-translate %t.deep.mlir -o /dev/null 2>&1 | filecheck %s --check-prefix=DEEP
// RUN: not qdot-translate %t.deep.mlir --pipeline '' -o /dev/null 2>&1 | filecheck %s --check-prefix=DEEP
// DEEP: .deep.mlir:65:3: error: nesting deeper than 64 regions is not supported: this operation's region is nested 65 deep
// DEEP-NEXT: {{^  }}scf.execute_region {
// DEEP-NEXT: {{^  \^+$}}
// DEEP-NOT: internal error

// RUN: qdot-opt %t.limit.mlir --print-op-generic | qdot-opt | filecheck %s --check-prefix=LIMIT
// RUN: qdot-translate %t.limit.mlir --target mlir | filecheck %s --check-prefix=LIMIT
// RUN: qdot-opt %t.limit.mlir -p canonicalize,cse | filecheck %s --check-prefix=INLINED
// LIMIT-COUNT-63: scf.execute_region
// INLINED: func.func @f
// INLINED-NOT: scf.execute_region

// Other nesting too deep for the parser (an attribute of arrays in arrays) is a located error too.
// RUN: python -c "print('func.func @f() attributes {a = ' + '[' * 600 + ']' * 600 + '} {\n  func.return\n}')" > %t.array.mlir
// RUN: not qdot-opt %t.array.mlir 2>&1 | filecheck %s --check-prefix=ARRAY
// ARRAY: .array.mlir:1:{{[0-9]+}}: error: nesting too deep to parse: attributes, types or regions inside one another this many times are beyond what the parser can follow
// ARRAY-NOT: internal error

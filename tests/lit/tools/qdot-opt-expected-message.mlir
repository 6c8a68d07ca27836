// An expected-error annotation is met by a diagnostic on its line whose message holds its text:
// not by the source line the diagnostic quotes (which holds the annotation itself, so any text
// was met), nor by the file's name. A ':' in that name does not hide the line of the diagnostic.
// RUN: not qdot-opt %s --verify-diagnostics 2>&1 | filecheck %s --check-prefix=UNRELATED
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: python -c "import sys; open(sys.argv[1] + '/c:met.mlir', 'w').write(open(sys.argv[2]).read().replace('totally unrelated words', 'use of undefined value'))" %t.dir %s
// RUN: qdot-opt %t.dir/c:met.mlir --verify-diagnostics 2>&1 | filecheck %s --check-prefix=COLON --allow-empty

func.func @f() {
  %0 = arith.addi %a, %a : i32 // expected-error {{totally unrelated words}}
  func.return
}
// UNRELATED: qdot-opt-expected-message.mlir:[[# @LINE - 3]]:19: error: use of undefined value '%a'
// UNRELATED: qdot-opt: error: unexpected diagnostic (no matching expected-error)
// UNRELATED: qdot-opt-expected-message.mlir:[[# @LINE - 5]]:35: error: expected error "totally unrelated words" was not produced
// COLON-NOT: error

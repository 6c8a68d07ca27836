// A pass option's value may be quoted, as MLIR allows: a quoted number or boolean is that number or
// boolean (xDSL alone took it for a word and refused it); a quoted word that is no number is still
// refused as one.
// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages="2"}' | filecheck %s --check-prefix=QUOTED
// RUN: qdot-opt %s -p 'builtin.module(cse, qdot-lower-local-load{ldmatrix="false" arch="sm_90"})' | filecheck %s --check-prefix=QUOTED
// RUN: not qdot-opt %s -p 'qdot-pipeline{num-stages="two"}' 2>&1 | filecheck %s --check-prefix=WORD
// RUN: not qdot-translate %s --pipeline 'qdot-pipeline{num-stages="0"}' 2>&1 | filecheck %s --check-prefix=RANGE
// QUOTED: func.func @f
// WORD:  qdot-opt: error: qdot-pipeline option 'num-stages' takes an integer, got 'two'
// RANGE: qdot-translate: error: qdot-pipeline: num-stages must be

// An option with nothing after its '=' is named (xDSL alone said "Unknown argument value" at a column).
// RUN: not qdot-opt %s -p 'qdot-pipeline{num-stages=}' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not qdot-opt %s -p 'qdot-lower-local-load{arch= ldmatrix=false}' 2>&1 | filecheck %s --check-prefix=EMPTY-FIRST
// EMPTY:       qdot-opt: error: qdot-pipeline option 'num-stages' has nothing after its '=': write num-stages=VALUE
// EMPTY-FIRST: qdot-opt: error: qdot-lower-local-load option 'arch' has nothing after its '=': write arch=VALUE

// A pipeline that does not parse is reported in the text as it was typed: a stray ')' after
// builtin.module(...) at its own column, not at a column of the text with the anchor taken out.
// RUN: not qdot-opt %s -p 'builtin.module(qdot-lower-mma))' 2>&1 | filecheck %s --check-prefix=STRAY --match-full-lines --strict-whitespace
// RUN: not qdot-opt %s -p 'builtin.module((cse)' 2>&1 | filecheck %s --check-prefix=UNCLOSED --match-full-lines --strict-whitespace
// RUN: not qdot-translate %s --pipeline 'builtin.module(cse,, dce)' 2>&1 | filecheck %s --check-prefix=SYNTAX --match-full-lines --strict-whitespace
// STRAY:qdot-opt: error: unexpected ')' at column 31 of the pipeline, after the ')' that closes 'builtin.module(':
// STRAY-NEXT:  builtin.module(qdot-lower-mma))
// STRAY-NEXT:                                ^
// UNCLOSED:qdot-opt: error: 'builtin.module(' at column 15 of the pipeline is not closed:
// UNCLOSED-NEXT:  builtin.module((cse)
// UNCLOSED-NEXT:                ^
// SYNTAX:qdot-translate: error: invalid pass pipeline 'builtin.module(cse,, dce)': Error parsing pass pipeline specification:
// SYNTAX-NEXT:pass-pipeline:1:20
// SYNTAX-NEXT:builtin.module(cse,, dce)
// SYNTAX-NEXT:                   ^
// SYNTAX-NEXT:                   Expected pass name here

func.func @f() {
  func.return
}

// builtin.module( left open, or followed by more than its ')', is said so whatever ends the text
// (these ended in xDSL's "Unknown token" at the '.' of the anchor).
// RUN: not qdot-opt %s -p 'builtin.module(cse' 2>&1 | filecheck %s --check-prefix=OPEN
// RUN: not qdot-opt %s -p 'builtin.module(cse),dce' 2>&1 | filecheck %s --check-prefix=AFTER
// OPEN:  qdot-opt: error: 'builtin.module(' at column 15 of the pipeline is not closed:
// AFTER: qdot-opt: error: unexpected ',' at column 20 of the pipeline, after the ')' that closes 'builtin.module(':

// A quoted value is no option name: 'arch=1' in a quoted strategy is not a second arch. An '='
// in a value that is not quoted is named, not taken for an empty option.
// RUN: not qdot-opt %s -p 'qdot-accelerate-matmul{strategy="arch=1" arch=sm_90}' 2>&1 | filecheck %s --check-prefix=QUOTED-KEY
// RUN: not qdot-opt %s -p 'qdot-accelerate-matmul{arch=a=b}' 2>&1 | filecheck %s --check-prefix=INNER
// QUOTED-KEY: qdot-opt: error: qdot-accelerate-matmul: unknown strategy 'arch=1'; expected one of
// INNER:      qdot-opt: error: qdot-accelerate-matmul option 'arch' has an '=' in its value 'a=b': quote a value that holds one, arch="..."

// Spaces just inside the braces are taken as spaces between options are; a ',' with no pass
// after it is refused as one with no pass before it is (it was dropped in silence).
// RUN: qdot-opt %s -p 'qdot-pipeline{ num-stages=3 }' | filecheck %s --check-prefix=SPACES
// RUN: not qdot-opt %s -p 'cse,' 2>&1 | filecheck %s --check-prefix=TRAILING
// RUN: not qdot-opt %s -p 'builtin.module(cse, )' 2>&1 | filecheck %s --check-prefix=TRAILING
// SPACES:   func.func @f
// TRAILING: qdot-opt: error: the pipeline 'cse,' ends with ',': a pass must follow it, or leave the ',' out

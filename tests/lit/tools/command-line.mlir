// The tools' command lines: every mistake is one 'tool: error:' line and status 1 (status 2 is
// kept for qdot's own bugs), named in the user's spelling; MLIR habits work where they can.

func.func @f(%a: i32) -> i32 {
  func.return %a : i32
}

// A pipeline is checked by pass and option name before anything runs.
// RUN: not qdot-opt %s -p 'qdot-pipelin' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not qdot-opt %s -p 'qdot-pipeline{stages=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not qdot-opt %s -p 'qdot-pipeline{num-stages=abc}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not qdot-opt %s -p 'qdot-lower-local-load{ldmatrix=maybe}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not qdot-opt %s --verify-diagnostics -p 'qdot-to-llvm{arch=sm_99}' 2>&1 | filecheck %s --check-prefix=VALUE
// PASS:   qdot-opt: error: unknown pass 'qdot-pipelin'; did you mean 'qdot-pipeline'?
// OPTION: qdot-opt: error: qdot-pipeline has no option 'stages'; its options are: num-stages
// INT:    qdot-opt: error: qdot-pipeline option 'num-stages' takes an integer, got 'abc'
// BOOL:   qdot-opt: error: qdot-lower-local-load option 'ldmatrix' takes true or false, got 'maybe'
// VALUE:  qdot-opt: error: qdot-to-llvm: unknown arch 'sm_99'; expected one of sm_80,

// mlir-opt's anchored form runs the same passes; another anchor is refused by name.
// RUN: qdot-opt %s --pass-pipeline='builtin.module(cse,dce)' | filecheck %s --check-prefix=ANCHOR
// RUN: not qdot-opt %s -p 'func.func(cse)' 2>&1 | filecheck %s --check-prefix=NESTED
// ANCHOR: func.func @f
// NESTED: qdot-opt: error: qdot's passes run on the whole module: nest the pipeline in 'builtin.module(...)' or in nothing, not in 'func.func(...)'

// argparse's own errors: one line, status 1; no option is guessed from a prefix.
// RUN: not qdot-opt %s --verify 2>&1 | filecheck %s --check-prefix=PREFIX
// RUN: not qdot-translate %s --arch sm_99 2>&1 | filecheck %s --check-prefix=CHOICE
// RUN: qdot-opt --version | filecheck %s --check-prefix=VERSION
// PREFIX: qdot-opt: error: unrecognized arguments: --verify (see qdot-opt --help)
// CHOICE: qdot-translate: error: argument --arch: invalid choice: 'sm_99'
// CHOICE-NOT: usage:
// VERSION: qdot-opt (qdot {{[0-9]+\.[0-9]+\.[0-9]+}})

// qdot-translate: the default pipeline's flags do not mix with --pipeline, and --arch must
// agree with the arch the pipeline's passes name.
// RUN: not qdot-translate %s --num-stages 2 --pipeline cse 2>&1 | filecheck %s --check-prefix=MIXED
// RUN: not qdot-translate %s --arch sm_80 --pipeline 'qdot-to-llvm{arch=sm_90a}' 2>&1 | filecheck %s --check-prefix=ARCHES
// MIXED:  qdot-translate: error: --num-stages set the default pipeline's options; with --pipeline, give them to its passes
// ARCHES: qdot-translate: error: --arch sm_80 and the pipeline's arch=sm_90a disagree: the PTX is emitted for --arch

// '-o -' is standard output.
// RUN: qdot-opt %s -o - | filecheck %s --check-prefix=STDOUT
// STDOUT: func.func @f

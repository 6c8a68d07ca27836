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
// MIXED:  qdot-translate: error: --num-stages sets the default pipeline's options; with --pipeline, give them to its passes
// ARCHES: qdot-translate: error: --arch sm_80 and the pipeline's arch=sm_90a disagree: the PTX is emitted for --arch sm_80

// '-o -' is standard output.
// RUN: qdot-opt %s -o - | filecheck %s --check-prefix=STDOUT
// STDOUT: func.func @f

// A pipeline given twice would keep only the second; passes of one pipeline must agree on the
// arch (one left without arch= runs for sm_90); spaces after commas are allowed, an option given
// twice is not; qdot-pipeline's stages are bounded.
// RUN: not qdot-opt %s -p cse -p dce 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: qdot-opt %s -p 'cse, dce' | filecheck %s --check-prefix=SPACES
// RUN: not qdot-opt %s -p 'qdot-to-llvm{arch=sm_90 arch=sm_120a}' 2>&1 | filecheck %s --check-prefix=DUPLICATE
// RUN: not qdot-opt %s -p 'qdot-pipeline{num-stages=100000}' 2>&1 | filecheck %s --check-prefix=DEEP
// RUN: not qdot-translate %s --pipeline 'qdot-accelerate-matmul{arch=sm_120a},qdot-to-llvm' 2>&1 | filecheck %s --check-prefix=ARCHS
// RUN: not qdot-translate %s --target agx3b --arch sm_120a 2>&1 | filecheck %s --check-prefix=AGX
// RUN: not qdot-translate %s --remarks=qdot-lower-mmma 2>&1 | filecheck %s --check-prefix=REMARKS
// TWICE:     qdot-opt: error: -p/--passes/--pass-pipeline may be given once; put all passes in one pipeline, separated by commas
// SPACES:    func.func @f
// DUPLICATE: qdot-opt: error: qdot-to-llvm is given option 'arch' twice
// DEEP:      qdot-opt: error: qdot-pipeline: num-stages must be at most 16, got 100000
// ARCHS:     qdot-translate: error: the pipeline's passes run for different archs (sm_120a, sm_90): give every pass that takes an arch the same one
// AGX:       qdot-translate: error: --arch configures the NVIDIA pipeline; it does not apply to --target agx3b
// REMARKS:   qdot-translate: error: --remarks: 'qdot-lower-mmma' is not a pass of the pipeline (did you mean 'qdot-lower-mma'?

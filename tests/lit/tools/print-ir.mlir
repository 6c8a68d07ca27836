// What the tools show of each pass: the IR before / after it (all passes, chosen ones, only
// those that changed it, the one that failed) and the time each took; all of it on stderr.

// RUN: qdot-opt %s -p cse,dce --print-ir-before-all --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=ALL
// ALL:      // -----// IR Dump Before cse //----- //
// ALL-NEXT: builtin.module {
// ALL:        %[[A:.*]] = arith.addi %a, %a : i32
// ALL-NEXT:   %{{.*}} = arith.addi %a, %a : i32
// ALL:      // -----// IR Dump After cse //----- //
// ALL:        %[[B:.*]] = arith.addi %a, %a : i32
// ALL-NEXT:   %{{.*}} = arith.muli %[[B]], %[[B]] : i32
// ALL:      // -----// IR Dump Before dce //----- //
// ALL:      // -----// IR Dump After dce //----- //

// Chosen passes only.
// RUN: qdot-opt %s -p cse,dce --print-ir-before=dce --print-ir-after=cse 2>&1 >/dev/null | filecheck %s --check-prefix=CHOSEN
// RUN: qdot-opt %s -p cse,dce --print-ir-before dce --print-ir-after cse,cse 2>&1 >/dev/null | filecheck %s --check-prefix=CHOSEN
// CHOSEN-NOT: IR Dump Before cse
// CHOSEN:     // -----// IR Dump After cse //----- //
// CHOSEN:     // -----// IR Dump Before dce //----- //
// CHOSEN-NOT: IR Dump

// Only the passes that changed the IR: the first cse does, the second finds nothing left to do.
// RUN: qdot-opt %s -p cse,cse --print-ir-after-change 2>&1 >/dev/null | filecheck %s --check-prefix=CHANGE
// CHANGE:     // -----// IR Dump After cse //----- //
// CHANGE:     arith.addi
// CHANGE-NOT: arith.addi
// CHANGE:     arith.muli
// CHANGE-NOT: IR Dump
// With a chosen pass, after-change filters it: dce has nothing to remove here.
// RUN: qdot-opt %s -p cse,dce --print-ir-after=dce --print-ir-after-change 2>&1 >/dev/null | filecheck %s --allow-empty --check-prefix=UNCHANGED
// UNCHANGED-NOT: IR Dump

// A name the pipeline does not run is refused, not silently never printed.
// RUN: not qdot-opt %s -p cse --print-ir-after=dce 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not qdot-translate %s --target agx3b --print-ir-before=qdot-lower-mma 2>&1 | filecheck %s --check-prefix=UNKNOWN-TRANSLATE
// UNKNOWN: qdot-opt: error: --print-ir-after: 'dce' is not a pass of the pipeline (it runs: cse)
// UNKNOWN-TRANSLATE: qdot-translate: error: --print-ir-before: 'qdot-lower-mma' is not a pass of the pipeline (it runs: qdot-to-agx, agx-allocate-registers, agx-hints-and-waits)

// The IR as a failing pass left it, after its diagnostic (qdot-to-agx refuses @tile's M = 12).
// RUN: not qdot-opt %s -p cse,qdot-to-agx --print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAILURE
// RUN: not qdot-translate %s --target agx3b --print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAILURE
// FAILURE:      error: 'qdot.dot_scaled' op the AGX tile is built from 8x8x8 MMAs
// FAILURE:      // -----// IR Dump After qdot-to-agx Failed //----- //
// FAILURE-NEXT: builtin.module {
// FAILURE:      func.func @tile
// Without the option, only the diagnostic.
// RUN: not qdot-opt %s -p cse,qdot-to-agx 2>&1 | filecheck %s --check-prefix=NO-DUMP
// NO-DUMP:     error: 'qdot.dot_scaled' op
// NO-DUMP-NOT: IR Dump

// The time of parsing, of each pass in pipeline order, of the verifier and of the emission.
// RUN: qdot-opt %s -p cse,dce --timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// RUN: qdot-translate %s --target mlir --pipeline cse,dce --timing 2>&1 >/dev/null | filecheck %s --check-prefixes=TIMING,EMIT
// TIMING:      // -----// Execution time report //----- //
// TIMING-NEXT:   total {{[0-9.]+}} s
// TIMING-NEXT:   wall (s)    share  what
// TIMING-NEXT:   {{[0-9.]+ +[0-9.]+}} %  parse + verify
// TIMING-NEXT:   {{[0-9.]+ +[0-9.]+}} %  passes
// TIMING-NEXT:   {{[0-9.]+ +[0-9.]+}} %      1. cse
// TIMING-NEXT:   {{[0-9.]+ +[0-9.]+}} %      2. dce
// TIMING-NEXT:   {{[0-9.]+ +[0-9.]+}} %  verifier
// EMIT-NEXT:     {{[0-9.]+ +[0-9.]+}} %  emit mlir

// Emitting PTX (and with --verify-ptx, assembling it) is broken down into its steps.
// RUN: qdot-translate %S/../../../examples/mx_gemm_e4m3_e2m1.mlir --timing -o /dev/null 2>&1 | filecheck %s --check-prefix=STEPS
// RUN: qdot-translate %S/../../../examples/mx_gemm_e4m3_e2m1.mlir --timing --target cubin -o /dev/null 2>&1 | filecheck %s --check-prefixes=STEPS,PTXAS
// STEPS:      {{[0-9.]+ +[0-9.]+}} %      7. qdot-to-llvm
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %  verifier
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %  emit {{ptx|cubin}}
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %      LLVM IR emission
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %      llvmlite and the NVPTX target machine
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %      LLVM parse and verify
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %      LLVM optimisation (O3)
// STEPS-NEXT: {{[0-9.]+ +[0-9.]+}} %      NVPTX code generation
// PTXAS-NEXT: {{[0-9.]+ +[0-9.]+}} %      ptxas

// qdot-translate takes the same options; the result still goes to stdout.
// RUN: qdot-translate %s --target mlir --pipeline cse --print-ir-after-all 2>/dev/null | filecheck %s --check-prefix=RESULT
// RESULT-NOT: IR Dump
// RESULT:     func.func @f

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  func.return %2 : i32
}

func.func @tile(%a: tensor<12x16xf16>, %b: tensor<16x8xf16>, %acc: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<12x16xf16> * tensor<16x8xf16> -> tensor<12x8xf32>
  func.return %d : tensor<12x8xf32>
}

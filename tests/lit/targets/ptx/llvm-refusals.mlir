// RUN: awk '/^func.func @kernel_result/,/^}/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=RESULT
// RUN: awk '/^func.func @warps_on_helper/,/^}/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=HELPER
// RUN: awk '/^func.func @untranslated_op/,/^}/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=OP
// RUN: awk '/^func.func @real_cast/,/^}/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=CAST
// RUN: awk '/^func.func @entry_branch/,/^}/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=ENTRY
// What the LLVM IR emitter (targets/ptx/llvm_ir.py) refuses, each at the operation, instead of
// printing LLVM IR that LLVM would reject or that would mean something else. qdot-translate
// stops at its first error, so each RUN line feeds it one function of this file (awk takes the
// function from its header to its closing brace); the locations are those of that input.
// Each RUN also checks that no LLVM IR is printed.

// A kernel is a launch entry point: it returns nothing.
// RESULT:     <stdin>:1:1: error: 'func.func' op a kernel (qdot.kernel) must return nothing, got 1 results{{$}}
// RESULT-NOT: define
func.func @kernel_result(%a: i32) -> i32 attributes {qdot.kernel} {
  func.return %a : i32
}

// qdot.num_warps becomes nvvm.maxntid, which only a kernel takes.
// HELPER:     <stdin>:1:1: error: 'func.func' op qdot.num_warps applies to kernels (qdot.kernel) only{{$}}
// HELPER-NOT: define
func.func @warps_on_helper(%a: i32) -> i32 attributes {qdot.num_warps = 4 : i64} {
  func.return %a : i32
}

// An op no pass lowers and the emitter does not know.
// OP:         <stdin>:2:3: error: 'math.sqrt' op 'math.sqrt' has no translation to LLVM IR{{$}}
// OP-NOT:     define
func.func @untranslated_op(%a: f32) -> f32 {
  %b = math.sqrt %a : f32
  func.return %b : f32
}

// unrealized_conversion_cast is printed as an alias of its input, so only an identity cast may
// reach the emitter.
// CAST:       <stdin>:2:3: error: 'builtin.unrealized_conversion_cast' op only identity casts (one value, same type) reach LLVM IR; a pass left a real type conversion here{{$}}
// CAST-NOT:   define
func.func @real_cast(%a: i32) -> i64 {
  %b = builtin.unrealized_conversion_cast %a : i32 to i64
  func.return %b : i64
}

// LLVM's entry block has no predecessors, nor has MLIR's: the verifier refuses a branch to it before the
// emitter would (the printer leaves the entry block's label out, so such IR printed would not read back).
// ENTRY:      <stdin>:3:3: error: 'cf.br' op the entry block of a region may not be the target of a branch{{$}}
// ENTRY-NOT:  define
func.func @entry_branch() {
^bb0:
  cf.br ^bb0
}

// Inputs that once crashed qdot (found by `python -m tests.api.input_fuzz`): each is now one
// located diagnostic. The parser refuses what xDSL would run out of memory or fail on; the
// verifier checks what xDSL's does not (a use before its definition, an scf.if whose branch
// yields nothing, a function without a body).
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not qdot-translate %s --target ptx 2>&1 | filecheck %s --check-prefix=TRANSLATE

func.func @huge_integer_width() attributes {qdot.kernel, qdot.num_warps = 1 : i1099511627776} {
  func.return
}
// CHECK: qdot-opt-malformed.mlir:8:79: error: integer bitwidth is limited to 16777215 bits
// TRANSLATE: qdot-opt-malformed.mlir:8:79: error: integer bitwidth is limited to 16777215 bits
// TRANSLATE-NOT: internal error

// -----

func.func @huge_splat() {
  %zero = arith.constant dense<0.000000e+00> : tensor<2147483648x128xf32>
  func.return
}
// CHECK: qdot-opt-malformed.mlir:18:55: error: a shape of 274877906944 elements is larger than qdot handles (at most 16777216)

// -----

func.func @dense_array_of_odd_width(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<i127: 1, 0>} : tensor<64x128xi8> -> tensor<128x64xi8>
  func.return
}
// CHECK: qdot-opt-malformed.mlir:26:47: error: cannot build what is written here: Format not implemented for i127

// -----

func.func @use_before_definition(%p: !qdot.ptr<f32>, %n: index) {
  %c1 = arith.constant 1 : index
  qdot.store %desc[%n, %n], %tile : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  %desc = qdot.make_desc %p, [%n, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %tile = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  func.return
}
// CHECK: qdot-opt-malformed.mlir:35:3: error: 'qdot.store' op operand #0 does not dominate this use

// -----

func.func @use_in_a_loop_of_a_later_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %sum = arith.addi %i, %later : index
  }
  %later = arith.addi %n, %n : index
  func.return
}
// CHECK: qdot-opt-malformed.mlir:48:5: error: 'arith.addi' op operand #1 does not dominate this use

// -----

func.func @if_branch_yields_nothing(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
  }
  func.return %r : f32
}
// CHECK: qdot-opt-malformed.mlir:58:3: error: 'scf.if' op else region yields () where its results are (f32)

// -----

func.func @if_without_else(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  }
  func.return %r : f32
}
// CHECK: qdot-opt-malformed.mlir:69:3: error: 'scf.if' op has results, so its else region must yield them

// -----

func.func private @declaration(%a: index)
// CHECK: qdot-opt-malformed.mlir:78:1: error: 'func.func' op has no body; qdot compiles functions, not declarations

// -----

func.func @empty_body(%a: index) attributes {qdot.kernel, qdot.wait_previous_grid} {
}
// CHECK: qdot-opt-malformed.mlir:83:1: error: 'func.func' op ends a block of the function without a terminator (func.return or a branch)

// -----

func.func @defined_only_inside_the_loop(%n: index) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %step {
    %step = arith.constant 1 : index
  }
  func.return
}
// CHECK: qdot-opt-malformed.mlir:91:3: error: 'scf.for' op operand #2 is used but never defined in its scope

// -----

// A stray quote: xDSL's string pattern backtracked exponentially on it (minutes before this error).
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4"promote 8], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK: qdot-opt-malformed.mlir:101:65: error: End of file reached before closing string literal.

// -----

// A sizePerThread no thread can hold: lowering would enumerate 2^40 elements.
func.func @huge_size_per_thread(%t: tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 1099511627776], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>) {
  func.return
}
// CHECK: qdot-opt-malformed.mlir:107:{{[0-9]+}}: error: #qgpu.blocked sizePerThread asks for 1099511627776 elements per thread, more than 1024 (a thread has at most 255 registers)

// -----

// A dense array of i0: xDSL divides by its element size while building it.
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @i0_array(%m: !qgpu.memdesc<32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i0: 0, 0>} : !qgpu.memdesc<32x64xi8, #sh> -> !qgpu.memdesc<32x64xi8, #sh>
  func.return
}
// CHECK: qdot-opt-malformed.mlir:[[# @LINE - 3]]:53: error: cannot build what is written here: integer modulo by zero

// -----

// A value an xDSL builder refuses once the op's type is read is reported at the op, not at the next
// line's token; an assertion of the builder's own (a complex dense of one value) is a diagnostic too,
// not an internal error.
func.func @too_large_for_f32() {
  %0 = arith.constant 1.0e40 : f32
  func.return
}
// CHECK: qdot-opt-malformed.mlir:[[# @LINE - 3]]:3: error: cannot build what is written here: float too large to pack with f format

// -----

func.func @complex_dense() {
  %0 = arith.constant dense<1.0> : tensor<2xcomplex<f32>>
  func.return
}
// CHECK: qdot-opt-malformed.mlir:[[# @LINE - 3]]:3: error: cannot build what is written here (xDSL's builder does not take this form)

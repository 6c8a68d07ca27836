// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Rules the verifier adds to xDSL's for functions, calls, loops and qdot ops (compiler/diagnostics.py),
// each a mistake that used to compile in silence or fail far from its cause: a private kernel left no
// entry in the PTX, a call of a kernel vanished, a loop of step 0 reached the emulator as a division
// by zero at an op the user never wrote, a misspelt attribute on a qdot op was kept and ignored.
// One case per rule; the last case is valid.

// expected-error@+1 {{is a qdot.kernel, a launch's entry point, so it must be public, not private}}
func.func private @hidden(%n: index) attributes {qdot.kernel} {
  func.return
}

// -----

func.func @launched(%n: index) attributes {qdot.kernel} {
  func.return
}
func.func @launcher(%n: index) attributes {qdot.kernel} {
  // expected-error@+1 {{calls @launched, a qdot.kernel: a launch's entry point cannot be called (PTX calls only .func functions; call a function without qdot.kernel)}}
  func.call @launched(%n) : (index) -> ()
  func.return
}

// -----

func.func @zero_step(%n: index) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{constant step operand must be positive, got 0}}
  scf.for %i = %c0 to %n step %c0 {
  }
  func.return
}

// -----

func.func @negative_step(%n: index) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  // expected-error@+1 {{constant step operand must be positive, got -1}}
  scf.for %i = %n to %c0 step %cm1 {
  }
  func.return
}

// -----

func.func @misspelt(%p: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %p, [%n, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  // expected-error@+1 {{has an unknown attribute 'in_bound' (it takes in_bounds; a discardable attribute needs a dialect prefix, as qdot.strategy has); did you mean 'in_bounds'?}}
  %t = qdot.load %d[%c0, %c0] {in_bound = [true, true]} : !qdot.desc<16x16xf32> -> tensor<16x16xf32>
  func.return
}

// -----

// Valid: a call of a function that is not a kernel (a PTX .func), a positive constant step, and
// a step known only at run time.
func.func private @helper(%n: index) {
  func.return
}
func.func @ok(%n: index, %s: index) attributes {qdot.kernel} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  func.call @helper(%n) : (index) -> ()
  scf.for %i = %c0 to %n step %c2 {
  }
  scf.for %j = %c0 to %n step %s {
  }
  func.return
}
// CHECK-LABEL: func.func @ok
// CHECK: func.call @helper

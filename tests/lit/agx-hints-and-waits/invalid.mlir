// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'agx-hints-and-waits' | filecheck %s
// RUN: not qdot-opt %s --split-input-file -p 'agx-hints-and-waits{waits=some}' 2>&1 | filecheck %s --check-prefix=WAITS
// Every diagnostic of agx-hints-and-waits, one case each.

// WAITS: qdot-opt: error: agx-hints-and-waits: unknown waits 'some'; expected one of all, needed

func.func @store_of_load(%acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = agx.load_frag acc %acc[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32>
  %r = agx.store_tile %c : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.store_tile' op stores a fragment whose load in slot 0 nothing waited on; store tiles hold MMA results

// -----

func.func @unknown_form(%x: tensor<8x8xf16>) attributes {agx.form = "agx9"} {
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  "test.op"(%a) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:1: error: 'func.func' op agx.form must be one of agx3b, agx3c, got 'agx9'

// -----

func.func @nested(%x: tensor<8x8xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
    "test.op"(%a) : (!agx.frag<fp16>) -> ()
  }
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'agx.load_frag' op agx-hints-and-waits handles straight-line tiles; this op is inside a nested region

// -----

// A load nothing reads, registers not yet placed: no wait would retire it, and allocation could
// give its register to a later load or a D while it is in flight (placed, a D over it waits:
// placed.mlir).
func.func @dead_load(%x: tensor<8x8xf16>, %y: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %dead = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %a = agx.load_frag lhs %y[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %b = agx.load_frag rhs %y[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  %r = agx.store_tile %d : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 7]]:3: error: 'agx.load_frag' op loads a fragment nothing reads, before registers are placed: no mma8 waits on its slot, and agx-allocate-registers may then give its register to a later load or D while it is still in flight; remove it, or place registers first

// -----

// Two loads in flight into one register: loads carry no waits, so nothing orders them.
func.func @load_over_load(%x: tensor<8x8xf16>, %y: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %dead = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r0>
  %a = agx.load_frag lhs %y[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r0>
  %b = agx.load_frag rhs %y[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r2>
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16, r0>, !agx.frag<fp16, r2> -> !agx.frag<fp32, r4>
  %r = agx.store_tile %d : !agx.frag<fp32, r4> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 6]]:3: error: 'agx.load_frag' op loads into r0 while the load in slot 0 into it is still in flight and no mma8 between them waits on it; remove the earlier load or place this one elsewhere

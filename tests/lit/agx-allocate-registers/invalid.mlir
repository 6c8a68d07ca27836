// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-agx,agx-allocate-registers' | filecheck %s
// Every diagnostic of agx-allocate-registers, one case each.

// 64x64 outputs are 64 fp32 accumulators: the 49th loaded finds none of the 48 pairs of r0..r95 free.
func.func @too_big(%a: tensor<64x8xf16>, %b: tensor<8x64xf16>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<64x8xf16> * tensor<8x64xf16> -> tensor<64x64xf32>
  func.return %d : tensor<64x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.load_frag' op the tile does not fit the register file: 49 fragments would be live here (49 C/D), one register pair each, but r0..r95 hold only 48 pairs; use a smaller M x N per simdgroup

// -----

// 56x56 outputs with a zero accumulator: the loads fit, but the multiply
// form's D needs a fresh pair while A and B fragments are still live: its D
// would be the 49th live fragment.
func.func @operands_do_not_fit(%a: tensor<56x8xf16>, %b: tensor<8x56xf16>) -> tensor<56x56xf32> {
  %acc = arith.constant dense<0.0> : tensor<56x56xf32>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<56x8xf16> * tensor<8x56xf16> -> tensor<56x56xf32>
  func.return %d : tensor<56x56xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.mma8' op the tile does not fit the register file: 49 fragments would be live here (40 C/D, 2 A, 7 B), one register pair each, but r0..r95 hold only 48 pairs; use a smaller M x N per simdgroup

// -----

func.func @pinned_conflict(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %a0 = agx.load_frag lhs %a[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %b0 = agx.load_frag rhs %b[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r0>
  %d = agx.mma8 %a0, %b0, zero : !agx.frag<fp16>, !agx.frag<fp16, r0> -> !agx.frag<fp32>
  %r = agx.store_tile %d : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: 'agx.load_frag' op fragment pinned to r0 but r0 still holds a live fragment

// -----

func.func @nested(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a0 = agx.load_frag lhs %a[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
    "test.op"(%a0) : (!agx.frag<fp16>) -> ()
  }
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'agx.load_frag' op agx-allocate-registers handles straight-line tiles; this op is inside a nested region

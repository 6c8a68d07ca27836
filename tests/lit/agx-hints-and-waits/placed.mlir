// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits{waits=needed}' | filecheck %s
// With registers placed, an MMA whose D overwrites a register that a pending load is
// still writing waits for that load's slot first (a write-after-write hazard); waits=needed
// shows it as slot 2 in the wait list.

// CHECK-LABEL: func.func @waw
// CHECK:       agx.load_frag lhs %{{.*}}[0, 0] slot 2 : tensor<8x8xf16> -> !agx.frag<fp16, r8>
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [0, 1, 2] : !agx.frag<fp16, r0>, !agx.frag<fp16, r2> -> !agx.frag<fp32, r8>
func.func @waw(%x: tensor<8x8xf16>, %w: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r0>
  %b = agx.load_frag rhs %w[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r2>
  %dead = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16, r8>
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16, r0>, !agx.frag<fp16, r2> -> !agx.frag<fp32, r8>
  %r = agx.store_tile %d : !agx.frag<fp32, r8> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'agx.dequant_frag .* q4_0 ' %t | filecheck %s --check-prefix=FRAGS
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b dequant-type=fp16}' | filecheck %s --check-prefix=NARROW
// q4_0 on the AGX path: like q4_K, q8_0 and q8_1 blocks, each 8 × 8 fragment of a q4_0 tile is
// dequantized by agx.dequant_frag (to fp32 unless dequant-type says otherwise) per K step of 8,
// ahead of that step's MMA; a 32-value block spans 4 K steps, so an 8 × 8-block tile (K = 256) is
// 32 fragments on each side, at K offsets 0, 8, ..., 248 (64 q4_0 fragments in the file's two
// dots) — no s8 upcast, no d16 (those are the PTX path's).
// FRAGS: {{^64$}}

// CHECK-LABEL: func.func @q4_0_q8_1
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 0] q4_0 : tensor<8x8x!qdot.block<q4_0>> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %{{.*}}[0, 0] q8_1 : tensor<8x8x!qdot.block<q8_1>> -> !agx.frag<fp32>
// CHECK:       agx.mma8
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 8] q4_0
// CHECK:       agx.dequant_frag rhs %{{.*}}[8, 0] q8_1
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 248] q4_0
// CHECK:       agx.dequant_frag rhs %{{.*}}[248, 0] q8_1
// CHECK-COUNT-1: agx.store_tile
// CHECK-NOT:   qgpu.upcast
// NARROW-LABEL: func.func @q4_0_q8_1
// NARROW:        agx.dequant_frag lhs %{{.*}}[0, 0] q4_0 : tensor<8x8x!qdot.block<q4_0>> -> !agx.frag<fp16>
func.func @q4_0_q8_1(%a: tensor<8x8x!qdot.block<q4_0>>, %b: tensor<8x8x!qdot.block<q8_1>>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = q4_0 rhs = q8_1 : tensor<8x8x!qdot.block<q4_0>> * tensor<8x8x!qdot.block<q8_1>> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// q8_0 × q4_0: q4_0 as the rhs, [K/32, N] blocks.
// CHECK-LABEL: func.func @q8_0_q4_0
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 0] q8_0 : tensor<8x8x!qdot.block<q8_0>> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %{{.*}}[0, 0] q4_0 : tensor<8x8x!qdot.block<q4_0>> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %{{.*}}[248, 0] q4_0
func.func @q8_0_q4_0(%a: tensor<8x8x!qdot.block<q8_0>>, %b: tensor<8x8x!qdot.block<q4_0>>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = q8_0 rhs = q4_0 : tensor<8x8x!qdot.block<q8_0>> * tensor<8x8x!qdot.block<q4_0>> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

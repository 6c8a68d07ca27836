// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c}' | filecheck %s --check-prefix=AGX3C
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b dequant-type=fp32}' | filecheck %s --check-prefix=WIDE
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b dequant-type=fp16}' | filecheck %s --check-prefix=NARROW
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c}' --remarks=qdot-to-agx 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=REMARK
// The fragment type each operand format gets.

// bf16 has no MMA form: it is widened to fp32 on load (exact); fp16 stays fp16 on agx3b,
// where A and B may differ, and is widened too on agx3c, which takes one input type.
// REMARK: remark: qdot-to-agx: agx3c: lhs bf16: loaded and widened to fp32 (exact);
// REMARK-SAME: rhs fp16: loaded and widened to fp32 (exact); agx3c takes one input type, so both sides are fp32;
// REMARK-SAME: 1 K step of 8, each 1x1 agx.mma8 in serpentine order (1 in all); C fragments loaded from acc
// REMARK: remark: qdot-to-agx: agx3c: lhs e2m1: dequantized to fp32 by agx.dequant_frag per K step (a ue8m0 scale:
// REMARK-SAME: fp16 would round or overflow; fp32 holds a value times its scale below 2^128 only); rhs e4m3:
// REMARK-SAME: dequantized to fp32 by agx.dequant_frag per K step
// REMARK-SAME: (a ue8m0 scale: fp16 would round or overflow; fp32 holds a value times its scale below 2^128 only);
// REMARK-SAME: 4 K steps of 8
// REMARK: remark: qdot-to-agx: agx3c: lhs e2m1: dequantized to fp16 by agx.dequant_frag per K step (every value is an
// REMARK-SAME: fp16 value); rhs fp16: loaded as it is
// REMARK: remark: qdot-to-agx: agx3c: lhs q4_K: dequantized to fp32 by agx.dequant_frag per K step (block scales:
// REMARK-SAME: fp16 would round or overflow)
// REMARK: remark: qdot-to-agx: agx3c: lhs e2m1: dequantized to fp16 by agx.dequant_frag per K step (every value is an
// REMARK-SAME: fp16 value); rhs e4m3: dequantized to fp16 by agx.dequant_frag per K step (every value is an fp16 value)
// CHECK-LABEL: func.func @bf16_fp16
// CHECK:       agx.load_frag lhs %{{.*}}[0, 0] : tensor<8x8xbf16> -> !agx.frag<fp32>
// CHECK:       agx.load_frag rhs %{{.*}}[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp32>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
// AGX3C-LABEL: func.func @bf16_fp16
// AGX3C-SAME:  attributes {agx.form = "agx3c"}
// AGX3C:       agx.load_frag lhs %{{.*}}[0, 0] : tensor<8x8xbf16> -> !agx.frag<fp32>
// AGX3C:       agx.load_frag rhs %{{.*}}[0, 0] : tensor<8x8xf16> -> !agx.frag<fp32>
// AGX3C:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp32>, !agx.frag<fp32>, !agx.frag<fp32> -> !agx.frag<fp32>
func.func @bf16_fp16(%a: tensor<8x8xbf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = fp16 : tensor<8x8xbf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// MX fp4 x fp8 with ue8m0 scales: each fragment is dequantized (codes and its block
// scale) before the MMA chain; to fp32 by default, since a ue8m0 scale reaches 2^±127 (an fp16
// fragment made in-range values inf), or to fp16 with dequant-type=fp16. [row, col]
// counts values of the logical operand, not packed bytes.
// CHECK-LABEL: func.func @mx_e2m1_e4m3
// CHECK:       agx.dequant_frag lhs %[[A:.*]] scale %[[AS:.*]][0, 0] e2m1 : tensor<8x16xi8>, tensor<8x1xf8E8M0FNU> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %[[B:.*]] scale %[[BS:.*]][0, 0] e4m3 : tensor<32x8xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> !agx.frag<fp32>
// CHECK:       agx.mma8
// CHECK:       agx.dequant_frag lhs %[[A]] scale %[[AS]][0, 8] e2m1
// CHECK:       agx.dequant_frag rhs %[[B]] scale %[[BS]][8, 0] e4m3
// NARROW-LABEL: func.func @mx_e2m1_e4m3
// NARROW:        agx.dequant_frag lhs %{{.*}} scale %{{.*}}[0, 0] e2m1 : tensor<8x16xi8>, tensor<8x1xf8E8M0FNU> -> !agx.frag<fp16>
// WIDE-LABEL:  func.func @mx_e2m1_e4m3
// WIDE:        agx.dequant_frag lhs %{{.*}} scale %{{.*}}[0, 0] e2m1 : tensor<8x16xi8>, tensor<8x1xf8E8M0FNU> -> !agx.frag<fp32>
// WIDE:        agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp32>, !agx.frag<fp32>, !agx.frag<fp32> -> !agx.frag<fp32>
func.func @mx_e2m1_e4m3(%a: tensor<8x16xi8>, %as: tensor<8x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %bs: tensor<8x1xf8E8M0FNU>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %acc lhs = e2m1 rhs = e4m3
       : tensor<8x16xi8>, tensor<8x1xf8E8M0FNU> * tensor<32x8xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// fp4 packed along M (lhs_k_pack = false) keeps its packing on the fragment load.
// CHECK-LABEL: func.func @e2m1_m_packed
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 0] e2m1 k_pack = false : tensor<4x8xi8> -> !agx.frag<fp16>
func.func @e2m1_m_packed(%a: tensor<4x8xi8>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = fp16 {lhs_k_pack = false} : tensor<4x8xi8> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// llama.cpp blocks: q4_K x q8_1 dequantized per fragment (to fp32: an fp16 scale times a code
// needs more than fp16's 11 significant bits); a q4_K super-block spans 32 K steps.
// CHECK-LABEL: func.func @q4_K_q8_1
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 0] q4_K : tensor<8x1x!qdot.block<q4_K>> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %{{.*}}[0, 0] q8_1 : tensor<8x8x!qdot.block<q8_1>> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 248] q4_K
// CHECK:       agx.dequant_frag rhs %{{.*}}[248, 0] q8_1
// CHECK-COUNT-1: agx.store_tile
func.func @q4_K_q8_1(%a: tensor<8x1x!qdot.block<q4_K>>, %b: tensor<8x8x!qdot.block<q8_1>>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = q4_K rhs = q8_1 : tensor<8x1x!qdot.block<q4_K>> * tensor<8x8x!qdot.block<q8_1>> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// NVFP4 (e2m1 with ue4m3 scales per 16): |e2m1 · ue4m3| lies in [2^-10, 2688] with at most 6
// significant bits, so its fragments stay fp16 by default, as unscaled fp8/fp6/fp4 ones do.
// CHECK-LABEL: func.func @nvfp4_e4m3
// CHECK:       agx.dequant_frag lhs %{{.*}} scale %{{.*}}[0, 0] e2m1 : tensor<8x16xi8>, tensor<8x2xf8E4M3FN> -> !agx.frag<fp16>
// CHECK:       agx.dequant_frag rhs %{{.*}}[0, 0] e4m3 : tensor<32x8xf8E4M3FN> -> !agx.frag<fp16>
func.func @nvfp4_e4m3(%a: tensor<8x16xi8>, %as: tensor<8x2xf8E4M3FN>, %b: tensor<32x8xf8E4M3FN>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %acc lhs = e2m1 rhs = e4m3
       : tensor<8x16xi8>, tensor<8x2xf8E4M3FN> * tensor<32x8xf8E4M3FN> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

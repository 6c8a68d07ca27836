// RUN: qdot-opt %s --split-input-file -p 'agx-allocate-registers' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx,agx-allocate-registers' | filecheck %s --check-prefix=TILE
// One decision per case: where agx-allocate-registers places fragments.

// Lowest free even-aligned pair first; an fp16 fragment takes the even register of a pair
// (rNl_rNh), an fp32 fragment the whole pair; D takes C's pair when C dies there (in-place
// accumulate), and a dead A/B pair is reused by the next load.
// CHECK-LABEL: func.func @chain
// CHECK:       agx.load_frag acc %{{.*}}[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32, r0>
// CHECK:       agx.load_frag lhs %{{.*}}[0, 0] : tensor<8x16xf16> -> !agx.frag<fp16, r2>
// CHECK:       agx.load_frag rhs %{{.*}}[0, 0] : tensor<16x8xf32> -> !agx.frag<fp32, r4>
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp16, r2>, !agx.frag<fp32, r4>, !agx.frag<fp32, r0> -> !agx.frag<fp32, r0>
// CHECK:       agx.load_frag lhs %{{.*}}[0, 8] : tensor<8x16xf16> -> !agx.frag<fp16, r2>
// CHECK:       agx.load_frag rhs %{{.*}}[8, 0] : tensor<16x8xf32> -> !agx.frag<fp32, r4>
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp16, r2>, !agx.frag<fp32, r4>, !agx.frag<fp32, r0> -> !agx.frag<fp32, r0>
// CHECK:       agx.store_tile %{{.*}} : !agx.frag<fp32, r0> -> tensor<8x8xf32>
func.func @chain(%a: tensor<8x16xf16>, %b: tensor<16x8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = agx.load_frag acc %acc[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32>
  %a0 = agx.load_frag lhs %a[0, 0] : tensor<8x16xf16> -> !agx.frag<fp16>
  %b0 = agx.load_frag rhs %b[0, 0] : tensor<16x8xf32> -> !agx.frag<fp32>
  %d0 = agx.mma8 %a0, %b0, %c : !agx.frag<fp16>, !agx.frag<fp32>, !agx.frag<fp32> -> !agx.frag<fp32>
  %a1 = agx.load_frag lhs %a[0, 8] : tensor<8x16xf16> -> !agx.frag<fp16>
  %b1 = agx.load_frag rhs %b[8, 0] : tensor<16x8xf32> -> !agx.frag<fp32>
  %d1 = agx.mma8 %a1, %b1, %d0 : !agx.frag<fp16>, !agx.frag<fp32>, !agx.frag<fp32> -> !agx.frag<fp32>
  %r = agx.store_tile %d1 : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

// D never shares a pair with A or B, even when they die at that MMA: the multiply form's D
// gets a fresh pair, and the dead A and B pairs are free only afterwards.
// CHECK-LABEL: func.func @multiply
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero : !agx.frag<fp16, r0>, !agx.frag<fp16, r2> -> !agx.frag<fp32, r4>
// CHECK:       agx.load_frag lhs %{{.*}}[0, 8] : tensor<8x16xf16> -> !agx.frag<fp16, r0>
func.func @multiply(%a: tensor<8x16xf16>, %b: tensor<16x8xf16>) -> tensor<8x8xf32> {
  %a0 = agx.load_frag lhs %a[0, 0] : tensor<8x16xf16> -> !agx.frag<fp16>
  %b0 = agx.load_frag rhs %b[0, 0] : tensor<16x8xf16> -> !agx.frag<fp16>
  %d0 = agx.mma8 %a0, %b0, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  %a1 = agx.load_frag lhs %a[0, 8] : tensor<8x16xf16> -> !agx.frag<fp16>
  %b1 = agx.load_frag rhs %b[8, 0] : tensor<16x8xf16> -> !agx.frag<fp16>
  %d1 = agx.mma8 %a1, %b1, %d0 : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %r = agx.store_tile %d1 : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

// The whole 32x32x32 tile fits: 16 fp32 accumulators + 4 A + 4 B fragments live at most,
// every fragment within r0..r95 (24 pairs: r0..r46, nothing from r48 up).
// TILE-LABEL: func.func @tile_32
// TILE-NOT:   !agx.frag<fp16>
// TILE-NOT:   !agx.frag<fp32>
// TILE-NOT:   , r{{(4[89]|[5-9][0-9]|[1-9][0-9][0-9])}}>
// TILE:       agx.store_tile
// TILE-SAME:  -> tensor<32x32xf32>
func.func @tile_32(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// One fragment read as both A and C, dying there: D takes a fresh pair, not the A/C one (D
// may share C's register only, A13; taking C's pair here gave D A's register and the
// verifier refused the pass's output).
// CHECK-LABEL: func.func @a_is_c
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} : !agx.frag<fp32, r0>, !agx.frag<fp16, r2>, !agx.frag<fp32, r0> -> !agx.frag<fp32, r4>
func.func @a_is_c(%a: tensor<8x8xf32>, %b: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %x = agx.load_frag lhs %a[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32>
  %b0 = agx.load_frag rhs %b[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %d0 = agx.mma8 %x, %b0, %x : !agx.frag<fp32>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %r = agx.store_tile %d0 : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

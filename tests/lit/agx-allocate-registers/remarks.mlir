// RUN: qdot-opt %s --split-input-file -p 'agx-allocate-registers' --remarks=agx-allocate-registers -o /dev/null 2>&1 | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx,agx-allocate-registers' --remarks=agx-allocate-registers -o /dev/null 2>&1 | filecheck %s --check-prefix=TILE
// What --remarks says agx-allocate-registers decided for a tile (passes/agx_allocate_registers.py,
// _remark): how many register pairs its fragments took of the 48, and in how many mma8 D took
// C's pair in place. basic.mlir pins the placements themselves.

// The accumulate chain: C dies at each mma8, so D takes its pair both times; the A and B pairs
// are reused by the second loads (3 pairs for 7 fragments).
// CHECK: remarks.mlir:[[# @LINE + 1]]:1: remark: agx-allocate-registers: @chain: 7 fragments in 3 of the 48 register pairs (r0..r5); D takes C's pair in place in 2 of 2 mma8{{$}}
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

// The multiply form has no C: its D takes a fresh pair (not in place), the second mma8's D
// takes its C's.
// CHECK: remarks.mlir:[[# @LINE + 1]]:1: remark: agx-allocate-registers: @multiply: 6 fragments in 3 of the 48 register pairs (r0..r5); D takes C's pair in place in 1 of 2 mma8{{$}}
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

// A whole 32x32x32 tile from qdot-to-agx: 16 accumulators and 4 + 4 operand fragments live at
// most, 24 pairs (r0..r47); acc is an argument, so every mma8 accumulates and D always takes C's pair.
// TILE: remarks.mlir:[[# @LINE + 1]]:1: remark: agx-allocate-registers: @tile_32: 112 fragments in 24 of the 48 register pairs (r0..r47); D takes C's pair in place in 64 of 64 mma8{{$}}
func.func @tile_32(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

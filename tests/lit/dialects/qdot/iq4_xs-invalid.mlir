// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of ggml's iq4_xs block, one case per rule: it pairs with q8_1 and q8_1_mmq
// only, in either order (llama.cpp's vec_dot_iq4_xs_q8_1) — not with q8_0, which its 32-value sibling
// iq4_nl does take, nor with another nibble weight format (iq4_nl, q4_K) nor with itself, and not with a
// plain tensor; it carries its scales (d and the packed 6-bit ls per 32 values) inside its blocks and
// takes no external one on either side; the element type must be its own 136-byte block; and its K is
// counted in 256-value super-blocks, not in iq4_nl's 32-value ones.
// COUNT: {{^10$}}

// The unsupported-pair message lists the iq4_xs pairs that are supported, both orders, and none with q8_0:
// iq4_xs's entries sit right after iq4_nl's in each list, and q8_0's list goes from iq4_nl to mxfp4.
func.func @iq4_xs_q8_0(%a: tensor<16x2x!qdot.block<iq4_xs>>, %b: tensor<16x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = q8_0 : tensor<16x2x!qdot.block<iq4_xs>> * tensor<16x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_xs, rhs = q8_0 (supported: {{.*}}, iq4_nl × q8_1_mmq, iq4_xs × q8_1, iq4_xs × q8_1_mmq, mxfp4 × q8_1, {{.*}}, q8_1 × iq4_nl, q8_1 × iq4_xs, q8_1 × mxfp4, {{.*}}, q8_0 × iq4_nl, q8_0 × mxfp4, {{.*}}, q8_1_mmq × iq4_nl, q8_1_mmq × iq4_xs, q8_1_mmq × mxfp4, {{.*}})

// -----

// nor in the other order: q8_0 × iq4_xs is not a block pair either.
func.func @q8_0_iq4_xs(%a: tensor<64x16x!qdot.block<q8_0>>, %b: tensor<2x16x!qdot.block<iq4_xs>>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q8_0 rhs = iq4_xs : tensor<64x16x!qdot.block<q8_0>> * tensor<2x16x!qdot.block<iq4_xs>> -> tensor<64x16xf32>
  func.return %d : tensor<64x16xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q8_0, rhs = iq4_xs (supported: {{.*}})

// -----

// Both sides table-looked-up nibbles (iq4_xs's and iq4_nl's share kvalues_iq4nl): no s8 side for the mma.
func.func @iq4_xs_iq4_nl(%a: tensor<16x2x!qdot.block<iq4_xs>>, %b: tensor<16x64x!qdot.block<iq4_nl>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = iq4_nl : tensor<16x2x!qdot.block<iq4_xs>> * tensor<16x64x!qdot.block<iq4_nl>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_xs, rhs = iq4_nl (supported:

// -----

// q4_K is the other 256-value 4-bit super-block: no pair of the two.
func.func @iq4_xs_q4_K(%a: tensor<16x2x!qdot.block<iq4_xs>>, %b: tensor<2x64x!qdot.block<q4_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = q4_K : tensor<16x2x!qdot.block<iq4_xs>> * tensor<2x64x!qdot.block<q4_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_xs, rhs = q4_K (supported:

// -----

func.func @iq4_xs_iq4_xs(%a: tensor<16x2x!qdot.block<iq4_xs>>, %b: tensor<2x64x!qdot.block<iq4_xs>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = iq4_xs : tensor<16x2x!qdot.block<iq4_xs>> * tensor<2x64x!qdot.block<iq4_xs>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_xs, rhs = iq4_xs (supported:

// -----

func.func @iq4_xs_i8(%a: tensor<16x2x!qdot.block<iq4_xs>>, %b: tensor<512x64xi8>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = i8 : tensor<16x2x!qdot.block<iq4_xs>> * tensor<512x64xi8> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats pair only with block formats: lhs = iq4_xs, rhs = i8{{$}}

// -----

// An external scale on the iq4_xs side, as the lhs ...
func.func @lhs_scaled(%a: tensor<16x2x!qdot.block<iq4_xs>>, %s: tensor<16x16xf8E8M0FNU>, %b: tensor<16x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %s, %b, %c lhs = iq4_xs rhs = q8_1 : tensor<16x2x!qdot.block<iq4_xs>>, tensor<16x16xf8E8M0FNU> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = iq4_xs carries its scales inside its blocks and takes no lhs scale{{$}}

// -----

// ... and as the rhs.
func.func @rhs_scaled(%a: tensor<64x4x!qdot.block<q8_1_mmq>>, %b: tensor<2x16x!qdot.block<iq4_xs>>, %s: tensor<16x16xf8E8M0FNU>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = qdot.dot_scaled %a, %b scale %s, %c lhs = q8_1_mmq rhs = iq4_xs : tensor<64x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<iq4_xs>>, tensor<16x16xf8E8M0FNU> -> tensor<64x16xf32>
  func.return %d : tensor<64x16xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs = iq4_xs carries its scales inside its blocks and takes no rhs scale{{$}}

// -----

// lhs = iq4_xs reads 136-byte iq4_xs super-blocks, not q4_K's 144-byte ones.
func.func @element_type(%a: tensor<16x2x!qdot.block<q4_K>>, %b: tensor<16x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = q8_1 : tensor<16x2x!qdot.block<q4_K>> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = iq4_xs needs element type !qdot.block<iq4_xs>, got !qdot.block<q4_K>{{$}}

// -----

// 8 iq4_xs blocks are 2048 values of K (256 each, not iq4_nl's 32); 8 q8_1 blocks are 256.
func.func @k_mismatch(%a: tensor<16x8x!qdot.block<iq4_xs>>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_xs rhs = q8_1 : tensor<16x8x!qdot.block<iq4_xs>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K of lhs and rhs must match: lhs [M, K/256] = [16, 8] gives K = 2048, rhs [K/32, N] = [8, 64] gives K = 256{{$}}

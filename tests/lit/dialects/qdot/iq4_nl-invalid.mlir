// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of ggml's iq4_nl block, one case per rule: it pairs with the 8-bit
// activation blocks only (q8_1, q8_1_mmq, q8_0; the s8 mma needs one side that is plain s8) — not
// with another nibble weight format (q4_0, mxfp4) nor with itself, and not with a plain tensor; it
// carries its scale (its fp16 d) inside its blocks and takes no external one on either side; the
// element type must be its own 18-byte block; and its 32-value blocks must cover the other side's K.
// COUNT: {{^8$}}

// The unsupported-pair message lists the iq4_nl pairs that are supported, both orders.
func.func @iq4_nl_q4_0(%a: tensor<16x8x!qdot.block<iq4_nl>>, %b: tensor<8x64x!qdot.block<q4_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = q4_0 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q4_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_nl, rhs = q4_0 (supported: {{.*}}, iq4_nl × q8_1, iq4_nl × q8_0, iq4_nl × q8_1_mmq, {{.*}}, q8_1 × iq4_nl, {{.*}}, q8_0 × iq4_nl, {{.*}}, q8_1_mmq × iq4_nl, {{.*}})

// -----

// Both sides table-looked-up nibbles: no s8 side for the mma.
func.func @iq4_nl_iq4_nl(%a: tensor<16x8x!qdot.block<iq4_nl>>, %b: tensor<8x64x!qdot.block<iq4_nl>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = iq4_nl : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<iq4_nl>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_nl, rhs = iq4_nl (supported:

// -----

// mxfp4 is the other looked-up nibble block: no pair of the two.
func.func @iq4_nl_mxfp4(%a: tensor<16x8x!qdot.block<iq4_nl>>, %b: tensor<8x64x!qdot.block<mxfp4>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = mxfp4 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<mxfp4>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = iq4_nl, rhs = mxfp4 (supported:

// -----

func.func @iq4_nl_i8(%a: tensor<16x8x!qdot.block<iq4_nl>>, %b: tensor<256x64xi8>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = i8 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<256x64xi8> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats pair only with block formats: lhs = iq4_nl, rhs = i8{{$}}

// -----

// An external scale on the iq4_nl side, as the lhs ...
func.func @lhs_scaled(%a: tensor<16x8x!qdot.block<iq4_nl>>, %s: tensor<16x8xf8E8M0FNU>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %s, %b, %c lhs = iq4_nl rhs = q8_1 : tensor<16x8x!qdot.block<iq4_nl>>, tensor<16x8xf8E8M0FNU> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = iq4_nl carries its scales inside its blocks and takes no lhs scale{{$}}

// -----

// ... and as the rhs.
func.func @rhs_scaled(%a: tensor<64x8x!qdot.block<q8_0>>, %b: tensor<8x16x!qdot.block<iq4_nl>>, %s: tensor<16x8xf8E8M0FNU>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = qdot.dot_scaled %a, %b scale %s, %c lhs = q8_0 rhs = iq4_nl : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<iq4_nl>>, tensor<16x8xf8E8M0FNU> -> tensor<64x16xf32>
  func.return %d : tensor<64x16xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs = iq4_nl carries its scales inside its blocks and takes no rhs scale{{$}}

// -----

// lhs = iq4_nl reads 18-byte iq4_nl blocks, not mxfp4's 17-byte ones.
func.func @element_type(%a: tensor<16x8x!qdot.block<mxfp4>>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = q8_1 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = iq4_nl needs element type !qdot.block<iq4_nl>, got !qdot.block<mxfp4>{{$}}

// -----

// 8 iq4_nl blocks are 256 values of K; 8 q8_1_mmq blocks (128 values each) are 1024.
func.func @k_mismatch(%a: tensor<16x8x!qdot.block<iq4_nl>>, %b: tensor<8x64x!qdot.block<q8_1_mmq>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = iq4_nl rhs = q8_1_mmq : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K of lhs and rhs must match: lhs [M, K/32] = [16, 8] gives K = 256, rhs [K/128, N] = [8, 64] gives K = 1024{{$}}

// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of q4_0, one case per rule (dialects/qdot/dot.py, in its order):
// q4_0 pairs only with the int8 activation blocks (q8_1, q8_0 and the q8_1_mmq tile layout) —
// the s8 mma needs one s8 side that is not nibbles — never with itself or q4_K nor with a float
// format; it carries its scale (d) inside its blocks; and its 32-value blocks must cover the
// other side's K blocks (q8_1_mmq: 128 values).
// COUNT: {{^7$}}

func.func @element_type(%a: tensor<16x128xi8>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = q8_1 : tensor<16x128xi8> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q4_0 needs element type !qdot.block<q4_0>, got i8

// -----

func.func @with_float(%a: tensor<16x8x!qdot.block<q4_0>>, %b: tensor<256x64xbf16>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = bf16 : tensor<16x8x!qdot.block<q4_0>> * tensor<256x64xbf16> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats pair only with block formats: lhs = q4_0, rhs = bf16

// -----

// q4_0 × q4_0: both sides nibbles, refused; the message lists the q4_0 pairs that are supported.
func.func @q4_0_q4_0(%a: tensor<16x8x!qdot.block<q4_0>>, %b: tensor<8x64x!qdot.block<q4_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = q4_0 : tensor<16x8x!qdot.block<q4_0>> * tensor<8x64x!qdot.block<q4_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_0, rhs = q4_0 (supported: q4_K × q8_1, q4_K × q8_1_mmq, q4_0 × q8_1, q4_0 × q8_0, q4_0 × q8_1_mmq, q4_1 × q8_1, q4_1 × q8_1_mmq, q5_0 × q8_1, q5_0 × q8_0, q5_0 × q8_1_mmq, q5_1 × q8_1, q5_1 × q8_1_mmq, q5_K × q8_1, q5_K × q8_1_mmq, q6_K × q8_1, q6_K × q8_1_mmq, q3_K × q8_1, q3_K × q8_1_mmq, q2_K × q8_1, q2_K × q8_1_mmq, iq4_nl × q8_1, iq4_nl × q8_0, iq4_nl × q8_1_mmq, iq4_xs × q8_1, iq4_xs × q8_1_mmq, mxfp4 × q8_1, mxfp4 × q8_0, mxfp4 × q8_1_mmq, q8_1 × q4_K, q8_1 × q4_0, {{.*}}, q8_0 × q4_0, {{.*}}, q8_1_mmq × q4_0, {{.*}})

// -----

func.func @q4_0_q4_K(%a: tensor<16x8x!qdot.block<q4_0>>, %b: tensor<1x64x!qdot.block<q4_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = q4_K : tensor<16x8x!qdot.block<q4_0>> * tensor<1x64x!qdot.block<q4_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_0, rhs = q4_K (supported:

// -----

func.func @takes_no_scale(%a: tensor<16x8x!qdot.block<q4_0>>, %as: tensor<16x8xf8E8M0FNU>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = q4_0 rhs = q8_1 : tensor<16x8x!qdot.block<q4_0>>, tensor<16x8xf8E8M0FNU> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q4_0 carries its scales inside its blocks and takes no lhs scale

// -----

func.func @k_multiple_of_block(%a: tensor<16x3x!qdot.block<q4_0>>, %b: tensor<1x64x!qdot.block<q8_1_mmq>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = q8_1_mmq : tensor<16x3x!qdot.block<q4_0>> * tensor<1x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K = 96 from lhs [M, K/32] = [16, 3] must be a multiple of 128, the q8_1_mmq block size of rhs

// -----

func.func @k_match(%a: tensor<16x8x!qdot.block<q4_0>>, %b: tensor<4x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_0 rhs = q8_0 : tensor<16x8x!qdot.block<q4_0>> * tensor<4x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K of lhs and rhs must match: lhs [M, K/32] = [16, 8] gives K = 256, rhs [K/32, N] = [4, 64] gives K = 128

// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of ggml's q2_K block: it pairs with q8_1 and q8_1_mmq only, in either
// order (llama.cpp's vec_dot_q2_K_q8_1: its min term per 16 values is taken against the activations'
// int8 values, scaled by their d) — not with q8_0, nor with another weight format — and takes no
// external scale.
// COUNT: {{^4$}}

func.func @q2_K_q8_0(%a: tensor<16x2x!qdot.block<q2_K>>, %b: tensor<16x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q2_K rhs = q8_0 : tensor<16x2x!qdot.block<q2_K>> * tensor<16x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q2_K, rhs = q8_0 (supported: {{.*}}q3_K × q8_1_mmq, q2_K × q8_1, q2_K × q8_1_mmq, iq4_nl × q8_1, {{.*}}q8_1 × q3_K, q8_1 × q2_K, q8_1 × iq4_nl, {{.*}}q8_1_mmq × q3_K, q8_1_mmq × q2_K, q8_1_mmq × iq4_nl, {{.*}})

// -----

// nor in the other order: q8_0 × q2_K is not a block pair either (BLOCK_PAIRS lists q2_K with q8_1 and
// q8_1_mmq only, both ways)
func.func @q8_0_q2_K(%a: tensor<64x16x!qdot.block<q8_0>>, %b: tensor<2x16x!qdot.block<q2_K>>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q8_0 rhs = q2_K : tensor<64x16x!qdot.block<q8_0>> * tensor<2x16x!qdot.block<q2_K>> -> tensor<64x16xf32>
  func.return %d : tensor<64x16xf32>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q8_0, rhs = q2_K (supported: {{.*}})

// -----

func.func @q2_K_q3_K(%a: tensor<16x2x!qdot.block<q2_K>>, %b: tensor<2x64x!qdot.block<q3_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q2_K rhs = q3_K : tensor<16x2x!qdot.block<q2_K>> * tensor<2x64x!qdot.block<q3_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q2_K, rhs = q3_K (supported: {{.*}})

// -----

func.func @q2_K_scaled(%a: tensor<16x2x!qdot.block<q2_K>>, %s: tensor<16x16xf8E8M0FNU>, %b: tensor<16x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %s, %b, %c lhs = q2_K rhs = q8_1 : tensor<16x2x!qdot.block<q2_K>>, tensor<16x16xf8E8M0FNU> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q2_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q2_K carries its scales inside its blocks and takes no lhs scale{{$}}

// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of q4_1: it pairs only with q8_1 and q8_1_mmq — the activations
// whose block sums its m needs (ggml's vec_dot_q4_1_q8_1) — so not with q8_0 (no sums), nor with
// itself or another nibble format.
// COUNT: {{^3$}}

func.func @q4_1_q8_0(%a: tensor<16x8x!qdot.block<q4_1>>, %b: tensor<8x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_1 rhs = q8_0 : tensor<16x8x!qdot.block<q4_1>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_1, rhs = q8_0 (supported: {{.*}}q4_1 × q8_1, q4_1 × q8_1_mmq, {{.*}}q8_1 × q4_1, {{.*}}q8_1_mmq × q4_1, {{.*}})

// -----

func.func @q8_0_q4_1(%a: tensor<16x8x!qdot.block<q8_0>>, %b: tensor<8x64x!qdot.block<q4_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q8_0 rhs = q4_1 : tensor<16x8x!qdot.block<q8_0>> * tensor<8x64x!qdot.block<q4_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q8_0, rhs = q4_1 (supported:

// -----

func.func @q4_1_q4_0(%a: tensor<16x8x!qdot.block<q4_1>>, %b: tensor<8x64x!qdot.block<q4_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_1 rhs = q4_0 : tensor<16x8x!qdot.block<q4_1>> * tensor<8x64x!qdot.block<q4_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_1, rhs = q4_0 (supported:

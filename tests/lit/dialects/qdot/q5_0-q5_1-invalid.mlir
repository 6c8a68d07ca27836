// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of q5_0 and q5_1: q5_1 pairs only with q8_1 and q8_1_mmq — its m
// needs their block sums — so not with q8_0; neither pairs with another nibble format.
// COUNT: {{^2$}}

func.func @q5_1_q8_0(%a: tensor<16x8x!qdot.block<q5_1>>, %b: tensor<8x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q5_1 rhs = q8_0 : tensor<16x8x!qdot.block<q5_1>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q5_1, rhs = q8_0 (supported: {{.*}}q5_0 × q8_1, q5_0 × q8_0, q5_0 × q8_1_mmq, q5_1 × q8_1, q5_1 × q8_1_mmq, {{.*}})

// -----

func.func @q5_0_q4_0(%a: tensor<16x8x!qdot.block<q5_0>>, %b: tensor<8x64x!qdot.block<q4_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q5_0 rhs = q4_0 : tensor<16x8x!qdot.block<q5_0>> * tensor<8x64x!qdot.block<q4_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q5_0-q5_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q5_0, rhs = q4_0 (supported:

// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of ggml's q3_K block: it pairs with q8_1 and q8_1_mmq only (llama.cpp's
// vec_dot_q3_K_q8_1) — not with q8_0, nor with another weight format — and takes no external scale.
// COUNT: {{^3$}}

func.func @q3_K_q8_0(%a: tensor<16x2x!qdot.block<q3_K>>, %b: tensor<16x64x!qdot.block<q8_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q3_K rhs = q8_0 : tensor<16x2x!qdot.block<q3_K>> * tensor<16x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q3_K, rhs = q8_0 (supported: {{.*}}q6_K × q8_1_mmq, q3_K × q8_1, q3_K × q8_1_mmq, q2_K × q8_1, q2_K × q8_1_mmq, iq4_nl × q8_1, {{.*}})

// -----

func.func @q3_K_q6_K(%a: tensor<16x2x!qdot.block<q3_K>>, %b: tensor<2x64x!qdot.block<q6_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q3_K rhs = q6_K : tensor<16x2x!qdot.block<q3_K>> * tensor<2x64x!qdot.block<q6_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q3_K, rhs = q6_K (supported: {{.*}})

// -----

func.func @q3_K_scaled(%a: tensor<16x2x!qdot.block<q3_K>>, %s: tensor<16x16xf8E8M0FNU>, %b: tensor<16x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %s, %b, %c lhs = q3_K rhs = q8_1 : tensor<16x2x!qdot.block<q3_K>>, tensor<16x16xf8E8M0FNU> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: q3_K-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q3_K carries its scales inside its blocks and takes no lhs scale{{$}}

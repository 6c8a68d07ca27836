// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// q5_0 (block_q5_0: fp16 d, the 32-bit qh word, 16 bytes of nibbles; 22 bytes per 32 values, value =
// d · (code − 16)) and q5_1 (block_q5_1: fp16 d and m, qh, qs; 24 bytes, value = d · code + m) in the
// qdot vocabulary: qdot.dot_scaled with their partners in both operand orders — q5_0 as q4_0 (q8_1,
// q8_0 and q8_1_mmq: no sums needed), q5_1 as q4_1 (q8_1 and q8_1_mmq, whose block sums take its m).

// CHECK-LABEL: func.func @q5_pairs
// CHECK:       lhs = q5_0 rhs = q8_1 : tensor<16x8x!qdot.block<q5_0>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_0 rhs = q5_0 : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<q5_0>> -> tensor<64x16xf32>
// CHECK:       lhs = q5_0 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q5_0>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = q5_1 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<q5_1>> -> tensor<64x16xf32>
// CHECK:       lhs = q5_1 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q5_1>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q5_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format q5_0>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @q5_pairs(%w0: tensor<16x8x!qdot.block<q5_0>>, %w0t: tensor<8x16x!qdot.block<q5_0>>,
                    %w1: tensor<16x8x!qdot.block<q5_1>>, %w1t: tensor<8x16x!qdot.block<q5_1>>,
                    %c: tensor<16x64xf32>, %ct: tensor<64x16xf32>,
                    %x1: tensor<8x64x!qdot.block<q8_1>>, %x1t: tensor<64x8x!qdot.block<q8_1>>,
                    %x0t: tensor<64x8x!qdot.block<q8_0>>, %xm: tensor<2x64x!qdot.block<q8_1_mmq>>) {
  %0 = qdot.dot_scaled %w0, %x1, %c lhs = q5_0 rhs = q8_1 : tensor<16x8x!qdot.block<q5_0>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x0t, %w0t, %ct lhs = q8_0 rhs = q5_0 : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<q5_0>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w0, %xm, %c lhs = q5_0 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q5_0>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %x1t, %w1t, %ct lhs = q8_1 rhs = q5_1 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<q5_1>> -> tensor<64x16xf32>
  %4 = qdot.dot_scaled %w1, %xm, %c lhs = q5_1 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q5_1>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  func.return
}

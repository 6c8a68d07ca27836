// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// q4_1 (block_q4_1: fp16 d, fp16 m, 16 bytes of nibbles; 32 values per 20-byte block, value =
// d · code + m) in the qdot vocabulary: the block type, its pointers and descriptors, and
// qdot.dot_scaled with its partners in both operand orders — q8_1 (ggml's vec_dot_q4_1_q8_1,
// whose block sums take q4_1's m) and its MMQ tile layout q8_1_mmq; no external scales.

// CHECK-LABEL: func.func @q4_1_pairs
// CHECK:       lhs = q4_1 rhs = q8_1 : tensor<16x8x!qdot.block<q4_1>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = q4_1 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<q4_1>> -> tensor<64x16xf32>
// CHECK:       lhs = q4_1 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q4_1>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = q4_1 : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q4_1>> -> tensor<64x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q4_1_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format q4_1>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @q4_1_pairs(%w: tensor<16x8x!qdot.block<q4_1>>, %wt: tensor<8x16x!qdot.block<q4_1>>, %c: tensor<16x64xf32>, %ct: tensor<64x16xf32>,
                      %x1: tensor<8x64x!qdot.block<q8_1>>, %x1t: tensor<64x8x!qdot.block<q8_1>>,
                      %xm: tensor<2x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x2x!qdot.block<q8_1_mmq>>) {
  %0 = qdot.dot_scaled %w, %x1, %c lhs = q4_1 rhs = q8_1 : tensor<16x8x!qdot.block<q4_1>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x1t, %wt, %ct lhs = q8_1 rhs = q4_1 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<q4_1>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w, %xm, %c lhs = q4_1 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q4_1>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %xmt, %wt, %ct lhs = q8_1_mmq rhs = q4_1 : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q4_1>> -> tensor<64x16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @q4_1_kernel_types
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<8x32x!qdot.block<q4_1>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<8x32x!qdot.block<q4_1>> -> tensor<8x32x!qdot.block<q4_1>>
func.func @q4_1_kernel_types(%w: !qdot.ptr<!qdot.block<q4_1>>, %kb: index, %n: index, %i: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %w, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<8x32x!qdot.block<q4_1>>
  %t = qdot.load %d[%i, %i] : !qdot.desc<8x32x!qdot.block<q4_1>> -> tensor<8x32x!qdot.block<q4_1>>
  func.return
}

// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// ggml's q2_K (block_q2_K: scales[16] sixteen 4-bit scale | 4-bit min << 4 bytes, qs[64] 2-bit codes,
// fp16 d, fp16 dmin; 256 values per 84-byte super-block) in the qdot vocabulary: the block type, its
// pointers and descriptors, and qdot.dot_scaled with its partners in both operand orders — q8_1
// (llama.cpp's vec_dot_q2_K_q8_1) and its MMQ tile layout q8_1_mmq; no external scales: the block
// carries its own, and its mins per 16 values come from the blocks too.

// CHECK-LABEL: func.func @q2_K_pairs
// CHECK:       lhs = q2_K rhs = q8_1 : tensor<16x2x!qdot.block<q2_K>> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = q2_K : tensor<64x16x!qdot.block<q8_1>> * tensor<2x16x!qdot.block<q2_K>> -> tensor<64x16xf32>
// CHECK:       lhs = q2_K rhs = q8_1_mmq : tensor<16x2x!qdot.block<q2_K>> * tensor<4x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = q2_K : tensor<64x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<q2_K>> -> tensor<64x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q2_K_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format q2_K>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
// CHECK-GENERIC:       <{lhs = #qdot<format q8_1>, rhs = #qdot<format q2_K>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @q2_K_pairs(%w: tensor<16x2x!qdot.block<q2_K>>, %wt: tensor<2x16x!qdot.block<q2_K>>, %c: tensor<16x64xf32>,
                      %ct: tensor<64x16xf32>, %x1: tensor<16x64x!qdot.block<q8_1>>, %x1t: tensor<64x16x!qdot.block<q8_1>>,
                      %xm: tensor<4x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x4x!qdot.block<q8_1_mmq>>) {
  %0 = qdot.dot_scaled %w, %x1, %c lhs = q2_K rhs = q8_1 : tensor<16x2x!qdot.block<q2_K>> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x1t, %wt, %ct lhs = q8_1 rhs = q2_K : tensor<64x16x!qdot.block<q8_1>> * tensor<2x16x!qdot.block<q2_K>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w, %xm, %c lhs = q2_K rhs = q8_1_mmq : tensor<16x2x!qdot.block<q2_K>> * tensor<4x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %xmt, %wt, %ct lhs = q8_1_mmq rhs = q2_K : tensor<64x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<q2_K>> -> tensor<64x16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @q2_K_kernel_types
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<q2_K>> -> !qdot.desc<32x2x!qdot.block<q2_K>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<32x2x!qdot.block<q2_K>> -> tensor<32x2x!qdot.block<q2_K>>
func.func @q2_K_kernel_types(%w: !qdot.ptr<!qdot.block<q2_K>>, %kb: index, %n: index, %i: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %w, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q2_K>> -> !qdot.desc<32x2x!qdot.block<q2_K>>
  %t = qdot.load %d[%i, %i] : !qdot.desc<32x2x!qdot.block<q2_K>> -> tensor<32x2x!qdot.block<q2_K>>
  func.return
}

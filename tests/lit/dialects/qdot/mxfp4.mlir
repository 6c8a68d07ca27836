// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// ggml's mxfp4 (block_mxfp4, gpt-oss's weights: one E8M0 exponent byte, 16 bytes of e2m1 codes; 32
// values per 17-byte block) in the qdot vocabulary: the block type, its pointers and descriptors,
// and qdot.dot_scaled with its partners in both operand orders — q8_1 (llama.cpp's
// vec_dot_mxfp4_q8_1; the sums go unread), its MMQ tile layout q8_1_mmq, and q8_0 (ggml's CPU
// vec_dot_type for MXFP4); no external scales: the block carries its own.

// CHECK-LABEL: func.func @mxfp4_pairs
// CHECK:       lhs = mxfp4 rhs = q8_1 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = mxfp4 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
// CHECK:       lhs = mxfp4 rhs = q8_1_mmq : tensor<16x8x!qdot.block<mxfp4>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = mxfp4 : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
// CHECK:       lhs = mxfp4 rhs = q8_0 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_0 rhs = mxfp4 : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "mxfp4_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format mxfp4>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @mxfp4_pairs(%w: tensor<16x8x!qdot.block<mxfp4>>, %wt: tensor<8x16x!qdot.block<mxfp4>>, %c: tensor<16x64xf32>,
                       %ct: tensor<64x16xf32>, %x1: tensor<8x64x!qdot.block<q8_1>>, %x1t: tensor<64x8x!qdot.block<q8_1>>,
                       %xm: tensor<2x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x2x!qdot.block<q8_1_mmq>>,
                       %x0: tensor<8x64x!qdot.block<q8_0>>, %x0t: tensor<64x8x!qdot.block<q8_0>>) {
  %0 = qdot.dot_scaled %w, %x1, %c lhs = mxfp4 rhs = q8_1 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x1t, %wt, %ct lhs = q8_1 rhs = mxfp4 : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w, %xm, %c lhs = mxfp4 rhs = q8_1_mmq : tensor<16x8x!qdot.block<mxfp4>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %xmt, %wt, %ct lhs = q8_1_mmq rhs = mxfp4 : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
  %4 = qdot.dot_scaled %w, %x0, %c lhs = mxfp4 rhs = q8_0 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  %5 = qdot.dot_scaled %x0t, %wt, %ct lhs = q8_0 rhs = mxfp4 : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<mxfp4>> -> tensor<64x16xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @mxfp4_kernel_types
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<mxfp4>> -> !qdot.desc<8x32x!qdot.block<mxfp4>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<8x32x!qdot.block<mxfp4>> -> tensor<8x32x!qdot.block<mxfp4>>
func.func @mxfp4_kernel_types(%w: !qdot.ptr<!qdot.block<mxfp4>>, %kb: index, %n: index, %i: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %w, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<mxfp4>> -> !qdot.desc<8x32x!qdot.block<mxfp4>>
  %t = qdot.load %d[%i, %i] : !qdot.desc<8x32x!qdot.block<mxfp4>> -> tensor<8x32x!qdot.block<mxfp4>>
  func.return
}

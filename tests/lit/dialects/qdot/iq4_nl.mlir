// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// ggml's iq4_nl (block_iq4_nl: an fp16 d, then 16 bytes of q4_0's nibble pairs, each nibble an index
// into the non-linear table kvalues_iq4nl; 32 values per 18-byte block) in the qdot vocabulary: the
// block type, its pointers and descriptors, and qdot.dot_scaled with its partners in both operand
// orders — q8_1 (llama.cpp's vec_dot_iq4_nl_q8_1; the sums go unread), its MMQ tile layout q8_1_mmq,
// and q8_0 (ggml's CPU vec_dot_type for IQ4_NL) — as mxfp4's; no external scales: the block carries
// its own d.

// CHECK-LABEL: func.func @iq4_nl_pairs
// CHECK:       lhs = iq4_nl rhs = q8_1 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = iq4_nl : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
// CHECK:       lhs = iq4_nl rhs = q8_1_mmq : tensor<16x8x!qdot.block<iq4_nl>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = iq4_nl : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
// CHECK:       lhs = iq4_nl rhs = q8_0 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_0 rhs = iq4_nl : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_nl_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format iq4_nl>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
// CHECK-GENERIC:       <{lhs = #qdot<format q8_1>, rhs = #qdot<format iq4_nl>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @iq4_nl_pairs(%w: tensor<16x8x!qdot.block<iq4_nl>>, %wt: tensor<8x16x!qdot.block<iq4_nl>>, %c: tensor<16x64xf32>,
                        %ct: tensor<64x16xf32>, %x1: tensor<8x64x!qdot.block<q8_1>>, %x1t: tensor<64x8x!qdot.block<q8_1>>,
                        %xm: tensor<2x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x2x!qdot.block<q8_1_mmq>>,
                        %x0: tensor<8x64x!qdot.block<q8_0>>, %x0t: tensor<64x8x!qdot.block<q8_0>>) {
  %0 = qdot.dot_scaled %w, %x1, %c lhs = iq4_nl rhs = q8_1 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x1t, %wt, %ct lhs = q8_1 rhs = iq4_nl : tensor<64x8x!qdot.block<q8_1>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w, %xm, %c lhs = iq4_nl rhs = q8_1_mmq : tensor<16x8x!qdot.block<iq4_nl>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %xmt, %wt, %ct lhs = q8_1_mmq rhs = iq4_nl : tensor<64x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
  %4 = qdot.dot_scaled %w, %x0, %c lhs = iq4_nl rhs = q8_0 : tensor<16x8x!qdot.block<iq4_nl>> * tensor<8x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  %5 = qdot.dot_scaled %x0t, %wt, %ct lhs = q8_0 rhs = iq4_nl : tensor<64x8x!qdot.block<q8_0>> * tensor<8x16x!qdot.block<iq4_nl>> -> tensor<64x16xf32>
  func.return
}

// -----

// The block type behind pointers and descriptors, as the template kernels (MmqConfig(weights="iq4_nl"))
// spell their weight operand.
// CHECK-LABEL: func.func @iq4_nl_kernel_types
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<8x32x!qdot.block<iq4_nl>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<8x32x!qdot.block<iq4_nl>> -> tensor<8x32x!qdot.block<iq4_nl>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_nl_kernel_types"
// CHECK-GENERIC:       "qdot.make_desc"({{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!qdot.ptr<!qdot.block<iq4_nl>>, {{.*}}) -> !qdot.desc<8x32x!qdot.block<iq4_nl>>
func.func @iq4_nl_kernel_types(%w: !qdot.ptr<!qdot.block<iq4_nl>>, %kb: index, %n: index, %i: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %w, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<8x32x!qdot.block<iq4_nl>>
  %t = qdot.load %d[%i, %i] : !qdot.desc<8x32x!qdot.block<iq4_nl>> -> tensor<8x32x!qdot.block<iq4_nl>>
  func.return
}

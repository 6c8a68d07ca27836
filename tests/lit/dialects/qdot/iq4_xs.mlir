// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// ggml's iq4_xs (block_iq4_xs: fp16 d, uint16 scales_h, uint8 scales_l[4], then qs[128]: eight 32-value
// spans of iq4_nl's 16 nibble-pair bytes, each nibble an index into kvalues_iq4nl, each span scaled by
// d · (ls − 32) from its packed 6-bit ls; 256 values per 136-byte super-block) in the qdot vocabulary:
// the block type, its pointers and descriptors, and qdot.dot_scaled with its partners in both operand
// orders — q8_1 (llama.cpp's vec_dot_iq4_xs_q8_1; the sums go unread) and its MMQ tile layout q8_1_mmq,
// as the k-quants' (not q8_0, which iq4_nl also takes); no external scales: the block carries its own.
// Its K is counted in 256-value super-blocks: 2 iq4_xs blocks meet 16 q8_1 blocks or 4 q8_1_mmq ones.

// CHECK-LABEL: func.func @iq4_xs_pairs
// CHECK:       lhs = iq4_xs rhs = q8_1 : tensor<16x2x!qdot.block<iq4_xs>> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = iq4_xs : tensor<64x16x!qdot.block<q8_1>> * tensor<2x16x!qdot.block<iq4_xs>> -> tensor<64x16xf32>
// CHECK:       lhs = iq4_xs rhs = q8_1_mmq : tensor<16x2x!qdot.block<iq4_xs>> * tensor<4x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = iq4_xs : tensor<64x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<iq4_xs>> -> tensor<64x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_xs_pairs"
// CHECK-GENERIC:       <{lhs = #qdot<format iq4_xs>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
// CHECK-GENERIC:       <{lhs = #qdot<format q8_1>, rhs = #qdot<format iq4_xs>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
// CHECK-GENERIC:       <{lhs = #qdot<format iq4_xs>, rhs = #qdot<format q8_1_mmq>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
// CHECK-GENERIC:       <{lhs = #qdot<format q8_1_mmq>, rhs = #qdot<format iq4_xs>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @iq4_xs_pairs(%w: tensor<16x2x!qdot.block<iq4_xs>>, %wt: tensor<2x16x!qdot.block<iq4_xs>>, %c: tensor<16x64xf32>,
                        %ct: tensor<64x16xf32>, %x1: tensor<16x64x!qdot.block<q8_1>>, %x1t: tensor<64x16x!qdot.block<q8_1>>,
                        %xm: tensor<4x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x4x!qdot.block<q8_1_mmq>>) {
  %0 = qdot.dot_scaled %w, %x1, %c lhs = iq4_xs rhs = q8_1 : tensor<16x2x!qdot.block<iq4_xs>> * tensor<16x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x1t, %wt, %ct lhs = q8_1 rhs = iq4_xs : tensor<64x16x!qdot.block<q8_1>> * tensor<2x16x!qdot.block<iq4_xs>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w, %xm, %c lhs = iq4_xs rhs = q8_1_mmq : tensor<16x2x!qdot.block<iq4_xs>> * tensor<4x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %xmt, %wt, %ct lhs = q8_1_mmq rhs = iq4_xs : tensor<64x4x!qdot.block<q8_1_mmq>> * tensor<2x16x!qdot.block<iq4_xs>> -> tensor<64x16xf32>
  func.return
}

// -----

// The block type behind pointers and descriptors, as the template kernels (MmqConfig(weights="iq4_xs"))
// spell their weight operand: N rows of K/256 super-blocks, K contiguous.
// CHECK-LABEL: func.func @iq4_xs_kernel_types
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<32x2x!qdot.block<iq4_xs>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<32x2x!qdot.block<iq4_xs>> -> tensor<32x2x!qdot.block<iq4_xs>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_xs_kernel_types"
// CHECK-GENERIC:       "qdot.make_desc"({{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!qdot.ptr<!qdot.block<iq4_xs>>, {{.*}}) -> !qdot.desc<32x2x!qdot.block<iq4_xs>>
func.func @iq4_xs_kernel_types(%w: !qdot.ptr<!qdot.block<iq4_xs>>, %kb: index, %n: index, %i: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %w, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<32x2x!qdot.block<iq4_xs>>
  %t = qdot.load %d[%i, %i] : !qdot.desc<32x2x!qdot.block<iq4_xs>> -> tensor<32x2x!qdot.block<iq4_xs>>
  func.return
}

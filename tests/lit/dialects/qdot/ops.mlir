// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// qdot.dot_scaled for every class of format pair, with and without scales.

// MX: e4m3 × e2m1 (packed along K), both sides ue8m0-scaled (DESIGN.md §2).
// CHECK-LABEL: func.func @mx_e4m3_e2m1
// CHECK-SAME:  (%[[A:[^:]+]]: tensor<128x128xf8E4M3FN>, %[[AS:[^:]+]]: tensor<128x4xf8E8M0FNU>, %[[B:[^:]+]]: tensor<64x128xi8>, %[[BS:[^:]+]]: tensor<128x4xf8E8M0FNU>, %[[C:[^:]+]]: tensor<128x128xf32>)
// CHECK:       %{{.+}} = qdot.dot_scaled %[[A]] scale %[[AS]], %[[B]] scale %[[BS]], %[[C]] lhs = e4m3 rhs = e2m1 : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU> -> tensor<128x128xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "mx_e4m3_e2m1"
// CHECK-GENERIC:       "qdot.dot_scaled"(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^)]+}}) <{lhs = #qdot<format e4m3>, rhs = #qdot<format e2m1>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, lhs_k_pack = true, rhs_k_pack = true, fast_math = false}>
// CHECK-GENERIC-SAME:  : (tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x128xi8>, tensor<128x4xf8E8M0FNU>, tensor<128x128xf32>) -> tensor<128x128xf32>
func.func @mx_e4m3_e2m1(%a: tensor<128x128xf8E4M3FN>, %as: tensor<128x4xf8E8M0FNU>, %b: tensor<64x128xi8>, %bs: tensor<128x4xf8E8M0FNU>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e2m1
       : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU>
       -> tensor<128x128xf32>
  func.return %d : tensor<128x128xf32>
}

// -----

// bf16 × scaled e2m1: only the rhs has a scale (DESIGN.md §2).
// CHECK-LABEL: func.func @bf16_e2m1_rhs_scaled
// CHECK-SAME:  (%[[A:[^:]+]]: tensor<32x64xbf16>, %[[B:[^:]+]]: tensor<32x16xi8>, %[[BS:[^:]+]]: tensor<16x2xf8E8M0FNU>, %[[C:[^:]+]]: tensor<32x16xf32>)
// CHECK:       qdot.dot_scaled %[[A]], %[[B]] scale %[[BS]], %[[C]] lhs = bf16 rhs = e2m1 : tensor<32x64xbf16> * tensor<32x16xi8>, tensor<16x2xf8E8M0FNU> -> tensor<32x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "bf16_e2m1_rhs_scaled"
// CHECK-GENERIC:       "qdot.dot_scaled"({{.*}}) <{lhs = #qdot<format bf16>, rhs = #qdot<format e2m1>, operandSegmentSizes = array<i32: 1, 0, 1, 1, 1>
func.func @bf16_e2m1_rhs_scaled(%a: tensor<32x64xbf16>, %b: tensor<32x16xi8>, %bs: tensor<16x2xf8E8M0FNU>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = qdot.dot_scaled %a, %b scale %bs, %c lhs = bf16 rhs = e2m1
       : tensor<32x64xbf16> * tensor<32x16xi8>, tensor<16x2xf8E8M0FNU> -> tensor<32x16xf32>
  func.return %d : tensor<32x16xf32>
}

// -----

// Scaled e2m1 × unscaled e4m3: only the lhs has a scale.
// CHECK-LABEL: func.func @e2m1_lhs_scaled_e4m3
// CHECK:       qdot.dot_scaled %{{[^ ]+}} scale %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} lhs = e2m1 rhs = e4m3 : tensor<64x32xi8>, tensor<64x2xf8E8M0FNU> * tensor<64x128xf8E4M3FN> -> tensor<64x128xf32>
// CHECK-GENERIC: operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>
func.func @e2m1_lhs_scaled_e4m3(%a: tensor<64x32xi8>, %as: tensor<64x2xf8E8M0FNU>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = e4m3
       : tensor<64x32xi8>, tensor<64x2xf8E8M0FNU> * tensor<64x128xf8E4M3FN> -> tensor<64x128xf32>
  func.return %d : tensor<64x128xf32>
}

// -----

// Plain fp8 × fp8 without scales.
// CHECK-LABEL: func.func @e5m2_e4m3_unscaled
// CHECK:       qdot.dot_scaled %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} lhs = e5m2 rhs = e4m3 : tensor<16x64xf8E5M2> * tensor<64x8xf8E4M3FN> -> tensor<16x8xf32>
// CHECK-GENERIC: <{lhs = #qdot<format e5m2>, rhs = #qdot<format e4m3>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @e5m2_e4m3_unscaled(%a: tensor<16x64xf8E5M2>, %b: tensor<64x8xf8E4M3FN>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e5m2 rhs = e4m3 : tensor<16x64xf8E5M2> * tensor<64x8xf8E4M3FN> -> tensor<16x8xf32>
  func.return %d : tensor<16x8xf32>
}

// -----

// MXFP6: e2m3 × e3m2 with ue8m0 scales on both sides.
// CHECK-LABEL: func.func @mx_fp6
// CHECK:       lhs = e2m3 rhs = e3m2 : tensor<16x64xf6E2M3FN>, tensor<16x2xf8E8M0FNU> * tensor<64x8xf6E3M2FN>, tensor<8x2xf8E8M0FNU> -> tensor<16x8xf32>
func.func @mx_fp6(%a: tensor<16x64xf6E2M3FN>, %as: tensor<16x2xf8E8M0FNU>, %b: tensor<64x8xf6E3M2FN>, %bs: tensor<8x2xf8E8M0FNU>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m3 rhs = e3m2
       : tensor<16x64xf6E2M3FN>, tensor<16x2xf8E8M0FNU> * tensor<64x8xf6E3M2FN>, tensor<8x2xf8E8M0FNU> -> tensor<16x8xf32>
  func.return %d : tensor<16x8xf32>
}

// -----

// NVFP4: e2m1 × e2m1 with ue4m3 (f8E4M3FN) scales, one per 16 K-values.
// CHECK-LABEL: func.func @nvfp4
// CHECK:       lhs = e2m1 rhs = e2m1 : tensor<128x32xi8>, tensor<128x4xf8E4M3FN> * tensor<32x64xi8>, tensor<64x4xf8E4M3FN> -> tensor<128x64xf32>
func.func @nvfp4(%a: tensor<128x32xi8>, %as: tensor<128x4xf8E4M3FN>, %b: tensor<32x64xi8>, %bs: tensor<64x4xf8E4M3FN>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m1 rhs = e2m1
       : tensor<128x32xi8>, tensor<128x4xf8E4M3FN> * tensor<32x64xi8>, tensor<64x4xf8E4M3FN> -> tensor<128x64xf32>
  func.return %d : tensor<128x64xf32>
}

// -----

// Half-precision operands take no scales.
// CHECK-LABEL: func.func @halves
// CHECK:       lhs = fp16 rhs = fp16 : tensor<16x16xf16> * tensor<16x8xf16> -> tensor<16x8xf32>
// CHECK:       lhs = bf16 rhs = bf16 : tensor<16x16xbf16> * tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK:       lhs = fp16 rhs = e4m3 : tensor<16x16xf16> * tensor<16x8xf8E4M3FN> -> tensor<16x8xf32>
func.func @halves(%h: tensor<16x16xf16>, %hb: tensor<16x8xf16>, %b: tensor<16x16xbf16>, %bb: tensor<16x8xbf16>, %f8: tensor<16x8xf8E4M3FN>, %c: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %d0 = qdot.dot_scaled %h, %hb, %c lhs = fp16 rhs = fp16 : tensor<16x16xf16> * tensor<16x8xf16> -> tensor<16x8xf32>
  %d1 = qdot.dot_scaled %b, %bb, %c lhs = bf16 rhs = bf16 : tensor<16x16xbf16> * tensor<16x8xbf16> -> tensor<16x8xf32>
  %d2 = qdot.dot_scaled %h, %f8, %c lhs = fp16 rhs = e4m3 : tensor<16x16xf16> * tensor<16x8xf8E4M3FN> -> tensor<16x8xf32>
  func.return %d0, %d1, %d2 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// int8 × int8 accumulates in i32.
// CHECK-LABEL: func.func @int8
// CHECK:       lhs = i8 rhs = i8 : tensor<16x32xi8> * tensor<32x8xi8> -> tensor<16x8xi32>
// CHECK-GENERIC: <{lhs = #qdot<format i8>, rhs = #qdot<format i8>
func.func @int8(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %c: tensor<16x8xi32>) -> tensor<16x8xi32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = i8 rhs = i8 : tensor<16x32xi8> * tensor<32x8xi8> -> tensor<16x8xi32>
  func.return %d : tensor<16x8xi32>
}

// -----

// k_pack = false: the lhs packed along M ([M/2, K]), the rhs along N ([K, N/2]);
// printed only when false.
// CHECK-LABEL: func.func @packed_along_m_and_n
// CHECK:       lhs = e2m1 rhs = bf16 {lhs_k_pack = false} : tensor<64x64xi8>, tensor<128x2xf8E8M0FNU> * tensor<64x32xbf16> -> tensor<128x32xf32>
// CHECK:       lhs = e4m3 rhs = e2m1 {rhs_k_pack = false} : tensor<128x64xf8E4M3FN> * tensor<64x64xi8>, tensor<128x2xf8E8M0FNU> -> tensor<128x128xf32>
// CHECK-NOT:   k_pack = true
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "packed_along_m_and_n"
// CHECK-GENERIC:       lhs_k_pack = false
// CHECK-GENERIC:       rhs_k_pack = false
func.func @packed_along_m_and_n(%a: tensor<64x64xi8>, %as: tensor<128x2xf8E8M0FNU>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>,
                                %a8: tensor<128x64xf8E4M3FN>, %b4: tensor<64x64xi8>, %bs: tensor<128x2xf8E8M0FNU>, %c2: tensor<128x128xf32>) -> (tensor<128x32xf32>, tensor<128x128xf32>) {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = bf16 {lhs_k_pack = false}
       : tensor<64x64xi8>, tensor<128x2xf8E8M0FNU> * tensor<64x32xbf16> -> tensor<128x32xf32>
  %e = qdot.dot_scaled %a8, %b4 scale %bs, %c2 lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
       : tensor<128x64xf8E4M3FN> * tensor<64x64xi8>, tensor<128x2xf8E8M0FNU> -> tensor<128x128xf32>
  func.return %d, %e : tensor<128x32xf32>, tensor<128x128xf32>
}

// -----

// fast_math lives in the attribute dictionary, printed only when true.
// CHECK-LABEL: func.func @fast_math
// CHECK:       lhs = e4m3 rhs = e4m3 {fast_math = true} : tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU> * tensor<32x8xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> tensor<16x8xf32>
func.func @fast_math(%a: tensor<16x32xf8E4M3FN>, %as: tensor<16x1xf8E8M0FNU>, %b: tensor<32x8xf8E4M3FN>, %bs: tensor<8x1xf8E8M0FNU>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e4m3 {fast_math = true}
       : tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU> * tensor<32x8xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> tensor<16x8xf32>
  func.return %d : tensor<16x8xf32>
}

// -----

// llama.cpp block formats: [M, K/bv] × [K/bv, N] tensors of blocks, no external scales.
// CHECK-LABEL: func.func @blocks
// CHECK:       lhs = q4_K rhs = q8_1 : tensor<16x4x!qdot.block<q4_K>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = q4_K : tensor<64x32x!qdot.block<q8_1>> * tensor<4x16x!qdot.block<q4_K>> -> tensor<64x16xf32>
// CHECK:       lhs = q8_0 rhs = q8_1 : tensor<16x32x!qdot.block<q8_0>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_0 rhs = q8_0 : tensor<16x32x!qdot.block<q8_0>> * tensor<32x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1 rhs = q8_1 : tensor<64x32x!qdot.block<q8_1>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<64x64xf32>
// CHECK:       lhs = q4_K rhs = q8_1_mmq : tensor<16x4x!qdot.block<q4_K>> * tensor<8x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
// CHECK:       lhs = q8_1_mmq rhs = q8_0 : tensor<64x8x!qdot.block<q8_1_mmq>> * tensor<32x64x!qdot.block<q8_0>> -> tensor<64x64xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "blocks"
// CHECK-GENERIC:       <{lhs = #qdot<format q4_K>, rhs = #qdot<format q8_1>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>
func.func @blocks(%w4: tensor<16x4x!qdot.block<q4_K>>, %x8: tensor<32x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>,
                  %x8t: tensor<64x32x!qdot.block<q8_1>>, %w4t: tensor<4x16x!qdot.block<q4_K>>, %ct: tensor<64x16xf32>,
                  %w0: tensor<16x32x!qdot.block<q8_0>>, %w0r: tensor<32x64x!qdot.block<q8_0>>, %c64: tensor<64x64xf32>,
                  %xm: tensor<8x64x!qdot.block<q8_1_mmq>>, %xmt: tensor<64x8x!qdot.block<q8_1_mmq>>) {
  %0 = qdot.dot_scaled %w4, %x8, %c lhs = q4_K rhs = q8_1 : tensor<16x4x!qdot.block<q4_K>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %1 = qdot.dot_scaled %x8t, %w4t, %ct lhs = q8_1 rhs = q4_K : tensor<64x32x!qdot.block<q8_1>> * tensor<4x16x!qdot.block<q4_K>> -> tensor<64x16xf32>
  %2 = qdot.dot_scaled %w0, %x8, %c lhs = q8_0 rhs = q8_1 : tensor<16x32x!qdot.block<q8_0>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  %3 = qdot.dot_scaled %w0, %w0r, %c lhs = q8_0 rhs = q8_0 : tensor<16x32x!qdot.block<q8_0>> * tensor<32x64x!qdot.block<q8_0>> -> tensor<16x64xf32>
  %4 = qdot.dot_scaled %x8t, %x8, %c64 lhs = q8_1 rhs = q8_1 : tensor<64x32x!qdot.block<q8_1>> * tensor<32x64x!qdot.block<q8_1>> -> tensor<64x64xf32>
  %5 = qdot.dot_scaled %w4, %xm, %c lhs = q4_K rhs = q8_1_mmq : tensor<16x4x!qdot.block<q4_K>> * tensor<8x64x!qdot.block<q8_1_mmq>> -> tensor<16x64xf32>
  %6 = qdot.dot_scaled %xmt, %w0r, %c64 lhs = q8_1_mmq rhs = q8_0 : tensor<64x8x!qdot.block<q8_1_mmq>> * tensor<32x64x!qdot.block<q8_0>> -> tensor<64x64xf32>
  func.return
}

// -----

// Operand tensors may carry any encoding; only shapes and element types are compared.
// CHECK-LABEL: func.func @encodings
// CHECK:       lhs = e4m3 rhs = e2m1 : tensor<128x128xf8E4M3FN, "dot_a">, tensor<128x4xf8E8M0FNU, "scale_a"> * tensor<64x128xi8, "dot_b">, tensor<128x4xf8E8M0FNU> -> tensor<128x128xf32, "acc">
func.func @encodings(%a: tensor<128x128xf8E4M3FN, "dot_a">, %as: tensor<128x4xf8E8M0FNU, "scale_a">, %b: tensor<64x128xi8, "dot_b">, %bs: tensor<128x4xf8E8M0FNU>, %c: tensor<128x128xf32, "acc">) -> tensor<128x128xf32, "acc"> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e2m1
       : tensor<128x128xf8E4M3FN, "dot_a">, tensor<128x4xf8E8M0FNU, "scale_a"> * tensor<64x128xi8, "dot_b">, tensor<128x4xf8E8M0FNU>
       -> tensor<128x128xf32, "acc">
  func.return %d : tensor<128x128xf32, "acc">
}

// -----

// The attributes and types standalone.
// CHECK-LABEL: func.func @attributes_and_types
// CHECK-SAME:  !qdot.ptr<f8E4M3FN>, %{{[^:]+}}: !qdot.ptr<!qdot.block<q4_K>>, %{{[^:]+}}: !qdot.desc<64x128xi8>, %{{[^:]+}}: !qdot.desc<2x4x8xf32>
// CHECK:       "test.op"() {fmt = #qdot<format e2m1>, axis = #qdot<axis z>, block = !qdot.block<q8_1_mmq>} : () -> ()
// CHECK-GENERIC: "test.op"() {fmt = #qdot<format e2m1>, axis = #qdot<axis z>, block = !qdot.block<q8_1_mmq>} : () -> ()
func.func @attributes_and_types(%p: !qdot.ptr<f8E4M3FN>, %w: !qdot.ptr<!qdot.block<q4_K>>, %d: !qdot.desc<64x128xi8>, %d3: !qdot.desc<2x4x8xf32>) {
  "test.op"() {fmt = #qdot<format e2m1>, axis = #qdot<axis z>, block = !qdot.block<q8_1_mmq>} : () -> ()
  func.return
}

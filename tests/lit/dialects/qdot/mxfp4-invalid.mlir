// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What qdot.dot_scaled refuses of ggml's mxfp4 block: it pairs with the 8-bit activation blocks only
// (q8_1, q8_1_mmq, q8_0) — not with another weight format — and it is not the OCP MX operand pair:
// e2m1 data with ue8m0 scales is spelled lhs = e2m1 with a scale operand, and a block takes none.
// COUNT: {{^3$}}

func.func @mxfp4_q4_0(%a: tensor<16x8x!qdot.block<mxfp4>>, %b: tensor<8x64x!qdot.block<q4_0>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = mxfp4 rhs = q4_0 : tensor<16x8x!qdot.block<mxfp4>> * tensor<8x64x!qdot.block<q4_0>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = mxfp4, rhs = q4_0 (supported: {{.*}}mxfp4 × q8_1, mxfp4 × q8_0, mxfp4 × q8_1_mmq, {{.*}})

// -----

func.func @mxfp4_e4m3(%a: tensor<16x8x!qdot.block<mxfp4>>, %b: tensor<256x64xf8E4M3FN>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = mxfp4 rhs = e4m3 : tensor<16x8x!qdot.block<mxfp4>> * tensor<256x64xf8E4M3FN> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats pair only with block formats: lhs = mxfp4, rhs = e4m3{{$}}

// -----

func.func @mxfp4_scaled(%a: tensor<16x8x!qdot.block<mxfp4>>, %s: tensor<16x8xf8E8M0FNU>, %b: tensor<8x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %s, %b, %c lhs = mxfp4 rhs = q8_1 : tensor<16x8x!qdot.block<mxfp4>>, tensor<16x8xf8E8M0FNU> * tensor<8x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: mxfp4-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = mxfp4 carries its scales inside its blocks and takes no lhs scale{{$}}

// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Malformed qdot types and enum attributes: each is rejected with the rule it breaks.

func.func @unknown_block(%x: tensor<4x!qdot.block<iq3_xxs>>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:51: error: expected a block format: one of `q4_K`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `q5_K`, `q6_K`, `q3_K`, `q2_K`, `iq4_nl`, `iq4_xs`, `mxfp4`, `q8_1`, `q8_0`, `q8_1_mmq`, got `iq3_xxs`

// -----

func.func @element_format_is_no_block(%x: tensor<4x!qdot.block<e4m3>>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:64: error: expected a block format: one of `q4_K`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `q5_K`, `q6_K`, `q3_K`, `q2_K`, `iq4_nl`, `iq4_xs`, `mxfp4`, `q8_1`, `q8_0`, `q8_1_mmq`, got `e4m3`

// -----

func.func @ptr_to_index(%p: !qdot.ptr<index>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:39: error: !qdot.ptr element type must be a builtin integer or float type or !qdot.block, got index

// -----

func.func @desc_of_tensor(%p: !qdot.desc<64x64xtensor<4xf32>>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:42: error: !qdot.desc element type must be a builtin integer or float type or !qdot.block, got tensor<4xf32>

// -----

func.func @desc_rank0(%p: !qdot.desc<f32>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:38: error: !qdot.desc needs a tile of rank 1 or more, got rank 0

// -----

func.func @desc_dynamic(%p: !qdot.desc<?x64xf32>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:40: error: !qdot.desc tile dimensions must be static and positive, got ?x64

// -----

func.func @desc_zero(%p: !qdot.desc<0x64xf32>) {
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:37: error: !qdot.desc tile dimensions must be static and positive, got 0x64

// -----

func.func @format_attr() {
  "test.op"() {f = #qdot<format iq3_xxs>} : () -> ()
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:33: error: Expected `e4m3`, `e5m2`, `e2m3`, `e3m2`, `e2m1`, `bf16`, `fp16`, `i8`, `q4_K`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `q5_K`, `q6_K`, `q3_K`, `q2_K`, `iq4_nl`, `iq4_xs`, `mxfp4`, `q8_1`, `q8_0`, or `q8_1_mmq`.

// -----

func.func @axis() {
  %p = qdot.program_id w
  func.return
}
// CHECK: types-invalid.mlir:[[# @LINE - 3]]:24: error: Expected `x`, `y`, or `z`.

// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-agx' | filecheck %s
// RUN: not qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3d}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not qdot-opt %s --split-input-file -p 'qdot-to-agx{dequant-type=bf16}' 2>&1 | filecheck %s --check-prefix=DEQUANT
// Every diagnostic of qdot-to-agx, one case each.

// FORM: qdot-opt: error: qdot-to-agx: unknown form 'agx3d'; expected one of agx3b, agx3c
// DEQUANT: qdot-opt: error: qdot-to-agx: unknown dequant-type 'bf16'; expected one of auto, fp16, fp32

func.func @not_multiple_of_8(%a: tensor<12x16xf16>, %b: tensor<16x8xf16>, %acc: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<12x16xf16> * tensor<16x8xf16> -> tensor<12x8xf32>
  func.return %d : tensor<12x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op the AGX tile is built from 8x8x8 MMAs: M, N and K must be multiples of 8, got M = 12, N = 8, K = 16

// -----

func.func @int8(%a: tensor<8x8xi8>, %b: tensor<8x8xi8>, %acc: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<8x8xi8> * tensor<8x8xi8> -> tensor<8x8xi32>
  func.return %d : tensor<8x8xi32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = i8 accumulates in i32; the AGX MMA accumulates in fp32 only

// -----

func.func @mmq_layout(%a: tensor<8x1x!qdot.block<q4_K>>, %b: tensor<2x8x!qdot.block<q8_1_mmq>>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = q4_K rhs = q8_1_mmq : tensor<8x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs = q8_1_mmq is llama.cpp's CUDA MMQ tile layout; the AGX path dequantizes q8_1 blocks

// -----

func.func @operand_not_argument(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = "test.op"(%a) : (tensor<8x8xf16>) -> tensor<8x8xf16>
  %d = qdot.dot_scaled %t, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs must be an argument of @operand_not_argument (a tile's inputs), or a zero constant for acc; it is produced by 'test.op'

// -----

func.func @nonzero_constant_acc(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %acc = arith.constant dense<1.0> : tensor<8x8xf32>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op acc must be an argument of @nonzero_constant_acc (a tile's inputs), or a zero constant for acc; it is produced by 'arith.constant'

// -----

func.func @two_dots(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  %e = qdot.dot_scaled %a, %b, %d lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %e : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op qdot-to-agx lowers one dot tile per function; @two_dots has 2

// -----

func.func @in_a_loop(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<8x8xf32>) {
    %d = qdot.dot_scaled %a, %b, %c lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
    scf.yield %d : tensor<8x8xf32>
  }
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'qdot.dot_scaled' op qdot-to-agx lowers a straight-line tile: the dot must be in the function body, not inside a loop or branch

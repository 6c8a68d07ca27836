// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of qdot.dot_scaled (dialects/qdot/dot.py), in the
// order the verifier checks them.

func.func @rank(%a: tensor<2x128x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 : tensor<2x128x64xbf16> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs must have rank 2, got rank 3 ([2, 128, 64])

// -----

func.func @dynamic(%a: tensor<?x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 : tensor<?x64xbf16> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs must have a static shape, got [?, 64]

// -----

// An empty dimension: the lowerings tile by the extents (the PTX path divided by zero, the AGX
// one asserted); an empty product has no tile to compile.
func.func @empty(%a: tensor<0x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<0x32xf32>) -> tensor<0x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 : tensor<0x64xbf16> * tensor<64x32xbf16> -> tensor<0x32xf32>
  func.return %d : tensor<0x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs must have positive dimensions, got [0, 64]

// -----

func.func @empty_k(%a: tensor<8x64xbf16>, %b: tensor<0x32xbf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 : tensor<8x64xbf16> * tensor<0x32xbf16> -> tensor<8x32xf32>
  func.return %d : tensor<8x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs must have positive dimensions, got [0, 32]

// -----

func.func @scale_rank(%a: tensor<128x64xf8E4M3FN>, %as: tensor<256xf8E8M0FNU>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e4m3 rhs = bf16 : tensor<128x64xf8E4M3FN>, tensor<256xf8E8M0FNU> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale must have rank 2, got rank 1 ([256])

// -----

func.func @k_pack_not_e2m1(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = bf16 {lhs_k_pack = false} : tensor<128x64xf8E4M3FN> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs_k_pack = false needs lhs = e2m1, got lhs = e4m3

// -----

func.func @element_type(%a: tensor<128x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = bf16 : tensor<128x64xbf16> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = e4m3 needs element type f8E4M3FN, got bf16

// -----

func.func @e2m1_unpacked_type(%a: tensor<128x64xbf16>, %b: tensor<64x32xf4E2M1FN>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = e2m1 : tensor<128x64xbf16> * tensor<64x32xf4E2M1FN> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs = e2m1 needs element type i8 (2 values per byte), got f4E2M1FN

// -----

func.func @block_element_type(%a: tensor<16x4xi8>, %b: tensor<32x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_K rhs = q8_1 : tensor<16x4xi8> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q4_K needs element type !qdot.block<q4_K>, got i8

// -----

func.func @i8_pairs_with_i8(%a: tensor<128x64xi8>, %b: tensor<64x32xf8E4M3FN>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = i8 rhs = e4m3 : tensor<128x64xi8> * tensor<64x32xf8E4M3FN> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op i8 pairs only with i8: lhs = i8, rhs = e4m3

// -----

func.func @block_with_float(%a: tensor<16x4x!qdot.block<q4_K>>, %b: tensor<1024x64xbf16>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_K rhs = bf16 : tensor<16x4x!qdot.block<q4_K>> * tensor<1024x64xbf16> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats pair only with block formats: lhs = q4_K, rhs = bf16

// -----

func.func @block_pair(%a: tensor<16x4x!qdot.block<q4_K>>, %b: tensor<4x64x!qdot.block<q4_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q4_K rhs = q4_K : tensor<16x4x!qdot.block<q4_K>> * tensor<4x64x!qdot.block<q4_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_K, rhs = q4_K (supported: q4_K × q8_1, q4_K × q8_1_mmq,

// -----

func.func @block_takes_no_scale(%a: tensor<16x4x!qdot.block<q4_K>>, %as: tensor<16x32xf8E8M0FNU>, %b: tensor<32x64x!qdot.block<q8_1>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = q4_K rhs = q8_1 : tensor<16x4x!qdot.block<q4_K>>, tensor<16x32xf8E8M0FNU> * tensor<32x64x!qdot.block<q8_1>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs = q4_K carries its scales inside its blocks and takes no lhs scale

// -----

func.func @bf16_takes_no_scale(%a: tensor<32x64xbf16>, %b: tensor<32x16xi8>, %bs: tensor<16x2xf8E8M0FNU>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = qdot.dot_scaled %a scale %bs, %b, %c lhs = bf16 rhs = e2m1 : tensor<32x64xbf16>, tensor<16x2xf8E8M0FNU> * tensor<32x16xi8> -> tensor<32x16xf32>
  func.return %d : tensor<32x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale needs a scalable lhs format (e4m3, e5m2, e2m3, e3m2, e2m1), got lhs = bf16

// -----

func.func @scale_element_type(%a: tensor<32x64xbf16>, %b: tensor<32x16xi8>, %bs: tensor<16x2xf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = qdot.dot_scaled %a, %b scale %bs, %c lhs = bf16 rhs = e2m1 : tensor<32x64xbf16> * tensor<32x16xi8>, tensor<16x2xf16> -> tensor<32x16xf32>
  func.return %d : tensor<32x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs scale must have element type f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3), got f16

// -----

func.func @ue4m3_needs_e2m1(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x4xf8E4M3FN>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e4m3 rhs = bf16 : tensor<128x64xf8E4M3FN>, tensor<128x4xf8E4M3FN> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale of element type f8E4M3FN (ue4m3) needs lhs = e2m1, got lhs = e4m3

// -----

func.func @same_scale_kind(%a: tensor<128x32xi8>, %as: tensor<128x4xf8E4M3FN>, %b: tensor<32x64xi8>, %bs: tensor<64x2xf8E8M0FNU>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m1 rhs = e2m1 : tensor<128x32xi8>, tensor<128x4xf8E4M3FN> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<128x64xf32>
  func.return %d : tensor<128x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale and rhs scale must use the same scale kind, got ue4m3 and ue8m0

// -----

func.func @k_even_for_packed_rhs(%a: tensor<32x33xbf16>, %b: tensor<16x16xi8>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = e2m1 : tensor<32x33xbf16> * tensor<16x16xi8> -> tensor<32x16xf32>
  func.return %d : tensor<32x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K = 33 from lhs [M, K] = [32, 33] must be a multiple of 2, rhs = e2m1 packed 2 per byte along K

// -----

func.func @k_multiple_of_block(%a: tensor<16x3x!qdot.block<q8_1>>, %b: tensor<1x64x!qdot.block<q4_K>>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = q8_1 rhs = q4_K : tensor<16x3x!qdot.block<q8_1>> * tensor<1x64x!qdot.block<q4_K>> -> tensor<16x64xf32>
  func.return %d : tensor<16x64xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K = 96 from lhs [M, K/32] = [16, 3] must be a multiple of 256, the q4_K block size of rhs

// -----

func.func @k_match(%a: tensor<128x128xf8E4M3FN>, %b: tensor<32x128xi8>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e4m3 rhs = e2m1 : tensor<128x128xf8E4M3FN> * tensor<32x128xi8> -> tensor<128x128xf32>
  func.return %d : tensor<128x128xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K of lhs and rhs must match: lhs [M, K] = [128, 128] gives K = 128, rhs [K/2, N] = [32, 128] gives K = 64

// -----

func.func @k_multiple_of_scale_group(%a: tensor<128x48xf8E4M3FN>, %as: tensor<128x1xf8E8M0FNU>, %b: tensor<48x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e4m3 rhs = bf16 : tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU> * tensor<48x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op K = 48 must be a multiple of 32 for ue8m0 scales (lhs scale)

// -----

func.func @lhs_scale_shape(%a: tensor<128x128xf8E4M3FN>, %as: tensor<4x128xf8E8M0FNU>, %b: tensor<128x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e4m3 rhs = bf16 : tensor<128x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU> * tensor<128x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale must have shape [M, K/32] = [128, 4], got [4, 128]

// -----

func.func @rhs_scale_shape(%a: tensor<128x128xf8E4M3FN>, %as: tensor<128x4xf8E8M0FNU>, %b: tensor<64x128xi8>, %bs: tensor<128x8xf8E8M0FNU>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e2m1 : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x8xf8E8M0FNU> -> tensor<128x128xf32>
  func.return %d : tensor<128x128xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs scale must have shape [N, K/32] = [128, 4], got [128, 8]

// -----

func.func @nvfp4_scale_shape(%a: tensor<128x64xi8>, %as: tensor<128x4xf8E4M3FN>, %b: tensor<128x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a scale %as, %b, %c lhs = e2m1 rhs = bf16 : tensor<128x64xi8>, tensor<128x4xf8E4M3FN> * tensor<128x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs scale must have shape [M, K/16] = [128, 8], got [128, 4]

// -----

func.func @acc_shape_m_packed(%a: tensor<64x64xi8>, %b: tensor<64x32xbf16>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e2m1 rhs = bf16 {lhs_k_pack = false} : tensor<64x64xi8> * tensor<64x32xbf16> -> tensor<64x32xf32>
  func.return %d : tensor<64x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op acc must have shape [M, N] = [128, 32], got [64, 32]

// -----

func.func @acc_f32(%a: tensor<128x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf16>) -> tensor<128x32xf16> {
  %d = qdot.dot_scaled %a, %b, %c lhs = bf16 rhs = bf16 : tensor<128x64xbf16> * tensor<64x32xbf16> -> tensor<128x32xf16>
  func.return %d : tensor<128x32xf16>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op acc must have element type f32, got f16

// -----

func.func @acc_i32_for_i8(%a: tensor<128x64xi8>, %b: tensor<64x32xi8>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = i8 rhs = i8 : tensor<128x64xi8> * tensor<64x32xi8> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op acc must have element type i32 for i8 × i8, got f32

// -----

func.func @acc_result_same_type(%a: tensor<128x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) {
  %d = "qdot.dot_scaled"(%a, %b, %c) <{lhs = #qdot<format bf16>, rhs = #qdot<format bf16>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 1>}> : (tensor<128x64xbf16>, tensor<64x32xbf16>, tensor<128x32xf32>) -> tensor<128x64xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op result 'result' at position 0 does not verify:
// CHECK-NEXT: attribute tensor<128x32xf32> expected from variable 'T', but got tensor<128x64xf32>

// -----

// A format name that does not exist is a parse error listing the choices.
func.func @unknown_format(%a: tensor<128x64xbf16>, %b: tensor<64x32xbf16>, %c: tensor<128x32xf32>) -> tensor<128x32xf32> {
  %d = qdot.dot_scaled %a, %b, %c lhs = e9m9 rhs = bf16 : tensor<128x64xbf16> * tensor<64x32xbf16> -> tensor<128x32xf32>
  func.return %d : tensor<128x32xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:41: error: Expected `e4m3`, `e5m2`, `e2m3`, `e3m2`, `e2m1`, `bf16`, `fp16`, `i8`, `q4_K`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `q5_K`, `q6_K`, `q3_K`, `q2_K`, `iq4_nl`, `iq4_xs`, `mxfp4`, `q8_1`, `q8_0`, or `q8_1_mmq`.

// -----

// qdot.store {reduce} (dialects/qdot/kernel.py): the split-K store adds f32 tiles, nothing else.
func.func @store_reduce_max(%d: !qdot.desc<16x8xf32>, %i: index, %v: tensor<16x8xf32>) {
  qdot.store %d[%i, %i], %v {reduce = "max"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op reduce must be "add", got "max"

// -----

func.func @store_reduce_i32(%d: !qdot.desc<16x8xi32>, %i: index, %v: tensor<16x8xi32>) {
  qdot.store %d[%i, %i], %v {reduce = "add"} : !qdot.desc<16x8xi32>, tensor<16x8xi32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op reduce = "add" stores f32 tiles, got i32

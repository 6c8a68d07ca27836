// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of the kernel ops (dialects/qdot/kernel.py).

func.func @make_desc_shape_count(%p: !qdot.ptr<f16>, %i: index) {
  %d = qdot.make_desc %p, [%i], [%i, %i] : !qdot.ptr<f16> -> !qdot.desc<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.make_desc' op shape must have one value per tile dimension: 2, got 1

// -----

func.func @make_desc_stride_count(%p: !qdot.ptr<f16>, %i: index) {
  %d = qdot.make_desc %p, [%i, %i], [%i, %i, %i] : !qdot.ptr<f16> -> !qdot.desc<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.make_desc' op strides must have one value per tile dimension: 2, got 3

// -----

func.func @make_desc_element_type(%p: !qdot.ptr<f16>, %i: index) {
  %d = qdot.make_desc %p, [%i, %i], [%i, %i] : !qdot.ptr<f16> -> !qdot.desc<64x64xbf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.make_desc' op descriptor element type must match the pointer's: f16, got bf16

// -----

func.func @load_in_bounds_count(%d: !qdot.desc<64x64xf16>, %i: index) {
  %t = qdot.load %d[%i, %i] {in_bounds = [true]} : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op in_bounds must hold one boolean per tile dimension (2), got [true]

// -----

func.func @load_in_bounds_not_boolean(%d: !qdot.desc<64x64xf16>, %i: index) {
  %t = qdot.load %d[%i, %i] {in_bounds = [1 : i32, true]} : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op in_bounds must hold one boolean per tile dimension (2), got [1 : i32, true]

// -----

// Constant origin and extent: the declaration is checked (rows 8 .. 71 of 64).
func.func @load_in_bounds_past_the_tensor(%p: !qdot.ptr<f16>, %i: index) {
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %d = qdot.make_desc %p, [%c64, %i], [%i, %i] : !qdot.ptr<f16> -> !qdot.desc<64x64xf16>
  %t = qdot.load %d[%c8, %i] {in_bounds = [true, false]} : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op dimension 0 is declared in bounds, but the tile's 64 elements from 8 reach past the tensor's 64

// -----

func.func @load_offsets(%d: !qdot.desc<64x64xf16>, %i: index) {
  %t = qdot.load %d[%i] : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op expected one offset per tile dimension: 2, got 1

// -----

func.func @load_shape(%d: !qdot.desc<64x64xf16>, %i: index) {
  %t = qdot.load %d[%i, %i] : !qdot.desc<64x64xf16> -> tensor<64x32xf16>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op result must have the tile shape [64, 64], got [64, 32]

// -----

func.func @load_element_type(%d: !qdot.desc<64x64xf16>, %i: index) {
  %t = qdot.load %d[%i, %i] : !qdot.desc<64x64xf16> -> tensor<64x64xf32>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.load' op result element type must match the descriptor's: f16, got f32

// -----

func.func @store_offsets(%d: !qdot.desc<64x64xf32>, %i: index, %v: tensor<64x64xf32>) {
  qdot.store %d[%i, %i, %i], %v : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op expected one offset per tile dimension: 2, got 3

// -----

func.func @store_shape(%d: !qdot.desc<64x64xf32>, %i: index, %v: tensor<32x64xf32>) {
  qdot.store %d[%i, %i], %v : !qdot.desc<64x64xf32>, tensor<32x64xf32>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op value must have the tile shape [64, 64], got [32, 64]

// -----

func.func @store_element_type(%d: !qdot.desc<64x64xf32>, %i: index, %v: tensor<64x64xi32>) {
  qdot.store %d[%i, %i], %v : !qdot.desc<64x64xf32>, tensor<64x64xi32>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op value element type must match the descriptor's: f32, got i32

// -----

func.func @trans_not_permutation(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<i64: 1, 1>} : tensor<64x128xi8> -> tensor<128x128xi8>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.trans' op order must be a permutation of [0, 2) for a rank-2 source, got [1, 1]

// -----

func.func @trans_shape(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<i64: 1, 0>} : tensor<64x128xi8> -> tensor<64x128xi8>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.trans' op result must have shape [128, 64] (source [64, 128] permuted by [1, 0]), got [64, 128]

// -----

func.func @trans_element_type(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<i64: 1, 0>} : tensor<64x128xi8> -> tensor<128x64xf8E4M3FN>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.trans' op result element type must match the source's: i8, got f8E4M3FN

// -----

func.func @trans_float_order(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<f32: 1.0, 0.0>} : tensor<64x128xi8> -> tensor<128x64xi8>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.trans' op order must be an i64 array, got element type f32

// -----

func.func @trans_narrow_order(%t: tensor<64x128xi8>) {
  %u = qdot.trans %t {order = array<i32: 1, 0>} : tensor<64x128xi8> -> tensor<128x64xi8>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.trans' op order must be an i64 array, got element type i32

// -----

func.func @quantize_format(%x: tensor<16x4096xf32>) {
  %q = qdot.quantize %x format = q8_0 : tensor<16x4096xf32> -> tensor<16x128x!qdot.block<q8_0>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op format must be q8_1 or q8_1_mmq, got q8_0

// -----

func.func @quantize_source_f32(%x: tensor<16x4096xf16>) {
  %q = qdot.quantize %x format = q8_1 : tensor<16x4096xf16> -> tensor<16x128x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op source must have element type f32, got f16

// -----

func.func @quantize_rank0(%x: tensor<f32>) {
  %q = qdot.quantize %x format = q8_1 : tensor<f32> -> tensor<1x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op source must have rank 1 or more, got rank 0

// -----

func.func @quantize_static(%x: tensor<?x4096xf32>) {
  %q = qdot.quantize %x format = q8_1 : tensor<?x4096xf32> -> tensor<?x128x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op source must have a static shape, got tensor<?x4096xf32>

// -----

func.func @quantize_result_element(%x: tensor<16x4096xf32>) {
  %q = qdot.quantize %x format = q8_1_mmq : tensor<16x4096xf32> -> tensor<16x32x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op result must have element type !qdot.block<q8_1_mmq>, got !qdot.block<q8_1>

// -----

func.func @quantize_multiple(%x: tensor<16x100xf32>) {
  %q = qdot.quantize %x format = q8_1 : tensor<16x100xf32> -> tensor<16x3x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op source last dimension 100 must be a multiple of 32, the q8_1 block size

// -----

func.func @quantize_block_count(%x: tensor<16x4096xf32>) {
  %q = qdot.quantize %x format = q8_1 : tensor<16x4096xf32> -> tensor<16x32x!qdot.block<q8_1>>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.quantize' op result must have shape [16, 128] (4096 / 32 blocks in the last dimension), got [16, 32]

// -----

func.func @desc_needs_ptr(%p: memref<4xf32>, %i: index) {
  %d = qdot.make_desc %p, [%i], [%i] : memref<4xf32> -> !qdot.desc<4xf32>
  func.return
}
// CHECK: kernel-invalid.mlir:[[# @LINE - 3]]:3: error: memref<4xf32> should be of base attribute qdot.ptr

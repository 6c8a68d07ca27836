// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p qdot-lower-quantize | filecheck %s
// Every chain qdot-lower-quantize refuses, as a diagnostic at the qdot.quantize.

func.func @not_a_kernel(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x32xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x32xf32> -> tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op is lowered inside kernels only: @not_a_kernel has no qdot.kernel attribute

// -----

func.func @source_not_loaded(%q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q_desc = qdot.make_desc %q_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %x = arith.constant dense<1.000000e+00> : tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op source must come straight from a qdot.load of the f32 tile, got 'arith.constant'

// -----

func.func @stored_twice(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x32xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x32xf32> -> tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c1, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:3: error: 'qdot.quantize' op result must have exactly one use, as the value of a qdot.store; got 2 use(s) ('qdot.store')

// -----

func.func @not_stored(%x_ptr: !qdot.ptr<f32>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x32xf32>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x32xf32> -> tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  "test.op"(%q) : (tensor<1x1x!qdot.block<q8_1>>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op result must have exactly one use, as the value of a qdot.store; got 1 use(s) ('test.op')

// -----

func.func @one_dimensional(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%k], [%c1] : !qdot.ptr<f32> -> !qdot.desc<32xf32>
  %q_desc = qdot.make_desc %q_ptr, [%k], [%c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0] : !qdot.desc<32xf32> -> tensor<32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<32xf32> -> tensor<1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0], %q : !qdot.desc<1x!qdot.block<q8_1>>, tensor<1x!qdot.block<q8_1>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op source must be a 2-D tile [rows, K]; got rank 1

// -----

// A row length that is not a whole number of blocks never reaches the pass: the op's
// verifier refuses it.
func.func @ragged_tile(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x96xf32>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x96xf32> -> tensor<1x96xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x96xf32> -> tensor<1x1x!qdot.block<q8_1_mmq>>
  "test.op"(%q) : (tensor<1x1x!qdot.block<q8_1_mmq>>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op source last dimension 96 must be a multiple of 128, the q8_1_mmq block size

// -----

func.func @desc_argument(%x_desc: !qdot.desc<1x32xf32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q_desc = qdot.make_desc %q_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x32xf32> -> tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.quantize' op the source's descriptor must come straight from qdot.make_desc, got a block argument

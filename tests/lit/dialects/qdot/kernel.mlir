// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// The kernel vocabulary, op by op: each op parses, verifies and prints back, in custom and
// generic form.

// CHECK-LABEL: func.func @grid
// CHECK:       %{{.+}} = qdot.program_id x
// CHECK:       %{{.+}} = qdot.program_id y
// CHECK:       %{{.+}} = qdot.num_programs z
// CHECK-GENERIC: "qdot.program_id"() <{axis = #qdot<axis x>}> : () -> index
// CHECK-GENERIC: "qdot.program_id"() <{axis = #qdot<axis y>}> : () -> index
// CHECK-GENERIC: "qdot.num_programs"() <{axis = #qdot<axis z>}> : () -> index
func.func @grid() -> (index, index, index) attributes {qdot.kernel} {
  %x = qdot.program_id x
  %y = qdot.program_id y
  %n = qdot.num_programs z
  func.return %x, %y, %n : index, index, index
}

// -----

// CHECK-LABEL: func.func @descriptors
// CHECK-SAME:  (%[[P:[^:]+]]: !qdot.ptr<f8E4M3FN>, %[[R:[^:]+]]: index, %[[C:[^:]+]]: index, %[[O:[^:]+]]: index)
// CHECK:       %[[ONE:.+]] = arith.constant 1 : index
// CHECK:       %[[D:.+]] = qdot.make_desc %[[P]], [%[[R]], %[[C]]], [%[[C]], %[[ONE]]] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x128xf8E4M3FN>
// CHECK:       %[[T:.+]] = qdot.load %[[D]][%[[O]], %[[O]]] : !qdot.desc<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// CHECK:       qdot.store %[[D]][%[[O]], %[[O]]], %[[T]] : !qdot.desc<64x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>
// CHECK-GENERIC: "qdot.make_desc"(%{{.+}}) <{operandSegmentSizes = array<i32: 1, 2, 2>}> : (!qdot.ptr<f8E4M3FN>, index, index, index, index) -> !qdot.desc<64x128xf8E4M3FN>
// CHECK-GENERIC: "qdot.load"(%{{.+}}) : (!qdot.desc<64x128xf8E4M3FN>, index, index) -> tensor<64x128xf8E4M3FN>
// CHECK-GENERIC: "qdot.store"(%{{.+}}) : (!qdot.desc<64x128xf8E4M3FN>, index, index, tensor<64x128xf8E4M3FN>) -> ()
func.func @descriptors(%p: !qdot.ptr<f8E4M3FN>, %rows: index, %cols: index, %off: index) attributes {qdot.kernel} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %p, [%rows, %cols], [%cols, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x128xf8E4M3FN>
  %t = qdot.load %d[%off, %off] : !qdot.desc<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
  qdot.store %d[%off, %off], %t : !qdot.desc<64x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>
  func.return
}

// -----

// Descriptors over blocks and of rank 1 and 3; a loaded tile may carry an encoding.
// CHECK-LABEL: func.func @descriptor_kinds
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x4x!qdot.block<q4_K>>
// CHECK:       qdot.load %{{.+}} : !qdot.desc<64x4x!qdot.block<q4_K>> -> tensor<64x4x!qdot.block<q4_K>, "blocked">
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^\]]+}}], [%{{[^\]]+}}] : !qdot.ptr<f32> -> !qdot.desc<256xf32>
// CHECK:       qdot.make_desc %{{[^,]+}}, [%{{[^,]+}}, %{{[^,]+}}, %{{[^\]]+}}], [%{{[^,]+}}, %{{[^,]+}}, %{{[^\]]+}}] : !qdot.ptr<f32> -> !qdot.desc<2x16x16xf32>
func.func @descriptor_kinds(%w: !qdot.ptr<!qdot.block<q4_K>>, %f: !qdot.ptr<f32>, %i: index) {
  %dw = qdot.make_desc %w, [%i, %i], [%i, %i] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x4x!qdot.block<q4_K>>
  %tw = qdot.load %dw[%i, %i] : !qdot.desc<64x4x!qdot.block<q4_K>> -> tensor<64x4x!qdot.block<q4_K>, "blocked">
  %d1 = qdot.make_desc %f, [%i], [%i] : !qdot.ptr<f32> -> !qdot.desc<256xf32>
  %d3 = qdot.make_desc %f, [%i, %i, %i], [%i, %i, %i] : !qdot.ptr<f32> -> !qdot.desc<2x16x16xf32>
  func.return
}

// -----

// A load may declare, per dimension, that its tile lies inside the tensor (MLIR's
// vector.transfer_read `in_bounds`): the copy then tests no bound along it.
// CHECK-LABEL: func.func @in_bounds
// CHECK:       qdot.load %{{.+}}[%{{.+}}, %{{.+}}] {in_bounds = [true, false]} : !qdot.desc<64x4x!qdot.block<q4_K>> -> tensor<64x4x!qdot.block<q4_K>>
// CHECK:       qdot.load %{{.+}}[%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : !qdot.desc<64x4x!qdot.block<q4_K>>
// CHECK-GENERIC: "qdot.load"(%{{.+}}) <{in_bounds = [true, false]}> : (!qdot.desc<64x4x!qdot.block<q4_K>>, index, index) -> tensor<64x4x!qdot.block<q4_K>>
func.func @in_bounds(%w: !qdot.ptr<!qdot.block<q4_K>>, %i: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %dw = qdot.make_desc %w, [%i, %i], [%i, %i] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x4x!qdot.block<q4_K>>
  %a = qdot.load %dw[%i, %i] {in_bounds = [true, false]} : !qdot.desc<64x4x!qdot.block<q4_K>> -> tensor<64x4x!qdot.block<q4_K>>
  %whole = qdot.make_desc %w, [%c64, %i], [%i, %i] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x4x!qdot.block<q4_K>>
  %b = qdot.load %whole[%c0, %i] {in_bounds = [true, true]} : !qdot.desc<64x4x!qdot.block<q4_K>> -> tensor<64x4x!qdot.block<q4_K>>
  func.return
}

// -----

// CHECK-LABEL: func.func @trans
// CHECK:       qdot.trans %{{.+}} {order = array<i64: 1, 0>} : tensor<64x128xi8> -> tensor<128x64xi8>
// CHECK:       qdot.trans %{{.+}} {order = array<i64: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-GENERIC: "qdot.trans"(%{{.+}}) <{order = array<i64: 1, 0>}> : (tensor<64x128xi8>) -> tensor<128x64xi8>
func.func @trans(%t: tensor<64x128xi8>, %u: tensor<2x4x8xf32>) -> (tensor<128x64xi8>, tensor<8x2x4xf32>) {
  %0 = qdot.trans %t {order = array<i64: 1, 0>} : tensor<64x128xi8> -> tensor<128x64xi8>
  %1 = qdot.trans %u {order = array<i64: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  func.return %0, %1 : tensor<128x64xi8>, tensor<8x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @quantize
// CHECK:       qdot.quantize %{{.+}} format = q8_1 : tensor<16x4096xf32> -> tensor<16x128x!qdot.block<q8_1>>
// CHECK:       qdot.quantize %{{.+}} format = q8_1_mmq : tensor<16x4096xf32> -> tensor<16x32x!qdot.block<q8_1_mmq>>
// CHECK:       qdot.quantize %{{.+}} format = q8_1 : tensor<64xf32> -> tensor<2x!qdot.block<q8_1>>
// CHECK-GENERIC: "qdot.quantize"(%{{.+}}) <{format = #qdot<format q8_1>}> : (tensor<16x4096xf32>) -> tensor<16x128x!qdot.block<q8_1>>
func.func @quantize(%x: tensor<16x4096xf32>, %v: tensor<64xf32>) {
  %q = qdot.quantize %x format = q8_1 : tensor<16x4096xf32> -> tensor<16x128x!qdot.block<q8_1>>
  %m = qdot.quantize %x format = q8_1_mmq : tensor<16x4096xf32> -> tensor<16x32x!qdot.block<q8_1_mmq>>
  %r = qdot.quantize %v format = q8_1 : tensor<64xf32> -> tensor<2x!qdot.block<q8_1>>
  func.return
}

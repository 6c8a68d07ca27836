// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One case per verifier rule of the agx dialect (dialects/agx/types.py, ops.py).

func.func @bf16_fragment(%a: !agx.frag<bf16>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: fragment element type must be one of fp16, fp32, got bf16; widen bf16 to fp32 when loading

// -----

func.func @odd_register(%a: !agx.frag<fp16, r3>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: fragment register r3 is odd; MMA operands start at an even register (pair form)

// -----

func.func @past_r95(%a: !agx.frag<fp32, r96>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: fragment register r96_r97 (fp32) is past r95, the last register the pair form reaches

// -----

func.func @narrowing_load(%x: tensor<16x16xf32>) {
  %0 = agx.load_frag lhs %x[0, 0] : tensor<16x16xf32> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.load_frag' op a f32 source loads as fp32 fragments (exactly), got fp16

// -----

func.func @quantized_plain_load(%x: tensor<16x16xf8E4M3FN>) {
  %0 = agx.load_frag lhs %x[0, 0] : tensor<16x16xf8E4M3FN> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.load_frag' op source element type must be f16, f32 or bf16 (quantized operands use agx.dequant_frag), got f8E4M3FN

// -----

func.func @window_outside(%x: tensor<16x16xf16>) {
  %0 = agx.load_frag lhs %x[16, 0] : tensor<16x16xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.load_frag' op load window [16:24, 0:8] is outside the 16x16 operand

// -----

func.func @unaligned(%x: tensor<16x16xf16>) {
  %0 = agx.load_frag lhs %x[4, 0] : tensor<16x16xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.load_frag' op load offset [4, 0] must be a multiple of 8

// -----

func.func @slot_outside_form(%x: tensor<16x16xf16>) attributes {agx.form = "agx3b"} {
  %0 = agx.load_frag lhs %x[0, 0] slot 6 : tensor<16x16xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.load_frag' op slot 6 does not exist on agx3b, which has 6 slots

// -----

func.func @dequant_plain(%x: tensor<16x16xf16>) {
  %0 = agx.dequant_frag lhs %x[0, 0] fp16 : tensor<16x16xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op format fp16 is not quantized; load it with agx.load_frag

// -----

func.func @dequant_acc(%x: tensor<16x8xi8>) {
  %0 = agx.dequant_frag acc %x[0, 0] e2m1 : tensor<16x8xi8> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op operand must be lhs or rhs (the accumulator is never quantized), got acc

// -----

func.func @block_with_scale(%q: tensor<8x1x!qdot.block<q4_K>>, %s: tensor<8x8xf8E8M0FNU>) {
  %0 = agx.dequant_frag lhs %q scale %s[0, 0] q4_K : tensor<8x1x!qdot.block<q4_K>>, tensor<8x8xf8E8M0FNU> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op q4_K carries its scales in its blocks and takes no scale operand

// -----

// The source's element type, the scale's kind and its [M, K/group] shape follow qdot.dot_scaled's
// rules (one definition, dialects/qdot/dot.py): each of these was emitted, the last reading scales
// past the tensor's end.
func.func @dequant_source_type(%x: tensor<8x8xf16>) {
  %0 = agx.dequant_frag lhs %x[0, 0] e4m3 : tensor<8x8xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op lhs = e4m3 needs element type f8E4M3FN, got f16

// -----

func.func @dequant_scale_type(%x: tensor<8x32xf8E4M3FN>, %s: tensor<8x1xf16>) {
  %0 = agx.dequant_frag lhs %x scale %s[0, 0] e4m3 : tensor<8x32xf8E4M3FN>, tensor<8x1xf16> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op lhs scale must have element type f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3), got f16

// -----

func.func @dequant_scale_short(%a: tensor<8x32xi8>, %s: tensor<8x1xf8E8M0FNU>) {
  %0 = agx.dequant_frag lhs %a scale %s[0, 56] e2m1 : tensor<8x32xi8>, tensor<8x1xf8E8M0FNU> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op lhs scale must have shape [M, K/32] = [8, 2], got [8, 1]

// -----

func.func @dequant_window(%w: tensor<8x8xi8>) {
  %0 = agx.dequant_frag rhs %w[16, 0] e2m1 : tensor<8x8xi8> -> !agx.frag<fp16>
  "test.op"(%0) : (!agx.frag<fp16>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.dequant_frag' op dequant window [16:24, 0:8] is outside the 16x8 operand

// -----

func.func @fp16_accumulator(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>, %c: !agx.frag<fp16>) {
  %d = agx.mma8 %a, %b, %c : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op C must be an fp32 fragment (the fp16-accumulator form is not mapped), got fp16

// -----

func.func @bad_hint(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) {
  %d = "agx.mma8"(%a, %b) <{a_hint = "keep"}> : (!agx.frag<fp16>, !agx.frag<fp16>) -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op A hint must be cache or discard, got keep

// -----

func.func @c_hint_without_c(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) {
  %d = "agx.mma8"(%a, %b) <{c_hint = "discard"}> : (!agx.frag<fp16>, !agx.frag<fp16>) -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op C hint given, but the multiply form (zero) reads no C

// -----

func.func @wait_unsorted(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) {
  %d = agx.mma8 %a, %b, zero wait [3, 1] : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op wait slots must be increasing and distinct, got [3, 1]

// -----

func.func @wait_no_slot(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) {
  %d = agx.mma8 %a, %b, zero wait [8] : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op wait slot 8 is not a scoreboard slot (0..7)

// -----

// The generic form can spell the slots in any integer type; they are i64.
func.func @wait_type(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) {
  %d = "agx.mma8"(%a, %b) <{wait = array<i32: 1>}> : (!agx.frag<fp16>, !agx.frag<fp16>) -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op wait slots must be an i64 array, got element type i32

// -----

func.func @d_overlaps_a(%a: !agx.frag<fp32, r0>, %b: !agx.frag<fp32, r2>) {
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp32, r0>, !agx.frag<fp32, r2> -> !agx.frag<fp32, r0>
  "test.op"(%d) : (!agx.frag<fp32, r0>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op D r0 overlaps A r0; D may share only C's register (in-place accumulate, A13)

// -----

// The seed's refusal of a seventh wait slot, checked on the op for its function's form.
func.func @seventh_wait_slot(%a: !agx.frag<fp16>, %b: !agx.frag<fp16>) attributes {agx.form = "agx3b"} {
  %d = agx.mma8 %a, %b, zero wait [6] : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op agx3b: wait slot 6 does not exist on agx3b, which has 6 slots (0..5)

// -----

// The seed's refusal of a B type different from A's on AGX3C.
func.func @agx3c_mixed(%a: !agx.frag<fp16>, %b: !agx.frag<fp32>) attributes {agx.form = "agx3c"} {
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  "test.op"(%d) : (!agx.frag<fp32>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'agx.mma8' op agx3c: agx3c takes one input type, but A is fp16 and B is fp32

// -----

func.func @store_count(%a: !agx.frag<fp32>) -> tensor<16x16xf32> {
  %r = agx.store_tile %a : !agx.frag<fp32> -> tensor<16x16xf32>
  func.return %r : tensor<16x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.store_tile' op a 16x16 tile needs (16/8)*(16/8) = 4 fragments, got 1

// -----

func.func @store_fp16(%a: !agx.frag<fp16>) -> tensor<8x8xf32> {
  %r = agx.store_tile %a : !agx.frag<fp16> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.store_tile' op fragment 0 must be fp32, got fp16

// -----

func.func @store_shape(%a: !agx.frag<fp32>) -> tensor<8x4xf32> {
  %r = agx.store_tile %a : !agx.frag<fp32> -> tensor<8x4xf32>
  func.return %r : tensor<8x4xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'agx.store_tile' op result must be an M x N tensor with M and N multiples of 8, got [8, 4]

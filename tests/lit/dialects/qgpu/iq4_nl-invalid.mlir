// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of ggml's iq4_nl, one case per rule. Its nibbles become s8 only
// (register_formats.UPCASTS: each ggml's kvalues_iq4nl entry, −127..113 — u8 has no negative values,
// and the float targets are the small-float operands' conversions, not what the s8 mma path reads),
// so the refusal lists s8 as the one target; the upcast doubles K (two codes per byte; not q3_K's
// four) and keeps kWidth 4, reading kWidth 4 only (a thread's bytes 4t..4t+3 then hold its values of
// both halves of a block); it takes no high operand (a code is the whole nibble) and no scale (d is the
// mma's per-block scale); a blocked (cooperative) upcast runs over whole 32-value blocks; and a block's
// views are its `qs` (16 bytes per block) and `d` — no `d16` (its values are not scaled by 16) and no
// `min` (it has no offset).
// COUNT: {{^12$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_u8(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_nl to = u8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = iq4_nl to = u8 is not an exact conversion; iq4_nl upcasts to s8{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_bf16(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_nl to = bf16 : tensor<16x32xi8, #a> -> tensor<16x64xbf16, #a>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = iq4_nl to = bf16 is not an exact conversion; iq4_nl upcasts to s8{{$}}

// -----

// K doubles: two values per byte ...
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @k_kept(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<16x32xi8, #a> -> tensor<16x32xi8, #a>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [16, 64] (the source [16, 32] with K times 2), got [16, 32]{{$}}

// -----

// ... not four (q3_K's 2-bit fields): along the rhs's K, dimension 0.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @k_quadrupled(%x: tensor<32x8xi8, #b>) {
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<32x8xi8, #b> -> tensor<128x8xi8, #b>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [64, 8] (the source [32, 8] with K times 2), got [128, 8]{{$}}

// -----

// An mma operand reads the nibbles at kWidth 4 only.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
func.func @k_width_8(%x: tensor<16x64xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<16x64xi8, #a> -> tensor<16x128xi8, #a>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a iq4_nl upcast reads kWidth = 4 (a thread's bytes 4t..4t+3 then hold its values of both halves of a span), got kWidth = 8{{$}}

// -----

// kWidth stays 4 (e2m1 → s8 doubles it; iq4_nl, like q4_0 and mxfp4, does not).
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @result_k_width(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result kWidth must be 4 (source kWidth = 4 of iq4_nl), got 8{{$}}

// -----

// Its codes are whole nibbles: no high operand of top bits.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @high(%x: tensor<32x8xi8, #b>, %h: tensor<16x8xi8, #b>) {
  %u = qgpu.upcast %x high %h from = iq4_nl to = s8 : tensor<32x8xi8, #b> high tensor<16x8xi8, #b> -> tensor<64x8xi8, #b>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op only q3_K, q5_0, q5_1, q5_K, q6_K take a high operand, got from = iq4_nl{{$}}

// -----

// d is the mma's per-block scale, not the upcast's: an s8 upcast takes no scale.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
func.func @scaled(%x: tensor<16x32xi8, #a>, %s: tensor<16x2xf32, #sa>) {
  %u = qgpu.upcast %x scale %s from = iq4_nl to = s8 : tensor<16x32xi8, #a>, tensor<16x2xf32, #sa> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a scale needs to = bf16 or fp16, got to = s8{{$}}

// -----

// A blocked upcast: each thread's run must hold whole blocks (a byte's nibbles are 16 values apart).
#src = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @blocked_part_block(%x: tensor<32x4xi8, #src>) {
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<32x4xi8, #src> -> tensor<32x8xi8, #dst>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op each thread's run of 8 values along K must hold whole 32-value iq4_nl spans (a byte's two nibbles are 16 values apart){{$}}

// -----

// An iq4_nl block has no `d16` view: its scale is `d` as it is.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_d16(%m: !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh>) {
  %v = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d16", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:132: error: iq4_nl blocks have no part 'd16'; parts: d, qs{{$}}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_min(%m: !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh>) {
  %v = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "min", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:132: error: iq4_nl blocks have no part 'min'; parts: d, qs{{$}}

// -----

// 16 bytes of qs per block: 8 blocks are 128 bytes along K, not 256.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @qs_shape(%m: !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh>) {
  %v = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #sh> -> !qgpu.memdesc<256x16xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: iq4_nl-invalid.mlir:[[# @LINE - 3]]:104: error: a #qgpu.block_part view of iq4_nl 'qs': dimension 0 (its values) must be a multiple of 16 (values per block) up to 128 (blocks 0 to 7 of each row), got 256{{$}}

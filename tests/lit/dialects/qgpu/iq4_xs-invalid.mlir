// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of ggml's iq4_xs, one case per rule. A block's views are its `qs` (128
// bytes per 256-value super-block) and its derived `scale` (f32, d · (ls − 32), 8 per super-block) — no
// `d` (its fp16 d enters only through `scale`: the mma scale per 32 values is d · (ls − 32), not d), no
// `min` (it has no offset) and no q4_K `scale16` (its values are not upcast in place times 16); a view's
// shape and encoding follow the blocks it views (a super-block's 128 bytes and 8 scales, not iq4_nl's 16
// bytes and one d per 32-value block), and a slice's `first` is a super-block of the row. Its nibbles
// have no register format of their own: they are upcast as iq4_nl's (qgpu/iq4_nl-invalid.mlir pins that
// upcast's rules), so `from = iq4_xs` does not parse.
// COUNT: {{^10$}}

// Its fp16 d is no view: the scale per 32 values is `scale`.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @no_d(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x2xf32, #qgpu.block_part<{format = "iq4_xs", part = "d", blocks = 2, valueDim = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:130: error: iq4_xs blocks have no part 'd'; parts: qs, scale{{$}}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_min(%m: !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "min", blocks = 1, valueDim = 0}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:132: error: iq4_xs blocks have no part 'min'; parts: qs, scale{{$}}

// -----

// q4_K's scale divided by 16 (for its in-place high nibbles) is not iq4_xs's.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_scale16(%m: !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "scale16"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale16", blocks = 1, valueDim = 0}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:136: error: iq4_xs blocks have no part 'scale16'; parts: qs, scale{{$}}

// -----

// 128 bytes of qs per super-block: 2 super-blocks are 256 bytes along K, not iq4_nl's 2 × 16.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @qs_shape(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x32xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:104: error: a #qgpu.block_part view of iq4_xs 'qs': dimension 1 (its values) must be a multiple of 128 (values per block) up to 256 (blocks 0 to 1 of each row), got 32{{$}}

// -----

// 8 scales per super-block (one per 32 values), not one: 2 super-blocks are 16 per row.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @scale_shape(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x2xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:107: error: a #qgpu.block_part view of iq4_xs 'scale': dimension 1 (its values) must be a multiple of 8 (values per block) up to 16 (blocks 0 to 1 of each row), got 2{{$}}

// -----

// The scale is f32 (an fp16 d times ls − 32), not q3_K's i32 integer scale.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @scale_i32(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x16xi32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:107: error: a #qgpu.block_part view of iq4_xs 'scale' holds f32 elements, got i32{{$}}

// -----

// An iq4_xs view of iq4_nl blocks: the view's format must be the blocks'.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @format_mismatch(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_nl>, #sh>) {
  %v = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x2x!qdot.block<iq4_nl>, #sh> -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.block_part' op result must be !qgpu.memdesc<16x32xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 2, valueDim = 1}>>, got !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>{{$}}

// -----

// One super-block's slice of the scales is 8 per row, not the whole tile's 16.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @slice_shape(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "scale", first = 1 : i64, count = 1 : i64} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x16xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 1}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:141: error: a #qgpu.block_part view of iq4_xs 'scale': dimension 1 (its values) must be a multiple of 8 (values per block) up to 8 (blocks 1 to 1 of each row), got 16{{$}}

// -----

// A slice starts at a super-block of the row: 0 or 1 of 2.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @slice_first(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) {
  %v = qgpu.block_part %m {part = "scale", first = 2 : i64, count = 1 : i64} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 2}>>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:168: error: #qgpu.block_part first must be a block of the row (0 to 1), got 2{{$}}

// -----

// No register format iq4_xs: the upcast of its qs is spelled from = iq4_nl.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @from_iq4_xs(%x: tensor<16x128xi8, #a>) {
  %u = qgpu.upcast %x from = iq4_xs to = s8 : tensor<16x128xi8, #a> -> tensor<16x256xi8, #a>
  func.return
}
// CHECK: iq4_xs-invalid.mlir:[[# @LINE - 3]]:30: error: Expected `s8`, `u8`, `e4m3`, `e5m2`, `e2m3`, `e3m2`, `e2m1`, `bf16`, `fp16`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `mxfp4`, `q6_K`, `q5_K`, `q3_K`, `q2_K`, `iq4_nl`, or `q4_K`.{{$}}

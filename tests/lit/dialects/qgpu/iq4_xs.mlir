// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// Round trip of the iq4_xs vocabulary of qgpu: the `qs` and `scale` views of raw block_iq4_xs (136 bytes:
// fp16 d, uint16 scales_h, uint8 scales_l[4], then qs[128] — eight 32-value spans of iq4_nl's 16 nibble
// bytes — so the qs view has 128 bytes per super-block along valueDim) and its derived f32 `scale`, 8 per
// super-block (d · (ls − 32) per 32 values, its 6-bit ls joined from a nibble of scales_l and two bits of
// scales_h); whole tiles of super-blocks and one super-block's slice of them (`first`, `count`: the
// encoding keeps the tile's `blocks` and says `first`), on either side. There is no iq4_xs register
// format: its qs are upcast as iq4_nl's (from = iq4_nl to = s8, the same nibble layout per 32 values and
// the same kvalues_iq4nl lookup), doubling K with kWidth 4, and `scale` is the s8 mma's per-block scale.

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The lhs orientation (the decode kernel's weights): super-blocks along dimension 1 (valueDim = 1); a
// tile of two is 256 bytes of qs and 16 scales per row, one super-block's slice 128 bytes and 8; the
// upcast's K doubling along dimension 1, then one s8 × s8 mma scaled per 32 values.
// CHECK-LABEL: func.func @iq4_xs_lhs_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, {{.*}}> -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x16xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "qs", first = 1 : i64, count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1, first = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "scale", first = 1 : i64, count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 1}>>
// CHECK: qgpu.upcast %{{.*}} from = iq4_nl to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>>
// CHECK: qgpu.mma {{.*}} lhs = s8 rhs = s8 {qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-SAME: tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, {{.*}}}>>, tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, {{.*}}}>> -> tensor<16x8xf32
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_xs_lhs_parts"
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "qs"}> : (!qgpu.memdesc<16x2x!qdot.block<iq4_xs>, {{.*}}>) -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "scale"}> : (!qgpu.memdesc<16x2x!qdot.block<iq4_xs>, {{.*}}>) -> !qgpu.memdesc<16x16xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "qs", first = 1 : i64, count = 1 : i64}>
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "scale", first = 1 : i64, count = 1 : i64}>
// CHECK-GENERIC: "qgpu.upcast"(%{{.*}}) <{from = #qgpu<format iq4_nl>, to = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @iq4_xs_lhs_parts(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #shared>, %x: tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>,
                            %b: tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, %c: tensor<16x8xf32, #mma>,
                            %sa: tensor<16x8xf32, #sa>, %sb: tensor<8x8xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<16x256xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
  %sc = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<16x16xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
  %qs1 = qgpu.block_part %m {part = "qs", first = 1 : i64, count = 1 : i64} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1, first = 1}>>
  %sc1 = qgpu.block_part %m {part = "scale", first = 1 : i64, count = 1 : i64} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 1}>>
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  %r = qgpu.mma %u, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, tensor<16x8xf32, #mma>, tensor<16x8xf32, #sa>, tensor<8x8xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %r : tensor<16x8xf32, #mma>
}

// -----

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// The rhs orientation (the prefill kernel's weights): super-blocks along dimension 0 (valueDim = 0), the
// scale view still [columns, scales per column]; K doubling along dimension 0.
// CHECK-LABEL: func.func @iq4_xs_rhs_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, {{.*}}> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK: qgpu.block_part %{{.*}} {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 0}>>
// CHECK: qgpu.upcast %{{.*}} from = iq4_nl to = s8 : tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 4}>> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 4}>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_xs_rhs_parts"
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "scale"}> : (!qgpu.memdesc<1x16x!qdot.block<iq4_xs>, {{.*}}>) -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 0}>>
func.func @iq4_xs_rhs_parts(%m: !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #shared>, %x: tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>) {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 0}>>
  %sc = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 0}>>
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>
  func.return
}

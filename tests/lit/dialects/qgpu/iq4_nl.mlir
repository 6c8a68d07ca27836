// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// Round trip of the iq4_nl vocabulary of qgpu: the `qs` and `d` views of raw block_iq4_nl (18 bytes:
// an fp16 d, then 16 bytes of q4_0's nibble pairs per 32 values, so the qs view has 16 bytes per
// block along valueDim, and one d per block — d as it is: the looked-up values are the kvalues
// themselves, not a multiple of them as q4_0's 16 · (c − 8) is of its d16) and the table-lookup
// upcast from = iq4_nl to = s8 (each nibble an index into ggml's kvalues_iq4nl, −127..113, exact in
// s8), which doubles K and keeps kWidth 4 as q4_0's does (the two nibbles of a byte are values p and
// p + 16 of one block), on either side of the mma.

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// The lhs orientation (the decode kernel's weights): blocks along dimension 1 (valueDim = 1), the
// upcast's K doubling along dimension 1, then one s8 × s8 mma scaled per block.
// CHECK-LABEL: func.func @iq4_nl_lhs_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<16x8x!qdot.block<iq4_nl>, {{.*}}> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 1}>>
// CHECK: qgpu.upcast %{{.*}} from = iq4_nl to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>>
// CHECK: qgpu.mma {{.*}} lhs = s8 rhs = s8 {rescale = "per_block"}
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_nl_lhs_parts"
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "qs"}> : (!qgpu.memdesc<16x8x!qdot.block<iq4_nl>, {{.*}}>) -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "d"}>
// CHECK-GENERIC: "qgpu.upcast"(%{{.*}}) <{from = #qgpu<format iq4_nl>, to = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @iq4_nl_lhs_parts(%m: !qgpu.memdesc<16x8x!qdot.block<iq4_nl>, #shared>, %x: tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>,
                            %b: tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, %c: tensor<16x8xf32, #mma>,
                            %sa: tensor<16x8xf32, #sa>, %sb: tensor<8x8xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x8x!qdot.block<iq4_nl>, #shared> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 1}>>
  %d = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<16x8x!qdot.block<iq4_nl>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 1}>>
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  %r = qgpu.mma %u, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, tensor<16x8xf32, #mma>, tensor<16x8xf32, #sa>, tensor<8x8xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %r : tensor<16x8xf32, #mma>
}

// -----

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// The rhs orientation (the prefill kernel's weights): blocks along dimension 0 (valueDim = 0), K
// doubling along dimension 0.
// CHECK-LABEL: func.func @iq4_nl_rhs_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, {{.*}}> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK: qgpu.block_part %{{.*}} {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 0}>>
// CHECK: qgpu.upcast %{{.*}} from = iq4_nl to = s8 : tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 4}>> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 4}>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "iq4_nl_rhs_parts"
// CHECK-GENERIC: "qgpu.upcast"(%{{.*}}) <{from = #qgpu<format iq4_nl>, to = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @iq4_nl_rhs_parts(%m: !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #shared>, %x: tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>) {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #shared> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_nl", part = "qs", blocks = 8, valueDim = 0}>>
  %d = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<8x16x!qdot.block<iq4_nl>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_nl", part = "d", blocks = 8, valueDim = 0}>>
  %u = qgpu.upcast %x from = iq4_nl to = s8 : tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>
  func.return
}

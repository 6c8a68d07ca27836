// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// Round trip of the q4_0 vocabulary of qgpu: the `qs` and `d16` views of raw q4_0 blocks (18 bytes:
// 16 bytes of nibbles per 32 values, so the qs view has 16 bytes per block along valueDim, and one
// d16 per block) and the nibble upcast from = q4_0 to = s8, which doubles K and keeps kWidth 4
// (the two nibbles of a byte are values p and p + 16 of one block: bytes 4t..4t+3 give a thread
// the ISA's values 4t..4t+3 and 16 + 4t..16 + 4t + 3).

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// CHECK-LABEL: func.func @q4_0_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<16x8x!qdot.block<q4_0>, {{.*}}> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 1}>>
// CHECK: qgpu.upcast %{{.*}} from = q4_0 to = s8 : tensor<16x128xi8, {{.*}}kWidth = 4}>> -> tensor<16x256xi8, {{.*}}kWidth = 4}>>
// CHECK: qgpu.mma {{.*}} lhs = s8 rhs = s8 {rescale = "per_block"}
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "q4_0_parts"
// CHECK-GENERIC: "qgpu.block_part"(%{{.*}}) <{part = "d16"}>
// CHECK-GENERIC: "qgpu.upcast"(%{{.*}}) <{from = #qgpu<format q4_0>, to = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @q4_0_parts(%m: !qgpu.memdesc<16x8x!qdot.block<q4_0>, #shared>, %x: tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>,
                      %b: tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, %c: tensor<16x8xf32, #mma>,
                      %sa: tensor<16x8xf32, #sa>, %sb: tensor<8x8xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x8x!qdot.block<q4_0>, #shared> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>>
  %d16 = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<16x8x!qdot.block<q4_0>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 1}>>
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  %d = qgpu.mma %u, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, tensor<16x8xf32, #mma>, tensor<16x8xf32, #sa>, tensor<8x8xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// The rhs orientation: blocks along dimension 0 (valueDim = 0), K doubling along dimension 0.
// CHECK-LABEL: func.func @q4_0_rhs_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, {{.*}}> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK: qgpu.block_part %{{.*}} {part = "d16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 0}>>
// CHECK: qgpu.upcast %{{.*}} from = q4_0 to = s8 : tensor<128x16xi8, {{.*}}kWidth = 4}>> -> tensor<256x16xi8, {{.*}}kWidth = 4}>>
func.func @q4_0_rhs_parts(%m: !qgpu.memdesc<8x16x!qdot.block<q4_0>, #shared>, %x: tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>) {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #shared> -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>>
  %d16 = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 0}>>
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>
  func.return
}

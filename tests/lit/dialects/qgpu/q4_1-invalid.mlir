// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of q4_1, one case per rule. q4_1 nibbles become u8 codes only
// (0..15 as they are: its m is a separate fold, so there is no offset to take out, and s8 would be
// a second, different meaning of the same bytes), so the refusal lists u8 as the one target; and
// a q4_1 block's views are its `qs`, `d`, `min` (−m) and `m_pad` — no `d16` (its codes are not
// scaled by 16) and no `dmin` (its m is a plain fp16 per block, not a K-quant's 6-bit m · dmin).
// COUNT: {{^3$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_s8(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q4_1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q4_1 to = s8 is not an exact conversion; q4_1 upcasts to u8{{$}}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_d16(%m: !qgpu.memdesc<8x16x!qdot.block<q4_1>, #sh>) {
  %v = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<8x16x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "d16", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:130: error: q4_1 blocks have no part 'd16'; parts: d, m_pad, min, qs

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_dmin(%m: !qgpu.memdesc<8x16x!qdot.block<q4_1>, #sh>) {
  %v = qgpu.block_part %m {part = "dmin"} : !qgpu.memdesc<8x16x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "dmin", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: q4_1-invalid.mlir:[[# @LINE - 3]]:131: error: q4_1 blocks have no part 'dmin'; parts: d, m_pad, min, qs

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load --verify-diagnostics | filecheck %s --check-prefix=REMARK
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s --check-prefix=BARE
// Loads from views of raw q4_0 blocks in shared memory (block_q4_0: fp16 d at byte 0, 16 bytes
// of nibbles `qs` from byte 2; 18 bytes per block, so a row of 8 blocks — one K step of the MMQ
// kernels — is 144 bytes). The decisions this file pins:
// * `qs` is never read by ldmatrix: its 16-byte pieces begin 2 bytes into an 18-byte block, never
//   at the multiple of 16 the form needs, so the load falls back to scalar ld.shared (and says
//   why under --remarks, on every arch). In a pair of blocks the odd block's bytes start at
//   byte 20, 4-aligned, and a register is one 32-bit ld.shared; the even block's start at byte 2
//   (2 mod 4: no word load), and its register is two 16-bit ld.shared, its bytes 0-1 at +0 and
//   2-3 at +2, each zero-extended, the second shifted left 16 and or-ed in — never single bytes.
//   q8_0's `qs` (34-byte blocks, quants also from byte 2) is read the same way.
// * `d16` (the scale of quants upcast to s8 as 16 · (c − 8)) is the block's fp16 d, read with a
//   16-bit ld.shared, widened exactly and multiplied by 0.0625 (exact: a power of two); `d` of
//   the other block formats (here q8_0's) gets no such multiply.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>

// q4_0 as the rhs (the prefill kernel's W): eight blocks per column (valueDim = 0), columns 144
// bytes apart. Lane (g, t) = (lane / 4, lane % 4) holds column g, bytes 4t..4t+3 of each block:
// register 0 from block 0 at 2 + 4t (bytes 2-5 for t = 0), register 1 from block 1 at 20 + 4t.
// CHECK-LABEL: func.func @q4_0_qs_rhs
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK-NEXT:  %[[THREAD:.*]] = arith.addi %{{.*}}, %[[COL]] : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// register 0 (block 0, bytes 2 + 4t ..): the half at +0, the half at +2 shifted up 16, or-ed
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %[[THREAD]], %[[C2]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[BASE]], %[[O0]] : i32
// CHECK-NEXT:  %[[A0H:.*]] = arith.addi %[[A0]], %[[C2]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[Z0:.*]] = arith.extui %[[H0]] : i16 to i32
// CHECK-NEXT:  %[[H1:.*]] = ptx.ld_shared %[[A0H]] : i16
// CHECK-NEXT:  %[[Z1:.*]] = arith.extui %[[H1]] : i16 to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[Z1]], %[[C16]] : i32
// CHECK-NEXT:  %[[W0:.*]] = arith.ori %[[Z0]], %[[S1]] : i32
// register 1 (block 1, bytes 20 + 4t ..): one word
// CHECK-NEXT:  %[[C20:.*]] = arith.constant 20 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[THREAD]], %[[C20]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[O1]] : i32
// CHECK-NEXT:  %[[W1:.*]] = ptx.ld_shared %[[A1]] : i32
// blocks 2 and 3 (36 bytes on): 38 in two halves, 56 as a word
// CHECK-NEXT:  %[[C38:.*]] = arith.constant 38 : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.addi %[[THREAD]], %[[C38]] : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.addi %[[BASE]], %[[O2]] : i32
// CHECK-NEXT:  arith.addi %[[A2]], %[[C2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A2]] : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  arith.shli %{{.*}}, %[[C16]] : i32
// CHECK-NEXT:  arith.ori
// CHECK-NEXT:  arith.constant 56 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// the second n tile: 8 columns (8 · 144 = 1152 bytes) on, block 0 again in halves; the last
// register (block 7, 1152 + 128) a word
// CHECK:       arith.constant 1154 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:   : i8
// CHECK:       arith.constant 1280 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[W15:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[W0]], %[[W1]], {{.*}}, %[[W15]] : {{.*}} to tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1,
// CHECK-NOT:   ptx.ldmatrix
// sm_120a (more ldmatrix forms) falls back the same way:
// BARE-LABEL:  func.func @q4_0_qs_rhs
// BARE-NOT:    ptx.ldmatrix
// BARE-NOT:    : i8
// BARE:        ptx.ld_shared %{{.*}} : i16
// BARE-NOT:    ptx.ldmatrix
// BARE-NOT:    : i8
// BARE:        func.return
// REMARK:      q4_0-block-parts.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-local-load: rhs operand 128x16xi8 (kWidth 4): scalar ld.shared fallback: ldmatrix .m8n8.x4.b16 does not fit: the form reads 16-byte rows that must each begin at a multiple of 16 bytes, and this operand's bytes are not laid out that way: lane 0 register 0 byte 0 comes from offset 2, but the form gives that lane byte 0 of a row, so that row would begin at offset 2
func.func @q4_0_qs_rhs(%m: !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh>) -> tensor<128x16xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<128x16xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<128x16xi8, #qs> -> tensor<128x16xi8, #b>
  func.return %r : tensor<128x16xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>

// q4_0 as the lhs (the decode kernel): rows of 8 blocks, 144 bytes apart. A's registers per k
// tile: (row g, block 0) at 2 + 4t, (row g + 8, block 0) at 8 · 144 + 2 = 1154 + 4t — two halves
// each — then block 1 of both rows at 20 + 4t and 1172 + 4t, one word each.
// CHECK-LABEL: func.func @q4_0_qs_lhs
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK-NEXT:  %[[THREAD:.*]] = arith.addi %{{.*}}, %[[ROW]] : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %[[THREAD]], %[[C2]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[BASE]], %[[O0]] : i32
// CHECK-NOT:   : i8
// CHECK:  %[[A0H:.*]] = arith.addi %[[A0]], %[[C2]] : i32
// CHECK-NEXT:       %[[H0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[Z0:.*]] = arith.extui %[[H0]] : i16 to i32
// CHECK-NEXT:  %[[H1:.*]] = ptx.ld_shared %[[A0H]] : i16
// CHECK-NEXT:  %[[Z1:.*]] = arith.extui %[[H1]] : i16 to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[Z1]], %[[C16]] : i32
// CHECK-NEXT:  %[[W0:.*]] = arith.ori %[[Z0]], %[[S1]] : i32
// CHECK-NEXT:  %[[C1154:.*]] = arith.constant 1154 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[THREAD]], %[[C1154]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[O1]] : i32
// CHECK-NEXT:  arith.addi %[[A1]], %[[C2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A1]] : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  arith.shli %{{.*}}, %[[C16]] : i32
// CHECK-NEXT:  %[[W1:.*]] = arith.ori
// CHECK-NEXT:  %[[C20:.*]] = arith.constant 20 : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.addi %[[THREAD]], %[[C20]] : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.addi %[[BASE]], %[[O2]] : i32
// CHECK-NEXT:  %[[W2:.*]] = ptx.ld_shared %[[A2]] : i32
// CHECK-NEXT:  %[[C1172:.*]] = arith.constant 1172 : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.addi %[[THREAD]], %[[C1172]] : i32
// CHECK-NEXT:  %[[A3:.*]] = arith.addi %[[BASE]], %[[O3]] : i32
// CHECK-NEXT:  %[[W3:.*]] = ptx.ld_shared %[[A3]] : i32
// CHECK-NOT:   : i8
// CHECK:       builtin.unrealized_conversion_cast %[[W0]], %[[W1]], %[[W2]], %[[W3]], {{.*}} to tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0,
// CHECK-NOT:   ptx.ldmatrix
// REMARK:      q4_0-block-parts.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-local-load: lhs operand 16x128xi8 (kWidth 4): scalar ld.shared fallback: ldmatrix .m8n8.x4.b16 does not fit: {{.*}} lane 0 register 0 byte 0 comes from offset 2,
func.func @q4_0_qs_lhs(%m: !qgpu.memdesc<16x8x!qdot.block<q4_0>, #sh>) -> tensor<16x128xi8, #a> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x8x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<16x128xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<16x128xi8, #qs> -> tensor<16x128xi8, #a>
  func.return %r : tensor<16x128xi8, #a>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#d16 = #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 0}>

// q4_0 `d16` as the rhs scale, one per block: the fp16 d at byte 0 of each block (18 bytes
// apart), widened and × 0.0625. Lane t (of its quad) holds columns 2t and 2t + 1 of each n tile:
// column 2t at t · 288, its blocks at +0, +18, ..., +126; column 2t + 1 from +144; the second n
// tile 8 columns (1152 bytes) on.
// CHECK-LABEL: func.func @q4_0_d16_rhs
// CHECK:       %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %{{.*}}, %[[C288]] : i32
// CHECK:       %[[B:.*]] = builtin.unrealized_conversion_cast %v : {{.*}} to i32
// CHECK:       %[[A0:.*]] = arith.addi %[[B]], %[[COL]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[H0]] : i16 to f16
// CHECK-NEXT:  %[[E0:.*]] = arith.extf %[[F0]] : f16 to f32
// CHECK-NEXT:  %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-NEXT:  %[[D0:.*]] = arith.mulf %[[E0]], %[[SIXTEENTH]] : f32
// CHECK-NEXT:  %[[C18:.*]] = arith.constant 18 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[COL]], %[[C18]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[B]], %[[O1]] : i32
// CHECK-NEXT:  %[[H1:.*]] = ptx.ld_shared %[[A1]] : i16
// CHECK-NEXT:  %[[F1:.*]] = arith.bitcast %[[H1]] : i16 to f16
// CHECK-NEXT:  %[[E1:.*]] = arith.extf %[[F1]] : f16 to f32
// CHECK-NEXT:  %[[D1:.*]] = arith.mulf %[[E1]], %[[SIXTEENTH]] : f32
// CHECK-NEXT:  arith.constant 36 : i32
// CHECK:       arith.constant 126 : i32
// CHECK:       arith.constant 144 : i32
// CHECK:       arith.constant 1152 : i32
// CHECK:       arith.constant 1422 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.bitcast
// CHECK-NEXT:  arith.extf
// CHECK-NEXT:  %[[D31:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[D0]], %[[D1]], {{.*}}, %[[D31]] : {{.*}} to tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NOT:   : i8
// BARE-LABEL:  func.func @q4_0_d16_rhs
// BARE-COUNT-32: arith.mulf %{{.*}}, %{{.*}} : f32
// BARE:        func.return
// REMARK:      q4_0-block-parts.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-local-load: rhs scales 16x8xf32: scalar ld.shared of the q4_0 block fields that 'd16' is decoded from (no ldmatrix: the values are computed, not copied)
func.func @q4_0_d16_rhs(%m: !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh>) -> tensor<16x8xf32, #sb> {
  %v = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<16x8xf32, #d16>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #d16> -> tensor<16x8xf32, #sb>
  func.return %r : tensor<16x8xf32, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#d16 = #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 1}>

// q4_0 `d16` as the lhs scale (the decode kernel): lanes g = lane / 4 hold rows g and g + 8, each
// with its 8 blocks (rows 144 bytes apart: row g + 8 at 1152), every one × 0.0625.
// CHECK-LABEL: func.func @q4_0_d16_lhs
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK:       %[[A0:.*]] = arith.addi %{{.*}}, %[[ROW]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  arith.bitcast
// CHECK-NEXT:  arith.extf
// CHECK-NEXT:  %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-NEXT:  arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT:  arith.constant 18 : i32
// CHECK:       arith.constant 1152 : i32
// CHECK-NEXT:  arith.addi %[[ROW]], %{{.*}} : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.bitcast
// CHECK-NEXT:  arith.extf
// CHECK-NEXT:  arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK:       builtin.unrealized_conversion_cast {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
func.func @q4_0_d16_lhs(%m: !qgpu.memdesc<16x8x!qdot.block<q4_0>, #sh>) -> tensor<16x8xf32, #sa> {
  %v = qgpu.block_part %m {part = "d16"} : !qgpu.memdesc<16x8x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<16x8xf32, #d16>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #d16> -> tensor<16x8xf32, #sa>
  func.return %r : tensor<16x8xf32, #sa>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#d = #qgpu.block_part<{format = "q8_0", part = "d", blocks = 8, valueDim = 0}>

// The contrast: q8_0's `d`, the same fp16 at byte 0 of its (34-byte) blocks, is only widened.
// BARE-LABEL:  func.func @q8_0_d
// BARE:        ptx.ld_shared %{{.*}} : i16
// BARE-NOT:    arith.mulf
// BARE:        func.return
func.func @q8_0_d(%m: !qgpu.memdesc<8x16x!qdot.block<q8_0>, #sh>) -> tensor<16x8xf32, #sb> {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<8x16x!qdot.block<q8_0>, #sh> -> !qgpu.memdesc<16x8xf32, #d>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #d> -> tensor<16x8xf32, #sb>
  func.return %r : tensor<16x8xf32, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "q8_0", part = "qs", blocks = 2, valueDim = 0}>

// q8_0's `qs` as the rhs (34-byte blocks, 32 quant bytes from byte 2; columns of 2 blocks, 68
// bytes apart): block 0's registers at 2 + 4t and 18 + 4t (2 mod 4) are two halves each, block 1's
// at 36 + 4t and 52 + 4t one word each.
// CHECK-LABEL: func.func @q8_0_qs_rhs
// CHECK:       arith.constant 68 : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %{{.*}}, %[[C2]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[BASE]], %[[O0]] : i32
// CHECK-NOT:   : i8
// CHECK:  arith.addi %[[A0]], %[[C2]] : i32
// CHECK-NEXT:       ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  arith.constant 16 : i32
// CHECK-NEXT:  arith.shli
// CHECK-NEXT:  %[[W0:.*]] = arith.ori
// CHECK-NEXT:  arith.constant 18 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// CHECK-NEXT:  arith.addi %[[A1]], %[[C2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A1]] : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  arith.shli
// CHECK-NEXT:  %[[W1:.*]] = arith.ori
// CHECK-NEXT:  arith.constant 36 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[W2:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  arith.constant 52 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[W3:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[W0]], %[[W1]], %[[W2]], %[[W3]] : i32, i32, i32, i32 to tensor<64x8xi8,
func.func @q8_0_qs_rhs(%m: !qgpu.memdesc<2x8x!qdot.block<q8_0>, #sh>) -> tensor<64x8xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<2x8x!qdot.block<q8_0>, #sh> -> !qgpu.memdesc<64x8xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<64x8xi8, #qs> -> tensor<64x8xi8, #b>
  func.return %r : tensor<64x8xi8, #b>
}

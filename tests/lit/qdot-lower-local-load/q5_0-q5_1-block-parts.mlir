// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: not grep -e 'ptx.ldmatrix' -e 'ptx.ld_shared .* : i8$' %t
// Loads from views of raw q5_0 and q5_1 blocks in shared memory (block_q5_0: fp16 d at byte 0, the
// 32-bit qh word at 2, 16 bytes of nibbles `qs` at 6 — 22 bytes per block; block_q5_1: d at 0, m at
// 2, qh at 4, qs at 8 — 24 bytes). The decisions this file pins:
// * `qh` is one i32 per block (bit j: the fifth bit of value j), loaded into the #qgpu.dot_scale
//   layout of the operand (`operand = true`: the B side's column g) as the upcast's high operand: one
//   32-bit ld.shared where every block leaves it 4-aligned (q5_1: 24-byte blocks, qh at 4), two
//   16-bit ones joined (the second shifted left 16 and or-ed in) where it is only 2-aligned (q5_0);
// * `qs` as q4_0's: a word where a block's nibbles start 4-aligned (q5_0's odd blocks, at 22 + 6 =
//   28, and every q5_1 block), two 16-bit halves where they start 2 mod 4 (q5_0's even blocks, at 6);
// * q5_0's scale is `d8`, d / 8 (× 0.125, exact), undoing the 8 of its codes upcast as 8 · (code − 16).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#wb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs0 = #qgpu.block_part<{format = "q5_0", part = "qs", blocks = 2, valueDim = 0}>
#qh0 = #qgpu.block_part<{format = "q5_0", part = "qh", blocks = 2, valueDim = 0}>
#d8 = #qgpu.block_part<{format = "q5_0", part = "d8", blocks = 2, valueDim = 0}>
#qs1 = #qgpu.block_part<{format = "q5_1", part = "qs", blocks = 2, valueDim = 0}>
#qh1 = #qgpu.block_part<{format = "q5_1", part = "qh", blocks = 2, valueDim = 0}>

// q5_0 as the rhs, two blocks per column (44 bytes apart)
// CHECK-LABEL: func.func @q5_0_parts
// CHECK:       %[[C44:.*]] = arith.constant 44 : i32
// qs, block 0: bytes 6 + 4t.. in two halves; block 1: one word at 28 + 4t
// CHECK:       builtin.unrealized_conversion_cast %qsv
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[C28:.*]] = arith.constant 28 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C28]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// qh, block 0: the halves at 2 and 4 of the column's block, the high one shifted left 16
// CHECK:       builtin.unrealized_conversion_cast %qhv
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[BLK:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[AT:.*]] = arith.addi %[[BLK]], %[[C2]] : i32
// CHECK-NEXT:  %[[LO:.*]] = ptx.ld_shared %[[AT]] : i16
// CHECK-NEXT:  %[[LOW:.*]] = arith.extui %[[LO]] : i16 to i32
// CHECK-NEXT:  %[[AT2:.*]] = arith.addi %[[AT]], %[[C2]] : i32
// CHECK-NEXT:  %[[HI:.*]] = ptx.ld_shared %[[AT2]] : i16
// CHECK-NEXT:  %[[HIGH:.*]] = arith.extui %[[HI]] : i16 to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[UP:.*]] = arith.shli %[[HIGH]], %[[C16]] : i32
// CHECK-NEXT:  %[[W0:.*]] = arith.ori %[[LOW]], %[[UP]] : i32
// block 1's word, 22 bytes on
// CHECK-NEXT:  %[[C22:.*]] = arith.constant 22 : i32
// CHECK:       %[[W1:.*]] = arith.ori
// CHECK-NEXT:  %qh = builtin.unrealized_conversion_cast %[[W0]], %[[W1]] : i32, i32 to tensor<8x2xi32
// d8: the fp16 d widened and multiplied by 1/8
// CHECK:       builtin.unrealized_conversion_cast %dv
// CHECK:       %[[D:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:  %[[EIGHTH:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT:  arith.mulf %[[D]], %[[EIGHTH]] : f32
func.func @q5_0_parts(%m: !qgpu.memdesc<2x8x!qdot.block<q5_0>, #sh>) -> (tensor<32x8xi8, #b>, tensor<8x2xi32, #wb>, tensor<8x2xf32, #sb>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<2x8x!qdot.block<q5_0>, #sh> -> !qgpu.memdesc<32x8xi8, #qs0>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<32x8xi8, #qs0> -> tensor<32x8xi8, #b>
  %qhv = qgpu.block_part %m {part = "qh"} : !qgpu.memdesc<2x8x!qdot.block<q5_0>, #sh> -> !qgpu.memdesc<8x2xi32, #qh0>
  %qh = qgpu.local_load %qhv : !qgpu.memdesc<8x2xi32, #qh0> -> tensor<8x2xi32, #wb>
  %dv = qgpu.block_part %m {part = "d8"} : !qgpu.memdesc<2x8x!qdot.block<q5_0>, #sh> -> !qgpu.memdesc<8x2xf32, #d8>
  %d = qgpu.local_load %dv : !qgpu.memdesc<8x2xf32, #d8> -> tensor<8x2xf32, #sb>
  func.return %qs, %qh, %d : tensor<32x8xi8, #b>, tensor<8x2xi32, #wb>, tensor<8x2xf32, #sb>
}

// q5_1 as the rhs, two blocks per column (48 bytes apart): qs one word per block (8 + 4t, 32 + 4t),
// qh one word per block (4, 28)
// CHECK-LABEL: func.func @q5_1_parts
// CHECK:       builtin.unrealized_conversion_cast %qsv
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C8]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C32]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// CHECK:       builtin.unrealized_conversion_cast %qhv
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[AT:.*]] = arith.addi %{{.*}}, %[[C4]] : i32
// CHECK-NEXT:  %[[W0:.*]] = ptx.ld_shared %[[AT]] : i32
// CHECK-NEXT:  %[[C24:.*]] = arith.constant 24 : i32
// CHECK:       %[[W1:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  %qh = builtin.unrealized_conversion_cast %[[W0]], %[[W1]] : i32, i32 to tensor<8x2xi32
func.func @q5_1_parts(%m: !qgpu.memdesc<2x8x!qdot.block<q5_1>, #sh>) -> (tensor<32x8xi8, #b>, tensor<8x2xi32, #wb>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<2x8x!qdot.block<q5_1>, #sh> -> !qgpu.memdesc<32x8xi8, #qs1>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<32x8xi8, #qs1> -> tensor<32x8xi8, #b>
  %qhv = qgpu.block_part %m {part = "qh"} : !qgpu.memdesc<2x8x!qdot.block<q5_1>, #sh> -> !qgpu.memdesc<8x2xi32, #qh1>
  %qh = qgpu.local_load %qhv : !qgpu.memdesc<8x2xi32, #qh1> -> tensor<8x2xi32, #wb>
  func.return %qs, %qh : tensor<32x8xi8, #b>, tensor<8x2xi32, #wb>
}

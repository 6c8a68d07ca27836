// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ldmatrix' %t | filecheck %s --check-prefix=LDMATRIX
// RUN: not grep -e 'ptx.ld_shared .* : i8$' %t
// LDMATRIX: {{^3$}}
// Loads from views of raw q5_K blocks in shared memory (block_q5_K: fp16 d at byte 0, fp16 dmin at 2,
// scales[12] at 4 packed as q4_K's, qh[32] at 16, qs[128] at 48; 176 bytes per block). The decisions
// this file pins:
// * `qs` and `qh` are read by ldmatrix: a block is 176 = 11 · 16 bytes, so every 16-byte row of
//   either part is 16-aligned — two x4 for qs (128 bytes a column: 4 k tiles), one x2 for qh (32);
//   never byte loads;
// * `scale` is d · sc of each 32-value sub-block: the fp16 d at byte 0 times the 6-bit sc unpacked
//   from the 32-bit words of scales[12] at 4 (get_scale_min_k4), and `min` dmin · m with dmin at 2
//   and m from the word at 8 — q4_K's arithmetic at q5_K's offsets, no / 16 (q5_K's quants are not
//   upcast in place).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "q5_K", part = "qs", blocks = 1, valueDim = 0}>
#qh = #qgpu.block_part<{format = "q5_K", part = "qh", blocks = 1, valueDim = 0}>
#sc = #qgpu.block_part<{format = "q5_K", part = "scale", blocks = 1, valueDim = 0}>
#mn = #qgpu.block_part<{format = "q5_K", part = "min", blocks = 1, valueDim = 0}>

// q5_K as the rhs (the prefill kernel's W), one super-block per column, columns 176 bytes apart.
// CHECK-LABEL: func.func @q5_K_parts
// CHECK:       %[[COL:.*]] = arith.constant 176 : i32
// CHECK:       %[[QS:.*]] = builtin.unrealized_conversion_cast %qsv : {{.*}} to i32
// CHECK-NEXT:  %[[C48:.*]] = arith.constant 48 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %{{.*}}, %[[C48]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[QS]], %[[O0]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A0]]
// CHECK-NEXT:  %[[C112:.*]] = arith.constant 112 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %{{.*}}, %[[C112]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[QS]], %[[O1]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A1]]
// CHECK:       %[[QH:.*]] = builtin.unrealized_conversion_cast %qhv : {{.*}} to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.addi %{{.*}}, %[[C16]] : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.addi %[[QH]], %[[O2]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x2 b16 %[[A2]]
// sub-block 0's scale: d (byte 0) · (scales[0] & 63)
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK:       %[[SA:.*]] = arith.addi %[[SC]], %{{.*}} : i32
// CHECK-NEXT:  %[[DH:.*]] = ptx.ld_shared %[[SA]] : i16
// CHECK-NEXT:  %[[DF:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  %[[D:.*]] = arith.extf %[[DF]] : f16 to f32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[WA:.*]] = arith.addi %[[SA]], %[[C4]] : i32
// CHECK-NEXT:  %[[W:.*]] = ptx.ld_shared %[[WA]] : i32
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[B:.*]] = arith.andi %[[W]], %[[C255]] : i32
// CHECK-NEXT:  %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT:  %[[CODE:.*]] = arith.andi %[[B]], %[[C63]] : i32
// CHECK-NEXT:  %[[MAGIC:.*]] = arith.constant 1258291200 : i32
// CHECK-NEXT:  %[[CI:.*]] = arith.ori %[[CODE]], %[[MAGIC]] : i32
// CHECK-NEXT:  %[[CF:.*]] = arith.bitcast %[[CI]] : i32 to f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB000000 : f32
// CHECK-NEXT:  %[[ND:.*]] = arith.mulf %[[D]], %[[NEG]] : f32
// CHECK-NEXT:  math.fma %[[CF]], %[[D]], %[[ND]] : f32
// sub-block 0's min: dmin (byte 2) · (scales[4] & 63), scales[4..7] the word at byte 8
// CHECK:       %[[MN:.*]] = builtin.unrealized_conversion_cast %mnv : {{.*}} to i32
// CHECK:       %[[MA:.*]] = arith.addi %[[MN]], %{{.*}} : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[DMA:.*]] = arith.addi %[[MA]], %[[C2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[DMA]] : i16
// CHECK-NEXT:  arith.bitcast
// CHECK-NEXT:  %[[DMIN:.*]] = arith.extf
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[MWA:.*]] = arith.addi %[[MA]], %[[C8]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[MWA]] : i32
// CHECK-NOT:   arith.constant 6.250000e-02
func.func @q5_K_parts(%m: !qgpu.memdesc<1x8x!qdot.block<q5_K>, #sh>) -> (tensor<128x8xi8, #b>, tensor<32x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x8x!qdot.block<q5_K>, #sh> -> !qgpu.memdesc<128x8xi8, #qs>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<128x8xi8, #qs> -> tensor<128x8xi8, #b>
  %qhv = qgpu.block_part %m {part = "qh"} : !qgpu.memdesc<1x8x!qdot.block<q5_K>, #sh> -> !qgpu.memdesc<32x8xi8, #qh>
  %qh = qgpu.local_load %qhv : !qgpu.memdesc<32x8xi8, #qh> -> tensor<32x8xi8, #b>
  %scv = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<1x8x!qdot.block<q5_K>, #sh> -> !qgpu.memdesc<8x8xf32, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<8x8xf32, #sc> -> tensor<8x8xf32, #sb>
  %mnv = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<1x8x!qdot.block<q5_K>, #sh> -> !qgpu.memdesc<8x8xf32, #mn>
  %mn = qgpu.local_load %mnv : !qgpu.memdesc<8x8xf32, #mn> -> tensor<8x8xf32, #sb>
  func.return %qs, %qh, %sc, %mn : tensor<128x8xi8, #b>, tensor<32x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>
}

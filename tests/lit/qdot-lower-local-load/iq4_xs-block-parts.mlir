// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ld_shared .* : i32$' %t | filecheck %s --check-prefix=WORDS
// RUN: grep -c 'ptx.ld_shared .* : i16$' %t | filecheck %s --check-prefix=HALVES
// RUN: not grep -e 'ptx.ldmatrix' -e 'ptx.ld_shared .* : i8$' -e 'arith.uitofp' %t
// WORDS:  {{^32$}}
// HALVES: {{^32$}}
// Loads from views of raw iq4_xs blocks in shared memory (block_iq4_xs: fp16 d at byte 0, uint16 scales_h
// at 2, uint8 scales_l[4] at 4, qs[128] at 8; 136 bytes per super-block). The decisions this file pins:
// * `qs` is read with 32-bit ld.shared, never ldmatrix nor bytes: a block is 136 = 8.5 · 16 bytes, so its
//   16-byte rows are 8-aligned only, but every word of qs (at 8 + 4i) is 4-aligned;
// * `scale` of span j (0..7) is d · (ls − 32), ls joined as ggml's dequantize_row_iq4_xs does: the 32-bit
//   scales_l word at byte 4 shifted right by 4j and masked with 15 (nibble j), the 16-bit scales_h at
//   byte 2 zero-extended, shifted right by 2j and masked with 3, shifted left 4 above it; ls − 32 is
//   signed (sitofp, not uitofp: −32..31) and multiplies the fp16 d at byte 0 widened exactly to f32;
//   the shifts by 0 of span 0 are left out;
// * a slice's `first` super-block is 136 bytes into the row.
// The counts: the prefill case's 16 qs words and, like the slice case, per row 8 scales_l words and
// 16 halves (scales_h and d): the fields are loaded again for each span j as this pass emits them (their
// sharing across the eight spans is left to later passes).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 0}>
#sc = #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 0}>

// iq4_xs as the rhs (the prefill kernel's W), one super-block per column, columns 136 bytes apart; the
// scale loaded in the blocked layout of the accelerate pass's once-per-CTA decode (a column's 8 spans per
// thread).
// CHECK-LABEL: func.func @iq4_xs_parts
// CHECK:       %[[C136:.*]] = arith.constant 136 : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[C136]] : i32
// qs: a thread's 16 words, 16 bytes apart from byte 8 of its column, then 8 columns (1088 bytes) on
// CHECK:       %[[QS:.*]] = builtin.unrealized_conversion_cast %qsv : {{.*}} to i32
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %{{.*}}, %[[C8]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[QS]], %[[O0]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A0]] : i32
// CHECK-NEXT:  arith.constant 24 : i32
// CHECK:       arith.constant 120 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  arith.constant 1096 : i32
// CHECK:       arith.constant 1208 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  builtin.unrealized_conversion_cast {{.*}} to tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1,
//
// span 0: scales_l's low nibble, scales_h's bits 0-1 above it, less 32, times d
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK:       %[[B0:.*]] = arith.addi %[[SC]], %{{.*}} : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[LA0:.*]] = arith.addi %[[B0]], %[[C4]] : i32
// CHECK-NEXT:  %[[L0:.*]] = ptx.ld_shared %[[LA0]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[HA0:.*]] = arith.addi %[[B0]], %[[C2]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[HA0]] : i16
// CHECK-NEXT:  %[[HZ0:.*]] = arith.extui %[[H0]] : i16 to i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[LO0:.*]] = arith.andi %[[L0]], %[[C15]] : i32
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[HI0:.*]] = arith.andi %[[HZ0]], %[[C3]] : i32
// CHECK-NEXT:  %[[HS0:.*]] = arith.shli %[[HI0]], %[[C4]] : i32
// CHECK-NEXT:  %[[LS0:.*]] = arith.ori %[[LO0]], %[[HS0]] : i32
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.subi %[[LS0]], %[[C32]] : i32
// CHECK-NEXT:  %[[DH0:.*]] = ptx.ld_shared %[[B0]] : i16
// CHECK-NEXT:  %[[DF0:.*]] = arith.bitcast %[[DH0]] : i16 to f16
// CHECK-NEXT:  %[[D0:.*]] = arith.extf %[[DF0]] : f16 to f32
// CHECK-NEXT:  %[[SF0:.*]] = arith.sitofp %[[S0]] : i32 to f32
// CHECK-NEXT:  %[[V0:.*]] = arith.mulf %[[D0]], %[[SF0]] : f32
// span 1: nibble 1 (>> 4), bits 2-3 (>> 2)
// CHECK-NEXT:  %[[B1:.*]] = arith.addi %[[SC]], %{{.*}} : i32
// CHECK-NEXT:  %[[LA1:.*]] = arith.addi %[[B1]], %[[C4]] : i32
// CHECK-NEXT:  %[[L1:.*]] = ptx.ld_shared %[[LA1]] : i32
// CHECK-NEXT:  %[[HA1:.*]] = arith.addi %[[B1]], %[[C2]] : i32
// CHECK-NEXT:  %[[H1:.*]] = ptx.ld_shared %[[HA1]] : i16
// CHECK-NEXT:  %[[HZ1:.*]] = arith.extui %[[H1]] : i16 to i32
// CHECK-NEXT:  %[[LR1:.*]] = arith.shrui %[[L1]], %[[C4]] : i32
// CHECK-NEXT:  %[[LO1:.*]] = arith.andi %[[LR1]], %[[C15]] : i32
// CHECK-NEXT:  %[[HR1:.*]] = arith.shrui %[[HZ1]], %[[C2]] : i32
// CHECK-NEXT:  %[[HI1:.*]] = arith.andi %[[HR1]], %[[C3]] : i32
// CHECK-NEXT:  %[[HS1:.*]] = arith.shli %[[HI1]], %[[C4]] : i32
// CHECK-NEXT:  %[[LS1:.*]] = arith.ori %[[LO1]], %[[HS1]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.subi %[[LS1]], %[[C32]] : i32
// CHECK-NEXT:  %[[DH1:.*]] = ptx.ld_shared %[[B1]] : i16
// CHECK-NEXT:  %[[DF1:.*]] = arith.bitcast %[[DH1]] : i16 to f16
// CHECK-NEXT:  %[[D1:.*]] = arith.extf %[[DF1]] : f16 to f32
// CHECK-NEXT:  %[[SF1:.*]] = arith.sitofp %[[S1]] : i32 to f32
// CHECK-NEXT:  %[[V1:.*]] = arith.mulf %[[D1]], %[[SF1]] : f32
// span 2: >> 8 and >> 4
// CHECK:       %[[C8S:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C8S]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C4]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C3]] : i32
// CHECK:       %[[V2:.*]] = arith.mulf
// span 3: >> 12 and >> 6
// CHECK:       %[[C12:.*]] = arith.constant 12 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C12]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C6]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C3]] : i32
// CHECK:       %[[V3:.*]] = arith.mulf
// spans 4-6: >> 16 / 8, >> 20 / 10, >> 24 / 12
// CHECK:       %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C16]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C8S]] : i32
// CHECK:       %[[V4:.*]] = arith.mulf
// CHECK:       %[[C20:.*]] = arith.constant 20 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C20]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  %[[C10:.*]] = arith.constant 10 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C10]] : i32
// CHECK:       %[[V5:.*]] = arith.mulf
// CHECK:       %[[C24:.*]] = arith.constant 24 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C24]] : i32
// CHECK-NEXT:  arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C12]] : i32
// CHECK:       %[[V6:.*]] = arith.mulf
// span 7: the top nibble (>> 28) and bits 14-15 (>> 14)
// CHECK:       %[[B7:.*]] = arith.addi %[[SC]], %{{.*}} : i32
// CHECK-NEXT:  %[[LA7:.*]] = arith.addi %[[B7]], %[[C4]] : i32
// CHECK-NEXT:  %[[L7:.*]] = ptx.ld_shared %[[LA7]] : i32
// CHECK-NEXT:  %[[HA7:.*]] = arith.addi %[[B7]], %[[C2]] : i32
// CHECK-NEXT:  %[[H7:.*]] = ptx.ld_shared %[[HA7]] : i16
// CHECK-NEXT:  %[[HZ7:.*]] = arith.extui %[[H7]] : i16 to i32
// CHECK-NEXT:  %[[C28:.*]] = arith.constant 28 : i32
// CHECK-NEXT:  %[[LR7:.*]] = arith.shrui %[[L7]], %[[C28]] : i32
// CHECK-NEXT:  %[[LO7:.*]] = arith.andi %[[LR7]], %[[C15]] : i32
// CHECK-NEXT:  %[[C14:.*]] = arith.constant 14 : i32
// CHECK-NEXT:  %[[HR7:.*]] = arith.shrui %[[HZ7]], %[[C14]] : i32
// CHECK-NEXT:  %[[HI7:.*]] = arith.andi %[[HR7]], %[[C3]] : i32
// CHECK-NEXT:  %[[HS7:.*]] = arith.shli %[[HI7]], %[[C4]] : i32
// CHECK-NEXT:  %[[LS7:.*]] = arith.ori %[[LO7]], %[[HS7]] : i32
// CHECK-NEXT:  %[[S7:.*]] = arith.subi %[[LS7]], %[[C32]] : i32
// CHECK-NEXT:  %[[DH7:.*]] = ptx.ld_shared %[[B7]] : i16
// CHECK-NEXT:  %[[DF7:.*]] = arith.bitcast %[[DH7]] : i16 to f16
// CHECK-NEXT:  %[[D7:.*]] = arith.extf %[[DF7]] : f16 to f32
// CHECK-NEXT:  %[[SF7:.*]] = arith.sitofp %[[S7]] : i32 to f32
// CHECK-NEXT:  %[[V7:.*]] = arith.mulf %[[D7]], %[[SF7]] : f32
// CHECK-NEXT:  %sc = builtin.unrealized_conversion_cast %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]] : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8],
func.func @iq4_xs_parts(%m: !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh>) -> (tensor<128x16xi8, #b>, tensor<16x8xf32, #bl>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<128x16xi8, #qs>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<128x16xi8, #qs> -> tensor<128x16xi8, #b>
  %scv = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x8xf32, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<16x8xf32, #sc> -> tensor<16x8xf32, #bl>
  func.return %qs, %sc : tensor<128x16xi8, #b>, tensor<16x8xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sc1 = #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 1}>

// iq4_xs as the lhs (the decode kernel's weights), a tile of two super-blocks per row (rows 272 bytes
// apart), the second one's slice (`first = 1`): its fields 136 bytes into the row — scales_l at 136 + 4,
// scales_h at 136 + 2, d at 136.
// CHECK-LABEL: func.func @iq4_xs_scale_slice
// CHECK:       %[[C272:.*]] = arith.constant 272 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C272]] : i32
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK-NEXT:  %[[C136:.*]] = arith.constant 136 : i32
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[ROW]], %[[C136]] : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.addi %[[SC]], %[[OFF]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[LA0:.*]] = arith.addi %[[B0]], %[[C4]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[LA0]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[HA0:.*]] = arith.addi %[[B0]], %[[C2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[HA0]] : i16
// CHECK:       arith.subi
// CHECK:       ptx.ld_shared %[[B0]] : i16
// CHECK:       %sc = builtin.unrealized_conversion_cast {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32
func.func @iq4_xs_scale_slice(%m: !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh>) -> tensor<16x8xf32, #bl> {
  %scv = qgpu.block_part %m {part = "scale", first = 1 : i64, count = 1 : i64} : !qgpu.memdesc<16x2x!qdot.block<iq4_xs>, #sh> -> !qgpu.memdesc<16x8xf32, #sc1>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<16x8xf32, #sc1> -> tensor<16x8xf32, #bl>
  func.return %sc : tensor<16x8xf32, #bl>
}

// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ld_shared .* : i8$' %t | filecheck %s --check-prefix=BYTES
// BYTES: {{^32$}}
// Loads from views of raw q3_K blocks in shared memory (block_q3_K: hmask[32] at byte 0, qs[64] at 32,
// scales[12] at 96, fp16 d at 108; 110 bytes per block). The decisions this file pins:
// * `qs` and `hmask` are read with scalar ld.shared: a block starts 110 bytes after the previous one,
//   2-aligned only, so each register is two 16-bit loads (as q6_K's, q6_K-block-parts.mlir), never
//   single bytes;
// * `sc` (i32 per 16 values, the mma's integer factor) is unpacked from scales[12] as
//   dequantize_row_q3_K does: scale s has the low four bits of byte 96 + s mod 8 (its low nibble for
//   s < 8, its high one above) and on top bits 2 · (s / 4), 2 · (s / 4) + 1 of byte 104 + s mod 4, less 32
//   — two byte loads per value (the fields are 2-aligned), 32 for a row's 16 (loaded here in the blocked
//   layout the accelerate pass gives its once-per-CTA decode: a row's 16 scales per thread);
// * `d32` (the per-32 scale) is the block's fp16 d at byte 108, widened exactly and divided by 32
//   (× 0.03125, exact), for each of the 8 32-value blocks of a column: the upcast's s8 values are
//   32 · (code − 4).

// q3_K as the rhs (the prefill kernel's W), one super-block per column, columns 110 bytes apart.
// CHECK-LABEL: func.func @q3_K_parts
// CHECK:       builtin.unrealized_conversion_cast %qsv : {{.*}} to i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK-NEXT:  arith.extui %{{.*}} : i16 to i32
// CHECK-NOT:   ptx.ld_shared {{.*}} : i32
// CHECK:       builtin.unrealized_conversion_cast %hmv : {{.*}} to i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:   ptx.ld_shared {{.*}} : i32
// scale 0: byte 96's low nibble, byte 104's bits 0-1 above it, less 32
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK:       %[[C96:.*]] = arith.constant 96 : i32
// CHECK-NEXT:  %[[A96:.*]] = arith.addi %{{.*}}, %[[C96]] : i32
// CHECK-NEXT:  %[[B96:.*]] = ptx.ld_shared %[[A96]] : i8
// CHECK-NEXT:  %[[Z96:.*]] = arith.extui %[[B96]] : i8 to i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[LO:.*]] = arith.andi %[[Z96]], %[[C15]] : i32
// CHECK-NEXT:  %[[C104:.*]] = arith.constant 104 : i32
// CHECK-NEXT:  %[[A104:.*]] = arith.addi %{{.*}}, %[[C104]] : i32
// CHECK-NEXT:  %[[B104:.*]] = ptx.ld_shared %[[A104]] : i8
// CHECK-NEXT:  %[[Z104:.*]] = arith.extui %[[B104]] : i8 to i32
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[HI:.*]] = arith.andi %[[Z104]], %[[C3]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[HIS:.*]] = arith.shli %[[HI]], %[[C4]] : i32
// CHECK-NEXT:  %[[CODE:.*]] = arith.ori %[[LO]], %[[HIS]] : i32
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.subi %[[CODE]], %[[C32]] : i32
// scale 1: bytes 97 and 105
// CHECK:       arith.constant 97 : i32
// CHECK:       arith.constant 105 : i32
// scales 12-15: bits 6-7 of bytes 104-107 (>> 6) on top of the high nibbles of bytes 100-103
// CHECK:       %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  arith.shrui %{{.*}}, %[[C6]] : i32
// CHECK:       %sc = builtin.unrealized_conversion_cast %[[S0]], {{.*}} : i32, {{.*}} to tensor<8x16xi32
// d32: the fp16 d at 108, widened, / 32
// CHECK:       %[[D:.*]] = builtin.unrealized_conversion_cast %dv : {{.*}} to i32
// CHECK:       %[[C108:.*]] = arith.constant 108 : i32
// CHECK-NEXT:  %[[DA:.*]] = arith.addi %{{.*}}, %[[C108]] : i32
// CHECK-NEXT:  %[[DH:.*]] = ptx.ld_shared %[[DA]] : i16
// CHECK-NEXT:  %[[DF:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  %[[DW:.*]] = arith.extf %[[DF]] : f16 to f32
// CHECK-NEXT:  %[[THIRTY2ND:.*]] = arith.constant 3.125000e-02 : f32
// CHECK-NEXT:  arith.mulf %[[DW]], %[[THIRTY2ND]] : f32

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q3_K", part = "qs", blocks = 1, valueDim = 0}>
#hm = #qgpu.block_part<{format = "q3_K", part = "hmask", blocks = 1, valueDim = 0}>
#sc = #qgpu.block_part<{format = "q3_K", part = "sc", blocks = 1, valueDim = 0}>
#d = #qgpu.block_part<{format = "q3_K", part = "d32", blocks = 1, valueDim = 0}>
func.func @q3_K_parts(%m: !qgpu.memdesc<1x8x!qdot.block<q3_K>, #sh>) -> (tensor<64x8xi8, #b>, tensor<32x8xi8, #b>, tensor<8x16xi32, #bl>, tensor<8x8xf32, #sb>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x8x!qdot.block<q3_K>, #sh> -> !qgpu.memdesc<64x8xi8, #qs>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<64x8xi8, #qs> -> tensor<64x8xi8, #b>
  %hmv = qgpu.block_part %m {part = "hmask"} : !qgpu.memdesc<1x8x!qdot.block<q3_K>, #sh> -> !qgpu.memdesc<32x8xi8, #hm>
  %hm = qgpu.local_load %hmv : !qgpu.memdesc<32x8xi8, #hm> -> tensor<32x8xi8, #b>
  %scv = qgpu.block_part %m {part = "sc"} : !qgpu.memdesc<1x8x!qdot.block<q3_K>, #sh> -> !qgpu.memdesc<8x16xi32, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<8x16xi32, #sc> -> tensor<8x16xi32, #bl>
  %dv = qgpu.block_part %m {part = "d32"} : !qgpu.memdesc<1x8x!qdot.block<q3_K>, #sh> -> !qgpu.memdesc<8x8xf32, #d>
  %d = qgpu.local_load %dv : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  func.return %qs, %hm, %sc, %d : tensor<64x8xi8, #b>, tensor<32x8xi8, #b>, tensor<8x16xi32, #bl>, tensor<8x8xf32, #sb>
}

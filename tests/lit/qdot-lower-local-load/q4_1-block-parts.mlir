// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ld_shared .* : i32$' %t | filecheck %s --check-prefix=WORDS
// RUN: not grep -e 'ptx.ldmatrix' -e 'ptx.ld_shared .* : i8$' %t
// WORDS: {{^8$}}
// Loads from views of raw q4_1 blocks in shared memory (block_q4_1: fp16 d at byte 0, fp16 m at 2,
// 16 bytes of nibbles `qs` from byte 4; 20 bytes per block, so a row of 8 blocks — one K step of
// the MMQ kernels — is 160 bytes). The decisions this file pins:
// * `qs` is read with one 32-bit ld.shared per register: its bytes start 4 into a 20-byte block,
//   always 4-aligned (unlike q4_0's 2 mod 4, read in 16-bit halves) but never at the multiple of 16
//   ldmatrix needs; never single bytes;
// * `d` is the fp16 d widened as it is (no / 16: q4_1's codes are upcast unscaled) and `min` the
//   fp16 m at byte 2 widened and multiplied by −1 (exact): the fold subtracts what it reads, and
//   q4_1's m is added (value = d · code + m);
// * the m term's f16 mma reads `m_pad` — two k-slots per block, (−m, 0) — against q8_1_mmq's
//   `s_pair` — (s, 0) per 32 values, s the fp16 at byte 2 + 4i of the block's ds4 header — so the
//   eight blocks of a K step and the two q8_1_mmq blocks of the same 256 values meet slot for slot.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#shx = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q4_1", part = "qs", blocks = 8, valueDim = 0}>
#d = #qgpu.block_part<{format = "q4_1", part = "d", blocks = 8, valueDim = 0}>
#mn = #qgpu.block_part<{format = "q4_1", part = "min", blocks = 8, valueDim = 0}>
#mp = #qgpu.block_part<{format = "q4_1", part = "m_pad", blocks = 8, valueDim = 0}>
#sp = #qgpu.block_part<{format = "q8_1_mmq", part = "s_pair", blocks = 2, valueDim = 1}>

// q4_1 as the rhs (the prefill kernel's W), eight blocks per column, columns 160 bytes apart;
// register j is block j's bytes 4t..4t+3, at 4 + 20 j + 4t.
// CHECK-LABEL: func.func @q4_1_parts
// CHECK:       %[[C160:.*]] = arith.constant 160 : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[C160]] : i32
// CHECK:       builtin.unrealized_conversion_cast %qsv
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C4]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  %[[C24:.*]] = arith.constant 24 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C24]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i32
// d: the fp16 at the block's byte 0, widened, nothing else
// CHECK:       %[[DV:.*]] = builtin.unrealized_conversion_cast %dv
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[DA:.*]] = arith.addi %[[DV]], %{{.*}} : i32
// CHECK-NEXT:  %[[DH:.*]] = ptx.ld_shared %[[DA]] : i16
// CHECK-NEXT:  %[[DF:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  arith.extf %[[DF]] : f16 to f32
// CHECK-NOT:   arith.mulf
// min: the fp16 at byte 2, widened and negated
// CHECK:       %[[MV:.*]] = builtin.unrealized_conversion_cast %mnv
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[MB:.*]] = arith.addi %[[MV]], %{{.*}} : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[MA:.*]] = arith.addi %[[MB]], %[[C2]] : i32
// CHECK-NEXT:  %[[MH:.*]] = ptx.ld_shared %[[MA]] : i16
// CHECK-NEXT:  %[[MF:.*]] = arith.bitcast %[[MH]] : i16 to f16
// CHECK-NEXT:  %[[MW:.*]] = arith.extf %[[MF]] : f16 to f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:  arith.mulf %[[MW]], %[[NEG]] : f32
// m_pad: slot 0 of each block is −m (byte 2), slot 1 a zero; the next block's m 20 bytes on
// CHECK:       %[[PV:.*]] = builtin.unrealized_conversion_cast %mpv
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[P0:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:       %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[C20:.*]] = arith.constant 20 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[P2:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// the f16 pairs: (−m_j, 0) in one register each
// CHECK:       arith.truncf %[[P0]] : f32 to f16
// CHECK:       arith.truncf %[[Z]] : f32 to f16
func.func @q4_1_parts(%m: !qgpu.memdesc<8x8x!qdot.block<q4_1>, #sh>) -> (tensor<128x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>, tensor<8x16xf16, #bl>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x8x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<128x8xi8, #qs>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<128x8xi8, #qs> -> tensor<128x8xi8, #b>
  %dv = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<8x8x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<8x8xf32, #d>
  %d = qgpu.local_load %dv : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  %mnv = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<8x8x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<8x8xf32, #mn>
  %mn = qgpu.local_load %mnv : !qgpu.memdesc<8x8xf32, #mn> -> tensor<8x8xf32, #sb>
  %mpv = qgpu.block_part %m {part = "m_pad"} : !qgpu.memdesc<8x8x!qdot.block<q4_1>, #sh> -> !qgpu.memdesc<8x16xf16, #mp>
  %mp = qgpu.local_load %mpv : !qgpu.memdesc<8x16xf16, #mp> -> tensor<8x16xf16, #bl>
  func.return %qs, %d, %mn, %mp : tensor<128x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>, tensor<8x16xf16, #bl>
}

// q8_1_mmq's sums as the m fold's other operand: slot 2i of each 128-value block is the s of its
// values 32i.. (ds4 pair i: bytes 4i + 2), slot 2i + 1 a zero.
// CHECK-LABEL: func.func @q8_1_mmq_s_pair
// CHECK:       %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C2]] : i32
// CHECK-NEXT:  %[[S0:.*]] = ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  arith.addi %{{.*}}, %[[C6]] : i32
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK:       arith.constant 10 : i32
// CHECK:       arith.constant 14 : i32
// the second q8_1_mmq block of the K step, 144 bytes on
// CHECK:       arith.constant 144 : i32
func.func @q8_1_mmq_s_pair(%x: !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #shx>) -> tensor<32x16xf16, #bl> {
  %spv = qgpu.block_part %x {part = "s_pair"} : !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #shx> -> !qgpu.memdesc<32x16xf16, #sp>
  %sp = qgpu.local_load %spv : !qgpu.memdesc<32x16xf16, #sp> -> tensor<32x16xf16, #bl>
  func.return %sp : tensor<32x16xf16, #bl>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// Loads from views of ggml's raw mxfp4 blocks in shared memory (block_mxfp4: the E8M0 exponent e at
// byte 0, 16 bytes of e2m1 nibbles `qs` from byte 1; 17 bytes per block, so a column of 8 blocks —
// one K step of the MMQ kernels — is 136 bytes). The decisions this file pins:
// * a `qs` register (4 bytes at 1 + 17 · block + 4t) starts at every alignment in turn: block 0 at
//   1 mod 4, block 1 at 2, block 2 at 3, block 3 at 0. At 1 and 3 mod 4 it is the two aligned words
//   around it, each one 32-bit ld.shared, joined by one prmt (selector 0x4321 = 17185 at 1 mod 4,
//   0x6543 = 25923 at 3 mod 4) — never single bytes; at 2 mod 4 two 16-bit halves (as q4_0's); at 0
//   one word;
// * `d` is ggml's e8m0_to_fp32_half(e) = 2^(e − 128) built as ggml builds its bits: one zero-extended
//   ld.shared.u8 of e, (e − 1) << 23 for e ≥ 2, 0x00200000 << (e & 1) (the subnormals 2^-128 and
//   2^-127 below: the & 1 keeps the unchosen shift below 32, where it is defined) chosen by an
//   unsigned compare, bitcast to f32 — no fp16 field, no multiply.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "mxfp4", part = "qs", blocks = 8, valueDim = 0}>

// mxfp4 as the rhs (the prefill kernel's W): lane (g, t) holds column g (136 bytes apart), bytes
// 4t..4t+3 of each block.
// CHECK-LABEL: func.func @mxfp4_qs_rhs
// CHECK:       %[[C136:.*]] = arith.constant 136 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %{{.*}}, %[[C136]] : i32
// CHECK-NEXT:  %[[THREAD:.*]] = arith.addi %{{.*}}, %[[COL]] : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// block 0, bytes 1 + 4t ..: the words at 4t and 4t + 4, bytes 1-4 of the pair
// CHECK:       %[[A0:.*]] = arith.addi %[[BASE]], %[[THREAD]] : i32
// CHECK-NEXT:  %[[L0:.*]] = ptx.ld_shared %[[A0]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[O0H:.*]] = arith.addi %[[THREAD]], %[[C4]] : i32
// CHECK-NEXT:  %[[A0H:.*]] = arith.addi %[[BASE]], %[[O0H]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[A0H]] : i32
// CHECK-NEXT:  %[[SEL1:.*]] = arith.constant 17185 : i32
// CHECK-NEXT:  %[[W0:.*]] = ptx.prmt %[[L0]], %[[H0]], %[[SEL1]]
// block 1, bytes 18 + 4t ..: two halves
// CHECK-NEXT:  arith.constant 18 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.constant 2 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[W1:.*]] = arith.ori
// block 2, bytes 35 + 4t ..: the words at 32 + 4t and 36 + 4t, bytes 3-6 of the pair
// CHECK-NEXT:  arith.constant 32 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[L2:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  arith.constant 36 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[H2:.*]] = ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  %[[SEL3:.*]] = arith.constant 25923 : i32
// CHECK-NEXT:  %[[W2:.*]] = ptx.prmt %[[L2]], %[[H2]], %[[SEL3]]
// block 3, bytes 52 + 4t ..: one word
// CHECK-NEXT:  arith.constant 52 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[W3:.*]] = ptx.ld_shared %{{.*}} : i32
// blocks 4-7 the same, each prmt with one of the two selectors
// CHECK-NEXT:  arith.constant 68 : i32
// CHECK:       ptx.prmt %{{.*}}, %{{.*}}, %[[SEL1]]
// CHECK:       ptx.prmt %{{.*}}, %{{.*}}, %[[SEL3]]
// CHECK:       builtin.unrealized_conversion_cast %[[W0]], %[[W1]], %[[W2]], %[[W3]], {{.*}} to tensor<128x8xi8, #qgpu.dot_op<{opIdx = 1,
// CHECK-NOT:   ptx.ld_shared %{{.*}} : i8
// CHECK-NOT:   ptx.ldmatrix
func.func @mxfp4_qs_rhs(%m: !qgpu.memdesc<8x8x!qdot.block<mxfp4>, #sh>) -> tensor<128x8xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x8x!qdot.block<mxfp4>, #sh> -> !qgpu.memdesc<128x8xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<128x8xi8, #qs> -> tensor<128x8xi8, #b>
  func.return %r : tensor<128x8xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#s = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#d = #qgpu.block_part<{format = "mxfp4", part = "d", blocks = 2, valueDim = 0}>

// CHECK-LABEL: func.func @mxfp4_d_rhs
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %dv : {{.*}} to i32
// CHECK:       %[[EB:.*]] = ptx.ld_shared %{{.*}} : i8
// CHECK-NEXT:  %[[E:.*]] = arith.extui %[[EB]] : i8 to i32
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[EM1:.*]] = arith.subi %[[E]], %[[C1]] : i32
// CHECK-NEXT:  %[[C23:.*]] = arith.constant 23 : i32
// CHECK-NEXT:  %[[NORMAL:.*]] = arith.shli %[[EM1]], %[[C23]] : i32
// CHECK-NEXT:  %[[SUB:.*]] = arith.constant 2097152 : i32
// CHECK-NEXT:  %[[E1:.*]] = arith.andi %[[E]], %[[C1]] : i32
// CHECK-NEXT:  %[[SMALL:.*]] = arith.shli %[[SUB]], %[[E1]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[LOW:.*]] = arith.cmpi ult, %[[E]], %[[C2]] : i32
// CHECK-NEXT:  %[[BITS:.*]] = arith.select %[[LOW]], %[[SMALL]], %[[NORMAL]] : i32
// CHECK-NEXT:  %[[D0:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// the next block's e, 17 bytes on
// CHECK-NEXT:  arith.constant 17 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i8
// CHECK-NOT:   : i16
// CHECK-NOT:   arith.mulf
// CHECK:       builtin.unrealized_conversion_cast %[[D0]], {{.*}} to tensor<8x2xf32
func.func @mxfp4_d_rhs(%m: !qgpu.memdesc<2x8x!qdot.block<mxfp4>, #sh>) -> tensor<8x2xf32, #s> {
  %dv = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<2x8x!qdot.block<mxfp4>, #sh> -> !qgpu.memdesc<8x2xf32, #d>
  %r = qgpu.local_load %dv : !qgpu.memdesc<8x2xf32, #d> -> tensor<8x2xf32, #s>
  func.return %r : tensor<8x2xf32, #s>
}

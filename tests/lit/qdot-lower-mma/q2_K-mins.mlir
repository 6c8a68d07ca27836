// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.mma_sync m16n8k32' %t | filecheck %s --check-prefix=K32-COUNT
// RUN: grep -c 'ptx.prmt ' %t | filecheck %s --check-prefix=PRMT-COUNT
// RUN: not grep -e 'ptx.mma_sync m16n8k16' -e 'arith.muli' %t
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// `lhs_min` / `rhs_min` (q2_K's 4-bit min per 16 values, what qdot-accelerate-matmul gives q2_K × q8_1 /
// q8_1_mmq): a q2_K value is d · sc · q − dmin · m per 16 values, so a 32-value block's dot with the
// activations x (scale dx) is dx · d · Σ (sc · q) · x − dx · dmin · Σ_k m[k/16] · x_k. The first term is
// one ordinary per-block mma (the upcast has already multiplied sc into the u8 codes). The second needs the
// activations' values, not their per-32 sums: each k tile takes one more m16n8k32 whose min-side operand
// registers are replaced by the mins — each operand register holds four consecutive k of one 16-value half
// (A: registers 0-1 k 0-15 of rows g / g + 8, 2-3 k 16-31; B: 0 and 1; the operand's kWidth is 4), so its
// half's min repeated in four bytes stands for it. The mins arrive as i8 in the operand scale layout, four
// to a register, so each register's row (A) or column (B) is in the thread that holds it, as one byte of
// one of its words: one `ptx.prmt %w, %w, byte · 0x1111` (selectors 0, 4369, 8738, 13107 for bytes 0-3)
// repeats it, once per (word, byte) of the mins — no multiply (no `min · 0x01010101`). The other
// side's registers go in unchanged. Its s32 sum (|sum| ≤ 32 · 15 · 128 < 2^20) is folded with
// −fa · fb (fa, fb the fold operands: the blocks' dmin and the activations' d):
// * with `qdot.scale_bits` ≤ 22 (what the accelerate pass states: fp16 scales and fold factors), in the
//   magic form like the block sum beside it — both mmas start from 1.5 · 2^23 (1262485504), the min sum's
//   f32 bits go through `math.fma(bits, −fa, fa · 1.5 · 2^23)` (0x4B400000) and then times fb into the
//   accumulator: no sitofp;
// * without it, converted (sitofp) and folded by FMA with the product −fa · fb, in place of q4_K's implicit
//   1 (q4k-fold.mlir), both mmas from a zero accumulator.
// K32-COUNT: {{^8$}}
// PRMT-COUNT: {{^12$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// The mins on B (the prefill kernel's q2_K W, u8 sc · code), one k tile, magic form: column g's two mins
// are bytes 0 and 1 of one register; B register 0 (k 0-15 of column g) becomes its byte 0 repeated
// (selector 0), register 1 (k 16-31) its byte 1 (0x1111 = 4369); A (the activations' s8 values) is the
// same in both mmas. The min sum of accumulator (g, 2t) is scaled by
// −fa[g] (fa: the activations' d, here the scale %sa itself, as the accelerate pass gives it) and then fb[2t].
// CHECK-LABEL: func.func @rhs_min
// CHECK:       %[[A0:[^,]*]], %[[A1:[^,]*]], %[[A2:[^,]*]], %[[A3:.*]] = builtin.unrealized_conversion_cast %a
// CHECK-NEXT:  %[[B0:[^,]*]], %[[B1:.*]] = builtin.unrealized_conversion_cast %b
// CHECK-NEXT:  %[[C0:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} = builtin.unrealized_conversion_cast %c
// CHECK-NEXT:  builtin.unrealized_conversion_cast %sa : {{.*}} to f32, f32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %sb : {{.*}} to f32, f32
// CHECK-NEXT:  %[[FA0:[^,]*]], %[[FA1:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to f32, f32
// CHECK-NEXT:  %[[FB0:[^,]*]], %[[FB1:.*]] = builtin.unrealized_conversion_cast %fb : {{.*}} to f32, f32
// CHECK-NEXT:  %[[W:.*]] = builtin.unrealized_conversion_cast %mn : tensor<8x2xi8, {{.*}}> to i32{{$}}
// CHECK-NEXT:  %[[MAGIC:.*]] = arith.constant 1262485504 : i32
// CHECK-NEXT:  %[[S0:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.s8.u8.s32 A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[B0]], %[[B1]]] C[%[[MAGIC]], %[[MAGIC]], %[[MAGIC]], %[[MAGIC]]]
// CHECK-NEXT:  %[[SEL0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[BM0:.*]] = ptx.prmt %[[W]], %[[W]], %[[SEL0]]
// CHECK-NEXT:  %[[SEL1:.*]] = arith.constant 4369 : i32
// CHECK-NEXT:  %[[BM1:.*]] = ptx.prmt %[[W]], %[[W]], %[[SEL1]]
// CHECK-NEXT:  %[[N0:[^,]*]], %[[N1:[^,]*]], %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.s8.u8.s32 A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[BM0]], %[[BM1]]] C[%[[MAGIC]], %[[MAGIC]], %[[MAGIC]], %[[MAGIC]]]
// accumulator (g, 2t): the block sum's magic rescale, then the min sum's with −fa[g], times fb[2t]
// CHECK:       %[[R0:.*]] = arith.addf %{{.*}}, %[[C0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[NFA0:.*]] = arith.negf %[[FA0]] : f32
// CHECK-NEXT:  %[[FMAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT:  %[[MFA0:.*]] = arith.mulf %[[FA0]], %[[FMAGIC]] : f32
// CHECK-NEXT:  %[[NB0:.*]] = arith.bitcast %[[N0]] : i32 to f32
// CHECK-NEXT:  %[[T0:.*]] = math.fma %[[NB0]], %[[NFA0]], %[[MFA0]] : f32
// CHECK-NEXT:  %[[U0:.*]] = arith.mulf %[[T0]], %[[FB0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[D0:.*]] = arith.addf %[[U0]], %[[R0]] fastmath<contract> : f32
// accumulator (g, 2t + 1): the same −fa[g] terms, fb[2t + 1]
// CHECK:       %[[NB1:.*]] = arith.bitcast %[[N1]] : i32 to f32
// CHECK-NEXT:  %[[T1:.*]] = math.fma %[[NB1]], %[[NFA0]], %[[MFA0]] : f32
// CHECK-NEXT:  %[[U1:.*]] = arith.mulf %[[T1]], %[[FB1]] fastmath<contract> : f32
// rows g + 8: −fa[g + 8], negated once
// CHECK:       arith.negf %[[FA1]] : f32
// CHECK-NOT:   arith.negf
// CHECK-NOT:   arith.sitofp
// CHECK:       %d = builtin.unrealized_conversion_cast %[[D0]], {{.*}} : f32, f32, f32, f32 to tensor<16x8xf32
// REMARK: q2_K-mins.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 per warp (1 m × 1 n × 1 k tiles); per-block rescale: each block's mma from the bits of 1.5·2^23, the s32 → f32 conversion folded into the scaling (two FMAs per register); the min per 16 values (rhs_min) as a second m16n8k32 per k tile (1 more), its operand each half's min repeated in four bytes; its s32 sum folded by −fa · fb in the magic form (two more FMAs per register){{$}}
func.func @rhs_min(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
                   %sb: tensor<8x1xf32, #sb>, %fb: tensor<8x1xf32, #sb>, %mn: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %sa, %fb rhs_min %mn lhs = s8 rhs = u8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>

// The mins on A (the decode kernels' q2_K W), two k tiles, magic form: a thread holds rows g and g + 8,
// its mins two registers of %mn, row g's four halves (bytes 0-3 of register 0) then row g + 8's (register
// 1). k tile 0's A registers (row g k 0-15, row g + 8 k 0-15, row g k 16-31, row g + 8 k 16-31) become
// byte 0 of registers 0 and 1, then byte 1 of them (selectors 0, 0x1111 = 4369), k tile 1's bytes 2 and 3
// (0x2222 = 8738, 0x3333 = 13107): each selector's constant made once, each (register, byte) repeated
// once. B (the activations) is the same in both mmas of a k tile, and each k tile's fold reads that
// block's fa (dmin) and fb (d_x).
// CHECK-LABEL: func.func @lhs_min
// CHECK:       %[[A0:[^,]*]], %[[A1:[^,]*]], %[[A2:[^,]*]], %[[A3:[^,]*]], %[[A4:[^,]*]], %[[A5:[^,]*]], %[[A6:[^,]*]], %[[A7:.*]] = builtin.unrealized_conversion_cast %a
// CHECK-NEXT:  %[[B0:[^,]*]], %[[B1:[^,]*]], %[[B2:[^,]*]], %[[B3:.*]] = builtin.unrealized_conversion_cast %b
// CHECK:       %[[FA0:[^,]*]], %[[FA1:[^,]*]], %{{[^,]*}}, %{{.*}} = builtin.unrealized_conversion_cast %fa
// CHECK-NEXT:  %[[FB0:[^,]*]], %[[FB1:[^,]*]], %{{[^,]*}}, %{{.*}} = builtin.unrealized_conversion_cast %sb
// CHECK-NEXT:  %[[W0:[^,]*]], %[[W1:.*]] = builtin.unrealized_conversion_cast %mn : tensor<16x4xi8, {{.*}}> to i32, i32{{$}}
// k tile 0
// CHECK-NEXT:  %[[MAGIC:.*]] = arith.constant 1262485504 : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 s32.u8.s8.s32 A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[B0]], %[[B1]]]
// CHECK-NEXT:  %[[SEL0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[T0:.*]] = ptx.prmt %[[W0]], %[[W0]], %[[SEL0]]
// CHECK-NEXT:  %[[T1:.*]] = ptx.prmt %[[W1]], %[[W1]], %[[SEL0]]
// CHECK-NEXT:  %[[SEL1:.*]] = arith.constant 4369 : i32
// CHECK-NEXT:  %[[T2:.*]] = ptx.prmt %[[W0]], %[[W0]], %[[SEL1]]
// CHECK-NEXT:  %[[T3:.*]] = ptx.prmt %[[W1]], %[[W1]], %[[SEL1]]
// CHECK-NEXT:  %[[N0:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.u8.s8.s32 A[%[[T0]], %[[T1]], %[[T2]], %[[T3]]] B[%[[B0]], %[[B1]]] C[%[[MAGIC]], %[[MAGIC]], %[[MAGIC]], %[[MAGIC]]]
// CHECK:       %[[NFA0:.*]] = arith.negf %[[FA0]] : f32
// CHECK-NEXT:  %[[FMAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT:  %[[MFA0:.*]] = arith.mulf %[[FA0]], %[[FMAGIC]] : f32
// CHECK-NEXT:  %[[NB0:.*]] = arith.bitcast %[[N0]] : i32 to f32
// CHECK-NEXT:  %[[U0:.*]] = math.fma %[[NB0]], %[[NFA0]], %[[MFA0]] : f32
// CHECK-NEXT:  arith.mulf %[[U0]], %[[FB0]] fastmath<contract> : f32
// k tile 1: the second block's mins and fold factors
// CHECK:       ptx.mma_sync m16n8k32 s32.u8.s8.s32 A[%[[A4]], %[[A5]], %[[A6]], %[[A7]]] B[%[[B2]], %[[B3]]]
// CHECK-NEXT:  %[[SEL2:.*]] = arith.constant 8738 : i32
// CHECK-NEXT:  %[[V0:.*]] = ptx.prmt %[[W0]], %[[W0]], %[[SEL2]]
// CHECK-NEXT:  %[[V1:.*]] = ptx.prmt %[[W1]], %[[W1]], %[[SEL2]]
// CHECK-NEXT:  %[[SEL3:.*]] = arith.constant 13107 : i32
// CHECK-NEXT:  %[[V2:.*]] = ptx.prmt %[[W0]], %[[W0]], %[[SEL3]]
// CHECK-NEXT:  %[[V3:.*]] = ptx.prmt %[[W1]], %[[W1]], %[[SEL3]]
// CHECK-NEXT:  %[[N4:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.u8.s8.s32 A[%[[V0]], %[[V1]], %[[V2]], %[[V3]]] B[%[[B2]], %[[B3]]]
// CHECK:       %[[NFA1:.*]] = arith.negf %[[FA1]] : f32
// CHECK-NEXT:  %[[MFA1:.*]] = arith.mulf %[[FA1]], %[[FMAGIC]] : f32
// CHECK-NEXT:  %[[NB4:.*]] = arith.bitcast %[[N4]] : i32 to f32
// CHECK-NEXT:  %[[U4:.*]] = math.fma %[[NB4]], %[[NFA1]], %[[MFA1]] : f32
// CHECK-NEXT:  arith.mulf %[[U4]], %[[FB1]] fastmath<contract> : f32
// REMARK: q2_K-mins.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 2 × mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 per warp (1 m × 1 n × 2 k tiles); {{.*}}; the min per 16 values (lhs_min) as a second m16n8k32 per k tile (2 more), {{.*}} in the magic form (two more FMAs per register){{$}}
func.func @lhs_min(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x2xf32, #sa>,
                   %sb: tensor<8x2xf32, #sb>, %fa: tensor<16x2xf32, #sa>, %mn: tensor<16x4xi8, #oa>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %sb lhs_min %mn lhs = u8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> fold tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> lhs_min tensor<16x4xi8, #oa> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// Without qdot.scale_bits (nothing says the fold factors are narrow): both mmas from a zero accumulator,
// the min sum converted (sitofp) and folded by FMA with −fa[g] · fb[2t], the product built once per pair
// of fold registers; the mins repeated by the same two prmts (selector 0 the zero accumulator's constant).
// CHECK-LABEL: func.func @rhs_min_converted
// CHECK-NOT:   1262485504
// CHECK:       %[[FA0:[^,]*]], %{{[^,]*}} = builtin.unrealized_conversion_cast %fa : {{.*}} to f32, f32
// CHECK-NEXT:  %[[FB0:[^,]*]], %[[FB1:.*]] = builtin.unrealized_conversion_cast %fb : {{.*}} to f32, f32
// CHECK-NEXT:  %[[W:.*]] = builtin.unrealized_conversion_cast %mn : tensor<8x2xi8, {{.*}}> to i32{{$}}
// CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 s32.s8.u8.s32 {{.*}} C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  %[[BM0:.*]] = ptx.prmt %[[W]], %[[W]], %[[Z]]
// CHECK-NEXT:  %[[SEL1:.*]] = arith.constant 4369 : i32
// CHECK-NEXT:  %[[BM1:.*]] = ptx.prmt %[[W]], %[[W]], %[[SEL1]]
// CHECK-NEXT:  %[[N0:[^,]*]], %[[N1:[^,]*]], %{{[^,]*}}, %{{.*}} = ptx.mma_sync m16n8k32 s32.s8.u8.s32 A[{{.*}}] B[%[[BM0]], %[[BM1]]] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK:       %[[R0:.*]] = arith.addf %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.sitofp %[[N0]] : i32 to f32
// CHECK-NEXT:  %[[NFA0:.*]] = arith.negf %[[FA0]] : f32
// CHECK-NEXT:  %[[P0:.*]] = arith.mulf %[[NFA0]], %[[FB0]] : f32
// CHECK-NEXT:  %[[Q0:.*]] = arith.mulf %[[F0]], %[[P0]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %[[Q0]], %[[R0]] fastmath<contract> : f32
// CHECK:       %[[F1:.*]] = arith.sitofp %[[N1]] : i32 to f32
// CHECK-NEXT:  %[[P1:.*]] = arith.mulf %[[NFA0]], %[[FB1]] : f32
// CHECK-NEXT:  arith.mulf %[[F1]], %[[P1]] fastmath<contract> : f32
// CHECK-NOT:   math.fma
// CHECK:       func.return
// REMARK: q2_K-mins.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 per warp (1 m × 1 n × 1 k tiles); per-block rescale: each block's mma from a zero accumulator, its sum converted to f32 and acc += d · sa · sb by FMA; the min per 16 values (rhs_min) as a second m16n8k32 per k tile (1 more), its operand each half's min repeated in four bytes; its s32 sum converted and folded by −fa · fb by FMA{{$}}
func.func @rhs_min_converted(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>,
                             %sb: tensor<8x1xf32, #sb>, %fa: tensor<16x1xf32, #sa>, %fb: tensor<8x1xf32, #sb>, %mn: tensor<8x2xi8, #ob>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %fb rhs_min %mn lhs = s8 rhs = u8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_min tensor<8x2xi8, #ob> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

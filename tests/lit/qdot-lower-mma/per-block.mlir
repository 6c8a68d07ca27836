// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// rescale = "per_block": each k tile is one scale block; its mma starts afresh, and the
// block result is folded into the fp32 accumulator as acc += d · (sa · 2^-(exp_a + exp_b)) · sb
// with fused multiply-adds (contract flags), each scale applied to an exact block sum, as
// llama.cpp's MMQ does it.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// promote-int8 of MXFP4: s8 × s8 → i32 per 32-value block; ue8m0 scale codes decoded to f32
// (code << 23; a max with 2^-127 for code 0, whose bits give 0; inf · 0 + inf = NaN for code
// 255, whose bits give +inf); A's scale also carries the 2^-2
// of the two e2m1 → s8 shifts (qdot.exp = [1, 1]). Every factor is a power of two, so the
// block mma starts from 0x4B400000 (1.5 · 2^23, whose ulp is 1): its result read as f32 is
// 1.5 · 2^23 + x exactly, and fma(that, sa, −1.5 · 2^23 · sa) is x · sa exactly — no sitofp,
// no scale product — if it is fused, so it is a math.fma (a contractible pair might not be);
// the second FMA multiplies in sb and accumulates. −1.5 · 2^23 · sa is
// finite up to sa = 2^104; fma(n, 0, n) turns its overflow (−inf) into NaN, so a larger A
// scale makes its rows NaN instead of −inf.
// CHECK-LABEL: func.func @s8_ue8m0
// CHECK:       %[[C0:.*]], %[[C1:.*]], %[[C2:.*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK:       %[[SA:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to i32
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to i32
// CHECK:       %[[MAGIC:.*]] = arith.constant 1262485504 : i32
// CHECK-NEXT:  %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[MAGIC]], %[[MAGIC]], %[[MAGIC]], %[[MAGIC]]]
// CHECK-NEXT:  %[[FF:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[CODE:.*]] = arith.andi %[[SA]], %[[FF]] : i32
// CHECK-NEXT:  %[[K23:.*]] = arith.constant 23 : i32
// CHECK-NEXT:  %[[BITS:.*]] = arith.shli %[[CODE]], %[[K23]] : i32
// CHECK-NEXT:  %[[POW:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:  %[[TINY:.*]] = arith.constant 5.87747175e-39 : f32
// CHECK-NEXT:  %[[POW0:.*]] = arith.maxnumf %[[POW]], %[[TINY]] : f32
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[INF0:.*]] = arith.mulf %[[POW0]], %[[ZERO]] fastmath<contract> : f32
// CHECK-NEXT:  %[[SAF:.*]] = arith.addf %[[INF0]], %[[POW0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:  %[[SAU:.*]] = arith.mulf %[[SAF]], %[[QUARTER]] : f32
// CHECK:       %[[SBF:.*]] = arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  %[[NEGMAGIC:.*]] = arith.constant 0xCB400000 : f32
// CHECK-NEXT:  %[[NEGM:.*]] = arith.mulf %[[SAU]], %[[NEGMAGIC]] : f32
// CHECK-NEXT:  %[[NEGM0:.*]] = arith.mulf %[[NEGM]], %[[ZERO]] fastmath<contract> : f32
// CHECK-NEXT:  %[[NEGMSA:.*]] = arith.addf %[[NEGM0]], %[[NEGM]] fastmath<contract> : f32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[D0]] : i32 to f32
// CHECK-NEXT:  %[[X0:.*]] = math.fma %[[F0]], %[[SAU]], %[[NEGMSA]] : f32
// CHECK-NEXT:  %[[Q0:.*]] = arith.mulf %[[X0]], %[[SBF]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC0:.*]] = arith.addf %[[Q0]], %[[C0]] fastmath<contract> : f32
// CHECK:       arith.bitcast %[[D1]] : i32 to f32
// CHECK:       arith.addf %{{.*}}, %[[C1]] fastmath<contract> : f32
// CHECK:       arith.bitcast %[[D2]] : i32 to f32
// CHECK:       arith.addf %{{.*}}, %[[C2]] fastmath<contract> : f32
// CHECK:       arith.bitcast %[[D3]] : i32 to f32
// CHECK:       %[[ACC3:.*]] = arith.addf %{{.*}}, %[[C3]] fastmath<contract> : f32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[ACC0]], %{{.*}}, %{{.*}}, %[[ACC3]] : f32, f32, f32, f32 to tensor<16x8xf32
// CHECK-NOT:   arith.sitofp
func.func @s8_ue8m0(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                    %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 1, 1>}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// K = 64: two blocks, two mmas from the magic start, each folded with its own block's scales
// (the second scale byte of each register).
// CHECK-LABEL: func.func @s8_two_blocks
// CHECK-COUNT-2: ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[M:.*]], %[[M]], %[[M]], %[[M]]]
// CHECK-NOT:   ptx.mma_sync
// CHECK:       %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK:       arith.shrui %{{.*}}, %[[EIGHT]] : i32
func.func @s8_two_blocks(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                         %sa: tensor<16x2xf8E8M0FNU, #sa>, %sb: tensor<8x2xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 1, 1>}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf8E8M0FNU, #sa>, tensor<8x2xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// f32 scale registers: used as they are — no decode — with the 2^-2 of the shifts. Their
// values are not known to be powers of two, so the block sum is converted (sitofp) and
// multiplied by the scale product: no magic start.
// CHECK-LABEL: func.func @s8_f32_unit
// CHECK:       %[[SA:[^,]*]], %{{.*}} = builtin.unrealized_conversion_cast %sa : {{.*}} to f32, f32
// CHECK:       %[[SB:[^,]*]], %{{.*}} = builtin.unrealized_conversion_cast %sb : {{.*}} to f32, f32
// CHECK:       %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  arith.sitofp
// CHECK-NOT:   arith.bitcast
// CHECK:       %[[SAU:.*]] = arith.mulf %[[SA]], %{{.*}} : f32
// CHECK-NEXT:  arith.mulf %[[SAU]], %[[SB]] : f32
func.func @s8_f32_unit(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                       %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i64: 1, 1>}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// promote-fp8: the block mma already gives f32, so there is no sitofp; no shifts, no 2^-x.
// CHECK-LABEL: func.func @e4m3_ue8m0
// CHECK:       %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[D0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.mma_sync m16n8k32 f32.e4m3.e4m3.f32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NOT:   arith.sitofp
// CHECK-NOT:   2.500000e-01
// CHECK:       arith.mulf %[[D0]], %{{.*}} fastmath<contract> : f32
func.func @e4m3_ue8m0(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>,
                      %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "per_block"}
     : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// ue4m3 scales (NVFP4, one per 16 values) rescaled per block: dequant-bf16 of fp4 packed along
// M or N, whose cooperative upcast cannot fold the scales into the values. A ue4m3 code is not a
// power of two: it is decoded as an e4m3 float — code << 20 puts its 4 exponent and 3 mantissa
// bits under f32's, a multiply by 2^120 rebiases the exponent (7 → 127; subnormal codes come out
// right through the same multiply), and code 0x7F is NaN; none of ue8m0's decode (<< 23, the max
// with 2^-127). The two decoded scales' product multiplies the block result into the accumulator.
// CHECK-LABEL: func.func @bf16_ue4m3
// CHECK:       %[[SA:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to i32
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to i32
// CHECK:       %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[D0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{{.*}}] B[{{.*}}] C[%[[Z]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK-NEXT:  %[[FF:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[CODE:.*]] = arith.andi %[[SA]], %[[FF]] : i32
// CHECK-NEXT:  %[[K20:.*]] = arith.constant 20 : i32
// CHECK-NEXT:  %[[BITS:.*]] = arith.shli %[[CODE]], %[[K20]] : i32
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:  %[[REBIAS:.*]] = arith.constant 1.329228e+36 : f32
// CHECK-NEXT:  %[[SCALED:.*]] = arith.mulf %[[F]], %[[REBIAS]] : f32
// CHECK-NEXT:  %[[K7F:.*]] = arith.constant 127 : i32
// CHECK-NEXT:  %[[ISNAN:.*]] = arith.cmpi eq, %[[CODE]], %[[K7F]] : i32
// CHECK-NEXT:  %[[NAN:.*]] = arith.constant 0x7fc00000 : f32
// CHECK-NEXT:  %[[SAF:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[SCALED]] : f32
// CHECK-NEXT:  %[[CODEB:.*]] = arith.andi %[[SB]], %[[FF]] : i32
// CHECK-NEXT:  %[[BITSB:.*]] = arith.shli %[[CODEB]], %[[K20]] : i32
// CHECK-NEXT:  %[[FB:.*]] = arith.bitcast %[[BITSB]] : i32 to f32
// CHECK-NEXT:  %[[SCALEDB:.*]] = arith.mulf %[[FB]], %[[REBIAS]] : f32
// CHECK-NEXT:  %[[ISNANB:.*]] = arith.cmpi eq, %[[CODEB]], %[[K7F]] : i32
// CHECK-NEXT:  %[[SBF:.*]] = arith.select %[[ISNANB]], %[[NAN]], %[[SCALEDB]] : f32
// CHECK-NEXT:  %[[S:.*]] = arith.mulf %[[SAF]], %[[SBF]] : f32
// CHECK-NEXT:  %[[X0:.*]] = arith.mulf %[[D0]], %[[S]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %[[X0]], %{{.*}} fastmath<contract> : f32
// CHECK-NOT:   arith.maxnumf
// CHECK:       func.return
func.func @bf16_ue4m3(%a: tensor<16x16xbf16, #a>, %b: tensor<16x8xbf16, #b>, %c: tensor<16x8xf32, #mma>,
                      %sa: tensor<16x1xf8E4M3FN, #sa>, %sb: tensor<8x1xf8E4M3FN, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = bf16 rhs = bf16 {rescale = "per_block"}
     : tensor<16x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E4M3FN, #sa>, tensor<8x1xf8E4M3FN, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

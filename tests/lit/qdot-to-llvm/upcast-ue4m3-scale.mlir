// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// qgpu.upcast with NVFP4's ue4m3 block scales (one per 16 K-values): which byte of a thread's
// scale register scales a value can depend on the lane. In the bf16 A operand with kWidth 8
// (dequant-bf16 in registers), thread t = lane % 4 holds k 8t..8t+7 of each 32-k chunk, so
// lanes 4g, 4g+1 take scale byte 0 of the chunk and lanes 4g+2, 4g+3 byte 1: the scale is
// shifted by 8 · bit 1 of the lane, computed once per thread at entry (not a constant byte,
// which would give half the lanes their neighbour block's scale). The code is decoded as
// e4m3 (magnitude << 20, · 2^120, 0x7F is NaN), put in both halves of a bf16x2, and multiplied
// into the converted e2m1 pair.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#src = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#dst = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#sc = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>

// Scale register 0 holds row g's four scales (k 0-15, 16-31, 32-47, 48-63), register 1 row
// g + 8's. Output register 0 (row g, k < 32) reads s0 >> 8·bit1(lane); 1 (row g + 8) reads s1
// the same way; 15 (row g + 8, k 32-63) reads s1 >> (8·bit1(lane) + 16).
// CHECK-LABEL: func.func @nvfp4_lhs
// CHECK-SAME:  %[[S0:[^:]*]]: i32, %[[S1:[^:]*]]: i32)
// CHECK-NEXT:  %[[TID:.*]] = ptx.special_reg tid.x
// CHECK-NEXT:  %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:  %[[LANE:.*]] = arith.andi %[[TID]], %[[C31]] : i32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[L1:.*]] = arith.shrui %[[LANE]], %[[ONE]] : i32
// CHECK-NEXT:  %[[BIT1:.*]] = arith.andi %[[L1]], %[[ONE]] : i32
// CHECK-NEXT:  %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[SHIFT:.*]] = arith.shli %[[BIT1]], %[[THREE]] : i32
// CHECK:       %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[SHIFT2:.*]] = arith.addi %{{.*}}, %[[C16]] : i32
// CHECK-NOT:   ptx.special_reg
//              output register 0
// CHECK:       %[[CODE0:.*]] = arith.shrui %[[S0]], %[[SHIFT]] : i32
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[BYTE0:.*]] = arith.andi %[[CODE0]], %[[C255]] : i32
// CHECK-NEXT:  %[[C127:.*]] = arith.constant 127 : i32
// CHECK-NEXT:  %[[MAG0:.*]] = arith.andi %[[BYTE0]], %[[C127]] : i32
// CHECK:       %[[TWENTY:.*]] = arith.constant 20 : i32
// CHECK-NEXT:  arith.shli %[[MAG0]], %[[TWENTY]] : i32
// CHECK:       arith.constant 1.329228e+36 : f32
// CHECK:       %[[SC0:.*]] = ptx.cvt bf16x2.f32 %[[F0:.*]], %[[F0]]
// CHECK:       ptx.fma_rn_bf16x2
//              output register 1
// CHECK:       arith.shrui %[[S1]], %[[SHIFT]] : i32
// CHECK:       ptx.fma_rn_bf16x2
//              output register 15
// CHECK:       arith.shrui %[[S1]], %[[SHIFT2]] : i32
// CHECK:       ptx.fma_rn_bf16x2
// CHECK-NEXT:  %[[O15:.*]] = ptx.bitcast %{{.*}} : vector<2xbf16> -> i32
// CHECK-NEXT:  "test.op"(%{{.*}}, %{{.*}}, %[[O15]])
func.func @nvfp4_lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %s0: i32, %s1: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #src>
  %sc = builtin.unrealized_conversion_cast %s0, %s1 : i32, i32 to tensor<16x4xf8E4M3FN, #sc>
  %u = qgpu.upcast %q scale %sc from = e2m1 to = bf16 : tensor<16x32xi8, #src>, tensor<16x4xf8E4M3FN, #sc> -> tensor<16x64xbf16, #dst>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<16x64xbf16, #dst> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#15) : (i32, i32, i32) -> ()
  func.return
}

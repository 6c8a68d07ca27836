// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// The generic path of qgpu.upcast (passes/support/upcasts.py, _generic), for the conversions
// no table serves: each value's exponent and mantissa are placed in an f32 (magnitude <<
// 23 - mantissa bits, sign << 31 - width) and rebiased by one exact multiply by
// 2^(127 - bias); then, by the target, two values packed by one cvt (high value first: the
// low half is the even column), or each value rounded to an integer byte.

#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#h = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 → fp16 (dequantization with fp16 compute): cvt.rn.f16x2.f32 per destination register,
// not the bf16 one, whose 7-bit mantissa the fp16 mma would read as garbage. Value 0 is the
// low nibble (x & 15), value 1 the next (x >> 4); e2m1's bias 1 gives 2^126 (8.50705917e+37).
// CHECK-LABEL: func.func @e2m1_to_fp16
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[CODE0:.*]] = arith.andi %[[R]], %[[C15]] : i32
// CHECK-NEXT:  %[[C7:.*]] = arith.constant 7 : i32
// CHECK-NEXT:  %[[MAG0:.*]] = arith.andi %[[CODE0]], %[[C7]] : i32
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[SIGN0:.*]] = arith.andi %[[CODE0]], %[[C8]] : i32
// CHECK-NEXT:  %[[C22:.*]] = arith.constant 22 : i32
// CHECK-NEXT:  %[[M0:.*]] = arith.shli %[[MAG0]], %[[C22]] : i32
// CHECK-NEXT:  %[[C28:.*]] = arith.constant 28 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.shli %[[SIGN0]], %[[C28]] : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.ori %[[M0]], %[[S0]] : i32
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[B0]] : i32 to f32
// CHECK-NEXT:  %[[BIAS:.*]] = arith.constant 8.50705917e+37 : f32
// CHECK-NEXT:  %[[V0:.*]] = arith.mulf %[[F0]], %[[BIAS]] : f32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %{{.*}} = arith.shrui %[[R]], %[[C4]] : i32
// CHECK:       %[[V1:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK-NEXT:  %[[P01:.*]] = ptx.cvt f16x2.f32 %[[V1]], %[[V0]]
// CHECK-NEXT:  %[[O0:.*]] = ptx.bitcast %[[P01]] : vector<2xf16> -> i32
// CHECK-COUNT-3: ptx.cvt f16x2.f32
// CHECK-NOT:   ptx.cvt bf16x2
// CHECK:       "test.op"(%[[O0]], %{{.*}}, %{{.*}}, %{{.*}})
func.func @e2m1_to_fp16(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xi8, #raw>
  %u = qgpu.upcast %q from = e2m1 to = fp16 : tensor<32x4xi8, #raw> -> tensor<32x8xf16, #h>
  %o:4 = builtin.unrealized_conversion_cast %u : tensor<32x8xf16, #h> to i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3) : (i32, i32, i32, i32) -> ()
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e3m2 → e4m3 (promote-fp8's fp6 side), one fp6 value per byte: each decoded (mask 255, 5-bit
// magnitude << 21, sign 32 << 26, · 2^124 for bias 3), then values (1, 0) and (3, 2) packed by
// cvt.rn.satfinite.e4m3x2.f32 into 16 bits each, the second pair shifted to the high half.
// CHECK-LABEL: func.func @e3m2_to_e4m3
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[CODE0:.*]] = arith.andi %[[R]], %[[C255]] : i32
// CHECK-NEXT:  %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:  %[[MAG0:.*]] = arith.andi %[[CODE0]], %[[C31]] : i32
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %{{.*}} = arith.andi %[[CODE0]], %[[C32]] : i32
// CHECK-NEXT:  %[[C21:.*]] = arith.constant 21 : i32
// CHECK-NEXT:  %{{.*}} = arith.shli %[[MAG0]], %[[C21]] : i32
// CHECK-NEXT:  %[[C26:.*]] = arith.constant 26 : i32
// CHECK:       %[[BIAS:.*]] = arith.constant 2.12676479e+37 : f32
// CHECK-NEXT:  %[[V0:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK:       %[[V1:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK:       %[[V2:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK:       %[[V3:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK-NEXT:  %[[LO:.*]] = ptx.cvt e4m3x2.f32 %[[V1]], %[[V0]]
// CHECK-NEXT:  %[[HI:.*]] = ptx.cvt e4m3x2.f32 %[[V3]], %[[V2]]
// CHECK-NEXT:  %[[LO32:.*]] = arith.extui %[[LO]] : i16 to i32
// CHECK-NEXT:  %[[HI32:.*]] = arith.extui %[[HI]] : i16 to i32
// CHECK-NEXT:  %[[HIS:.*]] = arith.shli %[[HI32]], %{{.*}} : i32
// CHECK-NEXT:  %[[O:.*]] = arith.ori %[[LO32]], %[[HIS]] : i32
// CHECK-NEXT:  "test.op"(%[[O]])
func.func @e3m2_to_e4m3(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xf6E3M2FN, #bl>
  %u = qgpu.upcast %q from = e3m2 to = e4m3 : tensor<32x4xf6E3M2FN, #bl> -> tensor<32x4xf8E4M3FN, #bl>
  %o = builtin.unrealized_conversion_cast %u : tensor<32x4xf8E4M3FN, #bl> to i32
  "test.op"(%o) : (i32) -> ()
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m3 → s8 (promote-int8's fp6 side): e2m3 steps are 1/8 (0.125 to 7.5), so each value is
// multiplied by S8_FACTOR = 8 before fptosi — exact integers, and -60..60 fits a byte; the scales
// carry the 1/8. Without the factor every value under 1 would truncate to 0. Then byte i is
// masked and shifted to bits 8i.
// CHECK-LABEL: func.func @e2m3_to_s8
// CHECK:       %[[BIAS:.*]] = arith.constant 8.50705917e+37 : f32
// CHECK-NEXT:  arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK-COUNT-2: arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK:       %[[V3:.*]] = arith.mulf %{{.*}}, %[[BIAS]] : f32
// CHECK-NEXT:  %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:  %[[X0:.*]] = arith.mulf %{{.*}}, %[[EIGHT]] : f32
// CHECK-NEXT:  %[[I0:.*]] = arith.fptosi %[[X0]] : f32 to i32
// CHECK-NEXT:  %{{.*}} = arith.andi %[[I0]], %{{.*}} : i32
// CHECK-NEXT:  %[[X1:.*]] = arith.mulf %{{.*}}, %[[EIGHT]] : f32
// CHECK-NEXT:  arith.fptosi %[[X1]] : f32 to i32
// CHECK:       %[[X2:.*]] = arith.mulf %{{.*}}, %[[EIGHT]] : f32
// CHECK-NEXT:  arith.fptosi %[[X2]] : f32 to i32
// CHECK:       %[[X3:.*]] = arith.mulf %[[V3]], %[[EIGHT]] : f32
// CHECK-NEXT:  %[[I3:.*]] = arith.fptosi %[[X3]] : f32 to i32
// CHECK-NEXT:  %[[B3:.*]] = arith.andi %[[I3]], %{{.*}} : i32
// CHECK-NEXT:  %[[S3:.*]] = arith.shli %[[B3]], %{{.*}} : i32
// CHECK-NEXT:  %[[O:.*]] = arith.ori %{{.*}}, %[[S3]] : i32
// CHECK-NEXT:  "test.op"(%[[O]])
func.func @e2m3_to_s8(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xf6E2M3FN, #bl>
  %u = qgpu.upcast %q from = e2m3 to = s8 : tensor<32x4xf6E2M3FN, #bl> -> tensor<32x4xi8, #bl>
  %o = builtin.unrealized_conversion_cast %u : tensor<32x4xi8, #bl> to i32
  "test.op"(%o) : (i32) -> ()
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// rescale = "hw": the block-scaled mma.sync forms take one scale register per side with
// zero byte/thread selectors (the scale_a / scale_b operand triples). A's scale for rows g
// and g + 8 lives in the even / odd lane of each pair (selected by lane & 1), B's in lane 4g.
// One scale block per k32 tile (scale_vec::1X), two (mxf4, 2X) or four (mxf4nvf4, 4X) per
// k64 tile, packed a byte each into the register.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// MXFP8 × MXFP4 (native): kind::mxf8f6f4 .block_scale .scale_vec::1X with ue8m0 scales, the
// fp4Unpacked B still shifted.
// CHECK-LABEL: func.func @mxf8f6f4
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[S0:.*]] = arith.shli %{{.*}}, %[[TWO:.*]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %{{.*}}, %[[TWO]] : i32
// CHECK:       %[[SA:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to i32
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to i32
// CHECK:       %[[ODD:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK:       %[[Z16:.*]] = arith.constant 0 : i16
// CHECK:       %[[LO:.*]] = arith.andi %[[SA]], %[[FF:.*]] : i32
// CHECK:       %[[HI:.*]] = arith.andi %{{.*}}, %[[FF]] : i32
// CHECK-NEXT:  %[[ASCALE:.*]] = arith.select %[[ODD]], %[[HI]], %[[LO]] : i32
// CHECK-NEXT:  %[[BSCALE:.*]] = arith.andi %[[SB]], %[[FF]] : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[{{.*}}] B[%[[S0]], %[[S1]]] C[{{.*}}] scale_a[%[[ASCALE]], %[[Z16]], %[[Z16]]] scale_b[%[[BSCALE]], %[[Z16]], %[[Z16]]]
func.func @mxf8f6f4(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>,
                    %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xf8E4M3FN, #a>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// MXFP4 × MXFP4: packed operands, m16n8k64 kind::mxf4 .scale_vec::2X — the two ue8m0 scales
// of the k64 tile in bytes 0 and 1 of each scale register; no shift (the operands are packed).
// CHECK-LABEL: func.func @mxf4
// CHECK-NOT:   arith.shli %{{.*}}, %{{.*}} : i32{{$}}
// CHECK:       %[[A0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:       %[[A1:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[A1S:.*]] = arith.shli %[[A1]], %[[EIGHT:.*]] : i32
// CHECK-NEXT:  %[[ASCALE:.*]] = arith.ori %[[A0]], %[[A1S]] : i32
// CHECK:       %[[BSCALE:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e2m1.e2m1.f32.ue8m0 A[{{.*}}] B[{{.*}}] C[{{.*}}] scale_a[%[[ASCALE]], %{{.*}}, %{{.*}}] scale_b[%[[BSCALE]], %{{.*}}, %{{.*}}]
func.func @mxf4(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                %sa: tensor<16x2xf8E8M0FNU, #sa>, %sb: tensor<8x2xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e2m1 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf8E8M0FNU, #sa>, tensor<8x2xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// NVFP4: kind::mxf4nvf4 .scale_vec::4X with ue4m3 scales, four per register.
// CHECK-LABEL: func.func @nvfp4
// CHECK-COUNT-4: arith.select
// CHECK:       ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::4X f32.e2m1.e2m1.f32.ue4m3 A[{{.*}}] scale_a[{{.*}}] scale_b[{{.*}}]
// CHECK-NOT:   ptx.mma_sync
func.func @nvfp4(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                 %sa: tensor<16x4xf8E4M3FN, #sa>, %sb: tensor<8x4xf8E4M3FN, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e2m1 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x4xf8E4M3FN, #sa>, tensor<8x4xf8E4M3FN, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

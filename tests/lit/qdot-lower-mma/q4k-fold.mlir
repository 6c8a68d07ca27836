// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// The q4_K dmin term as a rank-1 fold (`fold %fa, %fb`, what qdot-accelerate-matmul gives
// q4_K × plain q8_1; q8_1_mmq takes the f16 dmin mma of q4k-dmin-mma.mlir): a q4_K value is
// d·sc·q − dmin·m, so a 32-value block's dot with q8_1 is (d_x · d·sc) · Σ x·q − s_x · dmin·m,
// with s_x the q8_1 block sum. After each block's rescale FMA, every accumulator register takes
// one more FMA, acc = fma(−fa[row, kb], fb[col, kb], acc): no mma for the second term, and −fa
// negated once per fa register (rows g and g + 8), reused by both columns of the thread.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// One block: registers (row g, col 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
// CHECK-LABEL: func.func @fold_one_block
// CHECK:       %[[C0:.*]], %[[C1:.*]], %[[C2:.*]], %[[C3:.*]] = builtin.unrealized_conversion_cast %c
// CHECK:       %[[SA0:[^,]*]], %[[SA1:.*]] = builtin.unrealized_conversion_cast %sa : {{.*}} to f32, f32
// CHECK:       %[[SB0:[^,]*]], %[[SB1:.*]] = builtin.unrealized_conversion_cast %sb : {{.*}} to f32, f32
// CHECK:       %[[FA0:[^,]*]], %[[FA1:.*]] = builtin.unrealized_conversion_cast %fa : {{.*}} to f32, f32
// CHECK:       %[[FB0:[^,]*]], %[[FB1:.*]] = builtin.unrealized_conversion_cast %fb : {{.*}} to f32, f32
// CHECK:       %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK-NEXT:  %[[F0:.*]] = arith.sitofp %[[D0]] : i32 to f32
// CHECK-NEXT:  %[[K0:.*]] = arith.mulf %[[SA0]], %[[SB0]] : f32
// CHECK-NEXT:  %[[P0:.*]] = arith.mulf %[[F0]], %[[K0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[R0:.*]] = arith.addf %[[P0]], %[[C0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[NFA0:.*]] = arith.negf %[[FA0]] : f32
// CHECK-NEXT:  %[[Q0:.*]] = arith.mulf %[[NFA0]], %[[FB0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC0:.*]] = arith.addf %[[Q0]], %[[R0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[F1:.*]] = arith.sitofp %[[D1]] : i32 to f32
// CHECK-NEXT:  %[[K1:.*]] = arith.mulf %[[SA0]], %[[SB1]] : f32
// CHECK-NEXT:  %[[P1:.*]] = arith.mulf %[[F1]], %[[K1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[R1:.*]] = arith.addf %[[P1]], %[[C1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[Q1:.*]] = arith.mulf %[[NFA0]], %[[FB1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC1:.*]] = arith.addf %[[Q1]], %[[R1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[F2:.*]] = arith.sitofp %[[D2]] : i32 to f32
// CHECK-NEXT:  %[[K2:.*]] = arith.mulf %[[SA1]], %[[SB0]] : f32
// CHECK-NEXT:  %[[P2:.*]] = arith.mulf %[[F2]], %[[K2]] fastmath<contract> : f32
// CHECK-NEXT:  %[[R2:.*]] = arith.addf %[[P2]], %[[C2]] fastmath<contract> : f32
// CHECK-NEXT:  %[[NFA1:.*]] = arith.negf %[[FA1]] : f32
// CHECK-NEXT:  %[[Q2:.*]] = arith.mulf %[[NFA1]], %[[FB0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC2:.*]] = arith.addf %[[Q2]], %[[R2]] fastmath<contract> : f32
// CHECK:       %[[Q3:.*]] = arith.mulf %[[NFA1]], %[[FB1]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC3:.*]] = arith.addf %[[Q3]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[ACC0]], %[[ACC1]], %[[ACC2]], %[[ACC3]] : f32, f32, f32, f32 to tensor<16x8xf32
func.func @fold_one_block(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                          %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>,
                          %fa: tensor<16x1xf32, #sa>, %fb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %fb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb>
       fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// K = 64: two blocks, each mma from zero; the second block's fold uses the block-1 registers
// of fa and fb and accumulates onto the first block's result; four negations in all, one per
// fa register.
// CHECK-LABEL: func.func @fold_two_blocks
// CHECK:       %[[FA00:[^,]*]], %[[FA01:[^,]*]], %[[FA10:[^,]*]], %[[FA11:.*]] = builtin.unrealized_conversion_cast %fa : {{.*}} to f32, f32, f32, f32
// CHECK:       %[[FB00:[^,]*]], %[[FB01:[^,]*]], %[[FB10:[^,]*]], %[[FB11:.*]] = builtin.unrealized_conversion_cast %fb : {{.*}} to f32, f32, f32, f32
// CHECK:       ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK:       %[[N0:.*]] = arith.negf %[[FA00]] : f32
// CHECK-NEXT:  arith.mulf %[[N0]], %[[FB00]] fastmath<contract> : f32
// CHECK-NEXT:  %[[ACC0:.*]] = arith.addf
// CHECK:       ptx.mma_sync m16n8k32 s32.s8.s8.s32
// CHECK-NEXT:  arith.sitofp
// CHECK-NEXT:  arith.mulf
// CHECK-NEXT:  arith.mulf
// CHECK-NEXT:  %[[R:.*]] = arith.addf %{{.*}}, %[[ACC0]] fastmath<contract> : f32
// CHECK-NEXT:  %[[N1:.*]] = arith.negf %[[FA01]] : f32
// CHECK-NEXT:  %[[Q:.*]] = arith.mulf %[[N1]], %[[FB01]] fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %[[Q]], %[[R]] fastmath<contract> : f32
// CHECK:       arith.negf %[[FA11]] : f32
// CHECK-NOT:   arith.negf
// CHECK-NOT:   ptx.mma_sync
func.func @fold_two_blocks(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                           %sa: tensor<16x2xf32, #sa>, %sb: tensor<8x2xf32, #sb>,
                           %fa: tensor<16x2xf32, #sa>, %fb: tensor<8x2xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %fb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb>
       fold tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

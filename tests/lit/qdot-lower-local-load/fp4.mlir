// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_121a}' | filecheck %s
// An fp4Padded buffer read into an fp4Unpacked dot operand on the sm_120a family: the fp4
// mode of ldmatrix, .m8n16 .x4 .b8x16.b4x16_p64 — each lane gives the address of one 16-byte
// row (8 bytes of packed nibbles + 8 of padding) and receives the nibbles as 0000xxxx bytes.
// The registers are re-assembled into the tensor for qdot-lower-mma.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// B = [K/2, N] = [32, 32] packed bytes, K contiguous: 16 registers per lane, 4 ldmatrix.x4 at
// the same per-lane row address plus 512 bytes per group (one 16-row group of N).
// CHECK-LABEL: func.func @b_operand
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[ROW:.*]] = arith.xori %{{.*}}, %{{.*}} : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<32x32xi8, {{.*}}> to i32
// CHECK:       %[[A0:.*]] = arith.addi %[[BASE]], %[[ROW]] : i32
// CHECK-NEXT:  %[[R0:.*]], %[[R1:.*]], %[[R2:.*]], %[[R3:.*]] = ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %[[A0]]
// CHECK-NEXT:  %[[O1:.*]] = arith.constant 512 : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.addi %[[ROW]], %[[O1]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[T1]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %[[A1]]
// CHECK:       arith.constant 1024 : i32
// CHECK:       ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// CHECK:       arith.constant 1536 : i32
// CHECK:       ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// CHECK-NEXT:  %[[T:.*]] = builtin.unrealized_conversion_cast %[[R0]], %[[R1]], %[[R2]], %[[R3]], {{.*}} : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32 to tensor<32x32xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>
// CHECK-NEXT:  func.return %[[T]]
// CHECK-NOT:   ptx.ld_shared
// CHECK-NOT:   qgpu.local_load
func.func @b_operand(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#au = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#rowmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>

// The fp4 operand on the A side (e2m1 × e4m3): [M, K/2] with K contiguous.
// CHECK-LABEL: func.func @a_operand
// CHECK-COUNT-4: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// CHECK-NOT:   ptx.ld_shared
func.func @a_operand(%m: !qgpu.memdesc<32x32xi8, #rowmajor>) -> tensor<32x32xi8, #au> {
  %a = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #rowmajor> -> tensor<32x32xi8, #au>
  func.return %a : tensor<32x32xi8, #au>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>

// Four warps (2 × 2): the warps along N read their own 32 columns, so bit 1 of the warp id
// enters the row address (32 rows of 32 padded bytes = 1024 bytes further); the warps along
// M share the same B registers. 128 K values × 32 columns per warp = 4 × 4 mma tiles of 2
// registers = 32 registers, 8 instructions.
// CHECK-LABEL: func.func @four_warps
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[WARP:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK:       %[[W1:.*]] = arith.shrui %[[WARP]], %[[ONE:.*]] : i32
// CHECK-NEXT:  %[[W1B:.*]] = arith.andi %[[W1]], %[[ONE]] : i32
// CHECK-NEXT:  %[[TEN:.*]] = arith.constant 10 : i32
// CHECK-NEXT:  %[[WOFF:.*]] = arith.shli %[[W1B]], %[[TEN]] : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.xori %{{.*}}, %[[WOFF]] : i32
// CHECK-COUNT-8: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// CHECK-NOT:   ptx.ldmatrix
func.func @four_warps(%m: !qgpu.memdesc<64x64xi8, #kmajor>) -> tensor<64x64xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<64x64xi8, #kmajor> -> tensor<64x64xi8, #bu>
  func.return %b : tensor<64x64xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 2, order = [0, 1], fp4Padded = true}>

// The smallest B operand, one mma tile: [K/2, N] = [16, 8] packed bytes (K = 32 fp4 values)
// holds 2 registers per lane, which .x4 does not divide: the fp4 mode's .x2 reads its 16 padded
// rows (two per column: K 0..15 and 16..31, 8 packed bytes each).
// CHECK-LABEL: func.func @b_one_tile
// CHECK:       %[[R0:.*]], %[[R1:.*]] = ptx.ldmatrix m8n16 x2 b8x16.b4x16_p64 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]], %[[R1]] : i32, i32 to tensor<16x8xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>
// CHECK-NOT:   ptx.ldmatrix
// CHECK-NOT:   ptx.ld_shared
func.func @b_one_tile(%m: !qgpu.memdesc<16x8xi8, #kmajor>) -> tensor<16x8xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<16x8xi8, #kmajor> -> tensor<16x8xi8, #bu>
  func.return %b : tensor<16x8xi8, #bu>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_121a}' | filecheck %s
// The documented fallback, not the fast path: on the sm_120a family the fp4 ldmatrix
// (.m8n16 .b8x16.b4x16_p64) delivers the kWidth = 2 arrangement of an fp4Unpacked operand (per
// lane and register two packed bytes; fp4.mlir). With kWidth = 4 or 8 (packed bytes) a lane's
// consecutive registers hold 4 or 8 consecutive packed bytes along K, which no ldmatrix form
// delivers, so even with ldmatrix available the load is the 16-bit ld.shared fallback of
// fp4-fallback.mlir: one ld.shared.b16 per register, spread into 0000xxxx bytes by prmt 0x1100
// (4352) and the nibble masks, the next register 2 bytes further along K.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// CHECK-LABEL: func.func @kwidth4
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<32x32xi8, {{.*}}> to i32
// CHECK:       %[[A0:.*]] = arith.addi %[[BASE]], %[[ROW:.*]] : i32
// CHECK-NEXT:  %[[P0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[W0:.*]] = arith.extui %[[P0]] : i16 to i32
// CHECK-NEXT:  %[[SEL:.*]] = arith.constant 4352 : i32
// CHECK-NEXT:  ptx.prmt %[[W0]], %{{.*}}, %[[SEL]]
// CHECK:       %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[ROW]], %[[TWO]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[O1]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A1]] : i16
// CHECK-COUNT-14: ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:   ptx.ld_shared
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       builtin.unrealized_conversion_cast {{.*}} to tensor<32x32xi8, #qgpu.dot_op<{{.*}}kWidth = 4, fp4Unpacked = true}>>
func.func @kwidth4(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// kWidth = 8: four registers of a lane read 8 consecutive packed bytes (+0, +2, +4, +6).
// CHECK-LABEL: func.func @kwidth8
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<32x32xi8, {{.*}}> to i32
// CHECK:       %[[A0:.*]] = arith.addi %[[BASE]], %[[ROW:.*]] : i32
// CHECK-NEXT:  %[[P0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[W0:.*]] = arith.extui %[[P0]] : i16 to i32
// CHECK-NEXT:  %[[SEL:.*]] = arith.constant 4352 : i32
// CHECK-NEXT:  ptx.prmt %[[W0]], %{{.*}}, %[[SEL]]
// CHECK:       %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[ROW]], %[[TWO]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[O1]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A1]] : i16
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       %[[SIX:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.addi %[[ROW]], %[[SIX]] : i32
// CHECK-NEXT:  %[[A3:.*]] = arith.addi %[[BASE]], %[[O3]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[A3]] : i16
// CHECK-COUNT-12: ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:   ptx.ld_shared
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       builtin.unrealized_conversion_cast {{.*}} to tensor<32x32xi8, #qgpu.dot_op<{{.*}}kWidth = 8, fp4Unpacked = true}>>
func.func @kwidth8(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

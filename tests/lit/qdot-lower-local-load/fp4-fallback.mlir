// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a ldmatrix=false}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load' | filecheck %s
// Without the sub-byte ldmatrix (before sm_100a/sm_120a, or with ldmatrix=false) an
// fp4Padded → fp4Unpacked load is the scalar fallback, producing the same registers: per
// register one 16-bit ld.shared of two packed bytes, spread into 0000xxxx bytes —
// prmt 0x1100 makes [b0, b0, b1, b1], then the low nibble of bytes 0 and 2 (& 0x000F000F)
// and the high nibble of bytes 1 and 3 (>> 4 & 0x0F000F00) are OR-ed. sm_90 never picks an
// ldmatrix for it: no .b16 form delivers unpacked nibbles.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// CHECK-LABEL: func.func @b_operand
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<32x32xi8, {{.*}}> to i32
// CHECK:       %[[ADDR:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// CHECK-NEXT:  %[[PAIR:.*]] = ptx.ld_shared %[[ADDR]] : i16
// CHECK-NEXT:  %[[WIDE:.*]] = arith.extui %[[PAIR]] : i16 to i32
// CHECK-NEXT:  %[[SEL:.*]] = arith.constant 4352 : i32
// CHECK-NEXT:  %[[SPREAD:.*]] = ptx.prmt %[[WIDE]], %{{.*}}, %[[SEL]]
// CHECK-NEXT:  %[[LOMASK:.*]] = arith.constant 983055 : i32
// CHECK-NEXT:  %[[LO:.*]] = arith.andi %[[SPREAD]], %[[LOMASK]] : i32
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[SHR:.*]] = arith.shrui %[[SPREAD]], %[[FOUR]] : i32
// CHECK-NEXT:  %[[HIMASK:.*]] = arith.constant 251662080 : i32
// CHECK-NEXT:  %[[HI:.*]] = arith.andi %[[SHR]], %[[HIMASK]] : i32
// CHECK-NEXT:  %[[R0:.*]] = arith.ori %[[LO]], %[[HI]] : i32
// CHECK-COUNT-15: ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:   ptx.ld_shared
// CHECK:       %[[T:.*]] = builtin.unrealized_conversion_cast %[[R0]], {{.*}} to tensor<32x32xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>
// CHECK-NEXT:  func.return %[[T]]
func.func @b_operand(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

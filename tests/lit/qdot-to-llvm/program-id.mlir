// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// Program ids and counts are the CTA id and grid size special registers, as index.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @grid
// CHECK:       %[[X:.*]] = ptx.special_reg ctaid.x
// CHECK-NEXT:  %{{.*}} = arith.index_cast %[[X]] : i32 to index
// CHECK-NEXT:  %[[Y:.*]] = ptx.special_reg ctaid.y
// CHECK-NEXT:  %{{.*}} = arith.index_cast %[[Y]] : i32 to index
// CHECK-NEXT:  %[[Z:.*]] = ptx.special_reg ctaid.z
// CHECK-NEXT:  %{{.*}} = arith.index_cast %[[Z]] : i32 to index
// CHECK-NEXT:  %[[NX:.*]] = ptx.special_reg nctaid.x
// CHECK-NEXT:  %{{.*}} = arith.index_cast %[[NX]] : i32 to index
// CHECK-NEXT:  %[[NY:.*]] = ptx.special_reg nctaid.y
// CHECK-NEXT:  %{{.*}} = arith.index_cast %[[NY]] : i32 to index
// CHECK-NOT:   qdot.program_id
// CHECK-NOT:   qdot.num_programs
func.func @grid(%c_ptr: !qdot.ptr<i32>, %m: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %x = qdot.program_id x
  %y = qdot.program_id y
  %z = qdot.program_id z
  %nx = qdot.num_programs x
  %ny = qdot.num_programs y
  %s0 = arith.addi %x, %y : index
  %s1 = arith.addi %s0, %z : index
  %s2 = arith.addi %s1, %nx : index
  %s3 = arith.addi %s2, %ny : index
  %d = qdot.make_desc %c_ptr, [%m, %m], [%m, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %v = arith.constant dense<7> : tensor<16x8xi32, #mma>
  qdot.store %d[%s3, %c1], %v : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

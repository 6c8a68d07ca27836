// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// A kernel may start with any op — here the program id, or a splat constant — and the
// thread ids the store needs must still be built at the function entry.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @program_id_first
// CHECK-NEXT:  %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       ptx.special_reg ctaid.x
// CHECK-COUNT-4: ptx.st_global
// CHECK-NOT:   ptx.special_reg tid.x
func.func @program_id_first(%c_ptr: !qdot.ptr<i32>, %m: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %x = qdot.program_id x
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %c_ptr, [%m, %m], [%m, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  %v = arith.constant dense<7> : tensor<16x8xi32, #mma>
  qdot.store %d[%x, %c1], %v : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @splat_first
// CHECK-NEXT:  %[[TID:.*]] = ptx.special_reg tid.x
// CHECK-COUNT-4: ptx.st_global
// CHECK-NOT:   ptx.special_reg tid.x
func.func @splat_first(%c_ptr: !qdot.ptr<i32>, %m: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %v = arith.constant dense<7> : tensor<16x8xi32, #mma>
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %c_ptr, [%m, %m], [%m, %c1] : !qdot.ptr<i32> -> !qdot.desc<16x8xi32>
  qdot.store %d[%c1, %c1], %v : !qdot.desc<16x8xi32>, tensor<16x8xi32, #mma>
  func.return
}

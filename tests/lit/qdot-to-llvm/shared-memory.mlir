// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// The shared memory map: every qgpu.local_alloc gets a 128-byte aligned offset in the
// kernel's dynamic shared memory, in program order; memdesc_index adds stage · stage bytes
// (2048 = 1 << 11 here);
// the total (rounded to 16) is qdot.shared_bytes.

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#ss = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>
#sp = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// scales: 32 × 2 = 64 bytes at 0; the ring: 3 × 2048 bytes at 128; the fp4Padded tile
// (32 × 32 packed bytes, padded to 2048) at 128 + 6144 = 6272. Total 8320.
// CHECK-LABEL: func.func @map
// CHECK-SAME:  qdot.shared_bytes = 8320 : i64
// CHECK:       %[[S:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[RING:.*]] = arith.constant 128 : i32
// CHECK-NEXT:  %[[P:.*]] = arith.constant 6272 : i32
// CHECK:       %[[I:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:  %[[LOG2:.*]] = arith.constant 11 : i32
// CHECK-NEXT:  %[[OFF:.*]] = arith.shli %[[I]], %[[LOG2]] : i32
// CHECK-NEXT:  %[[STAGE2:.*]] = arith.addi %[[RING]], %[[OFF]] : i32
// CHECK:       ptx.ld_shared %[[S]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[STAGE2]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[P]] : i32
func.func @map(%i: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %scales = qgpu.local_alloc : () -> !qgpu.memdesc<32x2xf8E8M0FNU, #ss, mutable>
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x64xi8, #sh, mutable>
  %padded = qgpu.local_alloc : () -> !qgpu.memdesc<32x32xi8, #sp, mutable>
  %stage = qgpu.memdesc_index %ring[%i] : !qgpu.memdesc<3x32x64xi8, #sh, mutable> -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  %a = builtin.unrealized_conversion_cast %scales : !qgpu.memdesc<32x2xf8E8M0FNU, #ss, mutable> to i32
  %b = builtin.unrealized_conversion_cast %stage : !qgpu.memdesc<32x64xi8, #sh, mutable> to i32
  %c = builtin.unrealized_conversion_cast %padded : !qgpu.memdesc<32x32xi8, #sp, mutable> to i32
  %x = ptx.ld_shared %a : i32
  %y = ptx.ld_shared %b : i32
  %z = ptx.ld_shared %c : i32
  "test.op"(%x, %y, %z) : (i32, i32, i32) -> ()
  func.return
}

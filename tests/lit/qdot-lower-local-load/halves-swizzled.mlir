// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// A register of four bytes at a 2-byte (not 4-byte) aligned place is two 16-bit loads (the quants
// of q4_0's 18- and q8_0's 34-byte blocks, q4_0-block-parts.mlir). Where the thread's part of the
// address is XOR-ed in (a swizzle with a 2-byte unit), the upper half is not at the lower half
// plus 2: the thread part may flip bit 1 or the 2 may carry past it, so each half gets its own
// address, thread ⊕ c and thread ⊕ (c + 2). Here lane 4 holds row 1, columns 0-1: bytes 18 and
// 16 of the swizzled 8×8 f16 tile (16 ⊕ 2 = 18, 16 ⊕ 0 = 16) — an `addi 2` would read column 3.

// CHECK-LABEL: func.func @f16_swizzled
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %m
// CHECK:       %[[LO:.*]] = arith.addi %[[BASE]], %[[T:.*]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[TH:.*]] = arith.xori %[[T]], %[[C2]] : i32
// CHECK-NEXT:  %[[HI:.*]] = arith.addi %[[BASE]], %[[TH]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[LO]] : i16
// CHECK-NEXT:  arith.extui
// CHECK-NEXT:  ptx.ld_shared %[[HI]] : i16
#bl = #qgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#sw = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @f16_swizzled(%m: !qgpu.memdesc<8x8xf16, #sw>) -> tensor<8x8xf16, #bl> {
  %r = qgpu.local_load %m : !qgpu.memdesc<8x8xf16, #sw> -> tensor<8x8xf16, #bl>
  func.return %r : tensor<8x8xf16, #bl>
}

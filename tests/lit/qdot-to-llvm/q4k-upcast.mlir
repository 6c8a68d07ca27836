// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qgpu.upcast from = q4_K to = s8: the nibble plane read raw from shared memory becomes s8 in
// registers with one mask (and one shift for the high nibbles) per destination register. ggml
// packs each 64-value chunk of a super-block into 32 bytes — value q is the low nibble of byte q,
// value 32 + q the high nibble of the same byte — so in the mma's K-contiguous layouts a source
// register (4 bytes of one 32-byte piece) gives one k tile's register as `x & 0x0F0F0F0F`
// (252645135) and the next k tile's as `(x >> 4) & 0x0F0F0F0F`; no byte moves.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>

// lhs, 64 bytes = 128 values per row: k tiles 0 / 1 from source registers 0-3 (low / high
// nibbles), k tiles 2 / 3 from registers 4-7.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32, %[[R4:[^:]*]]: i32, %[[R5:[^:]*]]: i32, %[[R6:[^:]*]]: i32, %[[R7:[^:]*]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[R0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.andi %[[R1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.andi %[[R2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.andi %[[R3]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[H0:.*]] = arith.shrui %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.andi %[[H0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H1:.*]] = arith.shrui %[[R1]], %[[C4]] : i32
// CHECK-NEXT:  %[[T5:.*]] = arith.andi %[[H1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H2:.*]] = arith.shrui %[[R2]], %[[C4]] : i32
// CHECK-NEXT:  %[[T6:.*]] = arith.andi %[[H2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H3:.*]] = arith.shrui %[[R3]], %[[C4]] : i32
// CHECK-NEXT:  %[[T7:.*]] = arith.andi %[[H3]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T8:.*]] = arith.andi %[[R4]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T9:.*]] = arith.andi %[[R5]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T10:.*]] = arith.andi %[[R6]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T11:.*]] = arith.andi %[[R7]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H4:.*]] = arith.shrui %[[R4]], %[[C4]] : i32
// CHECK-NEXT:  %[[T12:.*]] = arith.andi %[[H4]], %[[MASK]] : i32
// CHECK:       %[[H7:.*]] = arith.shrui %[[R7]], %[[C4]] : i32
// CHECK-NEXT:  %[[T15:.*]] = arith.andi %[[H7]], %[[MASK]] : i32
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]], %[[T5]], %[[T6]], %[[T7]], %[[T8]], %[[T9]], %[[T10]], %[[T11]], %[[T12]], %{{.*}}, %{{.*}}, %[[T15]])
// CHECK-NOT:   qgpu.upcast
// CHECK-NOT:   arith.ori
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %r4: i32, %r5: i32, %r6: i32, %r7: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x64xi8, #a>
  %u = qgpu.upcast %q from = q4_K to = s8 : tensor<16x64xi8, #a> -> tensor<16x128xi8, #a>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<16x128xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 64 bytes of K per column: two registers per k tile.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[R0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.andi %[[R1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[H0:.*]] = arith.shrui %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.andi %[[H0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H1:.*]] = arith.shrui %[[R1]], %[[C4]] : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.andi %[[H1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.andi %[[R2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T5:.*]] = arith.andi %[[R3]], %[[MASK]] : i32
// CHECK:       "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]], %[[T5]], %{{.*}}, %{{.*}})
func.func @rhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %q from = q4_K to = s8 : tensor<64x8xi8, #b> -> tensor<128x8xi8, #b>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<128x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// to = u8, what qdot-accelerate-matmul asks for: each nibble masked where it sits, so the high
// nibbles' registers are `x & 0xF0F0F0F0` (-252645136 as i32), 16 · q, with no shift; the mma
// reads them unsigned and their blocks' scales (block_part scale16) carry the 1/16.
// CHECK-LABEL: func.func @rhs_in_place
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       %[[LOW:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[R0]], %[[LOW]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.andi %[[R1]], %[[LOW]] : i32
// CHECK-NEXT:  %[[HIGH:.*]] = arith.constant -252645136 : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.andi %[[R0]], %[[HIGH]] : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.andi %[[R1]], %[[HIGH]] : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.andi %[[R2]], %[[LOW]] : i32
// CHECK-NEXT:  %[[T5:.*]] = arith.andi %[[R3]], %[[LOW]] : i32
// CHECK-NEXT:  %[[T6:.*]] = arith.andi %[[R2]], %[[HIGH]] : i32
// CHECK-NEXT:  %[[T7:.*]] = arith.andi %[[R3]], %[[HIGH]] : i32
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]], %[[T5]], %[[T6]], %[[T7]])
// CHECK-NOT:   arith.shrui
func.func @rhs_in_place(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %q from = q4_K to = u8 : tensor<64x8xi8, #b> -> tensor<128x8xi8, #b>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<128x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

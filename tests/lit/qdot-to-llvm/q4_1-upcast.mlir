// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'arith.shrui' %t | filecheck %s --check-prefix=SHR-COUNT
// RUN: grep -c 'arith.andi' %t | filecheck %s --check-prefix=AND-COUNT
// RUN: not grep -e 'arith.shli' -e 'arith.ori' -e 'arith.xori' -e 'ptx.lop3' %t
// qgpu.upcast from = q4_1 to = u8: the raw nibble bytes of q4_1 blocks (block_part `qs`, paired
// as q4_0's: value p the low nibble of byte p, value p + 16 the high nibble) become u8 codes
// 0..15 in registers, one word at a time. q4_1's values are d · c + m: the code needs no offset
// (its m is the min term's fold), so unlike q4_0's 16 · (c − 8) there is no flip — a low-nibble
// register is its source masked with 0x0F0F0F0F (252645135), a high-nibble one its source shifted
// right 4 and masked — one and per register, plus one shift for half of them. In the mma's
// K-contiguous layouts (kWidth 4 on both sides) a source register (4 bytes of one block) gives one
// destination register from its low nibbles and another from its high nibbles; no byte moves, no
// byte-by-byte fallback (no ori), no left shift. 24 registers in the two cases: 24 ands, 12 shifts.
// SHR-COUNT: {{^12$}}
// AND-COUNT: {{^24$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>

// lhs (the decode kernel's W), 4 blocks per row: A's registers per 32-value k tile are (row g,
// k 4t..), (row g + 8, k 4t..), (row g, k 16 + 4t..), (row g + 8, k 16 + 4t..), so block 0 is the
// low nibbles of registers 0 and 1, then their high nibbles.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32, %[[R4:[^:]*]]: i32, %[[R5:[^:]*]]: i32, %[[R6:[^:]*]]: i32, %[[R7:[^:]*]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[R0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.andi %[[R1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[H0:.*]] = arith.shrui %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.andi %[[H0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[H1:.*]] = arith.shrui %[[R1]], %[[C4]] : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.andi %[[H1]], %[[MASK]] : i32
// block 1: registers 2 and 3, the same mask and shift
// CHECK-NEXT:  %[[T4:.*]] = arith.andi %[[R2]], %[[MASK]] : i32
// CHECK:       %[[H7:.*]] = arith.shrui %[[R7]], %[[C4]] : i32
// CHECK-NEXT:  %[[T15:.*]] = arith.andi %[[H7]], %[[MASK]] : i32
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T15]])
// CHECK-NOT:   qgpu.upcast
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %r4: i32, %r5: i32, %r6: i32, %r7: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x64xi8, #a>
  %u = qgpu.upcast %q from = q4_1 to = u8 : tensor<16x64xi8, #a> -> tensor<16x128xi8, #a>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<16x128xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 4 blocks of K per column: B's registers per k tile are (k 4t..,
// column g) and (k 16 + 4t.., column g), one block per k tile, from the low then the high nibbles
// of one source register.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[R0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[H0:.*]] = arith.shrui %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.andi %[[H0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.andi %[[R1]], %[[MASK]] : i32
// CHECK:       %[[H3:.*]] = arith.shrui %[[R3]], %[[C4]] : i32
// CHECK-NEXT:  %[[T7:.*]] = arith.andi %[[H3]], %[[MASK]] : i32
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T7]])
func.func @rhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %q from = q4_1 to = u8 : tensor<64x8xi8, #b> -> tensor<128x8xi8, #b>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<128x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

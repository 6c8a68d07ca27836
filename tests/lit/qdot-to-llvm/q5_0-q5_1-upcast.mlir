// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'arith.muli' %t | filecheck %s --check-prefix=SPREADS
// RUN: grep -c 'ptx.lop3 .* lut 0xea$' %t | filecheck %s --check-prefix=JOINS
// RUN: not grep -e 'arith.ori' -e 'arith.xori' %t
// qgpu.upcast from = q5_0 to = s8 and from = q5_1 to = u8: q4_0's nibble pairs (block_part `qs`)
// joined with the fifth bit of every code from the block's 32-bit qh word (block_part `qh`, one
// i32 per block in the #qgpu.dot_scale layout of the operand: bit j is value j's). A register holds
// four values k..k+3 of one block, k = 4 · (lane mod 4), + 16 for a high-nibble register: the
// thread's word is shifted right by 4 · (lane mod 4) once (the one lane-dependent shift, made once
// per thread: (lane & 3) << 2) and a register takes its four bits at 0 or 16 (a shift and an and
// 15); one multiply spreads them to the top of each byte — × 0x00204081 puts bits 0-3 at 0, 8, 16,
// 24 with no carry between them, shifted on by the code's top position (q5_0: bit 7, × 270549120 =
// 0x10204080; q5_1: bit 4, × 33818640 = 0x02040810) — and a mask keeps them: q5_0's with its top bit
// flipped in the same lop3 (lut 0x6a, (a & b) ^ c, both 0x80808080 = -2139062144): 8 · (code − 16)
// as s8, the 8 undone by `d8`; q5_1's by an and with 0x10101010 (269488144). A last lop3 (lut 0xea,
// (a & b) | c) joins the nibbles, shifted into place and masked (q5_0: bits 3-6, 0x78787878 =
// 2021161080, a low nibble shifted left 3 and a high one right 1; q5_1: bits 0-3, 0x0F0F0F0F =
// 252645135, a high nibble shifted right 4). One multiply and one join per register: 4 + 8.
// SPREADS: {{^12$}}
// JOINS:   {{^12$}}

// q5_0 as the rhs (the prefill kernel's W), two blocks of K per column: B's registers per k tile are
// (k 4t.., column g) and (k 16 + 4t.., column g) — one block per k tile, the low then the high
// nibbles of one source register, and the column's word of that block.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[H0:[^:]*]]: i32, %[[H1:[^:]*]]: i32)
// CHECK:       %[[LANE4:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[W0:.*]] = arith.shrui %[[H0]], %[[LANE4]] : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.andi %[[W0]], %[[C15]] : i32
// CHECK-NEXT:  %[[SPREAD:.*]] = arith.constant 270549120 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.muli %[[B0]], %[[SPREAD]] : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[T0:.*]] = ptx.lop3 %[[S0]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[N0:.*]] = arith.shli %[[R0]], %[[C3]] : i32
// CHECK-NEXT:  %[[LOW:.*]] = arith.constant 2021161080 : i32
// CHECK-NEXT:  %[[O0:.*]] = ptx.lop3 %[[N0]], %[[LOW]], %[[T0]] lut 0xea{{$}}
// the high nibbles of the same register: the word's bits 16-19, the nibble shifted right 1
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[W0H:.*]] = arith.shrui %[[W0]], %[[C16]] : i32
// CHECK-NEXT:  %[[B1:.*]] = arith.andi %[[W0H]], %[[C15]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.muli %[[B1]], %[[SPREAD]] : i32
// CHECK-NEXT:  %[[T1:.*]] = ptx.lop3 %[[S1]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[N1:.*]] = arith.shrui %[[R0]], %[[C1]] : i32
// CHECK-NEXT:  %[[O1:.*]] = ptx.lop3 %[[N1]], %[[LOW]], %[[T1]] lut 0xea{{$}}
// block 1: the second register and the second word, shifted by the same lane amount
// CHECK-NEXT:  %[[W1:.*]] = arith.shrui %[[H1]], %[[LANE4]] : i32
// CHECK:       "test.op"(%[[O0]], %[[O1]], %{{.*}}, %{{.*}})
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#w = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @rhs(%r0: i32, %r1: i32, %h0: i32, %h1: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1 : i32, i32 to tensor<32x8xi8, #b>
  %h = builtin.unrealized_conversion_cast %h0, %h1 : i32, i32 to tensor<8x2xi32, #w>
  %u = qgpu.upcast %q high %h from = q5_0 to = s8 : tensor<32x8xi8, #b> high tensor<8x2xi32, #w> -> tensor<64x8xi8, #b>
  %o:4 = builtin.unrealized_conversion_cast %u : tensor<64x8xi8, #b> to i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3) : (i32, i32, i32, i32) -> ()
  func.return
}

// -----

// q5_1 as the lhs (the decode kernel's W), two blocks per row: A's registers per k tile are (row g,
// k 4t..), (row g + 8, k 4t..), (row g, k 16 + 4t..), (row g + 8, k 16 + 4t..), so each takes the
// word of its own row — two words per block — and its bits at 0 (low nibbles) or 16 (high ones).
// u8 codes: no flip, the nibbles masked where a low one sits and shifted right 4 from a high one.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32, %[[H0:[^:]*]]: i32, %[[H1:[^:]*]]: i32, %[[H2:[^:]*]]: i32, %[[H3:[^:]*]]: i32)
// CHECK:       %[[W0:.*]] = arith.shrui %[[H0]], %{{.*}} : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.andi %[[W0]], %[[C15]] : i32
// CHECK-NEXT:  %[[SPREAD:.*]] = arith.constant 33818640 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.muli %[[B0]], %[[SPREAD]] : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.constant 269488144 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.andi %[[S0]], %[[TOP]] : i32
// CHECK-NEXT:  %[[LOW:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[O0:.*]] = ptx.lop3 %[[R0]], %[[LOW]], %[[T0]] lut 0xea{{$}}
// row g + 8: its own word
// CHECK-NEXT:  %[[W2:.*]] = arith.shrui %[[H2]], %{{.*}} : i32
// CHECK:       %[[O1:.*]] = ptx.lop3 %[[R1]], %[[LOW]], %{{.*}} lut 0xea{{$}}
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[N2:.*]] = arith.shrui %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[O2:.*]] = ptx.lop3 %[[N2]], %[[LOW]], %{{.*}} lut 0xea{{$}}
// CHECK:       "test.op"(%[[O0]], %[[O1]], %[[O2]],
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#w = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %h0: i32, %h1: i32, %h2: i32, %h3: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #a>
  %h = builtin.unrealized_conversion_cast %h0, %h1, %h2, %h3 : i32, i32, i32, i32 to tensor<16x2xi32, #w>
  %u = qgpu.upcast %q high %h from = q5_1 to = u8 : tensor<16x32xi8, #a> high tensor<16x2xi32, #w> -> tensor<16x64xi8, #a>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<16x64xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

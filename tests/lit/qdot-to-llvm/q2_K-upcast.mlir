// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'arith.andi' %t | filecheck %s --check-prefix=AND-COUNT
// RUN: grep -c 'arith.shrui' %t | filecheck %s --check-prefix=SHIFT-COUNT
// RUN: grep -c 'arith.muli' %t | filecheck %s --check-prefix=MUL-COUNT
// RUN: grep -c 'ptx.prmt' %t | filecheck %s --check-prefix=PRMT-COUNT
// RUN: not grep -e 'arith.shli' -e 'arith.ori' -e 'arith.xori' -e 'arith.addi' -e 'arith.subi' -e 'ptx.lop3' %t
// qgpu.upcast from = q2_K to = u8: a q2_K code is its whole 2-bit field of a `qs` byte (per 128-value
// half, byte p holds values p, p + 32, p + 64, p + 96 in bit pairs 0..3, q3_K's low-bit layout), and the
// u8 value is the code 0..3, or sc · code with a scale (d and dmin · m are the mma's business). In the
// mma's K-contiguous layouts (kWidth 4) a source register keeps a thread's own bytes, four per register,
// in byte order, so each destination register is one word-wide extraction: the source register shifted
// down by 2 · field (`arith.shrui` by 2, 4 or 6) and masked with 0x03030303 (50529027) — field 0 the
// mask alone, no shift. With an integer `scale` (q2_K's 4-bit scale per 16 values, i8 in the operand scale
// layout, four to a register), each scale's byte is first moved alone to the bottom of a word, one
// `ptx.prmt %word, %zero, 0x4440 | byte` (selectors 17472..17475: byte j of the scale word, then three
// bytes of the zero) per distinct scale, and each destination register is multiplied by its 16 values'
// scale so made, one 32-bit `arith.muli` for four bytes: sc · code ≤ 15 · 3 = 45, so no byte's product
// carries into the next.
// One and per destination register (16 + 32 per case pair, 96 in this file), one shift for each but the
// field-0 ones (72), one prmt per scale and one multiply per scaled destination register (16 + 32 = 48
// each: every destination register has a 16-value group of its own), nothing else: no shli, or, xor, add,
// sub or lop3.
// AND-COUNT: {{^96$}}
// SHIFT-COUNT: {{^72$}}
// MUL-COUNT: {{^48$}}
// PRMT-COUNT: {{^48$}}

// rhs (the prefill kernel's W), one super-block of K per column: 64 qs bytes (4 registers, two per
// 32-byte k tile), 256 values (16 registers). Destination k tile j (values 32j..32j + 31, field i = j % 4
// of half j / 4) reads qs k tile j / 4 (registers 2 (j / 4), 2 (j / 4) + 1), field i.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[Q0:[^:]*]]: i32, %[[Q1:[^:]*]]: i32, %[[Q2:[^:]*]]: i32, %[[Q3:[^:]*]]: i32)
// values 0..31 (half 0, field 0): qs registers 0 and 1 masked where they are
// CHECK:       %[[MASK:.*]] = arith.constant 50529027 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.andi %[[Q0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.andi %[[Q1]], %[[MASK]] : i32
// values 32..63 (field 1): the same registers shifted down 2
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[S2:.*]] = arith.shrui %[[Q0]], %[[C2]] : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.andi %[[S2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S3:.*]] = arith.shrui %[[Q1]], %[[C2]] : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.andi %[[S3]], %[[MASK]] : i32
// values 64..95 (field 2): down 4
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[S4:.*]] = arith.shrui %[[Q0]], %[[C4]] : i32
// CHECK-NEXT:  %[[O4:.*]] = arith.andi %[[S4]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S5:.*]] = arith.shrui %[[Q1]], %[[C4]] : i32
// CHECK-NEXT:  %[[O5:.*]] = arith.andi %[[S5]], %[[MASK]] : i32
// values 96..127 (field 3): down 6
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[S6:.*]] = arith.shrui %[[Q0]], %[[C6]] : i32
// CHECK-NEXT:  %[[O6:.*]] = arith.andi %[[S6]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S7:.*]] = arith.shrui %[[Q1]], %[[C6]] : i32
// CHECK-NEXT:  %[[O7:.*]] = arith.andi %[[S7]], %[[MASK]] : i32
// half 1 (values 128..255): qs registers 2 and 3, the same four fields
// CHECK-NEXT:  %[[O8:.*]] = arith.andi %[[Q2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O9:.*]] = arith.andi %[[Q3]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S10:.*]] = arith.shrui %[[Q2]], %[[C2]] : i32
// CHECK-NEXT:  %[[O10:.*]] = arith.andi %[[S10]], %[[MASK]] : i32
// CHECK:       %[[S15:.*]] = arith.shrui %[[Q3]], %[[C6]] : i32
// CHECK-NEXT:  %[[O15:.*]] = arith.andi %[[S15]], %[[MASK]] : i32
// CHECK-NEXT:  "test.op"(%[[O0]], %[[O1]], %[[O2]], %[[O3]], %[[O4]], %[[O5]], %[[O6]], %[[O7]], %[[O8]], %[[O9]], %[[O10]], {{.*}}, %[[O15]])
// CHECK-NOT:   qgpu.upcast
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @rhs(%q0: i32, %q1: i32, %q2: i32, %q3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %q0, %q1, %q2, %q3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %qs from = q2_K to = u8 : tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<256x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

// lhs (the decode kernels' W), a 16-row tile: 64 qs bytes per row (8 registers: rows g and g + 8, two per
// 32-byte k tile), 256 values (32 registers, four per k tile). Destination k tile 1 (values 32..63 of
// half 0, field 1) reads the four registers of qs k tile 0, each shifted down 2; k tile 4 (half 1,
// field 0) the four registers of qs k tile 1, masked alone.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[Q0:[^:]*]]: i32, %[[Q1:[^:]*]]: i32, %[[Q2:[^:]*]]: i32, %[[Q3:[^:]*]]: i32, %[[Q4:[^:]*]]: i32, %[[Q5:[^:]*]]: i32, %[[Q6:[^:]*]]: i32, %[[Q7:[^:]*]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 50529027 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.andi %[[Q0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.andi %[[Q1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.andi %[[Q2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.andi %[[Q3]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[S4:.*]] = arith.shrui %[[Q0]], %[[C2]] : i32
// CHECK-NEXT:  %[[O4:.*]] = arith.andi %[[S4]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S5:.*]] = arith.shrui %[[Q1]], %[[C2]] : i32
// CHECK-NEXT:  %[[O5:.*]] = arith.andi %[[S5]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S6:.*]] = arith.shrui %[[Q2]], %[[C2]] : i32
// CHECK-NEXT:  %[[O6:.*]] = arith.andi %[[S6]], %[[MASK]] : i32
// CHECK-NEXT:  %[[S7:.*]] = arith.shrui %[[Q3]], %[[C2]] : i32
// CHECK-NEXT:  %[[O7:.*]] = arith.andi %[[S7]], %[[MASK]] : i32
// CHECK:       %[[O16:.*]] = arith.andi %[[Q4]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O17:.*]] = arith.andi %[[Q5]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O18:.*]] = arith.andi %[[Q6]], %[[MASK]] : i32
// CHECK-NEXT:  %[[O19:.*]] = arith.andi %[[Q7]], %[[MASK]] : i32
// CHECK:       "test.op"(%[[O0]], %[[O1]], %[[O2]], %[[O3]], %[[O4]], %[[O5]], %[[O6]], %[[O7]], {{[^)]*}}, %[[O16]], %[[O17]], %[[O18]], %[[O19]],
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @lhs(%q0: i32, %q1: i32, %q2: i32, %q3: i32, %q4: i32, %q5: i32, %q6: i32, %q7: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %q0, %q1, %q2, %q3, %q4, %q5, %q6, %q7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x64xi8, #a>
  %u = qgpu.upcast %qs from = q2_K to = u8 : tensor<16x64xi8, #a> -> tensor<16x256xi8, #a>
  %o:32 = builtin.unrealized_conversion_cast %u : tensor<16x256xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15, %o#16, %o#17, %o#18, %o#19, %o#20, %o#21, %o#22, %o#23, %o#24, %o#25, %o#26, %o#27, %o#28, %o#29, %o#30, %o#31)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

// rhs with its scales: the thread's 4 scale registers hold column g's 16 groups of 16 values, in K order,
// four bytes each, so destination register j (values 16j + 4t..16j + 4t + 3 of column g) is multiplied by
// byte j % 4 of scale register j / 4, moved to the bottom of a word (selector 17472 + j % 4).
// CHECK-LABEL: func.func @rhs_scaled
// CHECK-SAME:  (%[[Q0:[^:]*]]: i32, %[[Q1:[^:]*]]: i32, %[[Q2:[^:]*]]: i32, %[[Q3:[^:]*]]: i32, %[[S0:s0]]: i32, %[[S1:s1]]: i32, %[[S2:s2]]: i32, %[[S3:s3]]: i32)
// CHECK:       %[[MASK:.*]] = arith.constant 50529027 : i32
// CHECK-NEXT:  %[[U0:.*]] = arith.andi %[[Q0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[U1:.*]] = arith.andi %[[Q1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.shrui %[[Q0]], %[[C2]] : i32
// CHECK-NEXT:  %[[U2:.*]] = arith.andi %[[T2]], %[[MASK]] : i32
// CHECK:       %[[C6:.*]] = arith.constant 6 : i32
// CHECK:       %[[U8:.*]] = arith.andi %[[Q2]], %[[MASK]] : i32
// CHECK:       %[[T15:.*]] = arith.shrui %[[Q3]], %[[C6]] : i32
// CHECK-NEXT:  %[[U15:.*]] = arith.andi %[[T15]], %[[MASK]] : i32
// the 16 scales, each byte alone: groups 0-3 from scale register 0, 4-7 from register 1, …
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.constant 17472 : i32
// CHECK-NEXT:  %[[F0:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B0]]
// CHECK-NEXT:  %[[B1:.*]] = arith.constant 17473 : i32
// CHECK-NEXT:  %[[F1:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B1]]
// CHECK-NEXT:  %[[B2:.*]] = arith.constant 17474 : i32
// CHECK-NEXT:  %[[F2:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B2]]
// CHECK-NEXT:  %[[B3:.*]] = arith.constant 17475 : i32
// CHECK-NEXT:  %[[F3:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B3]]
// CHECK-NEXT:  %[[F4:.*]] = ptx.prmt %[[S1]], %[[ZERO]], %[[B0]]
// CHECK:       %[[F8:.*]] = ptx.prmt %[[S2]], %[[ZERO]], %[[B0]]
// CHECK:       %[[F15:.*]] = ptx.prmt %[[S3]], %[[ZERO]], %[[B3]]
// then one multiply per destination register
// CHECK-NEXT:  %[[O0:.*]] = arith.muli %[[U0]], %[[F0]] : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.muli %[[U1]], %[[F1]] : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.muli %[[U2]], %[[F2]] : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.muli %{{.*}}, %[[F3]] : i32
// CHECK-NEXT:  %[[O4:.*]] = arith.muli %{{.*}}, %[[F4]] : i32
// CHECK:       %[[O8:.*]] = arith.muli %[[U8]], %[[F8]] : i32
// CHECK:       %[[O15:.*]] = arith.muli %[[U15]], %[[F15]] : i32
// CHECK-NEXT:  "test.op"(%[[O0]], %[[O1]], %[[O2]], %[[O3]], %[[O4]], {{.*}}, %[[O8]], {{.*}}, %[[O15]])
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @rhs_scaled(%q0: i32, %q1: i32, %q2: i32, %q3: i32, %s0: i32, %s1: i32, %s2: i32, %s3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %q0, %q1, %q2, %q3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %sc = builtin.unrealized_conversion_cast %s0, %s1, %s2, %s3 : i32, i32, i32, i32 to tensor<8x16xi8, #ob>
  %u = qgpu.upcast %qs scale %sc from = q2_K to = u8 : tensor<64x8xi8, #b>, tensor<8x16xi8, #ob> -> tensor<256x8xi8, #b>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<256x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

// lhs with its scales: rows g and g + 8, 4 scale registers each (row g's groups in registers 0-3, row
// g + 8's in 4-7, four groups per register); the four destination registers of k tile j are (row g, group
// 2j), (row g + 8, 2j), (row g, 2j + 1), (row g + 8, 2j + 1), so k tile 0 multiplies by bytes 0 of scale
// registers 0 and 4, then bytes 1 of them, k tile 1 by bytes 2 and 3, k tile 2 by bytes 0 and 1 of
// registers 1 and 5.
// CHECK-LABEL: func.func @lhs_scaled
// CHECK-SAME:  %[[S0:s0]]: i32, %[[S1:s1]]: i32, %[[S2:s2]]: i32, %[[S3:s3]]: i32, %[[S4:s4]]: i32, %[[S5:s5]]: i32, %[[S6:s6]]: i32, %[[S7:s7]]: i32)
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.constant 17472 : i32
// CHECK-NEXT:  %[[F0:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B0]]
// CHECK-NEXT:  %[[F1:.*]] = ptx.prmt %[[S4]], %[[ZERO]], %[[B0]]
// CHECK-NEXT:  %[[B1:.*]] = arith.constant 17473 : i32
// CHECK-NEXT:  %[[F2:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B1]]
// CHECK-NEXT:  %[[F3:.*]] = ptx.prmt %[[S4]], %[[ZERO]], %[[B1]]
// CHECK-NEXT:  %[[B2:.*]] = arith.constant 17474 : i32
// CHECK-NEXT:  %[[F4:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B2]]
// CHECK-NEXT:  %[[F5:.*]] = ptx.prmt %[[S4]], %[[ZERO]], %[[B2]]
// CHECK-NEXT:  %[[B3:.*]] = arith.constant 17475 : i32
// CHECK-NEXT:  %[[F6:.*]] = ptx.prmt %[[S0]], %[[ZERO]], %[[B3]]
// CHECK-NEXT:  %[[F7:.*]] = ptx.prmt %[[S4]], %[[ZERO]], %[[B3]]
// CHECK-NEXT:  %[[F8:.*]] = ptx.prmt %[[S1]], %[[ZERO]], %[[B0]]
// CHECK-NEXT:  %[[F9:.*]] = ptx.prmt %[[S5]], %[[ZERO]], %[[B0]]
// CHECK:       %[[F31:.*]] = ptx.prmt %[[S7]], %[[ZERO]], %[[B3]]
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F0]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F1]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F2]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F3]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F4]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F5]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F6]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F7]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F8]] : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[F9]] : i32
// CHECK:       %[[O31:.*]] = arith.muli %{{.*}}, %[[F31]] : i32
// CHECK-NEXT:  "test.op"({{.*}}, %[[O31]])
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#oa = #qgpu.dot_scale<{opIdx = 0, parent = #mma, operand = true}>
func.func @lhs_scaled(%q0: i32, %q1: i32, %q2: i32, %q3: i32, %q4: i32, %q5: i32, %q6: i32, %q7: i32, %s0: i32, %s1: i32, %s2: i32, %s3: i32, %s4: i32, %s5: i32, %s6: i32, %s7: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %q0, %q1, %q2, %q3, %q4, %q5, %q6, %q7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x64xi8, #a>
  %sc = builtin.unrealized_conversion_cast %s0, %s1, %s2, %s3, %s4, %s5, %s6, %s7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x16xi8, #oa>
  %u = qgpu.upcast %qs scale %sc from = q2_K to = u8 : tensor<16x64xi8, #a>, tensor<16x16xi8, #oa> -> tensor<16x256xi8, #a>
  %o:32 = builtin.unrealized_conversion_cast %u : tensor<16x256xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15, %o#16, %o#17, %o#18, %o#19, %o#20, %o#21, %o#22, %o#23, %o#24, %o#25, %o#26, %o#27, %o#28, %o#29, %o#30, %o#31)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.lop3 .* lut 0xea$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: not grep -e 'arith.ori' -e 'arith.addi' -e 'arith.xori' %t
// qgpu.upcast from = q5_K to = s8 … high: a q5_K code's low four bits come from its `qs` bytes (a
// nibble, paired as q4_K's: per 64-value chunk, byte p holds value p in its low nibble and value
// p + 32 in its high one) and its top bit from its `qh` bytes (byte l holds the top bits of values
// l, l + 32, …, l + 224 of the super-block in bits 0..7). In the mma's K-contiguous layouts (kWidth 4)
// both sources keep a thread's own values, four per register, in byte order, so each destination
// register is made word-wide: the qs register (shifted right 4 for a high nibble), the qh register
// shifted so bit i lands at bit 4 (left 4 − i for i ≤ 4, right i − 4 above) and masked there
// (0x10101010 = 269488144), both joined by one `ptx.lop3 lut 0xea` — (a & b) | c with b = 0x0F0F0F0F
// (252645135). The code 0..31 is the s8 value itself (the mins are a separate fold), so nothing is
// subtracted (no add, no xor, unlike q6_K's code − 32), and never the byte-by-byte fallback (no ori).
// LOP3-COUNT: {{^16$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), one super-block of K per column: 128 qs bytes (8 registers, two per
// 32-byte k tile), 32 qh bytes (2), 256 values (16). Destination k tile j (values 32j..32j + 31:
// chunk j / 2, its low nibbles for even j) reads qs k tile j / 2 (high nibbles for odd j) and the
// one qh k tile, bit j.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[L0:[^:]*]]: i32, %[[L1:[^:]*]]: i32, %[[L2:[^:]*]]: i32, %[[L3:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[L6:[^:]*]]: i32, %[[L7:[^:]*]]: i32, %[[H0:[^:]*]]: i32, %[[H1:[^:]*]]: i32
// values 0..3 + 4t (bit 0): qs register 0's low nibbles, qh register 0's bit 0 moved up 4
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.shli %[[H0]], %[[C4]] : i32
// CHECK-NEXT:  %[[M:.*]] = arith.constant 269488144 : i32
// CHECK-NEXT:  %[[P0:.*]] = arith.andi %[[T0]], %[[M]] : i32
// CHECK-NEXT:  %[[LOW:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[O0:.*]] = ptx.lop3 %[[L0]], %[[LOW]], %[[P0]] lut 0xea{{$}}
// values 16..19 + 4t: qs and qh registers 1, the same bit
// CHECK-NEXT:  %[[T1:.*]] = arith.shli %[[H1]], %[[C4]] : i32
// CHECK-NEXT:  %[[P1:.*]] = arith.andi %[[T1]], %[[M]] : i32
// CHECK-NEXT:  ptx.lop3 %[[L1]], %[[LOW]], %[[P1]] lut 0xea{{$}}
// values 32..63 (bit 1): the same qs registers' high nibbles, qh bit 1 moved up 3
// CHECK-NEXT:  %[[S2:.*]] = arith.shrui %[[L0]], %[[C4]] : i32
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.shli %[[H0]], %[[C3]] : i32
// CHECK-NEXT:  %[[P2:.*]] = arith.andi %[[T2]], %[[M]] : i32
// CHECK-NEXT:  ptx.lop3 %[[S2]], %[[LOW]], %[[P2]] lut 0xea{{$}}
// values 64..95 (bit 2): qs registers 2-3 (the second chunk), qh bit 2 moved up 2
// CHECK:       %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.shli %[[H0]], %[[C2]] : i32
// CHECK-NEXT:  %[[P4:.*]] = arith.andi %[[T4]], %[[M]] : i32
// CHECK-NEXT:  ptx.lop3 %[[L2]], %[[LOW]], %[[P4]] lut 0xea{{$}}
// values 128..159 (bit 4): qh bit 4 where it sits
// CHECK:       %[[P8:.*]] = arith.andi %[[H0]], %[[M]] : i32
// CHECK-NEXT:  ptx.lop3 %{{.*}}, %[[LOW]], %[[P8]] lut 0xea{{$}}
// values 224..255 (bit 7): qs registers 6-7's high nibbles, qh bit 7 moved down 3
// CHECK:       %[[S14:.*]] = arith.shrui %[[L6]], %[[C4]] : i32
// CHECK-NEXT:  %[[T14:.*]] = arith.shrui %[[H0]], %[[C3]] : i32
// CHECK-NEXT:  %[[P14:.*]] = arith.andi %[[T14]], %[[M]] : i32
// CHECK-NEXT:  ptx.lop3 %[[S14]], %[[LOW]], %[[P14]] lut 0xea{{$}}
// CHECK-NEXT:  %[[S15:.*]] = arith.shrui %[[L7]], %[[C4]] : i32
// CHECK-NEXT:  %[[T15:.*]] = arith.shrui %[[H1]], %[[C3]] : i32
// CHECK:       "test.op"(%[[O0]],
// CHECK-NOT:   qgpu.upcast
func.func @rhs(%l0: i32, %l1: i32, %l2: i32, %l3: i32, %l4: i32, %l5: i32, %l6: i32, %l7: i32,
               %h0: i32, %h1: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<128x8xi8, #b>
  %qh = builtin.unrealized_conversion_cast %h0, %h1 : i32, i32 to tensor<32x8xi8, #b>
  %u = qgpu.upcast %qs high %qh from = q5_K to = s8 : tensor<128x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<256x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

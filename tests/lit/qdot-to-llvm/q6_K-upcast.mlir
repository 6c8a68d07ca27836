// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.lop3 .* lut 0xea$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: grep -c 'ptx.lop3 .* lut 0x6a$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: not grep -e 'arith.ori' -e 'arith.addi' -e 'arith.xori' -e 'arith.andi' %t
// qgpu.upcast from = q6_K to = s8 … high: a q6_K code's low four bits come from its `ql` bytes (a
// nibble: per 128-value half, byte p holds value p in its low nibble and value p + 64 in its high
// one) and its top two from its `qh` bytes (byte l holds the top bits of values l, l + 32, l + 64,
// l + 96 in bit pairs 0..3). The s8 value is 4 · (code − 32) — the 6-bit code at bits 2-7 of its
// byte with bit 7 flipped, (code << 2) − 128 — whose 4 the scale (d / 4, block part `d4`) undoes.
// In the mma's K-contiguous layouts (kWidth 4) both sources keep a thread's own values, four per
// register, in byte order, so each destination register is made word-wide: the ql register shifted
// so its nibble lands at bits 2-5 (left 2 for a low nibble, right 2 for a high one), the qh register
// shifted so bit pair i lands at bits 6-7 (left 6 for i = 0, 4 for 1, 2 for 2, none for 3), masked
// there with bit 7 flipped in one `ptx.lop3 lut 0x6a` — (a & b) ^ c with b = 0xC0C0C0C0
// (−1061109568) and c = 0x80808080 (−2139062144) — and joined by one `ptx.lop3 lut 0xea` —
// (a & b) | c with b = 0x3C3C3C3C (1010580540). Two lop3 per destination register (16 of each), no
// add or xor (no carries to keep inside a byte), never the byte-by-byte fallback (no ori).
// LOP3-COUNT: {{^16$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), one super-block of K per column: 128 ql bytes (8 registers, two per
// 32-byte k tile), 64 qh bytes (4), 256 values (16). Destination k tile j (values 32j..32j + 31,
// quarter i = j % 4 of half j / 4) reads ql k tile 2 · (j / 4) + j % 2 (high nibbles for i ≥ 2) and
// qh k tile j / 4, pair i.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[L0:[^:]*]]: i32, %[[L1:[^:]*]]: i32, %[[L2:[^:]*]]: i32, %[[L3:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[H0:[^:]*]]: i32, %[[H1:[^:]*]]: i32
// value 0..3 + 4t (quarter 0): ql register 0's low nibbles moved up 2, qh register 0's pair 0 up 6
// CHECK:       %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.shli %[[L0]], %[[C2]] : i32
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.shli %[[H0]], %[[C6]] : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.constant -1061109568 : i32
// CHECK-NEXT:  %[[FLIP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[P0:.*]] = ptx.lop3 %[[T0]], %[[TOP]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[LOW:.*]] = arith.constant 1010580540 : i32
// CHECK-NEXT:  %[[O0:.*]] = ptx.lop3 %[[A0]], %[[LOW]], %[[P0]] lut 0xea{{$}}
// values 16..19 + 4t: ql and qh registers 1, the same pair
// CHECK-NEXT:  %[[A1:.*]] = arith.shli %[[L1]], %[[C2]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.shli %[[H1]], %[[C6]] : i32
// CHECK-NEXT:  %[[P1:.*]] = ptx.lop3 %[[T1]], %[[TOP]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A1]], %[[LOW]], %[[P1]] lut 0xea{{$}}
// quarter 1 (values 32..63): ql registers 2-3 (bytes 32..63), qh pair 1 moved up 4
// CHECK-NEXT:  %[[A2:.*]] = arith.shli %[[L2]], %[[C2]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.shli %[[H0]], %[[C4]] : i32
// CHECK-NEXT:  %[[P2:.*]] = ptx.lop3 %[[T2]], %[[TOP]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A2]], %[[LOW]], %[[P2]] lut 0xea{{$}}
// CHECK:       ptx.lop3 %{{.*}}, %[[LOW]], %{{.*}} lut 0xea{{$}}
// quarter 2 (values 64..95): ql registers 0-1 again, high nibbles moved down 2; qh pair 2 up 2
// CHECK-NEXT:  %[[A4:.*]] = arith.shrui %[[L0]], %[[C2]] : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.shli %[[H0]], %[[C2]] : i32
// CHECK-NEXT:  %[[P4:.*]] = ptx.lop3 %[[T4]], %[[TOP]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A4]], %[[LOW]], %[[P4]] lut 0xea{{$}}
// quarter 3 (values 96..127): ql registers 2-3's high nibbles; qh pair 3 where it sits
// CHECK:       %[[A6:.*]] = arith.shrui %[[L2]], %[[C2]] : i32
// CHECK-NEXT:  %[[P6:.*]] = ptx.lop3 %[[H0]], %[[TOP]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A6]], %[[LOW]], %[[P6]] lut 0xea{{$}}
// CHECK:       "test.op"(%[[O0]],
// CHECK-NOT:   qgpu.upcast
func.func @rhs(%l0: i32, %l1: i32, %l2: i32, %l3: i32, %l4: i32, %l5: i32, %l6: i32, %l7: i32,
               %h0: i32, %h1: i32, %h2: i32, %h3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %ql = builtin.unrealized_conversion_cast %l0, %l1, %l2, %l3, %l4, %l5, %l6, %l7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<128x8xi8, #b>
  %qh = builtin.unrealized_conversion_cast %h0, %h1, %h2, %h3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %ql high %qh from = q6_K to = s8 : tensor<128x8xi8, #b> high tensor<64x8xi8, #b> -> tensor<256x8xi8, #b>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<256x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.lop3 .* lut 0xea$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: grep -c 'ptx.lop3 .* lut 0x6a$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: not grep -e 'arith.ori' -e 'arith.addi' -e 'arith.xori' -e 'arith.andi' %t
// qgpu.upcast from = q3_K to = s8 … high: a q3_K code's low two bits come from its `qs` bytes (per
// 128-value half, byte p holds values p, p + 32, p + 64, p + 96 in bit pairs 0..3) and its top bit from
// its `hmask` bytes (byte l holds the top bits of values l, l + 32, …, l + 224 in bits 0..7). The s8
// value is 32 · (code − 4) — the 3-bit code at bits 5-7 of its byte with bit 7 flipped, (code << 5) − 128
// — whose 32 the scale (d / 32, block part `d32`) undoes. In the mma's K-contiguous layouts (kWidth 4)
// both sources keep a thread's own values, four per register, in byte order, so each destination
// register is made word-wide: the qs register shifted so bit pair i lands at bits 5-6 (left 5 - 2i;
// right 1 for i = 3), the hmask register shifted so bit j lands at bit 7 (left 7 - j), masked there with
// bit 7 flipped in one `ptx.lop3 lut 0x6a` — (a & b) ^ c with b = c = 0x80808080 (−2139062144) — and
// joined by one `ptx.lop3 lut 0xea` — (a & b) | c with b = 0x60606060 (1616928864). Two lop3 per
// destination register (16 of each), no add or xor, never the byte-by-byte fallback (no ori).
// LOP3-COUNT: {{^16$}}

// rhs (the prefill kernel's W), one super-block of K per column: 64 qs bytes (4 registers, two per
// 32-byte k tile), 32 hmask bytes (2), 256 values (16). Destination k tile j (values 32j..32j + 31,
// quarter i = j % 4 of half j / 4) reads qs k tile j / 4, pair i, and the hmask k tile, bit j.
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[Q0:[^:]*]]: i32, %[[Q1:[^:]*]]: i32, %[[Q2:[^:]*]]: i32, %[[Q3:[^:]*]]: i32, %[[H0:[^:]*]]: i32, %[[H1:[^:]*]]: i32)
// values 0..3 + 4t (half 0, quarter 0): qs register 0's pair 0 moved up 5, hmask register 0's bit 0 up 7
// CHECK:       %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.shli %[[Q0]], %[[C5]] : i32
// CHECK-NEXT:  %[[C7:.*]] = arith.constant 7 : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.shli %[[H0]], %[[C7]] : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[P0:.*]] = ptx.lop3 %[[T0]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[LOW:.*]] = arith.constant 1616928864 : i32
// CHECK-NEXT:  %[[O0:.*]] = ptx.lop3 %[[A0]], %[[LOW]], %[[P0]] lut 0xea{{$}}
// values 16..19 + 4t: qs and hmask registers 1, the same pair and bit
// CHECK-NEXT:  %[[A1:.*]] = arith.shli %[[Q1]], %[[C5]] : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.shli %[[H1]], %[[C7]] : i32
// CHECK-NEXT:  %[[P1:.*]] = ptx.lop3 %[[T1]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A1]], %[[LOW]], %[[P1]] lut 0xea{{$}}
// quarter 1 (values 32..63): qs register 0's pair 1 up 3, hmask bit 1 up 6
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.shli %[[Q0]], %[[C3]] : i32
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[T2:.*]] = arith.shli %[[H0]], %[[C6]] : i32
// CHECK-NEXT:  %[[P2:.*]] = ptx.lop3 %[[T2]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A2]], %[[LOW]], %[[P2]] lut 0xea{{$}}
// quarter 3 (values 96..127): pair 3 moved down 1, hmask bit 3 up 4
// CHECK:       %[[A6:.*]] = arith.shrui %[[Q0]], %{{.*}} : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[T6:.*]] = arith.shli %[[H0]], %[[C4]] : i32
// CHECK-NEXT:  %[[P6:.*]] = ptx.lop3 %[[T6]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A6]], %[[LOW]], %[[P6]] lut 0xea{{$}}
// half 1 (values 128..255): qs registers 2-3, hmask bits 4..7; the last quarter's bit 7 where it sits
// CHECK:       %[[A8:.*]] = arith.shli %[[Q2]], %[[C5]] : i32
// CHECK-NEXT:  %[[T8:.*]] = arith.shli %[[H0]], %[[C3]] : i32
// CHECK:       %[[A14:.*]] = arith.shrui %[[Q2]], %{{.*}} : i32
// CHECK-NEXT:  %[[P14:.*]] = ptx.lop3 %[[H0]], %[[TOP]], %[[TOP]] lut 0x6a{{$}}
// CHECK-NEXT:  ptx.lop3 %[[A14]], %[[LOW]], %[[P14]] lut 0xea{{$}}
// CHECK:       "test.op"(%[[O0]],
// CHECK-NOT:   qgpu.upcast
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @rhs(%q0: i32, %q1: i32, %q2: i32, %q3: i32, %h0: i32, %h1: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %qs = builtin.unrealized_conversion_cast %q0, %q1, %q2, %q3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %hm = builtin.unrealized_conversion_cast %h0, %h1 : i32, i32 to tensor<32x8xi8, #b>
  %u = qgpu.upcast %qs high %hm from = q3_K to = s8 : tensor<64x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<256x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

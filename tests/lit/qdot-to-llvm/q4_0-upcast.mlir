// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'arith.shli' %t | filecheck %s --check-prefix=SHL-COUNT
// RUN: grep -c 'ptx.lop3 .* lut 0x6a$' %t | filecheck %s --check-prefix=LOP3-COUNT
// RUN: grep -c 'arith.constant -2139062144 : i32' %t | filecheck %s --check-prefix=FLIP-COUNT
// RUN: not grep -e 'arith.shrui' -e 'arith.ori' -e 'arith.andi' -e 'arith.xori' %t
// qgpu.upcast from = q4_0 to = s8: the raw nibble bytes of q4_0 blocks (block_part `qs`) become
// s8 values 16 · (c − 8) in registers, one word at a time. ggml packs a 32-value block into 16
// bytes — value p is the low nibble of byte p, value p + 16 the high nibble of the same byte — so
// in the mma's K-contiguous layouts (kWidth 4 on both sides) a source register (4 bytes of one
// block) gives one destination register from its low nibbles and another from its high nibbles,
// and no byte moves. Each nibble is put in the high half of its byte and masked there, giving
// 16 · c, and the top bit of every byte is flipped, giving 16 · c − 128 = 16 · (c − 8) as s8 (the
// 16 is undone by the `d16` scale) — mask and flip in ONE three-input logic op, `ptx.lop3 %x,
// %mask, %flip lut 0x6a`, i.e. (x & 0xF0F0F0F0) ^ 0x80808080 (0x6a = (0xF0 & 0xCC) ^ 0xAA, the
// table of (a & b) ^ c; 0xF0F0F0F0 = -252645136 and 0x80808080 = -2139062144 as i32), on
// `x << 4` for the low nibbles and on x itself for the high ones. The two masks are lop3
// operands, i32 constants made once per function and shared by every lop3 (ptxas then keeps the
// flip in a register and emits one LOP3 per register — an and + xor of two immediates would stay
// two: a SASS LOP3 has one immediate slot). Per destination register: one lop3, plus one left
// shift for a low-nibble register (half of them) — in the file, 24 lop3s and 12 shifts for the 24
// registers of the two cases, the flip constant made once per case — and never a separate and or
// xor, a right shift, nor the byte-by-byte fallback (no ori).
// SHL-COUNT:  {{^12$}}
// LOP3-COUNT: {{^24$}}
// FLIP-COUNT: {{^2$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>

// lhs (the decode kernel's W), 64 bytes = 4 blocks = 128 values per row; source k tile 0 is
// registers 0-3 (rows g / g + 8, block 0 then block 1), k tile 1 registers 4-7. A's registers per
// 32-value k tile are (row g, k 4t..), (row g + 8, k 4t..), (row g, k 16 + 4t..), (row g + 8,
// k 16 + 4t..): block 0 is the low then the high nibbles of registers 0 and 1, block 1 those of
// registers 2 and 3, and so on.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32, %[[R4:[^:]*]]: i32, %[[R5:[^:]*]]: i32, %[[R6:[^:]*]]: i32, %[[R7:[^:]*]]: i32)
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[L0:.*]] = arith.shli %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[MASK:.*]] = arith.constant -252645136 : i32
// CHECK-NEXT:  %[[FLIP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[T0:.*]] = ptx.lop3 %[[L0]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[L1:.*]] = arith.shli %[[R1]], %[[C4]] : i32
// CHECK-NEXT:  %[[T1:.*]] = ptx.lop3 %[[L1]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// the high nibbles of the same two registers: masked and flipped where they sit
// CHECK-NEXT:  %[[T2:.*]] = ptx.lop3 %[[R0]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[T3:.*]] = ptx.lop3 %[[R1]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// block 1: registers 2 and 3, the same two constants
// CHECK-NEXT:  %[[L4:.*]] = arith.shli %[[R2]], %[[C4]] : i32
// CHECK-NEXT:  %[[T4:.*]] = ptx.lop3 %[[L4]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[L5:.*]] = arith.shli %[[R3]], %[[C4]] : i32
// CHECK-NEXT:  %[[T5:.*]] = ptx.lop3 %[[L5]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[T6:.*]] = ptx.lop3 %[[R2]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[T7:.*]] = ptx.lop3 %[[R3]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// blocks 2 and 3 the same from registers 4-7; the last one from register 7's high nibbles
// CHECK-NEXT:  %[[L8:.*]] = arith.shli %[[R4]], %[[C4]] : i32
// CHECK:       %[[T15:.*]] = ptx.lop3 %[[R7]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]], %[[T5]], %[[T6]], %[[T7]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T15]])
// CHECK-NOT:   qgpu.upcast
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %r4: i32, %r5: i32, %r6: i32, %r7: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x64xi8, #a>
  %u = qgpu.upcast %q from = q4_0 to = s8 : tensor<16x64xi8, #a> -> tensor<16x128xi8, #a>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<16x128xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7, %o#8, %o#9, %o#10, %o#11, %o#12, %o#13, %o#14, %o#15)
      : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 64 bytes = 4 blocks of K per column. B's registers per k tile are
// (k 4t.., column g) and (k 16 + 4t.., column g): one block per k tile, from the low then the high
// nibbles of a single source register — register 0 for block 0, register 1 for block 1, ...
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[L0:.*]] = arith.shli %[[R0]], %[[C4]] : i32
// CHECK-NEXT:  %[[MASK:.*]] = arith.constant -252645136 : i32
// CHECK-NEXT:  %[[FLIP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[T0:.*]] = ptx.lop3 %[[L0]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[T1:.*]] = ptx.lop3 %[[R0]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[L2:.*]] = arith.shli %[[R1]], %[[C4]] : i32
// CHECK-NEXT:  %[[T2:.*]] = ptx.lop3 %[[L2]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  %[[T3:.*]] = ptx.lop3 %[[R1]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK:       %[[T7:.*]] = ptx.lop3 %[[R3]], %[[MASK]], %[[FLIP]] lut 0x6a{{$}}
// CHECK-NEXT:  "test.op"(%[[T0]], %[[T1]], %[[T2]], %[[T3]], %{{.*}}, %{{.*}}, %{{.*}}, %[[T7]])
func.func @rhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<64x8xi8, #b>
  %u = qgpu.upcast %q from = q4_0 to = s8 : tensor<64x8xi8, #b> -> tensor<128x8xi8, #b>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<128x8xi8, #b> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

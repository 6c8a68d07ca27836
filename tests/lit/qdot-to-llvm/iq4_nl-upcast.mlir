// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.prmt' %t | filecheck %s --check-prefix=PRMT-COUNT
// RUN: not grep -e 'ptx.lop3' -e 'arith.xori' -e 'arith.addi' -e 'arith.subi' -e 'arith.shli' -e 'arith.constant 50462976 : i32' -e 'arith.constant -2139062144 : i32' %t
// qgpu.upcast from = iq4_nl to = s8: the raw nibble bytes of ggml's iq4_nl blocks (block_part `qs`:
// 16 bytes per 32-value block, value p the low nibble of byte p, value p + 16 its high nibble, as
// q4_0) become s8 values, each the entry of ggml's kvalues_iq4nl = (−127, −104, −83, −65, −49, −35,
// −22, −10, 1, 13, 25, 38, 53, 69, 89, 113) its nibble indexes (the block's `d` part scales them, as
// it is). The table has no symmetry, so mxfp4's sign trick (one table of magnitudes, the codes with
// their signs flipped, a bytewise subtract: no xori, addi or subi here, and neither its table word
// 0x03020100 = 50462976 nor its bias 0x80808080 = -2139062144) does not apply. Instead, as llama.cpp's
// get_int_from_table_16, per source word:
// * the codes with their top bits masked off (and 0x77777777 = 2004318071: a selector nibble's bit 3
//   would replicate a sign), and the pick selectors (w >> 1) & 0x44444444 | 0x32103210 (1145324612,
//   839922192): byte i picks i, or i + 4 where its code's top bit is set;
// * the table as four little-endian words of s8 bytes, immediates as signed i32: codes 0-3
//   0xBFAD9881 = -1079142271, 4-7 0xF6EADDCF = -152379953, 8-11 0x26190D01 = 639175937, 12-15
//   0x71594535 = 1901675829;
// * for each half of the word's eight nibbles (prmt reads four selector nibbles, so the upper half
//   is the masked codes and the picks shifted down 16): one prmt in entries 0-7, one in entries 8-15,
//   a third picking per byte between them;
// * the low nibbles' bytes (0, 2, 4, 6 of the two halves' results: selector 0x6420 = 25632) and the
//   high nibbles' (0x7531 = 30001) gathered, one prmt each.
// A source register — 4 bytes of one block — holds a thread's values p..p+3 in its low nibbles and
// p+16..p+19 in its high ones, so it serves two destination registers, looked up once. Eight prmt per
// source register — 48 in the file for six.
// PRMT-COUNT: {{^48$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 32 bytes = 2 blocks of K per column: register 0 is block 0, whose
// low nibbles are destination register 0 (k 4t..) and high nibbles register 1 (k 16 + 4t..).
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32)
// CHECK:       %[[LOW3:.*]] = arith.constant 2004318071 : i32
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[R0]], %[[LOW3]] : i32
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[SH:.*]] = arith.shrui %[[R0]], %[[C1]] : i32
// CHECK-NEXT:  %[[TOPS:.*]] = arith.constant 1145324612 : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.andi %[[SH]], %[[TOPS]] : i32
// CHECK-NEXT:  %[[BYTES:.*]] = arith.constant 839922192 : i32
// CHECK-NEXT:  %[[PICK:.*]] = arith.ori %[[TOP]], %[[BYTES]] : i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[IDXUP:.*]] = arith.shrui %[[IDX]], %[[C16]] : i32
// CHECK-NEXT:  %[[PICKUP:.*]] = arith.shrui %[[PICK]], %[[C16]] : i32
// codes 0-3 of the word (nibbles 0-3): entries 0-7, entries 8-15, picked
// CHECK-NEXT:  %[[T0:.*]] = arith.constant -1079142271 : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.constant -152379953 : i32
// CHECK-NEXT:  %[[LO:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDX]]
// CHECK-NEXT:  %[[T2:.*]] = arith.constant 639175937 : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.constant 1901675829 : i32
// CHECK-NEXT:  %[[HI:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDX]]
// CHECK-NEXT:  %[[V03:.*]] = ptx.prmt %[[LO]], %[[HI]], %[[PICK]]
// nibbles 4-7, the same tables
// CHECK-NEXT:  %[[LO2:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDXUP]]
// CHECK-NEXT:  %[[HI2:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDXUP]]
// CHECK-NEXT:  %[[V47:.*]] = ptx.prmt %[[LO2]], %[[HI2]], %[[PICKUP]]
// the low nibbles' bytes, then the high nibbles'
// CHECK-NEXT:  %[[EVEN:.*]] = arith.constant 25632 : i32
// CHECK-NEXT:  %[[D0:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[EVEN]]
// CHECK-NEXT:  %[[ODD:.*]] = arith.constant 30001 : i32
// CHECK-NEXT:  %[[D1:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[ODD]]
// block 1 from register 1, the same constants
// CHECK-NEXT:  %[[IDX1:.*]] = arith.andi %[[R1]], %[[LOW3]] : i32
// CHECK-NEXT:  %[[SH1:.*]] = arith.shrui %[[R1]], %[[C1]] : i32
// CHECK-NEXT:  %[[TOP1:.*]] = arith.andi %[[SH1]], %[[TOPS]] : i32
// CHECK-NEXT:  %[[PICK1:.*]] = arith.ori %[[TOP1]], %[[BYTES]] : i32
// CHECK-NEXT:  %[[IDXUP1:.*]] = arith.shrui %[[IDX1]], %[[C16]] : i32
// CHECK-NEXT:  %[[PICKUP1:.*]] = arith.shrui %[[PICK1]], %[[C16]] : i32
// CHECK-NEXT:  %[[LO3:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDX1]]
// CHECK-NEXT:  %[[HI3:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDX1]]
// CHECK-NEXT:  %[[V03B:.*]] = ptx.prmt %[[LO3]], %[[HI3]], %[[PICK1]]
// CHECK-NEXT:  %[[LO4:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDXUP1]]
// CHECK-NEXT:  %[[HI4:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDXUP1]]
// CHECK-NEXT:  %[[V47B:.*]] = ptx.prmt %[[LO4]], %[[HI4]], %[[PICKUP1]]
// CHECK-NEXT:  %[[D2:.*]] = ptx.prmt %[[V03B]], %[[V47B]], %[[EVEN]]
// CHECK-NEXT:  %[[D3:.*]] = ptx.prmt %[[V03B]], %[[V47B]], %[[ODD]]
// CHECK-NEXT:  "test.op"(%[[D0]], %[[D1]], %[[D2]], %[[D3]])
// CHECK-NOT:   qgpu.upcast
func.func @rhs(%r0: i32, %r1: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1 : i32, i32 to tensor<32x8xi8, #b>
  %u = qgpu.upcast %q from = iq4_nl to = s8 : tensor<32x8xi8, #b> -> tensor<64x8xi8, #b>
  %o:4 = builtin.unrealized_conversion_cast %u : tensor<64x8xi8, #b> to i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3) : (i32, i32, i32, i32) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>

// lhs (the decode kernel's W), 32 bytes = two blocks per row: A's registers of a k tile are (row
// g, k 4t..), (row g + 8, k 4t..), (row g, k 16 + 4t..), (row g + 8, k 16 + 4t..) — the low nibbles
// of source registers 0 and 1 (block 0 of rows g and g + 8), then their high nibbles; the second k
// tile the same of registers 2 and 3. Each source word is masked and looked up once (four masks in
// all): the two gathers of register 0 are destination registers 0 and 2.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       arith.andi %[[R0]], %[[LOW3:[^ ]*]] : i32
// CHECK:       %[[EVEN:.*]] = arith.constant 25632 : i32
// CHECK-NEXT:  %[[A0:.*]] = ptx.prmt %[[V0:[^,]*]], %[[V1:[^,]*]], %[[EVEN]]
// CHECK-NEXT:  %[[ODD:.*]] = arith.constant 30001 : i32
// CHECK-NEXT:  %[[A2:.*]] = ptx.prmt %[[V0]], %[[V1]], %[[ODD]]
// CHECK-NEXT:  arith.andi %[[R1]], %[[LOW3]] : i32
// CHECK:       %[[A1:.*]] = ptx.prmt %{{[^,]*}}, %{{[^,]*}}, %[[EVEN]]
// CHECK-NEXT:  %[[A3:.*]] = ptx.prmt %{{[^,]*}}, %{{[^,]*}}, %[[ODD]]
// CHECK-NEXT:  arith.andi %[[R2]], %[[LOW3]] : i32
// CHECK:       arith.andi %[[R3]], %[[LOW3]] : i32
// CHECK-NOT:   arith.andi %{{.*}}, %[[LOW3]]
// CHECK:       "test.op"(%[[A0]], %[[A1]], %[[A2]], %[[A3]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #a>
  %u = qgpu.upcast %q from = iq4_nl to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<16x64xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

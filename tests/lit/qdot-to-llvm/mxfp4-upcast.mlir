// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.prmt' %t | filecheck %s --check-prefix=PRMT-COUNT
// RUN: not grep -e 'ptx.lop3' -e 'arith.shli' -e 'arith.andi' -e 'arith.ori' -e 'arith.constant -33620224 : i32' %t
// qgpu.upcast from = mxfp4 to = s8: the raw nibble bytes of ggml's mxfp4 blocks (block_part `qs`:
// 16 bytes of e2m1 codes per 32-value block, value p the low nibble of byte p, value p + 16 its high
// nibble, as q4_0) become s8 values, each ggml's kvalues_mxfp4 entry of its code (twice the e2m1
// value: 0 1 2 3 4 6 8 12 and their negatives; the block's `d` part, 2^(e − 128), is half the E8M0
// scale and undoes the twice). A source register — 4 bytes of one block — holds a thread's values
// p..p+3 in its low nibbles and p+16..p+19 in its high ones, i.e. both destination registers it
// needs of that block, so the two are made together from the word's eight nibbles in place order:
// * one table, the magnitudes of codes 0-7 (0x03020100 = 50462976, 0x0C080604 = 201852420), looked
//   up by prmt with the codes as they are — a negative code's top bit is prmt's sign-replicate bit,
//   and every table byte is positive, so those bytes come out 0 — and with the codes' top bits
//   flipped (x ^ 0x88888888, -2004318072), which gives the negative codes' magnitudes and 0 for the
//   others; prmt reads four selector nibbles, so codes 4-7 go through the same with both words
//   shifted down 16. No mask (no andi), no signed second table (0xFDFEFF00 = -33620224 never appears);
// * per byte the value is the first lookup minus the second: 0x80808080 (-2139062144) added to the
//   first, the second subtracted (magnitudes are at most 12, so no borrow leaves its byte);
// * the low nibbles' bytes (0, 2, 4, 6 of the two results: selector 0x6420 = 25632) and the high
//   nibbles' (0x7531 = 30001) gathered, one prmt each, and the 0x80 taken out by one xor each.
// Six prmt per source register — 36 in the file for six.
// PRMT-COUNT: {{^36$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 32 bytes = 2 blocks of K per column: register 0 is block 0, whose
// low nibbles are destination register 0 (k 4t..) and high nibbles register 1 (k 16 + 4t..).
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32)
// CHECK:       %[[SIGNS:.*]] = arith.constant -2004318072 : i32
// CHECK-NEXT:  %[[FLIP:.*]] = arith.xori %[[R0]], %[[SIGNS]] : i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[UP:.*]] = arith.shrui %[[R0]], %[[C16]] : i32
// CHECK-NEXT:  %[[FLIPUP:.*]] = arith.shrui %[[FLIP]], %[[C16]] : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.constant 50462976 : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.constant 201852420 : i32
// CHECK-NEXT:  %[[POS:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[R0]]
// CHECK-NEXT:  %[[NEG:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[FLIP]]
// CHECK-NEXT:  %[[BIAS:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.addi %[[POS]], %[[BIAS]] : i32
// CHECK-NEXT:  %[[V03:.*]] = arith.subi %[[B0]], %[[NEG]] : i32
// CHECK-NEXT:  %[[POS2:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[UP]]
// CHECK-NEXT:  %[[NEG2:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[FLIPUP]]
// CHECK-NEXT:  %[[B1:.*]] = arith.addi %[[POS2]], %[[BIAS]] : i32
// CHECK-NEXT:  %[[V47:.*]] = arith.subi %[[B1]], %[[NEG2]] : i32
// CHECK-NEXT:  %[[EVEN:.*]] = arith.constant 25632 : i32
// CHECK-NEXT:  %[[G0:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[EVEN]]
// CHECK-NEXT:  %[[ODD:.*]] = arith.constant 30001 : i32
// CHECK-NEXT:  %[[G1:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[ODD]]
// CHECK-NEXT:  %[[D0:.*]] = arith.xori %[[G0]], %[[BIAS]] : i32
// CHECK-NEXT:  %[[D1:.*]] = arith.xori %[[G1]], %[[BIAS]] : i32
// block 1 from register 1, the same constants
// CHECK-NEXT:  arith.xori %[[R1]], %[[SIGNS]] : i32
// CHECK:       %[[D2:.*]] = arith.xori %{{.*}}, %[[BIAS]] : i32
// CHECK-NEXT:  %[[D3:.*]] = arith.xori %{{.*}}, %[[BIAS]] : i32
// CHECK-NEXT:  "test.op"(%[[D0]], %[[D1]], %[[D2]], %[[D3]])
// CHECK-NOT:   qgpu.upcast
func.func @rhs(%r0: i32, %r1: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1 : i32, i32 to tensor<32x8xi8, #b>
  %u = qgpu.upcast %q from = mxfp4 to = s8 : tensor<32x8xi8, #b> -> tensor<64x8xi8, #b>
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
// tile the same of registers 2 and 3. Each source word is looked up once: the results of register
// 0 feed destination registers 0 and 2.
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32, %[[R2:[^:]*]]: i32, %[[R3:[^:]*]]: i32)
// CHECK:       arith.xori %[[R0]], %{{.*}} : i32
// CHECK:       %[[A0:.*]] = arith.xori %{{.*}}, %[[BIAS:.*]] : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.xori %{{.*}}, %[[BIAS]] : i32
// CHECK-NEXT:  arith.xori %[[R1]], %{{.*}} : i32
// CHECK:       %[[A1:.*]] = arith.xori %{{.*}}, %[[BIAS]] : i32
// CHECK-NEXT:  %[[A3:.*]] = arith.xori %{{.*}}, %[[BIAS]] : i32
// CHECK-NEXT:  arith.xori %[[R2]], %{{.*}} : i32
// CHECK:       arith.xori %[[R3]], %{{.*}} : i32
// CHECK:       "test.op"(%[[A0]], %[[A1]], %[[A2]], %[[A3]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #a>
  %u = qgpu.upcast %q from = mxfp4 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<16x64xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

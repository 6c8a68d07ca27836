// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.prmt' %t | filecheck %s --check-prefix=PRMT-COUNT
// RUN: not grep -e 'ptx.lop3' -e 'arith.shli' -e 'arith.xori' %t
// qgpu.upcast from = mxfp4 to = s8: the raw nibble bytes of ggml's mxfp4 blocks (block_part `qs`:
// 16 bytes of e2m1 codes per 32-value block, value p the low nibble of byte p, value p + 16 its high
// nibble, as q4_0) become s8 values, each ggml's kvalues_mxfp4 entry of its code (twice the e2m1
// value: 0 1 2 3 4 6 8 12 and their negatives; the block's `d` part, 2^(e − 128), is half the E8M0
// scale and undoes the twice). A source register — 4 bytes of one block — holds a thread's values
// p..p+3 in its low nibbles and p+16..p+19 in its high ones, i.e. both destination registers it
// needs of that block, so the two are made together, as llama.cpp's get_int_from_table_16 does:
// * the word's eight nibbles looked up in place order, four per three prmt: each code's low three
//   bits (x & 0x77777777 = 2004318071) select a byte of the codes-0-7 table (0x03020100 = 50462976,
//   0x0C080604 = 201852420) and of the codes-8-15 table (0xFDFEFF00 = -33620224, 0xF4F8FAFC =
//   -185009412) — never the sign-replicating selector bit — and a third prmt picks between the two
//   by the code's top bit ((x & 0x88888888) >> 1 | 0x32103210 = 839922192); prmt reads four selector
//   nibbles, so the upper four codes go through the same three with both selectors shifted by 16;
// * then the low nibbles' values (bytes 0, 2, 4, 6 of the two results: selector 0x6420 = 25632)
//   and the high nibbles' (0x7531 = 30001), one prmt each.
// Eight prmt per source register — 48 in the file for six — and no lop3, left shift or xor.
// PRMT-COUNT: {{^48$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// rhs (the prefill kernel's W), 32 bytes = 2 blocks of K per column: register 0 is block 0, whose
// low nibbles are destination register 0 (k 4t..) and high nibbles register 1 (k 16 + 4t..).
// CHECK-LABEL: func.func @rhs
// CHECK-SAME:  (%[[R0:[^:]*]]: i32, %[[R1:[^:]*]]: i32)
// CHECK:       %[[M7:.*]] = arith.constant 2004318071 : i32
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[R0]], %[[M7]] : i32
// CHECK-NEXT:  %[[M8:.*]] = arith.constant -2004318072 : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.andi %[[R0]], %[[M8]] : i32
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[TOP1:.*]] = arith.shrui %[[TOP]], %[[C1]] : i32
// CHECK-NEXT:  %[[POS:.*]] = arith.constant 839922192 : i32
// CHECK-NEXT:  %[[PICK:.*]] = arith.ori %[[TOP1]], %[[POS]] : i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[IDX2:.*]] = arith.shrui %[[IDX]], %[[C16]] : i32
// CHECK-NEXT:  %[[PICK2:.*]] = arith.shrui %[[PICK]], %[[C16]] : i32
// CHECK-NEXT:  %[[T0:.*]] = arith.constant 50462976 : i32
// CHECK-NEXT:  %[[T1:.*]] = arith.constant 201852420 : i32
// CHECK-NEXT:  %[[LO:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDX]]
// CHECK-NEXT:  %[[T2:.*]] = arith.constant -33620224 : i32
// CHECK-NEXT:  %[[T3:.*]] = arith.constant -185009412 : i32
// CHECK-NEXT:  %[[HI:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDX]]
// CHECK-NEXT:  %[[V03:.*]] = ptx.prmt %[[LO]], %[[HI]], %[[PICK]]
// CHECK-NEXT:  %[[LO2:.*]] = ptx.prmt %[[T0]], %[[T1]], %[[IDX2]]
// CHECK-NEXT:  %[[HI2:.*]] = ptx.prmt %[[T2]], %[[T3]], %[[IDX2]]
// CHECK-NEXT:  %[[V47:.*]] = ptx.prmt %[[LO2]], %[[HI2]], %[[PICK2]]
// CHECK-NEXT:  %[[EVEN:.*]] = arith.constant 25632 : i32
// CHECK-NEXT:  %[[D0:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[EVEN]]
// CHECK-NEXT:  %[[ODD:.*]] = arith.constant 30001 : i32
// CHECK-NEXT:  %[[D1:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[ODD]]
// block 1 from register 1, the same constants
// CHECK-NEXT:  arith.andi %[[R1]], %[[M7]] : i32
// CHECK:       %[[D3:.*]] = ptx.prmt %{{.*}}, %{{.*}}, %[[ODD]]
// CHECK-NEXT:  "test.op"(%[[D0]], %[[D1]], %{{.*}}, %[[D3]])
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
// CHECK:       arith.andi %[[R0]], %{{.*}} : i32
// CHECK:       %[[EVEN:.*]] = arith.constant 25632 : i32
// CHECK-NEXT:  %[[A0:.*]] = ptx.prmt %[[V03:.*]], %[[V47:.*]], %[[EVEN]]
// CHECK-NEXT:  %[[ODD:.*]] = arith.constant 30001 : i32
// CHECK-NEXT:  %[[A2:.*]] = ptx.prmt %[[V03]], %[[V47]], %[[ODD]]
// CHECK-NEXT:  arith.andi %[[R1]], %{{.*}} : i32
// CHECK:       %[[A1:.*]] = ptx.prmt %{{.*}}, %{{.*}}, %[[EVEN]]
// CHECK-NEXT:  %[[A3:.*]] = ptx.prmt %{{.*}}, %{{.*}}, %[[ODD]]
// CHECK-NEXT:  arith.andi %[[R2]], %{{.*}} : i32
// CHECK:       arith.andi %[[R3]], %{{.*}} : i32
// CHECK:       "test.op"(%[[A0]], %[[A1]], %[[A2]], %[[A3]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @lhs(%r0: i32, %r1: i32, %r2: i32, %r3: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #a>
  %u = qgpu.upcast %q from = mxfp4 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  %o:8 = builtin.unrealized_conversion_cast %u : tensor<16x64xi8, #a> to i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3, %o#4, %o#5, %o#6, %o#7) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  func.return
}

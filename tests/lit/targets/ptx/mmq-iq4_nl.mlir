// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' %t.ptx | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'and.b32 .*, 2004318071;' %t.ptx | filecheck %s --check-prefix=MASKS
// RUN: grep -c 'or.b32 .*, 839922192;' %t.ptx | filecheck %s --check-prefix=PICKS
// RUN: grep -c 'prmt.b32 .*, -1079142271, -152379953, ' %t.ptx | filecheck %s --check-prefix=LOOKUPS-LOW
// RUN: grep -c 'prmt.b32 .*, 639175937, 1901675829, ' %t.ptx | filecheck %s --check-prefix=LOOKUPS-HIGH
// RUN: grep -c -e 'prmt.b32 .*, 0x6420U;' -e 'prmt.b32 .*, 0x7531U;' %t.ptx | filecheck %s --check-prefix=GATHERS
// RUN: grep -c 'prmt.b32' %t.ptx | filecheck %s --check-prefix=PRMTS
// RUN: grep -c 'ld.shared.b32' %t.ptx | filecheck %s --check-prefix=WORDS
// RUN: grep -c 'ld.shared.b16[[:space:]]*%r[0-9]' %t.ptx | filecheck %s --check-prefix=HALVES
// RUN: grep -c 'mul.rn.f32 .*, 0fCB400000;' %t.ptx | filecheck %s --check-prefix=MAGIC-D
// RUN: not grep -e cvt.rn.f32.s32 -e ld.local -e st.local -e lop3.b32 -e xor.b32 -e 50462976 -e 'st.shared' -e 'ld.shared.[bu]8' -e 'mma.sync.aligned.m16n8k16' -e '\.u8\.s8' %t.ptx
// The one-token iq4_nl × q8_1 decode kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, weights="iq4_nl"))),
// through the default pipeline to PTX. What this pins, per K step (eight 18-byte blocks per row of the
// 16-row tile; iq4_nl is the lhs, A, of s8 × s8 mmas):
// * a thread's qs words read from shared memory as q4_0's are (the nibbles at byte 2 of 18: an odd
//   block's word is one ld.shared.b32, an even block's two 16-bit halves joined), 2 rows × 8 blocks =
//   16 words: 8 words and 16 halves, no byte loads;
// * each word's eight codes looked up in kvalues_iq4nl (−127, −104, …, 89, 113) with no lop3 and no
//   xor (mxfp4's sign trick and its table word 0x03020100 = 50462976 do not appear): masked with
//   0x77777777 (2004318071, 16), its pick selectors (w >> 1) & 0x44444444 | 0x32103210 (16 of the or with
//   839922192), then per half of the word a prmt in entries 0-7 (the table words 0xBFAD9881 and 0xF6EADDCF,
//   -1079142271 and -152379953, both immediates: 32) and one in entries 8-15 (0x26190D01 and 0x71594535,
//   639175937 and 1901675829: 32), and a third picking between them per byte; then the low and high
//   nibbles' bytes gathered (0x6420, 0x7531: 32) — eight prmt per word, 128;
// * one m16n8k32 s8 × s8 mma per 32-value block (one 16 × 8 tile × 8 k tiles), whose A registers are the
//   gathers {low nibbles of row g, of row g + 8, high nibbles of row g, of row g + 8}, in the magic form:
//   it starts from 1.5 · 2^23 (1262485504) and its f32 bits are rescaled by FMA with the block's d
//   (fma with −1.5 · 2^23 · d, 0fCB400000: one per row and block, 16) — no cvt.rn.f32.s32;
// * the block's fp16 d read where it is used (the 4 lanes of a quad read each: no once-per-CTA decode,
//   no st.shared), at byte 0 of each block, 18 bytes apart;
// * no m16n8k16 halves, no u8 operand, no spill: no local memory in the PTX (ptxas itself, which this file
//   does not run, reported 0 bytes of spill stores and loads for it at sm_90 when this was written).
// IMMA:         {{^8$}}
// MASKS:        {{^16$}}
// PICKS:        {{^16$}}
// LOOKUPS-LOW:  {{^32$}}
// LOOKUPS-HIGH: {{^32$}}
// GATHERS:      {{^32$}}
// PRMTS:        {{^128$}}
// WORDS:        {{^8$}}
// HALVES:       {{^16$}}
// MAGIC-D:      {{^16$}}
// CHECK:       .maxntid 32
// CHECK:       cp.async.commit_group;
// block 0 (even: its qs at byte 2) of rows g and g + 8 (8 blocks of 18 bytes = 144 bytes a row, 1152
// for 8 rows), each word two halves joined
// CHECK:       ld.shared.b16 [[L0:%r[0-9]+]], [[[QS:%r[0-9]+]]+2];
// CHECK-NEXT:  ld.shared.b16 [[H0:%r[0-9]+]], [[[QS]]+4];
// CHECK-NEXT:  shl.b32 [[H0S:%r[0-9]+]], [[H0]], 16;
// CHECK-NEXT:  or.b32 [[W0:%r[0-9]+]], [[H0S]], [[L0]];
// CHECK-NEXT:  ld.shared.b16 [[L8:%r[0-9]+]], [[[QS]]+1154];
// CHECK-NEXT:  ld.shared.b16 [[H8:%r[0-9]+]], [[[QS]]+1156];
// CHECK-NEXT:  shl.b32 [[H8S:%r[0-9]+]], [[H8]], 16;
// CHECK-NEXT:  or.b32 [[W8:%r[0-9]+]], [[H8S]], [[L8]];
// row g's word: masked codes and pick selectors, each half looked up in the table's two halves and
// picked, then gathered
// CHECK-NEXT:  and.b32 [[I0:%r[0-9]+]], [[W0]], 2004318071;
// CHECK-NEXT:  shr.u32 [[S0:%r[0-9]+]], [[W0]], 1;
// CHECK-NEXT:  and.b32 [[T0:%r[0-9]+]], [[S0]], 1145324612;
// CHECK-NEXT:  or.b32 [[P0:%r[0-9]+]], [[T0]], 839922192;
// CHECK-NEXT:  shr.u32 [[I0U:%r[0-9]+]], [[I0]], 16;
// CHECK-NEXT:  shr.u32 [[P0U:%r[0-9]+]], [[P0]], 16;
// CHECK-NEXT:  prmt.b32 [[LO0:%r[0-9]+]], -1079142271, -152379953, [[I0]];
// CHECK-NEXT:  prmt.b32 [[HI0:%r[0-9]+]], 639175937, 1901675829, [[I0]];
// CHECK-NEXT:  prmt.b32 [[V0:%r[0-9]+]], [[LO0]], [[HI0]], [[P0]];
// CHECK-NEXT:  prmt.b32 [[LO0U:%r[0-9]+]], -1079142271, -152379953, [[I0U]];
// CHECK-NEXT:  prmt.b32 [[HI0U:%r[0-9]+]], 639175937, 1901675829, [[I0U]];
// CHECK-NEXT:  prmt.b32 [[V0U:%r[0-9]+]], [[LO0U]], [[HI0U]], [[P0U]];
// CHECK-NEXT:  prmt.b32 [[A0:%r[0-9]+]], [[V0]], [[V0U]], 0x6420U;
// CHECK-NEXT:  prmt.b32 [[A2:%r[0-9]+]], [[V0]], [[V0U]], 0x7531U;
// row g + 8's word the same
// CHECK-NEXT:  and.b32 [[I8:%r[0-9]+]], [[W8]], 2004318071;
// CHECK:       prmt.b32 [[A1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x6420U;
// CHECK-NEXT:  prmt.b32 [[A3:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7531U;
// the activations by ldmatrix, then the block's mma from the magic number
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[X0:%r[0-9]+]], [[X1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}
// CHECK-NEXT:  mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NEXT:  {[[S:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}},
// CHECK-NEXT:  {[[A0]], [[A1]], [[A2]], [[A3]]},
// CHECK-NEXT:  {[[X0]], [[X1]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// row g's d (byte 0 of its block) widened where it is read, the sum rescaled from its magic bits by it
// CHECK:       ld.shared.b16 [[DH:%rs[0-9]+]], [[[ROW:%r[0-9]+]]];
// CHECK-NEXT:  cvt.f32.f16 [[D:%r[0-9]+]], [[DH]];
// CHECK-NEXT:  mul.rn.f32 [[MD:%r[0-9]+]], [[D]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 {{%r[0-9]+}}, [[S]], [[D]], [[MD]];
// block 1 (odd: its qs 4-aligned, at byte 18 + 2) one word per row; its d 18 bytes on
// CHECK:       ld.shared.b32 [[W1:%r[0-9]+]], [{{%r[0-9]+}}+20];
// CHECK-NEXT:  ld.shared.b32 {{%r[0-9]+}}, [{{%r[0-9]+}}+1172];
// CHECK-NEXT:  and.b32 {{%r[0-9]+}}, [[W1]], 2004318071;
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK:       ld.shared.b16 {{%rs[0-9]+}}, [[[ROW]]+18];
func.func @small_m_q8_1_iq4_nl_16_w1_splitk_m1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_nl>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %kwb = arith.divui %k, %c32 : index
  %m_bound = arith.minui %m, %c1 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<iq4_nl>> -> !qdot.desc<16x8x!qdot.block<iq4_nl>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m_bound], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m_bound], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%off_n, %kkw] : !qdot.desc<16x8x!qdot.block<iq4_nl>> -> tensor<16x8x!qdot.block<iq4_nl>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_nl rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<iq4_nl>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

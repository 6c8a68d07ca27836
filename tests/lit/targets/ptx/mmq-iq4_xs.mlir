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
// RUN: grep -c 'ld.shared.v2.b16' %t.ptx | filecheck %s --check-prefix=FIELDS
// RUN: grep -c 'ld.shared.b16' %t.ptx | filecheck %s --check-prefix=HALVES
// RUN: grep -c 'st.shared.b32' %t.ptx | filecheck %s --check-prefix=STORES
// RUN: grep -c 'add.s32 .*, -32;' %t.ptx | filecheck %s --check-prefix=MINUS-32
// RUN: grep -c 'cvt.rn.f32.s32' %t.ptx | filecheck %s --check-prefix=CVT
// RUN: grep -c 'mul.rn.f32 .*, 0fCB400000;' %t.ptx | filecheck %s --check-prefix=MAGIC-D
// RUN: grep -c 'cp.async.ca.shared.global .*, 8, ' %t.ptx | filecheck %s --check-prefix=COPIES-8
// RUN: grep -c 'ldmatrix' %t.ptx | filecheck %s --check-prefix=LDMATRIX
// RUN: grep -c 'bar.sync' %t.ptx | filecheck %s --check-prefix=BARRIERS
// RUN: not grep -e ld.local -e st.local -e lop3.b32 -e xor.b32 -e 50462976 -e 'ld.shared.[bu]8' -e 'mma.sync.aligned.m16n8k16' -e '\.u8\.s8' -e 'cvt.rn.f32.u32' %t.ptx
// The one-token iq4_xs × q8_1 decode kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, weights="iq4_xs"))),
// through the default pipeline to PTX. What this pins, per K step (one 136-byte super-block per row of the
// 16-row tile; iq4_xs is the lhs, A, of s8 × s8 mmas):
// * the weights staged by 8-byte cp.async (136 = 17 · 8: 8-aligned blocks, not 16): a stage's 2176 bytes
//   in 9 copies a thread (the last one predicated), 3 stages' worth in the PTX (27);
// * the scales decoded once per CTA before any mma of the step: a thread's row's scales_l word (one
//   ld.shared.b32 at byte 4) and its d and scales_h together (one ld.shared.v2.b16 at byte 0: the loads
//   of every span j shared), then per span j the nibble j of the word (and 15, bfe.u32 …, 4j, 4, shr 28)
//   with the bits 2j, 2j + 1 of scales_h shifted to bits 4-5 (and 48), or, add −32, the signed
//   cvt.rn.f32.s32 (ls − 32 is −32..31; the only 8 conversions of the kernel), times the widened d; the 8
//   f32 stored to the shared buffer (at 13440, 64 bytes a span: 16 rows of f32) and one barrier;
// * a thread's qs words read from shared memory with one ld.shared.b32 each (qs at byte 8 of a 4-aligned
//   block: unlike iq4_nl's 18-byte blocks, no 16-bit halves joined), rows g and g + 8 (8 · 136 = 1088
//   bytes apart), 16 bytes on per 32-value span: 2 rows × 8 spans = 16 words;
// * each word's eight codes looked up in kvalues_iq4nl exactly as iq4_nl's (mmq-iq4_nl.mlir): masked with
//   0x77777777 (16), pick selectors (16), per half of the word two table prmt (32 + 32) and a third picking,
//   the low and high nibbles' bytes gathered (0x6420, 0x7531: 32) — eight prmt per word, 128;
// * one m16n8k32 s8 × s8 mma per 32-value span (one 16 × 8 tile × 8 k tiles) in the magic form (from
//   1.5 · 2^23, 1262485504), rescaled by FMA with the span's decoded d · (ls − 32) read back from the
//   buffer (row g, then row g + 8: 32 bytes on; −1.5 · 2^23 · scale, 0fCB400000: 16), then by the
//   activations' fp16 d — no cvt of an mma result;
// * no m16n8k16 halves, no u8 operand, no byte loads, no spill: no local memory in the PTX.
// IMMA:         {{^8$}}
// MASKS:        {{^16$}}
// PICKS:        {{^16$}}
// LOOKUPS-LOW:  {{^32$}}
// LOOKUPS-HIGH: {{^32$}}
// GATHERS:      {{^32$}}
// PRMTS:        {{^128$}}
// (32-bit loads: 1 scales_l word, 16 qs words, 16 decoded scales read back)
// WORDS:        {{^33$}}
// FIELDS:       {{^1$}}
// (16-bit loads: the activations' d only, 2 per span)
// HALVES:       {{^16$}}
// STORES:       {{^8$}}
// MINUS-32:     {{^8$}}
// CVT:          {{^8$}}
// MAGIC-D:      {{^16$}}
// COPIES-8:     {{^27$}}
// (ldmatrix: the activations only)
// LDMATRIX:     {{^4$}}
// BARRIERS:     {{^3$}}
// CHECK:       .maxntid 32
// CHECK:       cp.async.ca.shared.global [{{%r[0-9]+}}], [{{%rd[0-9]+}}], 8, {{%r[0-9]+}};
// CHECK:       cp.async.commit_group;
// CHECK:       $L__BB0_5:
// CHECK-NEXT:  cp.async.wait_group 1;
// CHECK-NEXT:  bar.sync 0;
// the scale decode: the row's fields, loaded once
// CHECK:       ld.shared.b32 [[L:%r[0-9]+]], [[[ROW:%r[0-9]+]]+4];
// CHECK-NEXT:  ld.shared.v2.b16 {[[DH:%rs[0-9]+]], [[H:%rs[0-9]+]]}, [[[ROW]]];
// CHECK-NEXT:  cvt.u32.u16 [[HZ:%r[0-9]+]], [[H]];
// span 0: nibble 0, bits 0-1 (× 16, & 48)
// CHECK-NEXT:  and.b32 [[LO0:%r[0-9]+]], [[L]], 15;
// CHECK-NEXT:  mul.wide.u16 [[HS0:%r[0-9]+]], [[H]], 16;
// CHECK-NEXT:  and.b32 [[HI0:%r[0-9]+]], [[HS0]], 48;
// CHECK-NEXT:  or.b32 [[LS0:%r[0-9]+]], [[HI0]], [[LO0]];
// CHECK-NEXT:  add.s32 [[S0:%r[0-9]+]], [[LS0]], -32;
// CHECK-NEXT:  cvt.f32.f16 [[D:%r[0-9]+]], [[DH]];
// CHECK-NEXT:  cvt.rn.f32.s32 [[F0:%r[0-9]+]], [[S0]];
// CHECK-NEXT:  mul.rn.f32 [[V0:%r[0-9]+]], [[D]], [[F0]];
// CHECK-NEXT:  st.shared.b32 [[[BUF:%r[0-9]+]]+13440], [[V0]];
// span 1: nibble 1, bits 2-3 (× 4, & 48)
// CHECK-NEXT:  bfe.u32 [[LO1:%r[0-9]+]], [[L]], 4, 4;
// CHECK-NEXT:  mul.wide.u16 [[HS1:%r[0-9]+]], [[H]], 4;
// CHECK-NEXT:  and.b32 [[HI1:%r[0-9]+]], [[HS1]], 48;
// CHECK-NEXT:  or.b32 [[LS1:%r[0-9]+]], [[HI1]], [[LO1]];
// CHECK-NEXT:  add.s32 [[S1:%r[0-9]+]], [[LS1]], -32;
// CHECK-NEXT:  cvt.rn.f32.s32 [[F1:%r[0-9]+]], [[S1]];
// CHECK-NEXT:  mul.rn.f32 [[V1:%r[0-9]+]], [[D]], [[F1]];
// CHECK-NEXT:  st.shared.b32 [{{%r[0-9]+}}], [[V1]];
// span 2: nibble 2, bits 4-5 in place
// CHECK-NEXT:  bfe.u32 [[LO2:%r[0-9]+]], [[L]], 8, 4;
// CHECK-NEXT:  and.b32 [[HI2:%r[0-9]+]], [[HZ]], 48;
// CHECK-NEXT:  or.b32 {{%r[0-9]+}}, [[HI2]], [[LO2]];
// CHECK:       st.shared.b32 [[[BUF]]+13568],
// spans 3-6: nibbles 3-6, bits 6-7 … 12-13 (>> 2 … >> 8)
// CHECK-NEXT:  bfe.u32 {{%r[0-9]+}}, [[L]], 12, 4;
// CHECK-NEXT:  shr.u32 {{%r[0-9]+}}, [[HZ]], 2;
// CHECK:       bfe.u32 {{%r[0-9]+}}, [[L]], 16, 4;
// CHECK-NEXT:  shr.u32 {{%r[0-9]+}}, [[HZ]], 4;
// CHECK:       st.shared.b32 [[[BUF]]+13696],
// CHECK-NEXT:  bfe.u32 {{%r[0-9]+}}, [[L]], 20, 4;
// CHECK-NEXT:  shr.u32 {{%r[0-9]+}}, [[HZ]], 6;
// CHECK:       bfe.u32 {{%r[0-9]+}}, [[L]], 24, 4;
// CHECK-NEXT:  shr.u32 {{%r[0-9]+}}, [[HZ]], 8;
// CHECK:       st.shared.b32 [[[BUF]]+13824],
// span 7: the top nibble (>> 28), bits 14-15 (>> 10, & 48)
// CHECK-NEXT:  shr.u32 [[LO7:%r[0-9]+]], [[L]], 28;
// CHECK-NEXT:  shr.u32 [[HS7:%r[0-9]+]], [[HZ]], 10;
// CHECK-NEXT:  and.b32 [[HI7:%r[0-9]+]], [[HS7]], 48;
// CHECK-NEXT:  or.b32 [[LS7:%r[0-9]+]], [[HI7]], [[LO7]];
// CHECK-NEXT:  add.s32 [[S7:%r[0-9]+]], [[LS7]], -32;
// CHECK-NEXT:  cvt.rn.f32.s32 [[F7:%r[0-9]+]], [[S7]];
// CHECK-NEXT:  mul.rn.f32 [[V7:%r[0-9]+]], [[D]], [[F7]];
// CHECK-NEXT:  st.shared.b32 [{{%r[0-9]+}}+13440], [[V7]];
// CHECK-NEXT:  bar.sync 0;
// span 0's qs: one word per row (byte 8 of rows g and g + 8), looked up and gathered
// CHECK-NEXT:  add.s32 [[QS:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT:  ld.shared.b32 [[W0:%r[0-9]+]], [[[QS]]+8];
// CHECK-NEXT:  ld.shared.b32 [[W8:%r[0-9]+]], [[[QS]]+1096];
// CHECK-NEXT:  and.b32 [[I0:%r[0-9]+]], [[W0]], 2004318071;
// CHECK-NEXT:  shr.u32 [[SH0:%r[0-9]+]], [[W0]], 1;
// CHECK-NEXT:  and.b32 [[T0:%r[0-9]+]], [[SH0]], 1145324612;
// CHECK-NEXT:  or.b32 [[P0:%r[0-9]+]], [[T0]], 839922192;
// CHECK:       prmt.b32 [[A0:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x6420U;
// CHECK-NEXT:  prmt.b32 [[A2:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7531U;
// CHECK-NEXT:  and.b32 {{%r[0-9]+}}, [[W8]], 2004318071;
// CHECK:       prmt.b32 [[A1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x6420U;
// CHECK-NEXT:  prmt.b32 [[A3:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7531U;
// the activations by ldmatrix, then the span's mma from the magic number
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[X0:%r[0-9]+]], [[X1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}
// CHECK-NEXT:  mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NEXT:  {[[R0:%r[0-9]+]], [[R1:%r[0-9]+]], [[R2:%r[0-9]+]], [[R3:%r[0-9]+]]},
// CHECK-NEXT:  {[[A0]], [[A1]], [[A2]], [[A3]]},
// CHECK-NEXT:  {[[X0]], [[X1]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// row g's decoded scale of span 0 read back from the buffer, the sum rescaled from its magic bits by it,
// then by the activations' d
// CHECK-NEXT:  ld.shared.b32 [[SC0:%r[0-9]+]], [[[SB:%r[0-9]+]]+13440];
// CHECK-NEXT:  mul.rn.f32 [[MS0:%r[0-9]+]], [[SC0]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 [[Y0:%r[0-9]+]], [[R0]], [[SC0]], [[MS0]];
// CHECK-NEXT:  add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT:  ld.shared.b16 [[XDH:%rs[0-9]+]], [{{%r[0-9]+}}+6528];
// CHECK-NEXT:  cvt.f32.f16 [[XD:%r[0-9]+]], [[XDH]];
// CHECK-NEXT:  fma.rn.f32 {{%r[0-9]+}}, [[Y0]], [[XD]], {{%r[0-9]+}};
// row g + 8's, 8 rows (32 bytes) on
// CHECK:       ld.shared.b32 [[SC8:%r[0-9]+]], [[[SB]]+13472];
// CHECK-NEXT:  mul.rn.f32 [[MS8:%r[0-9]+]], [[SC8]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 {{%r[0-9]+}}, [[R2]], [[SC8]], [[MS8]];
// span 1: its words 16 bytes on, its scales one span (64 bytes) on
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[QS]]+24];
// CHECK-NEXT:  ld.shared.b32 {{%r[0-9]+}}, [[[QS]]+1112];
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[SB]]+13504];
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[SB]]+13536];
// span 7, the last
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[QS]]+120];
// CHECK-NEXT:  ld.shared.b32 {{%r[0-9]+}}, [[[QS]]+1208];
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[SB]]+13888];
// CHECK:       ld.shared.b32 {{%r[0-9]+}}, [[[SB]]+13920];
// CHECK-NOT:   mma.sync
// CHECK:       @%p{{[0-9]+}} bra $L__BB0_5;
// the split-K epilogue: four atomic adds of the accumulator
// CHECK-COUNT-4: red.global.add.f32
// CHECK-NOT:   red.global
// CHECK:       ret;
func.func @small_m_q8_1_iq4_xs_16_w1_splitk_m1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_xs>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %m_bound = arith.minui %m, %c1 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<16x1x!qdot.block<iq4_xs>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m_bound], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m_bound], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<iq4_xs>> -> tensor<16x1x!qdot.block<iq4_xs>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_xs rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<iq4_xs>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

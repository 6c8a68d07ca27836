// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32' %t.ptx | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'and.b32 .*, 50529027;' %t.ptx | filecheck %s --check-prefix=MASKS
// RUN: grep -c -P 'mul\.lo\.s32 \t%r[0-9]+, %r[0-9]+, %r[0-9]+;' %t.ptx | filecheck %s --check-prefix=SCALED
// RUN: grep -c 'and.b32 .*, 252645135;' %t.ptx | filecheck %s --check-prefix=NIBBLES
// RUN: grep -c 'ld.shared.b32' %t.ptx | filecheck %s --check-prefix=WORDS
// RUN: grep -c -P 'prmt\.b32 \t%r[0-9]+, %r[0-9]+, 0, 0x444[0-3]U;' %t.ptx | filecheck %s --check-prefix=SCALE-BYTES
// RUN: grep -c -P 'prmt\.b32 \t%r[0-9]+, (%r[0-9]+), \1, 0x(0|1111|2222|3333)U;' %t.ptx | filecheck %s --check-prefix=MIN-REPEATS
// RUN: not grep -e ld.local -e lop3.b32 -e 'st.shared.b32' -e 'mma.sync.aligned.m16n8k16' -e 'cvt.rn.f32.s32' -e 'ld.shared.v2.b8' -e 'ld.shared.u8' -e 'ld.shared.b8' -e 16843009 %t.ptx
// The one-token q2_K × q8_1 decode kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, weights="q2_K"))),
// through the default pipeline to PTX. What this pins, per K step (one 84-byte super-block per row of
// the 16-row tile; q2_K is the lhs, A, of u8 × s8 mmas):
// * each register of four u8 values sc · code made from a qs word (ld.shared.b32: the blocks are
//   4-aligned) by at most one shift right by 2 · field, one and with 0x03030303 (50529027) and one
//   32-bit multiply by its 16 values' 4-bit scale (mul.lo.s32 of two registers): 32 registers per thread
//   and K step, 32 masks, 32 multiplies, no lop3 (q3_K's top bit has no q2_K counterpart);
// * the 4-bit scales and mins read where they are used, with no once-per-CTA unpack into shared memory
//   (no st.shared.b32) and no byte loads: four scales[] bytes (four 16-value groups) are one ld.shared.b32
//   per row, 4 words per row and K step, 8 for the thread's rows g and g + 8 (16 word loads with qs's 8:
//   LLVM loads each word once for both its scales and its mins); the scales are the word & 0x0F0F0F0F
//   (252645135), the mins (word >> 4) & 0x0F0F0F0F: 16 such masks;
// * each scale byte moved alone to the bottom of a word before its multiply, prmt.b32 with the zero word
//   and selector 0x4440 | byte: 32, one per code register;
// * one m16n8k32 u8.s8 mma per 32-value block for the codes (no m16n8k16 halves: the scales are in the
//   codes) and one more for the mins, whose A registers are each half's min byte repeated in four bytes
//   (prmt.b32 of the min word with itself, selector byte · 0x1111: 32, one per min register of the
//   thread's two rows; no multiply by 0x01010101 = 16843009) and whose B registers are the activations'
//   own: 8 + 8 per K step;
// * both mmas in the magic form: they start from 1.5 · 2^23 (1262485504), and their f32 bits are rescaled
//   by FMA — the block sum by d (fma with −1.5 · 2^23 · d, 0fCB400000), the min sum by −dmin (neg.f32 of
//   the block's dmin, the fp16 beside d at byte 82, with dmin · 1.5 · 2^23, 0f4B400000) — then times the
//   activations' d into the accumulator: no cvt.rn.f32.s32 anywhere; no spill.
// IMMA:        {{^16$}}
// MASKS:       {{^32$}}
// SCALED:      {{^32$}}
// NIBBLES:     {{^16$}}
// WORDS:       {{^16$}}
// SCALE-BYTES: {{^32$}}
// MIN-REPEATS: {{^32$}}
// CHECK:       .maxntid 32
// CHECK:       cp.async.commit_group;
// block 0's codes (field 0 of qs bytes 0-31): rows g and g + 8 (84 · 8 = 672 bytes apart), k 0-15 and 16-31
// CHECK:       ld.shared.b32 [[Q0:%r[0-9]+]], [[[QS:%r[0-9]+]]+16];
// CHECK-NEXT:  ld.shared.b32 [[Q8:%r[0-9]+]], [[[QS]]+688];
// CHECK-NEXT:  ld.shared.b32 [[Q1:%r[0-9]+]], [[[QS]]+32];
// CHECK-NEXT:  ld.shared.b32 [[Q9:%r[0-9]+]], [[[QS]]+704];
// scales[0..3] of rows g and g + 8, one word each: its low nibbles the scales of groups 0-3
// CHECK-NEXT:  add.s32 [[SCALES:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT:  ld.shared.b32 [[W0:%r[0-9]+]], [[[SCALES]]];
// CHECK-NEXT:  and.b32 [[SC0:%r[0-9]+]], [[W0]], 252645135;
// CHECK-NEXT:  ld.shared.b32 [[W8:%r[0-9]+]], [[[SCALES]]+672];
// CHECK-NEXT:  and.b32 [[SC8:%r[0-9]+]], [[W8]], 252645135;
// the codes masked where they are (field 0), then times their scale: byte 0 (k 0-15) and byte 1 (k 16-31)
// of each row's scale word, alone in a word
// CHECK-NEXT:  and.b32 [[U0:%r[0-9]+]], [[Q0]], 50529027;
// CHECK-NEXT:  and.b32 [[U8:%r[0-9]+]], [[Q8]], 50529027;
// CHECK-NEXT:  and.b32 [[U1:%r[0-9]+]], [[Q1]], 50529027;
// CHECK-NEXT:  and.b32 [[U9:%r[0-9]+]], [[Q9]], 50529027;
// CHECK-NEXT:  prmt.b32 [[SB0:%r[0-9]+]], [[SC0]], 0, 0x4440U;
// CHECK-NEXT:  prmt.b32 [[SB8:%r[0-9]+]], [[SC8]], 0, 0x4440U;
// CHECK-NEXT:  prmt.b32 [[SB1:%r[0-9]+]], [[SC0]], 0, 0x4441U;
// CHECK-NEXT:  prmt.b32 [[SB9:%r[0-9]+]], [[SC8]], 0, 0x4441U;
// CHECK-NEXT:  mul.lo.s32 [[A0:%r[0-9]+]], [[SB0]], [[U0]];
// CHECK-NEXT:  mul.lo.s32 [[A8:%r[0-9]+]], [[SB8]], [[U8]];
// CHECK-NEXT:  mul.lo.s32 [[A1:%r[0-9]+]], [[SB1]], [[U1]];
// CHECK-NEXT:  mul.lo.s32 [[A9:%r[0-9]+]], [[SB9]], [[U9]];
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[X0:%r[0-9]+]], [[X1:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}}
// CHECK-NEXT:  mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK-NEXT:  {[[S0:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}},
// CHECK-NEXT:  {[[A0]], [[A8]], [[A1]], [[A9]]},
// CHECK-NEXT:  {[[X0]], [[X1]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// the mins: the high nibbles of the same words (not loaded again), each half's byte repeated in four bytes,
// and the min mma against the same activations
// CHECK-NEXT:  shr.u32 [[H0:%r[0-9]+]], [[W0]], 4;
// CHECK-NEXT:  and.b32 [[MN0:%r[0-9]+]], [[H0]], 252645135;
// CHECK-NEXT:  shr.u32 [[H8:%r[0-9]+]], [[W8]], 4;
// CHECK-NEXT:  and.b32 [[MN8:%r[0-9]+]], [[H8]], 252645135;
// CHECK-NEXT:  prmt.b32 [[R0:%r[0-9]+]], [[MN0]], [[MN0]], 0x0U;
// CHECK-NEXT:  prmt.b32 [[R8:%r[0-9]+]], [[MN8]], [[MN8]], 0x0U;
// CHECK-NEXT:  prmt.b32 [[R1:%r[0-9]+]], [[MN0]], [[MN0]], 0x1111U;
// CHECK-NEXT:  prmt.b32 [[R9:%r[0-9]+]], [[MN8]], [[MN8]], 0x1111U;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK-NEXT:  {[[N0:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}},
// CHECK-NEXT:  {[[R0]], [[R8]], [[R1]], [[R9]]},
// CHECK-NEXT:  {[[X0]], [[X1]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// d and dmin at bytes 80 and 82 of row g's block: the block sum rescaled by d, the min sum by −dmin
// CHECK-NEXT:  ld.shared.v2.b16 {[[DH:%rs[0-9]+]], [[DMINH:%rs[0-9]+]]}, [[[SCALES]]+80];
// CHECK-NEXT:  cvt.f32.f16 [[D:%r[0-9]+]], [[DH]];
// CHECK-NEXT:  mul.rn.f32 [[MD:%r[0-9]+]], [[D]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 [[SD:%r[0-9]+]], [[S0]], [[D]], [[MD]];
// CHECK:       fma.rn.f32 [[ACC:%r[0-9]+]], [[SD]], [[XD:%r[0-9]+]], {{%r[0-9]+}};
// CHECK-NEXT:  cvt.f32.f16 [[DMIN:%r[0-9]+]], [[DMINH]];
// CHECK-NEXT:  neg.f32 [[NDMIN:%r[0-9]+]], [[DMIN]];
// CHECK-NEXT:  mul.rn.f32 [[MDMIN:%r[0-9]+]], [[DMIN]], 0f4B400000;
// CHECK-NEXT:  fma.rn.f32 [[SM:%r[0-9]+]], [[N0]], [[NDMIN]], [[MDMIN]];
// CHECK-NEXT:  fma.rn.f32 {{%r[0-9]+}}, [[SM]], [[XD]], [[ACC]];
// block 1's codes: field 1 of the same qs words, shifted down 2 and masked; its scales and mins bytes 2
// and 3 of the same scale and min words (no new load)
// CHECK:       shr.u32 [[F1:%r[0-9]+]], [[Q0]], 2;
// CHECK-NEXT:  and.b32 {{%r[0-9]+}}, [[F1]], 50529027;
// CHECK-NOT:   ld.shared
// CHECK:       prmt.b32 {{%r[0-9]+}}, [[SC0]], 0, 0x4442U;
// CHECK-NOT:   ld.shared
// CHECK:       prmt.b32 {{%r[0-9]+}}, [[MN0]], [[MN0]], 0x2222U;
// CHECK-NOT:   ld.shared
// CHECK:       prmt.b32 {{%r[0-9]+}}, [[MN8]], [[MN8]], 0x3333U;
// blocks 2 and 3: the next scale word of each row, scales[4..7]
// CHECK:       ld.shared.b32 [[W1:%r[0-9]+]], [[[SCALES]]+4];
// CHECK-NEXT:  and.b32 {{%r[0-9]+}}, [[W1]], 252645135;
// CHECK-NEXT:  ld.shared.b32 {{%r[0-9]+}}, [[[SCALES]]+676];
func.func @small_m_q8_1_q2_K_16_w1_splitk_m1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q2_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q2_K>> -> !qdot.desc<16x1x!qdot.block<q2_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m_bound], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m_bound], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q2_K>> -> tensor<16x1x!qdot.block<q2_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q2_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q2_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

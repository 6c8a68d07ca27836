// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'lop3.b32 .*, 0x6a;' %t.ptx | filecheck %s --check-prefix=LOP3S
// RUN: grep -c 'mul.rn.f32 .*, 0f3D800000;' %t.ptx | filecheck %s --check-prefix=SIXTEENTHS
// RUN: grep -c 'red.global.add.f32' %t.ptx | filecheck %s --check-prefix=REDS
// RUN: grep -B4 'lop3.b32' %t.ptx | grep -c 'shl.b32 .*, 4;' | filecheck %s --check-prefix=SHIFTED
// RUN: grep -c 'ld.shared.b32' %t.ptx | filecheck %s --check-prefix=WORDS
// RUN: grep -c 'ld.shared.b16[[:space:]]*%r[0-9]' %t.ptx | filecheck %s --check-prefix=HALVES
// RUN: not grep -e cvt.rn.f32.s32 -e '\.u8\.s32' -e 'mma.sync.aligned.m16n8k16' -e ld.local -e 'st.global' -e 'st.shared' -e 'ld.shared.[bu]8' -e 'xor.b32' -e 'and.b32 .*-252645136' %t.ptx
// The decode kernel (M ≤ 8) with split-K and q4_0 weights exactly as compiler/mmq_template.py
// writes it (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True,
// weights="q4_0"))), to PTX. What this pins: the grid's y dimension picks the K range; q4_0 is
// the mma's A operand, its 18-byte blocks read by scalar ld.shared (not ldmatrix; X's q8_1_mmq
// quants are): a register of an odd block (nibbles 4-aligned) one 32-bit load, of an even block
// (nibbles at byte 2) two 16-bit loads, the high half shifted left 16 and or-ed in — 8 words and
// 16 halves per K step, no byte loads; its nibbles made s8 at use by ONE lop3 each (lut 0x6a:
// (a & 0xF0F0F0F0) ^ 0x80808080, mask and flip as register operands; no and, no xor) — for each
// k tile the low nibbles of rows g and g + 8 (shifted up 4 first) are a0 and a1, their high
// nibbles (in place) a2 and a3 (k 16 + 4t..): an s8 × s8 mma per 32-value block (one 16 × 8
// tile × 8 k tiles) from 1.5 · 2^23's bits with the magic-number rescale; W's d16 NOT decoded
// once (W is the mma's lhs and the one warp has no partner along N: each d is read by the 4
// lanes of a quad only) — no st.shared, no decode barrier: each thread reads its rows' fp16 d
// from the blocks and multiplies by 0.0625 where it is used (one per row and block, 16 per
// thread per K step); no dmin mma; the partial Yᵀ tile added into Y with red.global.add.f32, one
// per accumulator register (4), no plain store. 32 registers of A per thread per K step: 32
// lop3s, 16 (the low nibbles) right after a shift.
// tests/lit/targets/ptx/mmq-q4_0-assemble.mlir assembles it with ptxas.
// LOP3S:      {{^32$}}
// SHIFTED:    {{^16$}}
// SIXTEENTHS: {{^16$}}
// REDS:       {{^4$}}
// WORDS:      {{^8$}}
// HALVES:     {{^16$}}

// CHECK:       .maxntid 32
// CHECK-DAG:   %nctaid.y
// CHECK-DAG:   %ctaid.y
// CHECK:       cp.async.cg.shared.global
// k tile 0: block 0 of rows g and g + 8, each register from two halves (its nibbles at byte 2)
// CHECK:       ld.shared.b16 [[W0L:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  ld.shared.b16 [[W0H:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  shl.b32 [[W0HS:%r[0-9]+]], [[W0H]], 16;
// CHECK-NEXT:  or.b32 [[W0:%r[0-9]+]], [[W0HS]], [[W0L]];
// CHECK-NEXT:  ld.shared.b16 [[W1L:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  ld.shared.b16 [[W1H:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  shl.b32 [[W1HS:%r[0-9]+]], [[W1H]], 16;
// CHECK-NEXT:  or.b32 [[W1:%r[0-9]+]], [[W1HS]], [[W1L]];
// a0 / a1 the low nibbles of the two registers (each shifted, see SHIFTED), a2 / a3 their high
// nibbles, one lop3 each, all with the same mask and flip registers
// CHECK-NEXT:  shl.b32 [[L0S:%r[0-9]+]], [[W0]], 4;
// CHECK:       mov.b32 [[MASK:%r[0-9]+]], -252645136;
// CHECK:       mov.b32 [[FLIP:%r[0-9]+]], -2139062144;
// CHECK:       lop3.b32 [[A0:%r[0-9]+]], [[L0S]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       shl.b32 [[L1S:%r[0-9]+]], [[W1]], 4;
// CHECK:       lop3.b32 [[A1:%r[0-9]+]], [[L1S]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       lop3.b32 [[A2:%r[0-9]+]], [[W0]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       lop3.b32 [[A3:%r[0-9]+]], [[W1]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[B0:%r[0-9]+]], [[B1:%r[0-9]+]], {{.*}}}
// CHECK-NEXT:  mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NEXT:  {{{.*}}},
// CHECK-NEXT:  {[[A0]], [[A1]], [[A2]], [[A3]]},
// CHECK-NEXT:  {[[B0]], [[B1]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// W's d read from its block where it is used: widened, × 1/16, folded with the magic number
// CHECK:       ld.shared.b16 [[DH:%rs[0-9]+]],
// CHECK-NEXT:  cvt.f32.f16 [[DW:%r[0-9]+]], [[DH]];
// CHECK-NEXT:  mul.rn.f32 [[D16:%r[0-9]+]], [[DW]], 0f3D800000;
// CHECK-NEXT:  mul.rn.f32 {{%r[0-9]+}}, [[D16]], 0fCB400000;
// k tile 1 (block 1): one word per row
// CHECK:       ld.shared.b32 [[W2:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  ld.shared.b32 [[W3:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  shl.b32 {{%r[0-9]+}}, [[W2]], 4;
// CHECK:       lop3.b32 {{%r[0-9]+}}, [[W3]], [[MASK]], [[FLIP]], 0x6a;
// CHECK-COUNT-7: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NOT:   mma.sync
// CHECK:       red.global.add.f32
func.func @small_m_q8_1_q4_0_16_w1_splitk(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x8x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%off_n, %kkw] : !qdot.desc<16x8x!qdot.block<q4_0>> -> tensor<16x8x!qdot.block<q4_0>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_0 rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<q4_0>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

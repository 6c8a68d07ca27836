// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'lop3.b32 .*, 0x6a;' %t.ptx | filecheck %s --check-prefix=LOP3S
// RUN: grep -B4 'lop3.b32' %t.ptx | grep -c 'shl.b32 .*, 4;' | filecheck %s --check-prefix=SHIFTED
// RUN: grep -c 'mul.rn.f32 .*, 0f3D800000;' %t.ptx | filecheck %s --check-prefix=SIXTEENTHS
// RUN: grep -c 'st.shared.b32' %t.ptx | filecheck %s --check-prefix=D16-STORES
// RUN: grep -c 'ld.shared.v2.b32' %t.ptx | filecheck %s --check-prefix=D16-LOADS
// RUN: grep -c 'ld.shared.b32' %t.ptx | filecheck %s --check-prefix=WORDS
// RUN: grep -c 'ld.shared.b16[[:space:]]*%r[0-9]' %t.ptx | filecheck %s --check-prefix=HALVES
// RUN: not grep -e cvt.rn.f32.s32 -e '\.u8\.s32' -e 'mma.sync.aligned.m16n8k16' -e ld.local -e 'ld.shared.[bu]8' -e 'xor.b32' -e 'and.b32 .*-252645136' %t.ptx
// The prefill q8_1 × q4_0 kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(block_m=32, block_n=32, num_warps=4, weights="q4_0"))), through the
// default pipeline to PTX. What this pins, per warp (2 × 2 warps, 16 × 16 each) and K step of 8
// q4_0 blocks: both tiles copied raw by cp.async; W's d16 decoded once per CTA (W is the mma's
// rhs, each d read by 8 lanes × 2 warps): every thread loads its column's 8 fp16 d, widens each
// and multiplies it by 0.0625 (0f3D800000) — 8 multiplies per thread and K step, 32 before — and
// stores it to an f32 shared buffer (8 st.shared.b32), then a barrier, then the operand loads;
// X (q8_1_mmq) read by ldmatrix, W (q4_0, 18-byte blocks) by scalar ld.shared — one 32-bit word
// where a block's nibbles start 4-aligned (the 8 registers of odd blocks: byte 20 of a 36-byte
// pair), two 16-bit halves where they start at byte 2 (the 8 of even blocks: 16 ld.shared.b16,
// the high half shifted left 16 and or-ed in) — never ldmatrix nor a byte load; each register of
// nibbles made s8 16 · (c − 8) at use by ONE lop3 (lut 0x6a: (a & b) ^ c) with the mask
// 0xF0F0F0F0 (-252645136) and the flip 0x80808080 (-2139062144) as register operands: on
// `x << 4` for the low nibbles (b0 of the mma, k 4t..), on x itself for the high ones (b1, k
// 16 + 4t..) — no and, no xor; an s8 × s8 mma for every 32-value block (1 m tile × 2 n tiles × 8
// k tiles = 16), started from 1.5 · 2^23's bits (1262485504) and folded in by two FMAs (the
// magic-number rescale: −1.5 · 2^23 · d_x, 0fCB400000), the second taking W's d16 as read back
// from the decoded buffer (one ld.shared.v2.b32 of two adjacent columns per n tile and k tile:
// 16 per K step); no u8 mma, no f16 (dmin) mma, no s32 → f32 conversion, no spill; a plain store
// of Y. 32 registers of B per thread per K step: 32 lop3s, 16 of them (the low nibbles) right
// after their shift.
// tests/lit/targets/ptx/mmq-q4_0-assemble.mlir assembles it with ptxas.
// LOP3S:      {{^32$}}
// SHIFTED:    {{^16$}}
// SIXTEENTHS: {{^8$}}
// D16-STORES: {{^8$}}
// D16-LOADS:  {{^16$}}
// WORDS:      {{^8$}}
// HALVES:     {{^16$}}

// CHECK:       .maxntid 128
// CHECK:       cp.async.cg.shared.global
// CHECK:       cp.async.commit_group
// the K loop: wait for the stage, barrier, issue the next stage's copies, then decode W's d16 into
// the f32 buffer (the first of 8 stores at offset DBUF) and wait for every warp's stores
// CHECK:       cp.async.wait_group 1;
// CHECK-NEXT:  bar.sync 0;
// CHECK:       cp.async.commit_group;
// CHECK:       cvt.f32.f16 [[DW:%r[0-9]+]], %rs{{[0-9]+}};
// CHECK-NEXT:  mul.rn.f32 [[D16:%r[0-9]+]], [[DW]], 0f3D800000;
// CHECK-NEXT:  st.shared.b32 [{{%r[0-9]+}}+[[DBUF:[0-9]+]]], [[D16]];
// CHECK-COUNT-7: st.shared.b32
// CHECK-NEXT:  bar.sync 0;
// X's fragments by ldmatrix; W's first register (block 0: its nibbles at byte 2) from two halves
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}
// CHECK:       ld.shared.b16 [[WL:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  ld.shared.b16 [[WH:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  shl.b32 [[WHS:%r[0-9]+]], [[WH]], 16;
// CHECK-NEXT:  or.b32 [[W:%r[0-9]+]], [[WHS]], [[WL]];
// CHECK-NEXT:  shl.b32 [[LS:%r[0-9]+]], [[W]], 4;
// CHECK:       mov.b32 [[MASK:%r[0-9]+]], -252645136;
// CHECK:       mov.b32 [[FLIP:%r[0-9]+]], -2139062144;
// CHECK:       lop3.b32 [[LO:%r[0-9]+]], [[LS]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       lop3.b32 [[HI:%r[0-9]+]], [[W]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NEXT:  {[[D0:%r[0-9]+]], {{.*}}},
// CHECK-NEXT:  {[[A0]], [[A1]], [[A2]], [[A3]]},
// CHECK-NEXT:  {[[LO]], [[HI]]},
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// the rescale: X's d folded into the magic number, then W's d16 read back from the buffer
// CHECK:       mul.rn.f32 [[NM:%r[0-9]+]], [[S:%r[0-9]+]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 [[X:%r[0-9]+]], [[D0]], [[S]], [[NM]];
// CHECK-NEXT:  ld.shared.v2.b32 {[[WD0:%r[0-9]+]], {{%r[0-9]+}}}, [{{%r[0-9]+}}+[[DBUF]]];
// CHECK-NEXT:  fma.rn.f32 {{%r[0-9]+}}, [[WD0]], [[X]], {{%r[0-9]+}};
// the next odd block's register: one word, its low nibbles shifted, its high ones in place
// CHECK:       ld.shared.b32 [[WW:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  shl.b32 [[WWS:%r[0-9]+]], [[WW]], 4;
// CHECK:       lop3.b32 {{%r[0-9]+}}, [[WWS]], [[MASK]], [[FLIP]], 0x6a;
// CHECK:       lop3.b32 {{%r[0-9]+}}, [[WW]], [[MASK]], [[FLIP]], 0x6a;
// the mma of that register is the third (the second, the other n tile, came before it): 14 more
// CHECK-COUNT-14: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NOT:   mma.sync
// CHECK:       st.global
// CHECK-NOT:   red.global.add
// CHECK-NOT:   ldmatrix
func.func @mmq_q8_1_q4_0_32x32_w4(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %kwb = arith.divui %k, %c32 : index
  %pid = qdot.program_id x
  %tiles_m = arith.ceildivui %m, %c32 : index
  %tiles_n = arith.ceildivui %n, %c32 : index
  %in_group = arith.muli %tiles_n, %c8 : index
  %group = arith.divui %pid, %in_group : index
  %first_m = arith.muli %group, %c8 : index
  %left_m = arith.subi %tiles_m, %first_m : index
  %group_m = arith.minui %left_m, %c8 : index
  %pos = arith.remui %pid, %in_group : index
  %pid_m_in = arith.remui %pos, %group_m : index
  %pid_m = arith.addi %first_m, %pid_m_in : index
  %pid_n = arith.divui %pos, %group_m : index
  %off_m = arith.muli %pid_m, %c32 : index
  %off_n = arith.muli %pid_n, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<8x32x!qdot.block<q4_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%off_m, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %off_n] : !qdot.desc<8x32x!qdot.block<q4_0>> -> tensor<8x32x!qdot.block<q4_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_0
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x32x!qdot.block<q4_0>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32' %t.ptx | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' %t.ptx | filecheck %s --check-prefix=HMMA
// RUN: grep -c 'and.b32 .*, 252645135;' %t.ptx | filecheck %s --check-prefix=MASKS
// RUN: grep -c 'shr.u32 .*, 4;' %t.ptx | filecheck %s --check-prefix=SHIFTS
// RUN: grep -c 'xor.b32 .*, 32768;' %t.ptx | filecheck %s --check-prefix=NEGATED-M
// RUN: grep -c 'sub.f32' %t.ptx | filecheck %s --check-prefix=FOLDS
// RUN: not grep -e cvt.rn.f32.s32 -e 'lop3.b32' -e 's32.s8.s8.s32' -e ld.local -e 'ld.shared.[bu]8' %t.ptx
// The prefill q8_1 × q4_1 kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(block_m=32, block_n=32, num_warps=4, weights="q4_1"))), through the
// default pipeline to PTX. What this pins, per warp (2 × 2 warps, 16 × 16 each) and K step of 8
// q4_1 blocks: W's nibbles read as 32-bit words (q4_1's qs begin 4 bytes into its 20-byte blocks)
// and made u8 codes 0..15 at use — a low-nibble register by one and with 0x0F0F0F0F (252645135),
// a high-nibble one by a right shift of 4 and the same and (32 registers of B per K step from 16
// words: 32 ands, 16 shifts), no lop3 and no flip (q4_0's 16 · (c − 8) is not q4_1's meaning); an s8 × u8 mma per
// 32-value block (1 m tile × 2 n tiles × 8 k tiles = 16), rescaled by the magic-number FMAs with
// W's d as read back from its decoded f32 buffer; then the m term: each thread widens nothing —
// it copies its row's four q8_1_mmq sums and its column's eight fp16 m into f16 pairs (s, 0) and
// (−m, 0) in shared memory (the −m a sign flip of the fp16 bits, xor 32768, exact: 8 per K
// step), and one f16 mma per n tile over the K step's 16 k-slots (2) adds Σ s·m to the
// accumulators, each by a subtraction (the fold's scales are −1 and 1: 8 per K step); no s32 →
// f32 conversion, no spill.
// IMMA:      {{^16$}}
// HMMA:      {{^2$}}
// MASKS:     {{^32$}}
// SHIFTS:    {{^16$}}
// NEGATED-M: {{^8$}}
// FOLDS:     {{^8$}}
// CHECK:       .maxntid 128
// CHECK:       cp.async.cg.shared.global
// W's d widened once into the f32 buffer, then the barrier
// CHECK:       cvt.f32.f16
// CHECK-NEXT:  st.shared.b32
// CHECK-COUNT-7: st.shared.b32
// CHECK-NEXT:  bar.sync 0;
// a W register: one word, its low nibbles masked, its high ones shifted and masked, one s8 × u8 mma
// CHECK:       ld.shared.b32 [[W:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  and.b32 [[LO:%r[0-9]+]], [[W]], 252645135;
// CHECK-NEXT:  shr.u32 [[HS:%r[0-9]+]], [[W]], 4;
// CHECK-NEXT:  and.b32 [[HI:%r[0-9]+]], [[HS]], 252645135;
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32
// CHECK-NEXT:  {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}},
// CHECK-NEXT:  {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}},
// CHECK-NEXT:  {[[LO]], [[HI]]},
// the m term after the K step's 16 integer mmas — −m as f16 pairs, a barrier, one f16 mma per n tile, subtracted
// CHECK:       xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 32768;
// CHECK:       bar.sync 0;
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       sub.f32
// CHECK:       st.global
func.func @mmq_q8_1_q4_1_32x32_w4(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_1>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<8x32x!qdot.block<q4_1>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%off_m, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %off_n] : !qdot.desc<8x32x!qdot.block<q4_1>> -> tensor<8x32x!qdot.block<q4_1>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_1
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x32x!qdot.block<q4_1>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32' %t.ptx | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'lop3.b32' %t.ptx | filecheck %s --check-prefix=LOP3
// RUN: grep -c 'st.shared.b32' %t.ptx | filecheck %s --check-prefix=SCALES
// RUN: grep -c 'ld.shared.v2.b8' %t.ptx | filecheck %s --check-prefix=SCALE-BYTES
// RUN: not grep -e ld.local -e 'mma.sync.aligned.m16n8k32' -e 'ld.shared.u8' %t.ptx
// The one-token q3_K × q8_1 decode kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1, weights="q3_K"))),
// through the default pipeline to PTX. What this pins, per K step (one 110-byte super-block per row of
// the 16-row tile):
// * the 6-bit scales unpacked once per CTA: the 12 bytes of scales[12] as six 2-byte vector loads
//   (ld.shared.v2.b8 at +96, +104, +98, +106, +100, +102 — LLVM pairs the byte loads), each scale's low
//   nibble and its two top bits or-ed, less 32 (add −32), and stored (16 st.shared.b32 per thread:
//   a row's 16 scales), then the barrier before the mma operands are read;
// * each register of four s8 values 32 · (code − 4) made from a qs word and an hmask word by two shifts
//   and two lop3 — the top bit masked and flipped with 0x80808080 (−2139062144, lut 0x6a), joined under
//   0x60606060 (1616928864, lut 0xea): 32 registers per thread and K step, 64 lop3;
// * two m16n8k16 mmas per 32-value block (8 per K step each way: 16), each half's s32 sum weighted by its
//   scale in s32; no spill.
// IMMA:        {{^16$}}
// LOP3:        {{^64$}}
// SCALES:      {{^16$}}
// SCALE-BYTES: {{^6$}}
// CHECK:       .maxntid 32
// CHECK:       cp.async.commit_group;
// CHECK:       ld.shared.v2.b8 {{{%rs[0-9]+}}, {{%rs[0-9]+}}}, [[[ROW:%r[0-9]+]]+96];
// CHECK-NEXT:  ld.shared.v2.b8 {{{%rs[0-9]+}}, {{%rs[0-9]+}}}, [[[ROW]]+104];
// CHECK:       and.b32 [[LOW:%r[0-9]+]], {{%r[0-9]+}}, 15;
// CHECK:       and.b32 [[TOP:%r[0-9]+]], {{%r[0-9]+}}, 48;
// CHECK-NEXT:  or.b32 [[CODE:%r[0-9]+]], [[TOP]], [[LOW]];
// CHECK-NEXT:  add.s32 [[SC:%r[0-9]+]], [[CODE]], -32;
// CHECK-NEXT:  st.shared.b32 [{{%r[0-9]+}}+{{[0-9]+}}], [[SC]];
// CHECK:       bar.sync 0;
// CHECK:       shl.b32 [[Q:%r[0-9]+]], {{%r[0-9]+}}, 5;
// CHECK-NEXT:  shl.b32 [[H:%r[0-9]+]], {{%r[0-9]+}}, 7;
// CHECK-NEXT:  mov.b32 [[FLIP:%r[0-9]+]], -2139062144;
// CHECK:       lop3.b32 [[T:%r[0-9]+]], [[H]], [[FLIP]], [[FLIP]], 0x6a;
// CHECK:       mov.b32 [[MASK:%r[0-9]+]], 1616928864;
// CHECK:       lop3.b32 {{%r[0-9]+}}, [[Q]], [[MASK]], [[T]], 0xea;
// CHECK:       mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32
func.func @small_m_q8_1_q3_K_16_w1_splitk_m1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q3_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q3_K>> -> !qdot.desc<16x1x!qdot.block<q3_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m_bound], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m_bound], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q3_K>> -> tensor<16x1x!qdot.block<q3_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q3_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q3_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

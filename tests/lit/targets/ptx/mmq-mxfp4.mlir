// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: grep -c 'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' %t.ptx | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'prmt.b32 .*, 50462976, 201852420, ' %t.ptx | filecheck %s --check-prefix=LOOKUPS
// RUN: grep -c -e 'prmt.b32 .*, 0x6420U;' -e 'prmt.b32 .*, 0x7531U;' %t.ptx | filecheck %s --check-prefix=GATHERS
// RUN: grep -c -e 'prmt.b32 .*, 0x4321U;' -e 'prmt.b32 .*, 0x6543U;' %t.ptx | filecheck %s --check-prefix=UNALIGNED
// RUN: grep -c 'ld.shared.b8' %t.ptx | filecheck %s --check-prefix=EXPONENTS
// RUN: not grep -e cvt.rn.f32.s32 -e 'lop3.b32' -e 's32.u8' -e ld.local -e 'ld.shared.u8' -e 'mma.sync.aligned.m16n8k16' %t.ptx
// The prefill q8_1 × mxfp4 kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(block_m=32, block_n=32, num_warps=4, weights="mxfp4"))), through the
// default pipeline to PTX. What this pins, per warp (2 × 2 warps, 16 × 16 each) and K step of 8
// mxfp4 blocks (17 bytes: a column's K step is 136 bytes):
// * W's exponent bytes decoded once per CTA: one ld.shared.b8 per block of a thread's column (8),
//   each made 2^(e − 128) — (e << 23) − 2^23, or 0x00200000 << (e & 1) below 2, by selp — and stored
//   to the f32 buffer before the barrier;
// * W's quant words at every alignment: blocks 1 + 17b + 4t bytes in, so of a column's 8 blocks two
//   at 1 mod 4 and two at 3 mod 4 are the two aligned words around them joined by one prmt (0x4321,
//   0x6543: 4 each for the warp's 2 n tiles), two at 2 mod 4 two 16-bit halves, two one word;
// * each word's 8 codes looked up in one table (the kvalues of codes 0-7, 0x03020100 = 50462976 and
//   0x0C080604 = 201852420, both immediates), with and without their signs flipped: 4 prmt per word,
//   16 words per warp and K step (2 n tiles × 8 k tiles) = 64; then the low and the high nibbles'
//   bytes gathered, 2 per word = 32;
// * one s8 × s8 mma per 32-value block (1 m tile × 2 n tiles × 8 k tiles = 16), rescaled by the
//   magic-number FMAs; no fold mma, no s32 → f32 conversion, no lop3, no spill.
// IMMA:      {{^16$}}
// LOOKUPS:   {{^64$}}
// GATHERS:   {{^32$}}
// UNALIGNED: {{^8$}}
// EXPONENTS: {{^8$}}
// CHECK:       .maxntid 128
// CHECK:       cp.async
// the exponents: eight bytes of the thread's column, then each one's 2^(e − 128) stored, then the barrier
// CHECK:       ld.shared.b8 [[E:%r[0-9]+]], [{{%r[0-9]+}}+{{[0-9]+}}];
// CHECK-NEXT:  setp.lt.u32 [[SMALL:%p[0-9]+]], [[E]], 2;
// CHECK-COUNT-7: ld.shared.b8
// CHECK:       shl.b32 [[NORMAL0:%r[0-9]+]], {{%r[0-9]+}}, 23;
// CHECK-NEXT:  add.s32 {{%r[0-9]+}}, [[NORMAL0]], -8388608;
// CHECK:       selp.b32
// CHECK-NEXT:  st.shared.b32
// CHECK:       bar.sync 0;
// a W word at 1 mod 4: two aligned words, one prmt; its 8 codes looked up, signs flipped, gathered
// (the first of them at offset 27648 + 4t, the tile's first block of W, the second 4 bytes on)
// CHECK:       ld.shared.b32 [[LO:%r[0-9]+]], [[[ADDR:%r[0-9]+]]+27648];
// CHECK-NEXT:  ld.shared.b32 [[HI:%r[0-9]+]], [[[ADDR]]+27652];
// CHECK-NEXT:  prmt.b32 [[W:%r[0-9]+]], [[LO]], [[HI]], 0x4321U;
// CHECK:       prmt.b32 {{%r[0-9]+}}, 50462976, 201852420, [[W]];
// CHECK:       prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x6420U;
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func @mmq_q8_1_mxfp4_32x32_w4(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<mxfp4>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<mxfp4>> -> !qdot.desc<8x32x!qdot.block<mxfp4>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%off_m, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %off_n] : !qdot.desc<8x32x!qdot.block<mxfp4>> -> tensor<8x32x!qdot.block<mxfp4>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = mxfp4
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x32x!qdot.block<mxfp4>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}


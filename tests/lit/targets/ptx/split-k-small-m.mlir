// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: filecheck %s --check-prefix=HIGH < %t.ptx
// RUN: not grep cvt.rn.f32.s32 %t.ptx
// The decode kernel (M ≤ 8) with split-K exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True))), to PTX: the
// grid's y dimension picks the K range (%ctaid.y of %nctaid.y), q4_K is the mma's A operand
// (nibbles masked in place at use: the mma is u8 × s8), one mma per 32-value block (one 16 × 8 tile × 8 k tiles) started
// from 1.5 · 2^23's bits with its magic-number rescale (−1.5 · 2^23 · d·sc, then two FMAs per
// register, no conversion), one f16 mma for the dmin term, and the partial Yᵀ tile added into Y with
// red.global.add.f32 — one per accumulator register (4 per thread), no plain store.
// tests/lit/targets/ptx/mmq-assemble.mlir assembles it with ptxas.

// CHECK:       .maxntid 32
// CHECK-DAG:   %nctaid.y
// CHECK-DAG:   %ctaid.y
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       and.b32 {{.*}}, 252645135;
// CHECK:       mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK-NEXT:  {[[D0:%r[0-9]+]], {{.*}}},
// CHECK-NEXT:  {{.*}}
// CHECK-NEXT:  {{.*}}
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// CHECK:       mul.rn.f32 [[NM:%r[0-9]+]], [[S:%r[0-9]+]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 [[X:%r[0-9]+]], [[D0]], [[S]], [[NM]];
// CHECK:       fma.rn.f32 {{%r[0-9]+}}, [[X]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NOT:   cvt.rn.f32.s32
// CHECK-COUNT-7: mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       fma.rn.f32
// CHECK-NOT:   mma.sync
// CHECK:       red.global.add.f32
// CHECK-COUNT-3: red.global.add.f32
// CHECK-NOT:   red.global.add.f32
// CHECK-NOT:   st.global
// CHECK-NOT:   ld.local
func.func @small_m_q8_1_q4_K_16_w1_splitk(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// The high nibbles: masked where they sit (0xF0F0F0F0), the value 16 · q.
// HIGH: and.b32 {{.*}}, -252645136;

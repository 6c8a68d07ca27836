// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: filecheck %s --check-prefix=HIGH < %t.ptx
// RUN: not grep cvt.rn.f32.s32 %t.ptx
// The prefill q8_1 × q4_K kernel exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(block_m=32, block_n=32, num_warps=4))), through the default pipeline to
// PTX. Per warp (2 × 2 warps, 16 × 16 each) and K step: the s8 mma for every 32-value block
// (1 m tile × 2 n tiles × 8 k tiles = 16), operands through ldmatrix, q4_K nibbles masked in
// place at use — low nibbles with 0x0F0F0F0F (252645135), high nibbles with 0xF0F0F0F0
// (-252645136) and no shift, so the mma is s8 × u8 and the odd sub-blocks' scales carry the 1/16 —
// each block's mma started from 1.5 · 2^23's bits (1262485504)
// and its result folded in by two FMAs, no conversion (the magic-number rescale: ggml scales are
// narrow enough for −1.5 · 2^23 · d, 0fCB400000, to be exact); then the dmin term as f16 mmas
// (K = 16, one per 16 × 8 tile: 2), each result folded in once per super-block with −dmin; a
// plain store of Y.
// tests/lit/targets/ptx/mmq-assemble.mlir assembles it with ptxas.

// CHECK:       .maxntid 128
// CHECK:       cp.async.cg.shared.global
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       and.b32 {{.*}}, 252645135;
// CHECK:       mov.b32 [[MAGIC:%r[0-9]+]], 1262485504;
// CHECK-NEXT:  mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32
// CHECK-NEXT:  {[[D0:%r[0-9]+]], {{.*}}},
// CHECK-NEXT:  {{.*}}
// CHECK-NEXT:  {{.*}}
// CHECK-NEXT:  {[[MAGIC]], [[MAGIC]], [[MAGIC]], [[MAGIC]]};
// CHECK:       mul.rn.f32 [[NM:%r[0-9]+]], [[S:%r[0-9]+]], 0fCB400000;
// CHECK-NEXT:  fma.rn.f32 [[X:%r[0-9]+]], [[D0]], [[S]], [[NM]];
// CHECK:       fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[X]], {{%r[0-9]+}};
// CHECK-NOT:   cvt.rn.f32.s32
// CHECK-COUNT-15: mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       fma.rn.f32
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT:   mma.sync
// CHECK:       st.global.b32
// CHECK-NOT:   red.global.add
// CHECK-NOT:   ld.local
func.func @mmq_q8_1_q4_K_32x32_w4(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
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
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x32x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%off_m, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %off_n] : !qdot.desc<1x32x!qdot.block<q4_K>> -> tensor<1x32x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x32x!qdot.block<q4_K>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// The high nibbles: masked where they sit (0xF0F0F0F0), the value 16 · q.
// HIGH: and.b32 {{.*}}, -252645136;

// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s --check-prefix=FP4
// e4m3 × e2m1 without scales through the whole PTX pipeline on sm_120a: the native mixed
// kind::f8f6f4 mma, 16 of them for a 32×32×64 tile on one warp; 16-byte cp.async with a
// source size (zero fill) for the operand copies; .maxntid from qdot.num_warps.
// (ptxas accepts the result: tests/lit/targets/ptx/assemble.mlir.)

// CHECK:       .target sm_120a
// CHECK:       .visible .entry mixed(
// CHECK:       .maxntid 32
// CHECK:       cp.async.cg.shared.global [%r{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK:       cp.async.commit_group;
// CHECK:       cp.async.wait_group {{[0-9]+}};
// CHECK:       shl.b32 {{.*}}, 2;
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// CHECK-COUNT-15: mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// CHECK-NOT:   mma.sync
// CHECK:       st.global

// The fp4 operand is read by the sub-byte ldmatrix; each of its registers is shifted left by
// two (0000xxxx → 00xxxx00) and the shifted registers are the mma's B operand.
// FP4:         ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 {[[R0:%r[0-9]+]], [[R1:%r[0-9]+]], [[R2:%r[0-9]+]], [[R3:%r[0-9]+]]}, [%r{{[0-9]+}}{{(\+[0-9]+)?}}];
// FP4-NEXT:    shl.b32 [[S0:%r[0-9]+]], [[R0]], 2;
// FP4-NEXT:    shl.b32 [[S1:%r[0-9]+]], [[R1]], 2;
// FP4-NEXT:    mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// FP4-NEXT:    {{{.*}}},
// FP4-NEXT:    {{{.*}}},
// FP4-NEXT:    {[[S0]], [[S1]]},
// FP4-COUNT-3: ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
// FP4-NOT:     ld.shared.b16

func.func @mixed(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                 %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c32 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %off_n] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

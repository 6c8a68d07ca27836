// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s --check-prefixes=CHECK,SM90
// RUN: qdot-translate %s --target ptx --arch sm_80 | filecheck %s --check-prefixes=CHECK,SM80
// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s --check-prefixes=CHECK,SM120
// i8 × i8 → i32 (an int8 GEMM tile, 64×64×64 on 4 warps): the s8 mma.sync on every target,
// operands through ldmatrix .m8n8 .x4 .b16, the i32 accumulators stored as they are.

// SM80:        .target sm_80
// SM90:        .target sm_90
// SM120:       .target sm_120a
// CHECK:       .maxntid 128
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-COUNT-15: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// CHECK-NOT:   mma.sync
// CHECK-NOT:   cvt.rn.f32.s32
// CHECK:       st.global.b32
// CHECK-NOT:   cvt.rn.f32.s32
func.func @igemm(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index,
                 %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pid = qdot.program_id x
  %off_m = arith.muli %pid, %c64 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<64x64xi32>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xi32>) {
    %a = qdot.load %a_desc[%off_m, %kk] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = i8 rhs = i8 : tensor<64x64xi8> * tensor<64x64xi8> -> tensor<64x64xi32>
    scf.yield %d : tensor<64x64xi32>
  }
  qdot.store %c_desc[%off_m, %c0], %acc : !qdot.desc<64x64xi32>, tensor<64x64xi32>
  func.return
}

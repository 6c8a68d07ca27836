// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// A stored splat constant (tests/lit/qdot-accelerate-matmul/stored-splat.mlir gives it its
// blocked layout) all the way to PTX: each thread stores its 4 zeros of the row, each store
// predicated on its element being inside [M, N], in a loop over the row's 512-wide chunks.
// N is not known to be a multiple of 4, so one uniform test of (N | column origin) & 3 (LLVM hoists it out of
// the loop) predicates, for each run of four columns, one 16-byte store and, negated, the run's four
// 4-byte stores: for N a multiple of 4 each run is bounds-tested by its first column (c a multiple of 4:
// c < N implies c + 3 < N). tests/lit/qdot-to-llvm/register-loads.mlir has the proven form (no test).

// CHECK-LABEL:  .entry zero_row
// CHECK:        and.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 3;
// CHECK:        $L__BB0_2:
// CHECK:        @%qdot_p st.global.b32 [%rd[[A:[0-9]+]]], %r{{[0-9]+}};
// CHECK:        @%qdot_p st.global.v4.b32 [%rd[[A]]], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-COUNT-3: @%qdot_p st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NOT:    st.global
// CHECK:        @%p{{[0-9]+}} bra $L__BB0_2;
func.func @zero_row(%y_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %pid_k = qdot.program_id x
  %pid_m = qdot.program_id y
  %nk = qdot.num_programs x
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x512xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1x512xf32>
  %start = arith.muli %pid_k, %c512 : index
  %step = arith.muli %nk, %c512 : index
  scf.for %j = %start to %n step %step {
    qdot.store %y_desc[%pid_m, %j], %zero : !qdot.desc<1x512xf32>, tensor<1x512xf32>
  }
  func.return
}

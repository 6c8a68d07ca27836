// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// A stored splat constant (tests/lit/qdot-accelerate-matmul/stored-splat.mlir gives it its
// blocked layout) all the way to PTX: each thread stores its 4 zeros of the row, each store
// predicated on its element being inside [M, N], in a loop over the row's 512-wide chunks.
// N's parity is unknown, so one uniform test of (N | column origin) & 1 (LLVM hoists it out of
// the loop) predicates, for each pair of columns, one 8-byte store and, negated, the pair's two
// 4-byte stores: for an even N each pair is bounds-tested by its first column (c even and N
// even: c < N implies c + 1 < N).

// CHECK-LABEL:  .entry zero_row
// CHECK:        $L__BB0_2:
// CHECK:        @%qdot_p st.global.b32 [%rd[[A:[0-9]+]]], %r{{[0-9]+}};
// CHECK:        @%qdot_p st.global.v2.b32 [%rd[[A]]], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK:        @%qdot_p st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK:        @%qdot_p st.global.b32 [%rd[[B:[0-9]+]]], %r{{[0-9]+}};
// CHECK:        @%qdot_p st.global.v2.b32 [%rd[[B]]], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK:        @%qdot_p st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
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

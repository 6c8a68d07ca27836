// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_90 --remarks 2>&1 | grep 'register load' | filecheck %s --check-prefix=REMARK
// RUN: qdot-translate %s --target ptx --arch sm_90 --remarks 2>&1 | grep epilogue | filecheck %s --check-prefix=STORE
// A tile loaded into registers (tests/lit/qdot-accelerate-matmul/register-loads.mlir gives it its
// blocked layout of 16-byte runs) all the way to PTX. Each thread reads the elements it holds
// straight from global memory, predicated on their being inside the descriptor's shape (zero
// otherwise, as qdot.load promises: the registers are zeroed before each predicated load). Where
// the runs are provably 16-byte aligned and never straddle N — here the workspace's 128 columns
// and row pitch are constants — each run is one ld.global.v4.b32: 64 × 128 f32 on 4 warps are
// 16 per thread, in the loop that sums the tiles. The sum goes to Y as it came: a 16-byte st.global.v4 per run
// where N is a multiple of 4, tested at run time here (N is an argument), four single stores otherwise.

// CHECK-LABEL:  .entry sum_parts
// CHECK:        $L__BB0_2:
// CHECK-COUNT-16: @%qdot_p ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK-NOT:    ld.global
// CHECK-COUNT-64: add.rn.f32
// CHECK:        @%p{{[0-9]+}} bra $L__BB0_2;
// CHECK-COUNT-16: @%qdot_p st.global.v4.b32
// REMARK:       register-loads.mlir:[[# @LINE + 13]]:5: remark: qdot-to-llvm: register load: 16 ld.global.v4.b32 per thread (16-byte runs of the layout, aligned)
func.func @sum_parts(%y_ptr: !qdot.ptr<f32>, %part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %count: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %rows = arith.muli %count, %c64 : index
  %part_desc = qdot.make_desc %part_ptr, [%rows, %c128], [%c128, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x128xf32>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x128xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
  %sum = scf.for %p = %c0 to %count step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %row = arith.muli %p, %c64 : index
    %part = qdot.load %part_desc[%row, %c0] : !qdot.desc<64x128xf32> -> tensor<64x128xf32>
    %next = arith.addf %acc, %part : tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  qdot.store %y_desc[%c0, %c0], %sum : !qdot.desc<64x128xf32>, tensor<64x128xf32>
  func.return
}
// STORE:        register-loads.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v4.b32 per run of four f32 registers, under a run-time test that N, the row pitch and the column origin are multiples of 4 (single stores otherwise)

// N and the row pitch of any value: a run may straddle N or start unaligned, so each element is
// its own predicated 4-byte load (16 × 64 f32 on 4 warps: 8 per thread), and the remark says why.
// CHECK-LABEL:  .entry copy_rows
// CHECK-COUNT-8: @%qdot_p ld.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK-NOT:    ld.global
// REMARK:       register-loads.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: register load: 8 single ld.global per thread: the row pitch and N are not known to be multiples of 4, as 16-byte row vectors need (aligned, never straddling N; qdot.divisibility on the argument says so)
func.func @copy_rows(%a_ptr: !qdot.ptr<f32>, %b_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  qdot.store %b[%c0, %c0], %t : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}
// STORE:        register-loads.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v4.b32 per run of four f32 registers, under a run-time test

// The same rows with N a multiple of 4 (qdot.divisibility): 16-byte loads again, 2 per thread, and 16-byte stores
// with no run-time test and no single stores.
// CHECK-LABEL:  .entry copy_rows_aligned
// CHECK-COUNT-2: @%qdot_p ld.global.v4.b32
// CHECK-NOT:    ld.global
// CHECK-COUNT-2: @%qdot_p st.global.v4.b32
// CHECK-NOT:    st.global
// REMARK:       register-loads.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: register load: 2 ld.global.v4.b32 per thread (16-byte runs of the layout, aligned)
func.func @copy_rows_aligned(%a_ptr: !qdot.ptr<f32>, %b_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 4 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  qdot.store %b[%c0, %c0], %t : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}
// STORE:        register-loads.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v4.b32 per run of four f32 registers, N, the row pitch and the column origin proven multiples of 4

// A column-major tile (descriptor strides [1, M]): its blocked layout's runs go down the columns
// (tests/lit/qdot-accelerate-matmul/register-loads.mlir, @copy_columns), so with M a multiple of 4 each run is one
// 16-byte load and one 16-byte store down a column: 16 × 64 i32 on 2 warps, 4 of each per thread.
// CHECK-LABEL:  .entry copy_columns_aligned
// CHECK-COUNT-4: @%qdot_p ld.global.v4.b32
// CHECK-NOT:    ld.global
// CHECK-COUNT-4: @%qdot_p st.global.v4.b32
// CHECK-NOT:    st.global
// REMARK:       register-loads.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: register load: 4 ld.global.v4.b32 per thread (16-byte runs of the layout, down the columns, aligned)
func.func @copy_columns_aligned(%a_ptr: !qdot.ptr<i32>, %b_ptr: !qdot.ptr<i32>, %m: index {qdot.divisibility = 4 : i64},
                                %n: index) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xi32> -> tensor<16x64xi32>
  qdot.store %b[%c0, %c0], %t : !qdot.desc<16x64xi32>, tensor<16x64xi32>
  func.return
}
// STORE:        register-loads.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v4.b32 per run of four i32 registers down a column, M, the column pitch and the row origin proven multiples of 4

// The same with M of any value: single loads (the remark says which term is unproven) and the stores' 16-byte runs
// under a run-time test of M, the column pitch and the row origin.
// CHECK-LABEL:  .entry copy_columns
// CHECK-COUNT-16: @%qdot_p ld.global.b32
// CHECK-NOT:    ld.global
// REMARK:       register-loads.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: register load: 16 single ld.global per thread: the column pitch and M are not known to be multiples of 4, as 16-byte column vectors need (aligned, never straddling M; qdot.divisibility on the argument says so)
func.func @copy_columns(%a_ptr: !qdot.ptr<i32>, %b_ptr: !qdot.ptr<i32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xi32> -> tensor<16x64xi32>
  qdot.store %b[%c0, %c0], %t : !qdot.desc<16x64xi32>, tensor<16x64xi32>
  func.return
}
// STORE:        register-loads.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v4.b32 per run of four i32 registers down a column, under a run-time test that M, the column pitch and the row origin are multiples of 4 (single stores otherwise)

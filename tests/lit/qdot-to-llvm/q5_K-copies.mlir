// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.cp_async cg .*, 16, ' %t | filecheck %s --check-prefix=CHUNKS
// RUN: not grep -e 'ptx.ld_global' -e 'ptx.cp_async ca' %t
// q5_K's blocks are 176 = 11 · 16 bytes, so in ggml's own layout (a row of K/256 blocks, K a
// multiple of 256 only) every row of a tile starts 16-aligned and the copy is 16-byte cp.async.cg
// — as q4_K's 144-byte blocks, unlike q6_K's 210-byte ones (q6_K-copies.mlir: 2-byte pieces). The
// decode tile here is 16 rows of two blocks: 16 · 352 / 16 = 352 chunks on one warp, 11 per lane,
// beside the activation tile's 9 (32 q8_1_mmq blocks, 4608 bytes): 20 copies per stage, written out in
// the pipeline's prologue and in its loop, 40 in all, every one 16 bytes.
// CHUNKS: {{^40$}}

// CHECK-LABEL: func.func @ggml_rows
// CHECK:       ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK:       func.return
func.func @ggml_rows(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q5_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q5_K>> -> !qdot.desc<16x2x!qdot.block<q5_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q5_K>> -> tensor<16x2x!qdot.block<q5_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q5_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q5_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

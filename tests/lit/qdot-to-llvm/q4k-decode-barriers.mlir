// RUN: qdot-opt %s -p 'qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90 strategy=auto},qdot-optimize-dot-operands,qdot-pipeline{num-stages=3},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' | filecheck %s

// The barriers of the q4_K decode-once copies (passes/support/shared_stores.py). Each
// register → shared copy would bring one barrier before its stores, for readers of the buffer's
// old contents, and one after, for its readers. In the pipelined K loop the one before is the
// barrier at the top of the loop (after cp.async.wait): the old contents' readers are the
// previous K step's (qdot-pipeline marks the copies qdot.readers_synced). And the two copies of
// the f16 dmin fold (m_pad, s_pad), both decoded before either is read, share one barrier after
// (qdot.reader_syncs on the first). The decode kernel below (the default pipeline on
// compiler/mmq_template.py's small_m, split-K, 16 weight rows, one warp) had 7 barriers per
// K step; it has 3: the loop top, the decoded scales, the fold operands.

// CHECK-LABEL: func.func @small_m_splitk
// CHECK:       ptx.cp_async_wait 1
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.st_shared %{{.*}} : f32
// CHECK:       ptx.bar_sync
// CHECK-NOT:   ptx.st_shared
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.mma_sync m16n8k32 s32.u8.s8.s32
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.st_shared %{{.*}} : vector<4xi32>
// CHECK:       ptx.bar_sync
// CHECK-NOT:   ptx.st_shared
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.mma_sync m16n8k16 f32.f16.f16.f32
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.cp_async_wait 0
func.func @small_m_splitk(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                          %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid = qdot.program_id x
  %c16 = arith.constant 16 : index
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

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
//
// ggml's q5_0 and q5_1 (block_q5_0: fp16 d, a 32-bit qh word, q4_0's 16 bytes of nibbles — 22 bytes
// per 32 values, value = d · (code − 16); block_q5_1: fp16 d and m, qh, qs — 24 bytes, value =
// d · code + m; code 0..31, its fifth bit bit j of qh for value j) on the MMQ plan of mmq-q4_0.mlir.
// The decisions this file pins:
// * the `qs` view is read with kWidth 4 as q4_0's, and the block's `qh` word as one i32 per block in
//   the #qgpu.dot_scale layout of the operand (`operand = true`: the threads that hold the block's
//   values), the upcast's `high` operand: qgpu.upcast … high … from = q5_0 to = s8 (8 · (code − 16),
//   an s8 × s8 mma, scale `d8` = d / 8) or from = q5_1 to = u8 (codes 0..31, s8 × u8, scale `d`);
// * q5_0 has no min term: no fold, no second mma, no sums read; q5_1's + m is q4_1's fold — as the
//   decode kernels' lhs an FMA per block against the sums `s` (in the prefill order one f16 mma per
//   K step over `m_pad` (−m, 0) and `s_pair` (s, 0), as in mmq-q4_1.mlir);
// * a per-block fp16 scale is widened once per CTA where 8 threads or more read each (the prefill's
//   N side), read at use where 4 do (the decode kernels' M side), as q4_0's d16.

// The prefill kernel with q5_0 weights (W the rhs): d8 decoded once, the qh words loaded beside the
// nibbles, one s8 × s8 mma per block and nothing after it.
// CHECK-LABEL: func.func @mmq_q5_0
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<8x16x!qdot.block<q5_0>>)
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "d8"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q5_0", part = "d8", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  qgpu.local_load %{{.*}} -> tensor<16x8xf32, #qgpu.blocked<
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc
// CHECK:       %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q5_0", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WHV:.*]] = qgpu.block_part %[[WS]] {part = "qh"} : {{.*}} -> !qgpu.memdesc<16x8xi32, #qgpu.block_part<{format = "q5_0", part = "qh", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  %[[WH:.*]] = qgpu.local_load %[[WHV]] : {{.*}} -> tensor<16x8xi32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %[[WQ]] high %[[WH]] from = q5_0 to = s8 : {{.*}} -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDS]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %{{.*}}, %[[WU]], %{{.*}} scale %{{.*}}, %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:  scf.yield %[[R]]
// REMARK: mmq-q5_0-q5_1.mlir:[[# @LINE + 23]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q5_0 → s8: whole blocks staged in shared memory, the packed nibbles and the qh word's bits joined into s8 (8 · (code − 16)) at use
func.func @mmq_q5_0(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q5_0>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
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
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<q5_0>> -> !qdot.desc<8x16x!qdot.block<q5_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %c0] : !qdot.desc<8x16x!qdot.block<q5_0>> -> tensor<8x16x!qdot.block<q5_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q5_0
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q5_0>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel with q5_1 weights (W the lhs, one quad reads each d: read at use): its codes
// made u8 with their qh words, then q4_1's m term as an FMA per block (`auto` in this order: run 181).
// CHECK-LABEL: func.func @small_m_q5_1
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x8x!qdot.block<q5_1>>)
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs"}
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qh"} : {{.*}} -> !qgpu.memdesc<16x8xi32, #qgpu.block_part<{format = "q5_1", part = "qh", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[WH:.*]] = qgpu.local_load %{{.*}} -> tensor<16x8xi32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], operand = true}>>
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %[[WQ]] high %[[WH]] from = q5_1 to = u8 : {{.*}} -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q5_1", part = "d", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "min"}
// CHECK-NEXT:  %[[WM:.*]] = qgpu.local_load
// CHECK:       qgpu.block_part %[[XS]] {part = "s"}
// CHECK-NEXT:  %[[XSUM:.*]] = qgpu.local_load
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %{{.*}}, %{{.*}} scale %[[WD]], %{{.*}} fold %[[WM]], %[[XSUM]] lhs = u8 rhs = s8
// CHECK-NEXT:  scf.yield %[[R]]
// REMARK: mmq-q5_0-q5_1.mlir:[[# @LINE + 29]]:5: remark: {{.*}}q5_1 m term as an FMA per block (q4k-fold=auto)
func.func @small_m_q5_1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q5_1>>, %y_ptr: !qdot.ptr<f32>,
                        %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
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
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<q5_1>> -> !qdot.desc<16x8x!qdot.block<q5_1>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kkw] : !qdot.desc<16x8x!qdot.block<q5_1>> -> tensor<16x8x!qdot.block<q5_1>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q5_1 rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<q5_1>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

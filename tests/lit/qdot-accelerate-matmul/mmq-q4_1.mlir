// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=fma}' | filecheck %s --check-prefix=FMA
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' | filecheck %s --check-prefix=FOLD-MMA
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
//
// ggml's q4_1 (block_q4_1: fp16 d, fp16 m, 16 bytes of nibbles paired as q4_0's; 32 values per
// 20-byte block, value = d · code + m, code 0..15) on the MMQ plan of mmq-q4_0.mlir. The decisions
// this file pins:
// * a q4_1 tile is staged raw and its `qs` view read with kWidth 4, as q4_0's; qgpu.upcast
//   from = q4_1 to = u8 gives each code as it is (0..15): the mma is s8 × u8 (never s8 × s8), and
//   the block's scale is its plain `d` (no power of two to undo);
// * its + m is a min term, as q4_K's − dmin · m: against q8_1_mmq one f16 mma per K step, the
//   eight blocks' `m_pad` — (−m, 0) per block — against the activations' `s_pair` — (s, 0) per 32
//   values, padded the same way — scaled by 1 on the q4_1 side and −1 on the sums' side
//   (qdot.fold = "m") — in the prefill order (q4_1 the rhs); as the decode kernels' lhs, against q8_1
//   or with q4k-fold=fma the `min` part (−m, f32) and the `s` sums become the mma's fold operands,
//   an FMA per accumulator and block (q4k-fold=mma asks for the f16 mma in either order);
// * its d (and, for the FMA fold, min) are widened once per CTA where 8 threads or more read each
//   (the prefill's N side), read at use where 4 do (the decode kernels' M side), as q4_0's d16.

// The prefill kernel (MmqConfig(weights="q4_1"), trimmed to one 32 × 16 tile and one warp): W is
// the rhs, its d decoded once into an f32 buffer, its codes upcast to u8, one s8 × u8 mma per
// block with per-block scales, then the m term's f16 mma over the K step.
// CHECK-LABEL: func.func @mmq_q4_1
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<8x16x!qdot.block<q4_1>>)
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "d", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %[[WDR]]
// CHECK:       %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_1 to = u8 : tensor<128x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDS]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %{{.*}}, %[[WU]], %{{.*}} scale %{{.*}}, %[[WD]] lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:  qgpu.block_part %{{.*}} {part = "s_pair"} : {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.block_part<{format = "q8_1_mmq", part = "s_pair", blocks = 2, valueDim = 1}>>
// CHECK:       qgpu.block_part %[[WS]] {part = "m_pad"} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.block_part<{format = "q4_1", part = "m_pad", blocks = 8, valueDim = 0}>>
// CHECK:       %[[SM:.*]] = arith.constant dense<-1.000000e+00> : tensor<32x1xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:       %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<16x1xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[F:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[R]] scale %[[SM]], %[[ONE]] lhs = fp16 rhs = fp16 {qdot.fold = "m", rescale = "per_block"}
// CHECK-NEXT:  scf.yield %[[F]]
// With q4k-fold=fma: no f16 mma; the min part (decoded once beside d) and q8_1_mmq's s are the fold operands.
// FMA-LABEL:   func.func @mmq_q4_1
// FMA:         qgpu.block_part %{{.*}} {part = "d"} : {{.*}}format = "q4_1"
// FMA:         qgpu.block_part %{{.*}} {part = "min"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "min", blocks = 8, valueDim = 0}>>
// FMA:         qgpu.block_part %{{.*}} {part = "s"} : {{.*}}format = "q8_1_mmq"
// FMA:         %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} fold %{{.*}}, %{{.*}} lhs = s8 rhs = u8
// FMA-NOT:     = qgpu.mma %
// FMA:         scf.yield %[[R]]
// REMARK: mmq-q4_1.mlir:[[# @LINE + 24]]:5: remark: {{.*}}q4_1 m term as an f16 mma per K step (q4k-fold=auto)
// REMARK: mmq-q4_1.mlir:[[# @LINE + 23]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q4_1 → u8: whole blocks staged in shared memory, the packed nibbles made u8 (codes 0..15) at use
func.func @mmq_q4_1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_1>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%c1, %kwb] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<8x16x!qdot.block<q4_1>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kkw, %c0] : !qdot.desc<8x16x!qdot.block<q4_1>> -> tensor<8x16x!qdot.block<q4_1>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_1
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q4_1>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (small_m, split-K): q4_1 is the lhs and each d is read by one quad only, so it
// is read from the block view at use, as is its min (−m); under `auto` the m term is an FMA per
// block against q8_1_mmq's `s` (run 181: 1.2 × faster than the f16 mma fold in this order), and
// q4k-fold=mma still makes it the f16 mma, with the q4_1 side as its A operand (FOLD-MMA prefix).
// CHECK-LABEL: func.func @small_m_q4_1
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x8x!qdot.block<q4_1>>)
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_1 to = u8 : tensor<16x128xi8, {{.*}}> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0,
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "d", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NEXT:  %[[WMV:.*]] = qgpu.block_part %[[WS]] {part = "min"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_1", part = "min", blocks = 8, valueDim = 1}>>
// CHECK-NEXT:  %[[WM:.*]] = qgpu.local_load %[[WMV]]
// CHECK:       qgpu.block_part %[[XS]] {part = "s"}
// CHECK-NEXT:  %[[XSUM:.*]] = qgpu.local_load
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %{{.*}}, %{{.*}} scale %[[WD]], %{{.*}} fold %[[WM]], %[[XSUM]] lhs = u8 rhs = s8
// CHECK-NEXT:  scf.yield %[[R]]
// FOLD-MMA-LABEL:   func.func @small_m_q4_1
// FOLD-MMA:      %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x8x!qdot.block<q4_1>>)
// FOLD-MMA-NEXT: %[[XS:.*]] = qgpu.local_alloc
// FOLD-MMA:      %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = u8 rhs = s8
// FOLD-MMA-NEXT: qgpu.block_part %[[WS]] {part = "m_pad"} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.block_part<{format = "q4_1", part = "m_pad", blocks = 8, valueDim = 1}>>
// FOLD-MMA:      qgpu.block_part %[[XS]] {part = "s_pair"} : {{.*}} -> !qgpu.memdesc<8x16xf16, #qgpu.block_part<{format = "q8_1_mmq", part = "s_pair", blocks = 2, valueDim = 0}>>
// FOLD-MMA:      %[[F:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[R]] scale %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "m", rescale = "per_block"}
// FOLD-MMA-NEXT: scf.yield %[[F]]
// REMARK: mmq-q4_1.mlir:[[# @LINE + 29]]:5: remark: {{.*}}q4_1 m term as an FMA per block (q4k-fold=auto)
func.func @small_m_q4_1(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_1>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<16x8x!qdot.block<q4_1>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %kkw = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kkw] : !qdot.desc<16x8x!qdot.block<q4_1>> -> tensor<16x8x!qdot.block<q4_1>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_1 rhs = q8_1_mmq
         : tensor<16x8x!qdot.block<q4_1>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// q8_1 activations × q4_1 weights (ggml's vec_dot pairing): no q8_1_mmq sums to stage, so the m
// term is an FMA per block whatever q4k-fold says — the q8_1 `s` and q4_1's `min` (decoded once
// beside its d) are the mma's fold operands, and there is no second mma.
// CHECK-LABEL: func.func @q8_1_q4_1
// CHECK:       qgpu.block_part %{{.*}} {part = "min"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q4_1", part = "min", blocks = 4, valueDim = 0}>>
// CHECK:       %[[XS:.*]] = qgpu.local_load %{{.*}} : {{.*}}format = "q8_1", part = "s", blocks = 4, valueDim = 1}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK:       %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} fold %[[XS]], %{{.*}} lhs = s8 rhs = u8
// CHECK-NEXT:  scf.yield %[[R]]
// REMARK: mmq-q4_1.mlir:[[# @LINE + 16]]:5: remark: {{.*}}q4_1 m term as an FMA per block (q4k-fold=auto)
func.func @q8_1_q4_1(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q4_1>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<32x4x!qdot.block<q8_1>>
  %w_desc = qdot.make_desc %w_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q4_1>> -> !qdot.desc<4x16x!qdot.block<q4_1>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %x = qdot.load %x_desc[%c0, %kk] : !qdot.desc<32x4x!qdot.block<q8_1>> -> tensor<32x4x!qdot.block<q8_1>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<4x16x!qdot.block<q4_1>> -> tensor<4x16x!qdot.block<q4_1>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1 rhs = q4_1
         : tensor<32x4x!qdot.block<q8_1>> * tensor<4x16x!qdot.block<q4_1>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

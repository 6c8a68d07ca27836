// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// ggml block dots without q4_K (q8_0 weights): the same MMQ plan as mmq-q4k.mlir — raw blocks
// staged unswizzled in shared memory, int8 quants read from the `qs` views into the ISA
// arrangement (kWidth = 4), each 32-value block's fp16 d read as one f32 scale — but the s8
// mma only rescales per block: with no q4_K there is no dmin term, so no rank-1 fold (no `fold`
// operands on the mma, no second fp16 mma), and no `s` part is read: q8_0 has no block sums,
// and q8_1's are only for q4_K's dmin term.
// A q8_0 side's d is decoded once per CTA (a blocked load of the `d` view, one column's or row's
// blocks per thread, stored to an f32 shared buffer right after the allocs, the mma's scale read
// from there — as q4_K's scales) where each d is read by 8 threads or more: always as the rhs
// (8 lanes × the warps along M), as the lhs only with 2 or more warps along N (4 lanes of a quad ×
// the warps along N); with one warp along N the lhs d is read from the block view at use. The
// rule is mmq-q4_0.mlir's (there for q4_0's d16 too); q8_1's d is never decoded once.

// q8_1 activations × q8_0 weights (llama.cpp's vec-dot pairing for q8_0): one s8 mma over the
// four blocks of the step, scaled by d_x · d_w; W (the rhs) has its d decoded once first.
// CHECK-LABEL: func.func @q8_1_q8_0
// CHECK:       %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x4x!qdot.block<q8_1>>) -> !qgpu.memdesc<32x4x!qdot.block<q8_1>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:  %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x16x!qdot.block<q8_0>>) -> !qgpu.memdesc<4x16x!qdot.block<q8_0>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[WDV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[WDR:.*]] = qgpu.local_load %[[WDV]] : {{.*}} -> tensor<16x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %[[WDR]] : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<32x128xi8, #qgpu.block_part<{format = "q8_1", part = "qs", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<32x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q8_1", part = "d", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "q8_0", part = "qs", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[XQ]], %[[WQ]], %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK-NOT:   qgpu.mma %
// CHECK:       qdot.store
func.func @q8_1_q8_0(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<32x4x!qdot.block<q8_1>>
  %w_desc = qdot.make_desc %w_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x16x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %x = qdot.load %x_desc[%c0, %kk] : !qdot.desc<32x4x!qdot.block<q8_1>> -> tensor<32x4x!qdot.block<q8_1>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<4x16x!qdot.block<q8_0>> -> tensor<4x16x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1 rhs = q8_0
         : tensor<32x4x!qdot.block<q8_1>> * tensor<4x16x!qdot.block<q8_0>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// q8_0 × q8_0: neither side has block sums; no `s` part is read, and the mma takes the two d
// scales only. One warp: the rhs d is decoded once (right after the allocs), the lhs d (a quad's
// 4 lanes per row) read from its block view where the mma needs it.
// CHECK-LABEL: func.func @q8_0_q8_0
// CHECK-NOT:   part = "s"
// CHECK:       qgpu.local_alloc %{{.*}} : (tensor<4x16x!qdot.block<q8_0>>)
// CHECK-NEXT:  qgpu.block_part %{{.*}} {part = "d"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  qgpu.local_load %{{.*}} -> tensor<16x4xf32, #qgpu.blocked<
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %{{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.shared<
// CHECK-NOT:   #qgpu.blocked
// CHECK:       %[[XD:.*]] = qgpu.local_load %{{.*}} : {{.*}}format = "q8_0", part = "d", blocks = 4, valueDim = 1}>> -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   part = "s"
// CHECK:       %[[WD:.*]] = qgpu.local_load %[[WDS]] : !qgpu.memdesc<16x4xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NOT:   part = "s"
// CHECK:       %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK-NOT:   qgpu.mma %
// CHECK:       qdot.store
func.func @q8_0_q8_0(%x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %w_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<32x4x!qdot.block<q8_0>>
  %w_desc = qdot.make_desc %w_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x16x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %x = qdot.load %x_desc[%c0, %kk] : !qdot.desc<32x4x!qdot.block<q8_0>> -> tensor<32x4x!qdot.block<q8_0>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<4x16x!qdot.block<q8_0>> -> tensor<4x16x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_0 rhs = q8_0
         : tensor<32x4x!qdot.block<q8_0>> * tensor<4x16x!qdot.block<q8_0>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// q8_0 × q8_0 with two warps along N (a 16 × 32 tile: warpsPerCTA [1, 2]): the lhs d is read by 4
// lanes × 2 warps = 8 threads, so both sides are decoded once, lhs first, and both mma scales
// read from the f32 buffers.
// CHECK-LABEL: func.func @q8_0_q8_0_w2
// CHECK:       scf.for {{.*}} -> (tensor<16x32xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}>>) {
// CHECK:       %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x4x!qdot.block<q8_0>>)
// CHECK-NEXT:  %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<4x32x!qdot.block<q8_0>>)
// CHECK-NEXT:  qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 1}>>
// CHECK-NEXT:  qgpu.local_load %{{.*}} -> tensor<16x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[XDS:.*]] = qgpu.local_alloc %{{.*}} -> !qgpu.memdesc<16x4xf32, #qgpu.shared<
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.block_part<{format = "q8_0", part = "d", blocks = 4, valueDim = 0}>>
// CHECK-NEXT:  qgpu.local_load %{{.*}} -> tensor<32x4xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK-NEXT:  %[[WDS:.*]] = qgpu.local_alloc %{{.*}} -> !qgpu.memdesc<32x4xf32, #qgpu.shared<
// CHECK:       %[[XD:.*]] = qgpu.local_load %[[XDS]] : {{.*}} -> tensor<16x4xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK:       %[[WD:.*]] = qgpu.local_load %[[WDS]] : {{.*}} -> tensor<32x4xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8
// CHECK-NEXT:  scf.yield %[[R]]
// CHECK-NOT:   qgpu.mma %
// CHECK:       qdot.store
func.func @q8_0_q8_0_w2(%x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %w_ptr: !qdot.ptr<!qdot.block<q8_0>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<16x4x!qdot.block<q8_0>>
  %w_desc = qdot.make_desc %w_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x32x!qdot.block<q8_0>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %acc = scf.for %kk = %c0 to %kb step %c4 iter_args(%acc_i = %zero) -> (tensor<16x32xf32>) {
    %x = qdot.load %x_desc[%c0, %kk] : !qdot.desc<16x4x!qdot.block<q8_0>> -> tensor<16x4x!qdot.block<q8_0>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<4x32x!qdot.block<q8_0>> -> tensor<4x32x!qdot.block<q8_0>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_0 rhs = q8_0
         : tensor<16x4x!qdot.block<q8_0>> * tensor<4x32x!qdot.block<q8_0>> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x32xf32>, tensor<16x32xf32>
  func.return
}

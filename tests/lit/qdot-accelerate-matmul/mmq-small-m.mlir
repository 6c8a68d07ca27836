// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// The decode kernel of compiler/mmq_template.py (M ≤ 8, `small_m`), split-K variant, trimmed to
// one 16-row weight tile: the weights are the mma's M side — q4_K is the lhs — and the (at most
// 8) tokens its N side, one 8-wide n tile. So the q4_K-specific chain moves to opIdx 0: the
// decoded scales are the lhs scale, the nibble upcast doubles K along dimension 1, X's quants
// and d are read K-major (valueDim = 0) for opIdx 1; in the dmin mma the padded mins are the A
// fragment with dmin as its scale, and X's padded sums the B fragment (through a transposed
// view) with −1. The output tile is Yᵀ; its qdot.store keeps {reduce = "add"} and takes the
// mma layout directly.

// CHECK-LABEL: func.func @small_m_splitk
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<16x1x!qdot.block<q4_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q4_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale16"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale16", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[SCR:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SC:.*]] = qgpu.local_alloc %[[SCR]] : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = q4_K to = u8 : {{.*}} -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[SCA:.*]] = qgpu.local_load %[[SC]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[DV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<8x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %[[DV]] : {{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[INT:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[SCA]], %[[D]] lhs = u8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT:    %[[MPV:.*]] = qgpu.block_part %[[WS]] {part = "m_pad"} : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.block_part<{format = "q4_K", part = "m_pad", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[MPR:.*]] = qgpu.local_load %[[MPV]] : {{.*}} -> tensor<16x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[MP:.*]] = qgpu.local_alloc %[[MPR]] : {{.*}} -> !qgpu.memdesc<16x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[SPV:.*]] = qgpu.block_part %[[XS]] {part = "s_pad"} : {{.*}} -> !qgpu.memdesc<8x16xf16, #qgpu.block_part<{format = "q8_1_mmq", part = "s_pad", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[SPR:.*]] = qgpu.local_load %[[SPV]] : {{.*}} -> tensor<8x16xf16, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SP:.*]] = qgpu.local_alloc %[[SPR]] : {{.*}} -> !qgpu.memdesc<8x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[MPA:.*]] = qgpu.local_load %[[MP]] : {{.*}} -> tensor<16x16xf16, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 2}>>
// CHECK-NEXT:    %[[DMV:.*]] = qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x1xf32, #qgpu.block_part<{format = "q4_K", part = "dmin", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[DM:.*]] = qgpu.local_load %[[DMV]] : {{.*}} -> tensor<16x1xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[SPT:.*]] = qgpu.memdesc_trans %[[SP]] {order = array<i64: 1, 0>} : {{.*}} -> !qgpu.memdesc<16x8xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[SPB:.*]] = qgpu.local_load %[[SPT]] : {{.*}} -> tensor<16x8xf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 2}>>
// CHECK-NEXT:    %[[NEG:.*]] = arith.constant dense<-1.000000e+00> : tensor<8x1xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[MPA]], %[[SPB]], %[[INT]] scale %[[DM]], %[[NEG]] lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"} : {{.*}} -> tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]]
// CHECK:       qdot.store %yt_desc[%{{.*}}, %{{.*}}], %{{.*}} {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
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
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

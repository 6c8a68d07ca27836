// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// The decode kernel of compiler/mmq_template.py with MmqConfig(tiled_weights=True) (small_m,
// block_n = 64, 2 warps, split-K, max_m = 1), trimmed to the K loop: the q4_K weights come in
// tile_weights' order (a program's 64 weight rows of one K step next to each other), read as a
// matrix of one K step per row — qdot.make_desc [tiles · K/256 · 64, 1] strides [1, 1], a 64x1
// tile at [(tile_first + kk) · 64, 0] (one block per row: the rows are one block apart, back to
// back). K stays the contiguous dimension, so the dot is rewritten
// exactly as for ggml's layout (mmq-small-m.mlir): the raw blocks staged in a buffer with K as
// its contiguous dimension (order = [1, 0]), read through qgpu.block_part (blocks = 1), the s8
// mma and the dmin mma. The same bytes read column-wise (strides [1, 64], stride 1 along N) are
// refused (q4k-invalid.mlir). How the tile's back-to-back rows are copied is qdot-to-llvm's
// business (tiled-weight-copies.mlir).

// CHECK-LABEL: func.func @small_m_tiled_weights
// CHECK-NOT:   qdot.dot_scaled
//              the 64 weight rows are the mma's M side, over both warps (16 rows each, twice)
// CHECK:       arith.constant dense<0.000000e+00> : tensor<64x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>>
// CHECK:       scf.for {{.*}} -> (tensor<64x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[W:.*]] = qdot.load %w_desc[%w_row, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
// CHECK:         %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<64x1x!qdot.block<q4_K>>) -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK:         %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<64x128xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK:         %[[WU:.*]] = qgpu.upcast %{{.*}} from = q4_K to = u8 : {{.*}} -> tensor<64x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK:         %[[INT:.*]] = qgpu.mma %[[WU]], %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = u8 rhs = s8 {{.*}} -> tensor<64x8xf32, [[MMA]]>
// CHECK:         %[[DMV:.*]] = qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<64x1xf32, #qgpu.block_part<{format = "q4_K", part = "dmin", blocks = 1, valueDim = 1}>>
// CHECK:         %[[R:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %[[INT]] scale %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"} : {{.*}} -> tensor<64x8xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]]
// CHECK-NOT:   qdot.dot_scaled
func.func @small_m_tiled_weights(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                                 %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %m_bound = arith.minui %m, %c1 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c64 : index
  %w_tiles = arith.ceildivui %n, %c64 : index
  %w_steps = arith.muli %w_tiles, %kw : index
  %w_rows = arith.muli %w_steps, %c64 : index
  %tile_first = arith.muli %pid, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%w_rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m_bound], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m_bound], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<64x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<64x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w_step = arith.addi %tile_first, %kk : index
    %w_row = arith.muli %w_step, %c64 : index
    %w = qdot.load %w_desc[%w_row, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<64x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<64x8xf32>
    scf.yield %d : tensor<64x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<64x8xf32>, tensor<64x8xf32>
  func.return
}

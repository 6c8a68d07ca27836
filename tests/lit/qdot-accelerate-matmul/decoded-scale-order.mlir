// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// Where a weights-once (decode) dot's scales are decoded once per CTA, which order the shared buffer
// takes (passes/support/block_dots.py, SUB_BLOCKS_CONTIGUOUS_LHS): the weights are the mma's A side,
// whose threads hold rows g and g + 8, never adjacent. For q4_K against at most 8 tokens (one n8
// tile) whose tile is one contiguous run (W repacked by tile_weights: strides [1, 1] over [rows, 1])
// a row's sub-blocks are contiguous, so a thread reads its row's eight scales in two 16-byte loads
// (runs 272–273: the one-token kernel 5.5 % faster at 4096 × 14336). In ggml's order (rows apart: a
// copy address per row, registers scarcer; run 276), against 16 tokens (more accumulators live:
// 1.01–1.07 × slower measured) and for q5_K (0.97–1.01 ×) the rows stay contiguous, as for the
// prefill's B side. Rows of sub-blocks take the conflict-free swizzle of their 32-byte pitch (16-byte
// chunks of rows 4–7 of every 8 swapped): each thread writes its row, and unswizzled a quarter-warp's
// 16-byte stores fell on each bank twice (run 315: the one-token kernel 5–7 % faster at 4096 × 14336).

// REMARK: remark: qdot-accelerate-matmul: scales decoded once per CTA into shared buffers: lhs q4_K scale16: a row's sub-blocks contiguous (the A side of an n8 mma, its tile one contiguous run: each thread reads its rows' scales of the K step in 16-byte loads), its 16-byte chunks swizzled (conflict-free stores){{$}}
// CHECK-LABEL: func.func @q4k_8_tokens_repacked
// CHECK:       qgpu.block_part %{{.*}} {part = "scale16"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  qgpu.local_alloc {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0]}>>
func.func @q4k_8_tokens_repacked(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// REMARK: remark: qdot-accelerate-matmul: scales decoded once per CTA into shared buffers: lhs q4_K scale16: rows contiguous (the tile's rows lie apart in memory: its copies hold an address per row){{$}}
// CHECK-LABEL: func.func @q4k_8_tokens_ggml_order
// CHECK:       qgpu.block_part %{{.*}} {part = "scale16"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  qgpu.local_alloc {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
func.func @q4k_8_tokens_ggml_order(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
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

// -----

// REMARK: remark: qdot-accelerate-matmul: scales decoded once per CTA into shared buffers: lhs q4_K scale16: rows contiguous (16 columns: more accumulators live than an n8 mma's){{$}}
// CHECK-LABEL: func.func @q4k_16_tokens_repacked
// CHECK:       qgpu.block_part %{{.*}} {part = "scale16"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  qgpu.local_alloc {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
func.func @q4k_16_tokens_repacked(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x16x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x16x!qdot.block<q8_1_mmq>> -> tensor<2x16x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x16x!qdot.block<q8_1_mmq>> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

// -----

// REMARK: remark: qdot-accelerate-matmul: scales decoded once per CTA into shared buffers: lhs q5_K scale: rows contiguous (sub-blocks contiguous was not faster for q5_K, run 272){{$}}
// CHECK-LABEL: func.func @q5k_8_tokens_repacked
// CHECK:       qgpu.block_part %{{.*}} {part = "scale"}
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  qgpu.local_alloc {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
func.func @q5k_8_tokens_repacked(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q5_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q5_K>> -> !qdot.desc<16x1x!qdot.block<q5_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<16x1x!qdot.block<q5_K>> -> tensor<16x1x!qdot.block<q5_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q5_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q5_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

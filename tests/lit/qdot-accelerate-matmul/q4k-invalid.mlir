// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s --check-prefix=BF16
// What the q4_K × q8_1 lowering refuses, in file order.

// q4_K's dmin term needs the other side's block sums: q8_0 has none, so the pair is refused
// (by the dot's verifier, before qdot-accelerate-matmul sees it).
func.func @q4k_q8_0(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %n: index, %m: index, %kw: index, %kx: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<8x8x!qdot.block<q8_0>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<8x8x!qdot.block<q8_0>> -> tensor<8x8x!qdot.block<q8_0>>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %d = qdot.dot_scaled %w, %x, %zero lhs = q4_K rhs = q8_0 : tensor<16x1x!qdot.block<q4_K>> * tensor<8x8x!qdot.block<q8_0>> -> tensor<16x8xf32>
  func.return
}
// CHECK: q4k-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_K, rhs = q8_0 (supported: q4_K × q8_1, q4_K × q8_1_mmq, {{.*}})
// BF16:  q4k-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op unsupported block pair lhs = q4_K, rhs = q8_0

// -----

// The raw blocks are staged with K contiguous; W here has stride 1 along N.
func.func @w_n_contiguous(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %m: index, %n: index, %kx: index, %kw: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%n, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x16x!qdot.block<q4_K>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<1x16x!qdot.block<q4_K>> -> tensor<1x16x!qdot.block<q4_K>>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %d = qdot.dot_scaled %x, %w, %zero lhs = q8_1_mmq rhs = q4_K : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q4_K>> -> tensor<32x16xf32>
  func.return
}
// CHECK: q4k-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs blocks must be contiguous along K in memory (stride 1 on dimension 0 of its descriptor)
// BF16:  q4k-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q8_1_mmq × q4_K) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'

// -----

// X stored column-major (stride 1 along M, the tokens): its blocks are not contiguous along K.
func.func @x_m_contiguous(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %m: index, %n: index, %kx: index, %kw: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%c1, %m] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x16x!qdot.block<q4_K>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<1x16x!qdot.block<q4_K>> -> tensor<1x16x!qdot.block<q4_K>>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %d = qdot.dot_scaled %x, %w, %zero lhs = q8_1_mmq rhs = q4_K : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q4_K>> -> tensor<32x16xf32>
  func.return
}
// CHECK: q4k-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs blocks must be contiguous along K in memory (stride 1 on dimension 1 of its descriptor)
// BF16:  q4k-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q8_1_mmq × q4_K) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'

// -----

// tile_weights' order read column-wise — qdot.make_desc [64, cols] strides [1, 64]: stride 1
// along N, the 64 rows of one K step next to each other, a 64x1 tile at [0, col] — is refused
// even for a tile of one q4_K block along K; MmqConfig(tiled_weights) reads the same bytes
// K-contiguous, one K step per row (mmq-tiled-weights.mlir).
func.func @tiled_column_wise(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %kx: index, %w_cols: index, %w_col: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w_desc = qdot.make_desc %w_ptr, [%c64, %w_cols], [%c1, %c64] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %w = qdot.load %w_desc[%c0, %w_col] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x8xf32>
  %d = qdot.dot_scaled %w, %x, %zero lhs = q4_K rhs = q8_1_mmq : tensor<64x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<64x8xf32>
  func.return
}
// CHECK: q4k-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs blocks must be contiguous along K in memory (stride 1 on dimension 1 of its descriptor){{$}}
// BF16:  q4k-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q4_K × q8_1_mmq) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'

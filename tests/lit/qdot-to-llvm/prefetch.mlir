// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm{arch=sm_90}' --remarks=qdot-to-llvm 2>&1 | grep 'remark: qdot-to-llvm: prefetch' | filecheck %s --check-prefix=REMARK
// qdot.prefetch (passes/support/prefetches.py): one predicated prefetch.global.L2 per 128-byte line of the tile,
// spread over the threads; a tile whose rows lie back to back is one run, otherwise each row is one.

// A repacked q4_K K step (64 blocks of 144 bytes back to back): one run of 9216 bytes, ⌈9216 / 128⌉ + 1 = 73 lines,
// two rounds of 64 threads (the second clamped to the last line), each bounded by the tensor's bytes.
// CHECK-LABEL: func.func @one_run
// CHECK-COUNT-2: ptx.prefetch_global_l2 %{{[0-9]+}} if %{{[0-9]+}}
// CHECK-NOT:   ptx.prefetch_global_l2
// CHECK:       func.return
// REMARK: prefetch.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: prefetch of a 64x1x!qdot.block<q4_K> tile: 2 prefetch.global.L2 per thread, one per 128-byte line it touches
func.func @one_run(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %rows = arith.divui %k, %c64 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  qdot.prefetch %w_desc[%c64, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>>
  func.return
}

// -----

// ggml's order: 16 rows of two super-blocks (288 bytes), a row stride of K/256 blocks: each row a run of
// ⌈288 / 128⌉ + 1 = 4 lines, 64 in all, two per thread of one warp, each bounded by the rows and columns.
// CHECK-LABEL: func.func @rows_apart
// CHECK-COUNT-2: ptx.prefetch_global_l2 %{{[0-9]+}} if %{{[0-9]+}}
// CHECK-NOT:   ptx.prefetch_global_l2
// REMARK: prefetch.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: prefetch of a 16x2x!qdot.block<q4_K> tile: 2 prefetch.global.L2 per thread, one per 128-byte line it touches
func.func @rows_apart(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x2x!qdot.block<q4_K>>
  qdot.prefetch %w_desc[%c0, %c0] : !qdot.desc<16x2x!qdot.block<q4_K>>
  func.return
}

// -----

// No dimension of stride 1: refused at the prefetch.
func.func @strided(%p: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %w_desc = qdot.make_desc %p, [%n, %n], [%n, %n] : !qdot.ptr<f32> -> !qdot.desc<8x8xf32>
  qdot.prefetch %w_desc[%c0, %c0] : !qdot.desc<8x8xf32>
  // CHECK: prefetch.mlir:[[# @LINE - 1]]:3: error: 'qdot.prefetch' op qdot.prefetch needs a 2-D tile with one contiguous dimension (stride 1 in qdot.make_desc)
  func.return
}

// -----

// One offset per tile dimension, as qdot.load.
func.func @offsets(%p: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %p, [%n, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x8xf32>
  qdot.prefetch %w_desc[%c0] : !qdot.desc<8x8xf32>
  // CHECK: prefetch.mlir:[[# @LINE - 1]]:3: error: 'qdot.prefetch' op expected one offset per tile dimension: 2, got 1
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_90}' --remarks=qdot-to-llvm 2>&1 | grep 'remark: qdot-to-llvm: copy' | filecheck %s
// qdot-to-llvm's remark on each global → shared copy names the chunk width and order and, below 16 bytes,
// which fact stopped a wider chunk: the rows' length, the row stride's known divisor, or the tile's first
// column. (q6_K-copies.mlir has the run, the row-by-row and the synchronous forms.)

// mxfp4's 17-byte blocks, eight per row: 136-byte rows, 8 bytes at a time whatever the alignment.
// CHECK:      copy-remarks.mlir:[[# @LINE + 10]]:3: remark: qdot-to-llvm: copy of a 64x8x!qdot.block<mxfp4> tile: 8-byte cp.async, 17 per thread; not 16-byte: its 136-byte rows are not a multiple of 16 B
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @rows_136(%w_ptr: !qdot.ptr<!qdot.block<mxfp4>>, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %kwb = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%kwb, %c1] : !qdot.ptr<!qdot.block<mxfp4>> -> !qdot.desc<64x8x!qdot.block<mxfp4>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x8x!qdot.block<mxfp4>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %s : !qdot.desc<64x8x!qdot.block<mxfp4>>, !qgpu.memdesc<64x8x!qdot.block<mxfp4>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// e4m3 rows of K bytes with K known only as a multiple of 8: 8-byte chunks, and the remark names the stride.
// CHECK-NEXT: copy-remarks.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: copy of a 32x64xf8E4M3FN tile: 8-byte cp.async, 4 per thread; not 16-byte: a row starts only 8-aligned, its stride known only as a multiple of 8 B (qdot.divisibility on the values it is computed from says more)
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @stride_8(%a_ptr: !qdot.ptr<f8E4M3FN>, %m: index, %k: index {qdot.divisibility = 8 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xf8E4M3FN, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %s : !qdot.desc<32x64xf8E4M3FN>, !qgpu.memdesc<32x64xf8E4M3FN, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// Two q6_K blocks per row with K a multiple of 512 (row stride 4-aligned), but the tile starts at a
// column %j of unknown parity: its first byte is 210 · j into the row, 2-aligned, so no cp.async.
// CHECK-NEXT: copy-remarks.mlir:[[# @LINE + 11]]:3: remark: qdot-to-llvm: copy of a 16x2x!qdot.block<q6_K> tile: synchronous 2-byte loads and shared stores, piece by piece; no cp.async: the tile's first column is known only as a multiple of 2 B
// CHECK-NOT:  remark
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @column_2(%w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %n: index, %k: index {qdot.divisibility = 512 : i64}, %j: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x2x!qdot.block<q6_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<16x2x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %j], %s : !qdot.desc<16x2x!qdot.block<q6_K>>, !qgpu.memdesc<16x2x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// Global → shared copies of tiles whose rows lie back to back: the decode kernel's weights
// repacked by tile_weights (compiler/mmq_template.py) and read K-contiguous as a matrix of one K
// step per row, so that a program's 64 weight rows of one K step — 64 q4_K blocks of 144 bytes —
// lie next to each other: qdot.make_desc [rows, 1] strides [1, 1], a 64x1 tile at [row, 0]. When
// the rows are back to back (row stride · 144 == the tile's 144-byte rows) and so is the
// unswizzled buffer, the tile is one run (copies.py `_copy_run`, whatever a row is in chunks):
// chunk q of the 9216-byte tile lies q · 16 bytes into it in global and in shared memory — each
// cp.async's source is base + q · 16, one base plus constants in a K loop, its destination
// q · 16 — with one bounds test, that byte offset against the tensor's bytes (a chunk past them
// copies nothing and names the tensor's last chunk), and no division into rows (row · stride +
// column with row = q / 9 and column = q % 9 would be a 64-bit address per chunk kept live across
// the loop). 576 16-byte chunks (cp.async.cg) over 64 threads: 9 per thread, exactly, so no clamp
// of the last chunk index. Rows not back to back take the general copy: each chunk's row offset
// selected against the rows. (The same bytes read column-wise, strides [1, 64], are refused:
// invalid.mlir.) The last case is the tiled prefill kernel's W, read as its rhs.

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// The tile is its whole tensor (64 rows from row 0): the bound is the constant 9216.
// CHECK-LABEL: func.func @packed
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64)
// CHECK-SAME:  qdot.shared_bytes = 9216 : i64
// CHECK:       %[[TID:.*]] = arith.index_cast %{{.*}} : i32 to index
//              the column test: is the tile inside the tensor's columns
// CHECK-NEXT:  %[[TILE_IN:.*]] = arith.cmpi ult, %c0, %c1 : index
// CHECK:       %[[TENSOR_BYTES:.*]] = arith.constant 9216 : index
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.subi %[[TENSOR_BYTES]], %[[SIXTEEN]] : index
//              chunk 0 of this thread: q = tid, at base + q · 16
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[Q0_BYTES:.*]] = arith.shli %[[TID]], %[[FOUR]] : index
// CHECK-NEXT:  %[[IN0:.*]] = arith.cmpi ult, %[[Q0_BYTES]], %[[TENSOR_BYTES]] : index
// CHECK-NEXT:  %[[OK0:.*]] = arith.andi %[[IN0]], %[[TILE_IN]] : i1
// CHECK-NEXT:  %[[AT0:.*]] = arith.minui %[[Q0_BYTES]], %[[LAST]] : index
// CHECK-NEXT:  %[[OFF0_64:.*]] = arith.index_cast %[[AT0]] : index to i64
// CHECK-NEXT:  %[[SRC0:.*]] = arith.addi %[[PTR]], %[[OFF0_64]] : i64
//              its destination: q · 16 into the buffer
// CHECK-NEXT:  %[[TID32:.*]] = arith.index_cast %[[TID]] : index to i32
// CHECK-NEXT:  %[[FOUR32:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[DST0:.*]] = arith.shli %[[TID32]], %[[FOUR32]] : i32
// CHECK-NEXT:  %[[SIZE0:.*]] = arith.select %[[OK0]], %[[SIXTEEN]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE0_32:.*]] = arith.index_cast %[[SIZE0]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %[[DST0]], %[[SRC0]], 16, %[[SIZE0_32]]
//              chunk 1: q = tid + 64, at base + q · 16
// CHECK-NEXT:  %[[SIXTY_FOUR:.*]] = arith.constant 64 : index
// CHECK-NEXT:  %[[Q1:.*]] = arith.addi %[[TID]], %[[SIXTY_FOUR]] : index
// CHECK-NEXT:  %[[Q1_BYTES:.*]] = arith.shli %[[Q1]], %[[FOUR]] : index
// CHECK-NEXT:  arith.cmpi ult, %[[Q1_BYTES]], %[[TENSOR_BYTES]] : index
// CHECK-COUNT-8: ptx.cp_async cg
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NOT:   arith.divui
// CHECK-NOT:   arith.remui
func.func @packed(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w_desc = qdot.make_desc %w_ptr, [%c64, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %s : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// A run-time row origin %r (the tiled decode kernel's: the tile at row (tile · K/256 + step) ·
// 64): rows r .. r + 63 may run past the 64 rows of the tensor, so each chunk's byte offset
// r · 144 + q · 16 is compared with the tensor's 9216 bytes — the source size 16 only inside it
// and inside the columns — and clamped to the tensor's last chunk (a chunk past it names that
// address and copies nothing).
// CHECK-LABEL: func.func @row_origin
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[R:[^:]*]]: index)
// CHECK:       %[[TID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:  %[[TILE_IN:.*]] = arith.cmpi ult, %c0, %c1 : index
// CHECK-NEXT:  %[[EB:.*]] = arith.constant 144 : index
// CHECK-NEXT:  %[[FIRST_ROW:.*]] = arith.muli %[[R]], %[[EB]] : index
// CHECK-NEXT:  arith.constant 0 : index
// CHECK-NEXT:  %[[TENSOR_BYTES:.*]] = arith.constant 9216 : index
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.subi %[[TENSOR_BYTES]], %[[SIXTEEN]] : index
// CHECK:       %[[Q_BYTES:.*]] = arith.shli %[[TID]], %{{.*}} : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[FIRST_ROW]], %[[Q_BYTES]] : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[OFF]], %[[TENSOR_BYTES]] : index
// CHECK-NEXT:  %[[OK:.*]] = arith.andi %[[IN]], %[[TILE_IN]] : i1
// CHECK-NEXT:  %[[CLAMPED:.*]] = arith.minui %[[OFF]], %[[LAST]] : index
// CHECK-NEXT:  %[[AT64:.*]] = arith.index_cast %[[CLAMPED]] : index to i64
// CHECK-NEXT:  %[[SRC:.*]] = arith.addi %[[PTR]], %[[AT64]] : i64
// CHECK-NOT:   arith.cmpi
// CHECK:       %[[SIZE:.*]] = arith.select %[[OK]], %[[SIXTEEN]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE32:.*]] = arith.index_cast %[[SIZE]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %[[SRC]], 16, %[[SIZE32]]
// CHECK-COUNT-8: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @row_origin(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %r: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w_desc = qdot.make_desc %w_ptr, [%c64, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%r, %c0], %s : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// A run-time row extent %rows (the tile may have more rows than the tensor): from row 0, each
// chunk's byte offset q · 16 compared with the tensor's %rows · 144 bytes.
// CHECK-LABEL: func.func @row_extent
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[ROWS:[^:]*]]: index)
// CHECK:       %[[EB:.*]] = arith.constant 144 : index
// CHECK:       %[[TENSOR_BYTES:.*]] = arith.muli %[[ROWS]], %[[EB]] : index
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.subi %[[TENSOR_BYTES]], %[[SIXTEEN]] : index
// CHECK:       %[[Q_BYTES:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[Q_BYTES]], %[[TENSOR_BYTES]] : index
// CHECK-NEXT:  %[[OK:.*]] = arith.andi %[[IN]], %{{.*}} : i1
// CHECK-NEXT:  %[[CLAMPED:.*]] = arith.minui %[[Q_BYTES]], %[[LAST]] : index
// CHECK:       %[[SIZE:.*]] = arith.select %[[OK]], %[[SIXTEEN]], %{{.*}} : index
// CHECK:       ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-COUNT-8: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @row_extent(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %rows: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %s : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// Rows from row 0 of a constant extent but not back to back: rows of two blocks ([64, 2]
// strides [2, 1], 288 bytes apart), the tile one block of each at a run-time column %col. Chunk
// q is not q · 16 bytes into the tile, so each row's offset is row · 288 (selected), and the
// column origin col · 144.
// CHECK-LABEL: func.func @rows_apart
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[COL:[^:]*]]: index)
// CHECK:       %[[EB:.*]] = arith.constant 144 : index
// CHECK-NEXT:  %[[STRIDE_BYTES:.*]] = arith.constant 288 : index
// CHECK-NEXT:  %[[ORIGIN:.*]] = arith.muli %[[COL]], %[[EB]] : index
// CHECK:       %[[ROW:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK:       %[[COL_BYTES:.*]] = arith.addi %[[ORIGIN]], %{{.*}} : index
// CHECK-NEXT:  %[[IN_ROW:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
// CHECK-NEXT:  %[[ROW_OFF:.*]] = arith.muli %[[ROW]], %[[STRIDE_BYTES]] : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[CLAMPED:.*]] = arith.select %[[IN_ROW]], %[[ROW_OFF]], %[[ZERO]] : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[CLAMPED]], %[[COL_BYTES]] : index
// CHECK:       ptx.cp_async cg
// CHECK-COUNT-8: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @rows_apart(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %col: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %w_desc = qdot.make_desc %w_ptr, [%c64, %c2], [%c2, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %col], %s : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// The tiled decode kernel's form for q4_0 / q8_0: K contiguous, each row one K step
// of eight 18-byte q4_0 blocks (144 bytes) and the rows back to back ([rows, 8] strides [8, 1]),
// the tile 64 rows at a run-time row. Its 9216 bytes are copied as one run: chunk q at
// row · 144 + q · 16, bounded by the tensor's bytes.
// CHECK-LABEL: func.func @steps_k_contiguous
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[ROWS:[^:]*]]: index, %[[ROW0:[^:]*]]: index)
// CHECK:       %[[EB:.*]] = arith.constant 144 : index
// CHECK-NEXT:  %[[FIRST_ROW:.*]] = arith.muli %[[ROW0]], %[[EB]] : index
// CHECK-NEXT:  arith.constant 0 : index
// CHECK-NEXT:  %[[TENSOR_BYTES:.*]] = arith.muli %[[ROWS]], %[[EB]] : index
// CHECK:       %[[Q_BYTES:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[FIRST_ROW]], %[[Q_BYTES]] : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[OFF]], %[[TENSOR_BYTES]] : index
// CHECK:       ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-COUNT-8: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @steps_k_contiguous(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %rows: index, %row0: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c8], [%c8, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<64x8x!qdot.block<q4_0>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x8x!qdot.block<q4_0>, #sh, mutable>
  qgpu.async_copy %w_desc[%row0, %c0], %s : !qdot.desc<64x8x!qdot.block<q4_0>>, !qgpu.memdesc<64x8x!qdot.block<q4_0>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>

// The tiled prefill kernel's form (W its rhs, read as [1, rows] strides [1, 1]: K contiguous, each
// column one K step of one q6_K block, a program's 128 columns of one step back to back): one run of
// 128 · 210 = 26880 bytes. q6_K's 210-byte blocks alone are 2-aligned, but the run's start (row ·
// 210 with row a multiple of 128 there: the tile · K/256 + step times 128) and the tensor's end
// (rows a multiple of 128: whole tiles) are 16-byte multiples, so the run is copied in 16-byte
// cp.async.cg — 1680 chunks over 128 threads, 14 per thread (the last ones clamped and empty) —
// never in 2-byte pieces (q6_K-copies.mlir).
// CHECK-LABEL: func.func @prefill_columns
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[ROWS:[^:]*]]: index {qdot.divisibility = 128 : i64}, %[[ROW0:[^:]*]]: index {qdot.divisibility = 128 : i64})
// CHECK:       %[[EB:.*]] = arith.constant 210 : index
// CHECK-NEXT:  %[[FIRST_ROW:.*]] = arith.muli %[[ROW0]], %[[EB]] : index
// CHECK:       %[[TENSOR_BYTES:.*]] = arith.muli %[[ROWS]], %[[EB]] : index
// CHECK:       %[[Q_BYTES:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[FIRST_ROW]], %[[Q_BYTES]] : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[OFF]], %[[TENSOR_BYTES]] : index
// CHECK:       ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-COUNT-13: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NOT:   ptx.ld_global
func.func @prefill_columns(%w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %rows: index {qdot.divisibility = 128 : i64},
                           %row0: index {qdot.divisibility = 128 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%c1, %rows], [%c1, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<1x128x!qdot.block<q6_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<1x128x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %row0], %s : !qdot.desc<1x128x!qdot.block<q6_K>>, !qgpu.memdesc<1x128x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' --remarks=qdot-to-llvm 2>&1 | grep 'remark: qdot-to-llvm: copy' | filecheck %s --check-prefix=REMARK
// Copies of tiles whose load declares `in_bounds` (qdot.load, carried by qgpu.async_copy): along a
// declared dimension the copy tests nothing — no compare, no clamp of the address, no source size.
// (tiled-weight-copies.mlir has the same tiles undeclared.)

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// One contiguous run (tile_weights' order: 64 q4_K rows back to back) declared inside the tensor in
// both dimensions, at a run-time row %r of a run-time extent %rows: each thread's first chunk lies at
// base + r · 144 + tid · 16 and its others constant distances after it (64 threads · 16 bytes), which
// ptxas puts in the instruction; no source size, so no zero fill and no test.
// CHECK-LABEL: func.func @run_declared
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %{{[^:]*}}: index, %[[R:[^:]*]]: index)
// CHECK-NOT:   arith.cmpi
// CHECK-NOT:   arith.minui
// CHECK:       %[[EB:.*]] = arith.constant 144 : index
// CHECK-NEXT:  %[[FIRST:.*]] = arith.muli %[[R]], %[[EB]] : index
// CHECK:       %[[Q0:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[OFF0:.*]] = arith.addi %[[FIRST]], %[[Q0]] : index
// CHECK-NEXT:  %[[OFF0_64:.*]] = arith.index_cast %[[OFF0]] : index to i64
// CHECK-NEXT:  %[[START:.*]] = arith.addi %[[PTR]], %[[OFF0_64]] : i64
// CHECK:       ptx.cp_async cg %{{.*}}, %[[START]], 16{{$}}
// CHECK:       %[[STEP1:.*]] = arith.constant 1024 : i64
// CHECK-NEXT:  %[[SRC1:.*]] = arith.addi %[[START]], %[[STEP1]] : i64
// CHECK:       ptx.cp_async cg %{{.*}}, %[[SRC1]], 16{{$}}
// CHECK:       %[[STEP8:.*]] = arith.constant 8192 : i64
// CHECK-NEXT:  %[[SRC8:.*]] = arith.addi %[[START]], %[[STEP8]] : i64
// CHECK:       ptx.cp_async cg %{{.*}}, %[[SRC8]], 16{{$}}
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NOT:   arith.select
// REMARK:      in-bounds-copies.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: copy of a 64x1x!qdot.block<q4_K> tile: one contiguous run of 9216 B (rows back to back) by 16-byte cp.async, 9 per thread; declared in bounds: no bounds tests
func.func @run_declared(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %rows: index, %r: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%r, %c0], %s {in_bounds = [true, true]} : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// The prefill's activation tile, 64 rows of two q8_1_mmq blocks, K declared in bounds: each chunk's
// source size is 16 inside the tensor's M rows and 0 past them — the row test stays, the tile's
// column test is gone (no compare of %kk with the columns).
// CHECK-LABEL: func.func @k_declared
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[KX:[^:]*]]: index, %{{[^:]*}}: index, %[[KK:[^:]*]]: index)
// CHECK-NOT:   arith.cmpi ult, %[[KK]]
// CHECK:       %[[ROW:.*]] = arith.addi %off_m, %{{.*}} : index
// CHECK:       %[[IN_ROWS:.*]] = arith.cmpi ult, %[[ROW]], %[[M]] : index
// CHECK-NEXT:  %[[ROW_OFF:.*]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  arith.select %[[IN_ROWS]], %[[ROW_OFF]], %[[ZERO]] : index
// CHECK:       %[[SIZE:.*]] = arith.select %[[IN_ROWS]], %{{.*}}, %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE32:.*]] = arith.index_cast %[[SIZE]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE32]]
// CHECK-NOT:   arith.andi
// REMARK-NEXT: in-bounds-copies.mlir:[[# @LINE + 6]]:3: remark: qdot-to-llvm: copy of a 64x2x!qdot.block<q8_1_mmq> tile: 16-byte cp.async, 9 per thread; declared in bounds: no bounds test on its columns
func.func @k_declared(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %kx: index, %off_m: index, %kk: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<64x2x!qdot.block<q8_1_mmq>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x2x!qdot.block<q8_1_mmq>, #sh, mutable>
  qgpu.async_copy %x_desc[%off_m, %kk], %s {in_bounds = [false, true]} : !qdot.desc<64x2x!qdot.block<q8_1_mmq>>, !qgpu.memdesc<64x2x!qdot.block<q8_1_mmq>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// The same tile with its rows declared instead: no row test and no select of the row's offset; the
// columns (K not known to be a multiple of the tile) keep their per-chunk clamp of the bytes left.
// CHECK-LABEL: func.func @rows_declared
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[M:[^:]*]]: index,
// CHECK-NOT:   arith.cmpi ult, %{{.*}}, %[[M]]
// CHECK:       %[[ROW:.*]] = arith.addi %off_m, %{{.*}} : index
// CHECK:       %[[ROW_OFF:.*]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[ROW_OFF]], %{{.*}} : index
// CHECK-NEXT:  %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT:  %[[SRC:.*]] = arith.addi %[[PTR]], %[[OFF64]] : i64
// CHECK:       %[[LOW:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[LEFT:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK-NEXT:  %[[LEFT32:.*]] = arith.index_cast %[[LEFT]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %[[SRC]], 16, %[[LEFT32]]
// CHECK-NOT:   arith.cmpi ult, %{{.*}}, %[[M]]
// REMARK-NEXT: in-bounds-copies.mlir:[[# @LINE + 6]]:3: remark: qdot-to-llvm: copy of a 64x2x!qdot.block<q8_1_mmq> tile: 16-byte cp.async, 9 per thread; declared in bounds: no bounds test on its rows
func.func @rows_declared(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %kx: index, %off_m: index, %kk: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<64x2x!qdot.block<q8_1_mmq>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x2x!qdot.block<q8_1_mmq>, #sh, mutable>
  qgpu.async_copy %x_desc[%off_m, %kk], %s {in_bounds = [true, false]} : !qdot.desc<64x2x!qdot.block<q8_1_mmq>>, !qgpu.memdesc<64x2x!qdot.block<q8_1_mmq>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// An fp4Padded buffer (each 16-byte chunk copied as two 8-byte halves, each with its own source size): its rows'
// declaration spares the row test; its columns keep the per-half bound, whatever the declaration says, and the
// remark says so.
// CHECK-LABEL: func.func @fp4_padded
// CHECK-NOT:   arith.cmpi
// CHECK:       arith.maxsi
// CHECK:       ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %{{.*}}
// REMARK-NEXT: in-bounds-copies.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: copy of a 64x32xi8 tile: 16-byte chunks, each as two 8-byte cp.async into fp4Padded rows (8 data bytes per 16 B), 1 per thread; declared in bounds: no bounds test on its rows{{$}}
#shp = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 4, order = [1, 0], fp4Padded = true}>
func.func @fp4_padded(%b_ptr: !qdot.ptr<i8>, %n: index, %kb: index {qdot.divisibility = 64 : i64}, %off: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b_desc = qdot.make_desc %b_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !qdot.desc<64x32xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x32xi8, #shp, mutable>
  qgpu.async_copy %b_desc[%off, %c0], %s {in_bounds = [true, true]} : !qdot.desc<64x32xi8>, !qgpu.memdesc<64x32xi8, #shp, mutable>
  qgpu.async_commit
  func.return
}

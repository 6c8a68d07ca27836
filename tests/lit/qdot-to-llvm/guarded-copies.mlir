// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' --remarks=qdot-to-llvm 2>&1 >/dev/null \
// RUN:   | grep 'remark: qdot-to-llvm: copy' | filecheck %s --check-prefix=REMARK
// `qgpu.async_copy ... if %runs` (qdot-pipeline's copy of a declared tile in a K split's loop, made only where
// the loop runs its K position: qdot-pipeline/partial-range.mlir) on each copy form other than the one-run form
// (targets/ptx/split-k-guarded-copies.mlir): where %runs is false the copy reads nothing. A cp.async gets source
// size 0 (the guard AND-ed into the chunk's tests, or selecting its clamped size); a synchronous load's
// predicate includes it. No shipped kernel sends a guarded tile through these forms, so each is pinned here on
// a hand-written copy whose shape, strides and divisibility force that form (the REMARK lines say which).

// Chunks of whole tiles, K declared in bounds (the form of qdot-pipeline/guard-before-own-stores.mlir's W): no
// column test, so each chunk's source size is 16 where its row is inside M and the loop runs, else 0.
// CHECK-LABEL: func.func @chunks_k_declared
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK-NOT:   arith.cmpi ult, %kk, %k :
// CHECK:       %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK:       %[[IN_ROW0:.*]] = arith.cmpi ult, %{{.*}}, %m : index
// CHECK:       %[[OK0:.*]] = arith.andi %[[IN_ROW0]], %[[RUNS]] : i1
// CHECK-NEXT:  %[[SIZE0:.*]] = arith.select %[[OK0]], %[[SIXTEEN]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE0_32:.*]] = arith.index_cast %[[SIZE0]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE0_32]]
// CHECK:       %[[IN_ROW1:.*]] = arith.cmpi ult, %{{.*}}, %m : index
// CHECK:       %[[OK1:.*]] = arith.andi %[[IN_ROW1]], %[[RUNS]] : i1
// CHECK-NEXT:  %[[SIZE1:.*]] = arith.select %[[OK1]], %[[SIXTEEN]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE1_32:.*]] = arith.index_cast %[[SIZE1]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE1_32]]
// CHECK-NEXT:  ptx.cp_async_commit
// REMARK:      guarded-copies.mlir:[[# @LINE + 13]]:3: remark: qdot-to-llvm: copy of a 32x64xi8 tile:
// REMARK-SAME: 16-byte cp.async, 2 per thread; declared in bounds: no bounds test on its columns{{$}}
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
!desc = !qdot.desc<32x64xi8>
!buf = !qgpu.memdesc<32x64xi8, #sh, mutable>
func.func @chunks_k_declared(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 64 : i64},
                             %kk: index {qdot.divisibility = 64 : i64}, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %a_desc[%c0, %kk], %s if %runs {in_bounds = [false, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// The same chunks declared in bounds in both dimensions: the guard is the only test, each chunk's source
// size 16 or 0 by %runs alone (without it the chunks would have no source size at all).
// CHECK-LABEL: func.func @chunks_all_declared
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK-NOT:   arith.cmpi
// CHECK:       %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[SIZE0:.*]] = arith.select %[[RUNS]], %[[SIXTEEN]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE0_32:.*]] = arith.index_cast %[[SIZE0]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE0_32]]
// CHECK-NOT:   arith.cmpi
// CHECK:       %[[SIZE1:.*]] = arith.select %[[RUNS]], %[[SIXTEEN]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_32:.*]] = arith.index_cast %[[SIZE1]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE1_32]]
// CHECK-NEXT:  ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 12]]:3: remark: qdot-to-llvm: copy of a 32x64xi8 tile:
// REMARK-SAME: 16-byte cp.async, 2 per thread; declared in bounds: no bounds test on its rows or columns{{$}}
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
!desc = !qdot.desc<32x64xi8>
!buf = !qgpu.memdesc<32x64xi8, #sh, mutable>
func.func @chunks_all_declared(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 64 : i64},
                               %off_m: index, %kk: index {qdot.divisibility = 64 : i64}, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c1 = arith.constant 1 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %a_desc[%off_m, %kk], %s if %runs {in_bounds = [true, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// Rows declared in bounds, K only a multiple of 16 (not of the tile's 64 columns): each chunk keeps its clamp
// of the bytes left in the row, and the guard selects that size or 0.
// CHECK-LABEL: func.func @chunks_clamped
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK:       %[[LEFT0:.*]] = arith.subi %k, %{{.*}} : index
// CHECK:       %[[POS0:.*]] = arith.maxsi %[[LEFT0]], %[[ZERO:.*]] : index
// CHECK-NEXT:  %[[CLAMP0:.*]] = arith.minsi %[[POS0]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE0:.*]] = arith.select %[[RUNS]], %[[CLAMP0]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE0_32:.*]] = arith.index_cast %[[SIZE0]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE0_32]]
// CHECK:       %[[LEFT1:.*]] = arith.subi %k, %{{.*}} : index
// CHECK:       %[[POS1:.*]] = arith.maxsi %[[LEFT1]], %[[ZERO]] : index
// CHECK-NEXT:  %[[CLAMP1:.*]] = arith.minsi %[[POS1]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE1:.*]] = arith.select %[[RUNS]], %[[CLAMP1]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_32:.*]] = arith.index_cast %[[SIZE1]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE1_32]]
// CHECK-NEXT:  ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 12]]:3: remark: qdot-to-llvm: copy of a 32x64xi8 tile:
// REMARK-SAME: 16-byte cp.async, 2 per thread; declared in bounds: no bounds test on its rows{{$}}
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
!desc = !qdot.desc<32x64xi8>
!buf = !qgpu.memdesc<32x64xi8, #sh, mutable>
func.func @chunks_clamped(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64},
                          %off_m: index, %kk: index {qdot.divisibility = 16 : i64}, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c1 = arith.constant 1 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %a_desc[%off_m, %kk], %s if %runs {in_bounds = [true, false]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// An fp4Padded buffer, K declared (which its 8-byte halves do not use: each keeps its clamp): each half of a
// 16-byte chunk has its own source size, clamped, zeroed past M, then zeroed where the loop does not run.
// CHECK-LABEL: func.func @fp4_padded
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK:       %[[IN_ROW0:.*]] = arith.cmpi ult, %{{.*}}, %n : index
// CHECK:       %[[CLAMP0_A:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[ROW0_A:.*]] = arith.select %[[IN_ROW0]], %[[CLAMP0_A]], %[[ZERO:.*]] : index
// CHECK-NEXT:  %[[SIZE0_A:.*]] = arith.select %[[RUNS]], %[[ROW0_A]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE0_A32:.*]] = arith.index_cast %[[SIZE0_A]] : index to i32
// CHECK-NEXT:  ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %[[SIZE0_A32]]
// CHECK:       %[[CLAMP0_B:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[ROW0_B:.*]] = arith.select %[[IN_ROW0]], %[[CLAMP0_B]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE0_B:.*]] = arith.select %[[RUNS]], %[[ROW0_B]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE0_B32:.*]] = arith.index_cast %[[SIZE0_B]] : index to i32
// CHECK:       ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %[[SIZE0_B32]]
// CHECK:       %[[IN_ROW1:.*]] = arith.cmpi ult, %{{.*}}, %n : index
// CHECK:       %[[CLAMP1_A:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[ROW1_A:.*]] = arith.select %[[IN_ROW1]], %[[CLAMP1_A]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_A:.*]] = arith.select %[[RUNS]], %[[ROW1_A]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_A32:.*]] = arith.index_cast %[[SIZE1_A]] : index to i32
// CHECK-NEXT:  ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %[[SIZE1_A32]]
// CHECK:       %[[CLAMP1_B:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[ROW1_B:.*]] = arith.select %[[IN_ROW1]], %[[CLAMP1_B]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_B:.*]] = arith.select %[[RUNS]], %[[ROW1_B]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_B32:.*]] = arith.index_cast %[[SIZE1_B]] : index to i32
// CHECK:       ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %[[SIZE1_B32]]
// CHECK-NEXT:  ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 13]]:3: remark: qdot-to-llvm: copy of a 32x32xi8 tile:
// REMARK-SAME: 16-byte chunks, each as two 8-byte cp.async into fp4Padded rows
#pad = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 2, order = [1, 0], fp4Padded = true}>
!desc = !qdot.desc<32x32xi8>
!buf = !qgpu.memdesc<32x32xi8, #pad, mutable>
func.func @fp4_padded(%b_ptr: !qdot.ptr<i8>, %n: index, %kb: index {qdot.divisibility = 64 : i64},
                      %kk: index {qdot.divisibility = 32 : i64}, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %b_desc = qdot.make_desc %b_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %b_desc[%c0, %kk], %s if %runs {in_bounds = [false, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// Row by row in 4-byte cp.async (`_segment_copy`: q6_K's 420-byte rows, 4-aligned with K a multiple of 512;
// q6_K-copies.mlir): the tile's column test is made once and AND-ed with the guard, each of a thread's 4 rows
// AND-s its row test in, and all 14 chunks of the row take that row's source size, 4 or 0.
// CHECK-LABEL: func.func @segment_async
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK:       %[[TILE_IN:.*]] = arith.cmpi ult, %kk, %kw : index
// CHECK-NEXT:  %[[GUARDED:.*]] = arith.andi %[[TILE_IN]], %[[RUNS]] : i1
// CHECK:       %[[OK0:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-NEXT:  %[[SIZE0:.*]] = arith.select %[[OK0]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[SIZE0_32:.*]] = arith.index_cast %[[SIZE0]] : index to i32
// CHECK-COUNT-14: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %[[SIZE0_32]]
// CHECK:       %[[OK1:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-NEXT:  %[[SIZE1:.*]] = arith.select %[[OK1]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[SIZE1_32:.*]] = arith.index_cast %[[SIZE1]] : index to i32
// CHECK-COUNT-14: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %[[SIZE1_32]]
// CHECK:       %[[OK2:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-NEXT:  %[[SIZE2:.*]] = arith.select %[[OK2]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[SIZE2_32:.*]] = arith.index_cast %[[SIZE2]] : index to i32
// CHECK-COUNT-14: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %[[SIZE2_32]]
// CHECK:       %[[OK3:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-NEXT:  %[[SIZE3:.*]] = arith.select %[[OK3]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[SIZE3_32:.*]] = arith.index_cast %[[SIZE3]] : index to i32
// CHECK-COUNT-14: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %[[SIZE3_32]]
// CHECK-NEXT:  ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 15]]:3: remark: qdot-to-llvm: copy of a 16x2x!qdot.block<q6_K> tile:
// REMARK-SAME: 4-byte cp.async row by row,
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
!desc = !qdot.desc<16x2x!qdot.block<q6_K>>
!buf = !qgpu.memdesc<16x2x!qdot.block<q6_K>, #sh, mutable>
func.func @segment_async(%w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %n: index, %k: index {qdot.divisibility = 512 : i64},
                         %kk: index {qdot.divisibility = 2 : i64}, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %kw = arith.divui %k, %c256 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %w_desc[%c0, %kk], %s if %runs {in_bounds = [false, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// Row by row in synchronous 2-byte loads (`_segment_copy`: one 210-byte q6_K block per row, 2-aligned): every
// load of a thread's 4 rows is predicated on its row's test AND the tile's column test AND the guard.
// CHECK-LABEL: func.func @segment_sync
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK:       %[[TILE_IN:.*]] = arith.cmpi ult, %kk, %kw : index
// CHECK-NEXT:  %[[GUARDED:.*]] = arith.andi %[[TILE_IN]], %[[RUNS]] : i1
// CHECK:       %[[OK0:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-COUNT-14: ptx.ld_global %{{.*}} if %[[OK0]] : i16
// CHECK:       %[[OK1:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-COUNT-14: ptx.ld_global %{{.*}} if %[[OK1]] : i16
// CHECK:       %[[OK2:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-COUNT-14: ptx.ld_global %{{.*}} if %[[OK2]] : i16
// CHECK:       %[[OK3:.*]] = arith.andi %{{.*}}, %[[GUARDED]] : i1
// CHECK-COUNT-14: ptx.ld_global %{{.*}} if %[[OK3]] : i16
// CHECK-NOT:   ptx.ld_global
// CHECK:       ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 15]]:3: remark: qdot-to-llvm: copy of a 16x1x!qdot.block<q6_K> tile:
// REMARK-SAME: synchronous 2-byte loads and shared stores, row by row;
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
!desc = !qdot.desc<16x1x!qdot.block<q6_K>>
!buf = !qgpu.memdesc<16x1x!qdot.block<q6_K>, #sh, mutable>
func.func @segment_sync(%w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %n: index, %k: index {qdot.divisibility = 256 : i64},
                        %kk: index, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %kw = arith.divui %k, %c256 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %w_desc[%c0, %kk], %s if %runs {in_bounds = [false, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}

// -----

// Piece by piece in synchronous single bytes (`_byte_copy`: 2-byte rows of scales, K of unknown parity;
// deferred-byte-copies.mlir): each of a thread's two loads is predicated on its row and column tests AND the
// guard.
// CHECK-LABEL: func.func @byte_copy
// CHECK:       %[[RUNS:.*]] = arith.cmpi ult, %kk, %k_hi : index
// CHECK:       %[[IN0:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:  %[[OK0:.*]] = arith.andi %[[IN0]], %[[RUNS]] : i1
// CHECK:       %[[V0:.*]] = ptx.ld_global %{{.*}} if %[[OK0]] : i8
// CHECK:       ptx.st_shared %{{.*}}, %[[V0]] : i8
// CHECK:       %[[IN1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:  %[[OK1:.*]] = arith.andi %[[IN1]], %[[RUNS]] : i1
// CHECK:       %[[V1:.*]] = ptx.ld_global %{{.*}} if %[[OK1]] : i8
// CHECK:       ptx.st_shared %{{.*}}, %[[V1]] : i8
// CHECK-NOT:   ptx.ld_global
// CHECK:       ptx.cp_async_commit
// REMARK-NEXT: guarded-copies.mlir:[[# @LINE + 12]]:3: remark: qdot-to-llvm: copy of a 32x2xf8E8M0FNU tile:
// REMARK-SAME: synchronous 1-byte loads and shared stores, piece by piece;
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
!desc = !qdot.desc<32x2xf8E8M0FNU>
!buf = !qgpu.memdesc<32x2xf8E8M0FNU, #sh, mutable>
func.func @byte_copy(%p: !qdot.ptr<f8E8M0FNU>, %m: index, %k: index, %kk: index, %k_hi: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %runs = arith.cmpi ult, %kk, %k_hi : index
  %d = qdot.make_desc %p, [%m, %k], [%k, %c1] : !qdot.ptr<f8E8M0FNU> -> !desc
  %s = qgpu.local_alloc : () -> !buf
  qgpu.async_copy %d[%c0, %kk], %s if %runs {in_bounds = [false, true]} : !desc, !buf
  qgpu.async_commit
  func.return
}
// REMARK-NOT:  remark

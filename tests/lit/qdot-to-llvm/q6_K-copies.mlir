// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' --split-input-file | sed -n '/func.func @one_block_rows/,$p' > %t.seg
// A global tile's rows start at row · stride · element bytes: the copy's chunks may be 4, 8 or 16
// bytes only where that is provably a multiple of them — the power-of-two part of (the stride's known
// divisor) × (the element's bytes), not the product itself. q6_K's 210-byte blocks make the
// difference: two blocks per row of the tile (420 bytes, a multiple of 4) at a row stride of K/256
// blocks. With K a multiple of 256 only, K/256 may be odd and a row start only 2-aligned: the tile
// is copied in 2-byte pieces (synchronous ld.global of i16), never in 4-byte cp.async (which the
// emulator reports misaligned); with K a multiple of 512 every row starts 4-aligned and the tile
// goes by 4-byte cp.async. That is 105 chunks per row, 52.5 per thread of the warp: more than
// ASYNC_SEGMENT_CHUNKS (32), so row by row as the 2-byte copy below (8 lanes on consecutive chunks of
// a row, 4 rows per instruction; a chunk-per-thread order gave every chunk its own row address, all
// kept live across the K loop): 4 rows × 14 chunks per thread and copy, twice (prologue and loop),
// each row's source size (4, or 0 past the tensor) chosen once.
// RUN: sed -n '/func.func @k_multiple_of_512/,/func.func @q6_K_run/p' %t | grep -c 'ptx.cp_async ca' \
// RUN:   | filecheck %s --check-prefix=PAIRS-COUNT
// PAIRS-COUNT: {{^112$}}

// --remarks=qdot-to-llvm says which form each copy took and why not a wider one, once per copy (the
// pipeline's prologue copy and its loop's make the same decision), at the qdot.load it stages.
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' --remarks=qdot-to-llvm 2>&1 | grep 'remark: qdot-to-llvm: copy' | filecheck %s --check-prefix=REMARK
// REMARK:      q6_K-copies.mlir:[[# @LINE + 31]]:5: remark: qdot-to-llvm: copy of a 16x2x!qdot.block<q6_K> tile: synchronous 2-byte loads and shared stores, piece by piece; no cp.async: a row starts only 2-aligned, its stride known only as a multiple of 2 B (qdot.divisibility on the values it is computed from says more)
// REMARK-NEXT: q6_K-copies.mlir:[[# @LINE + 31]]:5: remark: qdot-to-llvm: copy of a 4x8x!qdot.block<q8_1_mmq> tile: 16-byte cp.async, 9 per thread
// REMARK-NEXT: q6_K-copies.mlir:{{[0-9]+}}:5: remark: qdot-to-llvm: copy of a 16x2x!qdot.block<q6_K> tile: 4-byte cp.async row by row, 8 lanes per row, 105 chunks per row; not 8-byte: its 420-byte rows are not a multiple of 8 B
// REMARK-NEXT: q6_K-copies.mlir:{{[0-9]+}}:5: remark: qdot-to-llvm: copy of a 4x8x!qdot.block<q8_1_mmq> tile: 16-byte cp.async, 9 per thread
// REMARK-NEXT: q6_K-copies.mlir:{{[0-9]+}}:3: remark: qdot-to-llvm: copy of a 64x1x!qdot.block<q6_K> tile: one contiguous run of 13440 B (rows back to back) by 16-byte cp.async, 14 per thread
// REMARK-NEXT: q6_K-copies.mlir:{{[0-9]+}}:5: remark: qdot-to-llvm: copy of a 16x1x!qdot.block<q6_K> tile: synchronous 2-byte loads and shared stores, row by row; no cp.async: its 210-byte rows are not a multiple of 4 B
// REMARK-NEXT: q6_K-copies.mlir:{{[0-9]+}}:5: remark: qdot-to-llvm: copy of a 2x8x!qdot.block<q8_1_mmq> tile: 16-byte cp.async, 5 per thread
// REMARK-NOT:  remark

// CHECK-LABEL: func.func @k_multiple_of_256
// CHECK-NOT:   ptx.cp_async ca {{.*}}, 4
// CHECK:       ptx.ld_global %{{.*}} if %{{.*}} : i16
// CHECK-NOT:   ptx.cp_async ca {{.*}}, 4
// CHECK:       func.return
func.func @k_multiple_of_256(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x2x!qdot.block<q6_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q6_K>> -> tensor<16x2x!qdot.block<q6_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q6_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q6_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @k_multiple_of_512
// CHECK-NOT:   ptx.ld_global {{.*}} : i16
// CHECK:       %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:       %[[SRC:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[SRC32:.*]] = arith.index_cast %[[SRC]] : index to i32
// CHECK:       ptx.cp_async ca %[[S0:.*]], %[[G0:.*]], 4, %[[SRC32]]
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT:  %[[G1:.*]] = arith.addi %[[G0]], %[[C32]] : i64
// CHECK-NEXT:  %[[C32S:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.addi %[[S0]], %[[C32S]] : i32
// CHECK-NEXT:  ptx.cp_async ca %[[S1]], %[[G1]], 4, %[[SRC32]]
// CHECK-NOT:   ptx.ld_global {{.*}} : i16
// CHECK:       func.return
func.func @k_multiple_of_512(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 512 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x2x!qdot.block<q6_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q6_K>> -> tensor<16x2x!qdot.block<q6_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q6_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q6_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// W repacked by tile_weights and read K-contiguous (the tiled decode kernel's descriptor [rows, 1],
// strides [1, 1], a 64x1 tile at a run-time row r = 64 · t): its rows lie back to back, so the 64
// blocks are one 13440-byte run, and although a 210-byte row alone is only 2-aligned, the run's
// start (r · 210, r a multiple of 64), its length and the tensor's end (rows · 210, rows a multiple
// of 64) are multiples of 16: it goes by 16-byte cp.async, chunk q at r · 210 + q · 16, compared
// with the tensor's bytes and clamped to its last chunk. 840 chunks over 64 threads: 14 per
// thread, the last clamped to chunk 839 (no byte copies at all).
// CHECK-LABEL: func.func @q6_K_run
// CHECK:       %[[R210:.*]] = arith.muli %r, %{{.*}} : index
// CHECK:       %[[END:.*]] = arith.muli %rows, %{{.*}} : index
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[LAST:.*]] = arith.subi %[[END]], %[[C16]] : index
// CHECK:       %[[OFF:.*]] = arith.addi %[[R210]], %{{.*}} : index
// CHECK-NEXT:  %[[IN:.*]] = arith.cmpi ult, %[[OFF]], %[[END]] : index
// CHECK-NEXT:  arith.andi %[[IN]], %{{.*}} : i1
// CHECK-NEXT:  %[[CLAMP:.*]] = arith.minui %[[OFF]], %[[LAST]] : index
// CHECK-COUNT-13: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK:       %[[Q_LAST:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:       ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NOT:   ptx.ld_global
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @q6_K_run(%w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %t: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %rows = arith.muli %t, %c64 : index
  %r = arith.muli %t, %c64 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<64x1x!qdot.block<q6_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%r, %c0], %s : !qdot.desc<64x1x!qdot.block<q6_K>>, !qgpu.memdesc<64x1x!qdot.block<q6_K>, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// ggml's layout with one q6_K block per row and K step (the decode kernel's W tile, 16 rows; one
// warp): a K step's blocks start 210 · step bytes into a row, 2-aligned for an odd step whatever
// K is, so the tile goes 2 bytes at a time — row by row (`_segment_copy`): 8 lanes per row on
// consecutive pieces (a load instruction touches 4 rows, 16 contiguous bytes each, not 32 rows),
// thread (lane l, group g) taking row g + 4k, pieces l, l + 8, … of it: per row one global and one
// shared base plus the constants 16, 32, … — no division per piece — and each shared store right
// after its load (no value kept to the end of the iteration). 4 rows × 14 pieces per copy, twice
// (the prologue's and the loop's): 112 loads in all.
// RUN: grep -c 'ptx.ld_global' %t.seg | filecheck %s --check-prefix=SEGMENT-COUNT
// SEGMENT-COUNT: {{^112$}}
// CHECK-LABEL: func.func @one_block_rows
// CHECK:       %[[TID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[LANE:.*]] = arith.remui %[[TID]], %[[C8]] : index
// CHECK-NEXT:  %[[G8:.*]] = arith.divui %[[TID]], %[[C8]] : index
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[GROUP:.*]] = arith.remui %[[G8]], %[[C4]] : index
// CHECK:       %[[G0:.*]] = arith.addi %w_ptr, %{{.*}} : i64
// CHECK:       %[[V0:.*]] = ptx.ld_global %[[G0]] if %{{.*}} : i16
// CHECK-NEXT:  ptx.st_shared %[[S0:[^,]*]], %[[V0]] : i16
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i64
// CHECK-NEXT:  %[[G1:.*]] = arith.addi %[[G0]], %[[C16]] : i64
// CHECK-NEXT:  %[[C16S:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.addi %[[S0]], %[[C16S]] : i32
// CHECK-NEXT:  %[[V1:.*]] = ptx.ld_global %[[G1]] if %{{.*}} : i16
// CHECK-NEXT:  ptx.st_shared %[[S1]], %[[V1]] : i16
func.func @one_block_rows(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x1x!qdot.block<q6_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q6_K>> -> tensor<16x1x!qdot.block<q6_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q6_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q6_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

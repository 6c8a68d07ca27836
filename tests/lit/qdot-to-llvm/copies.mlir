// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// Global → shared copies. qgpu.async_copy becomes 16-byte cp.async (cg) per chunk, with a
// source size operand: the bytes inside the tensor are copied and the rest of the 16 are
// zero-filled (rows past M give size 0 and name the first row's address at the same column:
// only the row part is clamped, so the address stays affine in a K loop's induction variable),
// which is how qdot.load promises zeros outside the tensor. Commit and wait become
// cp.async.commit_group / cp.async.wait_group + bar.sync (the wait also makes the other
// threads' copies visible).

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// CHECK-LABEL: func.func @async_copy
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[K:[^:]*]]: index {qdot.divisibility = 16 : i64})
// CHECK-SAME:  qdot.shared_bytes = 4096 : i64
//              stage 1 of the ring: 1 · 2048 bytes
// CHECK:       %[[ELEVEN:.*]] = arith.constant 11 : i32
// CHECK-NEXT:  %[[STAGE:.*]] = arith.shli %{{.*}}, %[[ELEVEN]] : i32
//              chunk 0 of this thread: row r = tid / 4, column c = 16 · (tid % 4)
// CHECK:       %[[ROW:.*]] = arith.shrui %{{.*}}, %{{.*}} : index
// CHECK:       %[[COL:.*]] = arith.shli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[INROW:.*]] = arith.cmpi ult, %[[ROW]], %[[M]] : index
// CHECK-NEXT:  %[[ROWOFF:.*]] = arith.muli %[[ROW]], %[[K]] : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[CLAMPED:.*]] = arith.select %[[INROW]], %[[ROWOFF]], %[[ZERO]] : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.addi %[[CLAMPED]], %[[COL]] : index
// CHECK-NEXT:  %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT:  %[[SRC:.*]] = arith.addi %[[PTR]], %[[OFF64]] : i64
// CHECK-NEXT:  %[[LEFT:.*]] = arith.subi %[[K]], %[[COL]] : index
// CHECK-NEXT:  %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO]] : index
// CHECK-NEXT:  %[[CLAMP:.*]] = arith.minsi %[[POS]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE:.*]] = arith.select %[[INROW]], %[[CLAMP]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE32:.*]] = arith.index_cast %[[SIZE]] : index to i32
// CHECK-NOT:   arith.select
// CHECK:       %[[DST:.*]] = arith.addi %[[STAGE]], %{{.*}} : i32
// CHECK-NEXT:  ptx.cp_async cg %[[DST]], %[[SRC]], 16, %[[SIZE32]]
// CHECK-COUNT-3: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NEXT:  ptx.cp_async_wait 1
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  ptx.ld_shared %[[STAGE]] : i32
// CHECK-NOT:   qgpu.
func.func @async_copy(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x32x64xi8, #sh, mutable>
  %st = qgpu.memdesc_index %ring[%c1] : !qgpu.memdesc<2x32x64xi8, #sh, mutable> -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %st : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  qgpu.async_wait {pending = 1}
  %base = builtin.unrealized_conversion_cast %st : !qgpu.memdesc<32x64xi8, #sh, mutable> to i32
  %x = ptx.ld_shared %base : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// Synchronous staging, local_alloc(qdot.load) (num-stages = 1): a barrier so that earlier
// readers of the buffer are done, the copies, then commit, wait for everything, barrier.
// CHECK-LABEL: func.func @sync_staging
// CHECK:       ptx.bar_sync
// CHECK-NEXT:  %{{.*}} = arith.index_cast
// CHECK-COUNT-4: ptx.cp_async cg
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NEXT:  ptx.cp_async_wait 0
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NOT:   qdot.load
func.func @sync_staging(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
  %s = qgpu.local_alloc %a : (tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #sh>
  %base = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<32x64xi8, #sh> to i32
  %x = ptx.ld_shared %base : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// Without a known divisibility of the row stride the rows may be misaligned: predicated byte
// loads and shared stores instead of cp.async.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT:   ptx.cp_async cg
// CHECK:       %[[V:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i8
// CHECK:       ptx.st_shared %{{.*}}, %[[V]] : i8
func.func @unaligned(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
  %s = qgpu.local_alloc %a : (tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #sh>
  %base = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<32x64xi8, #sh> to i32
  %x = ptx.ld_shared %base : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// A row stride known to be a multiple of 8 but not of 16: a row may start 8 bytes off a
// 16-byte boundary, so the chunk is the widest that every row's address is aligned to — 8
// bytes (cp.async.ca: .cg takes only 16), 8 per thread for the 32 × 64 tile, each zero-filled
// past K by a size clamped to 8 — not 16-byte chunks that would fault on misaligned rows.
// CHECK-LABEL: func.func @eight_byte_chunks
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[K:[^:]*]]: index {qdot.divisibility = 8 : i64})
// CHECK-NOT:   ptx.cp_async cg
// CHECK:       %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK:       %[[LEFT:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK-NEXT:  %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO:.*]] : index
// CHECK-NEXT:  %[[CLAMP:.*]] = arith.minsi %[[POS]], %[[EIGHT]] : index
// CHECK-NEXT:  %[[SIZE:.*]] = arith.select %{{.*}}, %[[CLAMP]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE32:.*]] = arith.index_cast %[[SIZE]] : index to i32
// CHECK-NEXT:  ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %[[SIZE32]]
// CHECK-COUNT-7: ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @eight_byte_chunks(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 8 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %s : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// K and the tile's column origin multiples of the tile's 64 columns (qdot.divisibility = 64, an
// origin of kk · 64): a tile is wholly inside K or wholly past it, so one test `origin < K`,
// made once, AND-ed with each chunk's row test, gives a source size of 16 or 0 — no per-chunk
// clamp of K - column (maxsi / minsi), which LLVM would keep live across the K loop.
// CHECK-LABEL: func.func @whole_tiles
// CHECK-SAME:  (%[[PTR:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[K:[^:]*]]: index {qdot.divisibility = 64 : i64}, %{{[^:]*}}: index)
// CHECK:       %[[OFF:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %{{.*}} = arith.index_cast
// CHECK-NEXT:  %[[TILE_IN:.*]] = arith.cmpi ult, %[[OFF]], %[[K]] : index
// CHECK-NOT:   arith.maxsi
// CHECK:       %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK:       %[[IN_ROW:.*]] = arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK:       %[[OK:.*]] = arith.andi %[[IN_ROW]], %[[TILE_IN]] : i1
// CHECK-NEXT:  %[[SIZE:.*]] = arith.select %[[OK]], %[[SIXTEEN]], %{{.*}} : index
// CHECK-NEXT:  %[[SIZE32:.*]] = arith.index_cast %[[SIZE]] : index to i32
// CHECK-NEXT:  ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %[[SIZE32]]
// CHECK-COUNT-3: arith.andi %{{.*}}, %[[TILE_IN]] : i1
// CHECK-NOT:   arith.maxsi
// CHECK:       ptx.cp_async_commit
func.func @whole_tiles(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 64 : i64}, %kk: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %off = arith.muli %kk, %c64 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %off], %s : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#pad = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 2, order = [1, 0], fp4Padded = true}>

// An fp4Padded buffer (the native fp4 path's operand for the fp4 ldmatrix) holds each 8 bytes
// of packed fp4 followed by 8 bytes of padding: a 16-byte global chunk lands as two 8-byte
// cp.async.ca — the second from source + 8, sized by what is left of K past those 8 bytes,
// placed where the layout puts data byte 8 (its own swizzle unit, not 16 bytes after the
// first) — never one 16-byte copy that would write data over the padding.
// CHECK-LABEL: func.func @fp4_padded
// CHECK-NOT:   ptx.cp_async cg
// CHECK:       %[[SRC:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  %[[LEFT:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:  %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO:.*]] : index
// CHECK-NEXT:  %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[CLAMP:.*]] = arith.minsi %[[POS]], %[[EIGHT]] : index
// CHECK:       ptx.cp_async ca %[[DST0:.*]], %[[SRC]], 8, %{{.*}}
// CHECK-NEXT:  %[[LEFT1:.*]] = arith.subi %[[LEFT]], %[[EIGHT]] : index
// CHECK-NEXT:  %[[POS1:.*]] = arith.maxsi %[[LEFT1]], %[[ZERO]] : index
// CHECK-NEXT:  %[[CLAMP1:.*]] = arith.minsi %[[POS1]], %[[EIGHT]] : index
// CHECK-NEXT:  %[[SIZE1:.*]] = arith.select %{{.*}}, %[[CLAMP1]], %[[ZERO]] : index
// CHECK-NEXT:  %[[SIZE1_32:.*]] = arith.index_cast %[[SIZE1]] : index to i32
//              data byte 8's offset, from the layout's swizzle (an XOR), not the first's + 8
// CHECK:       %[[DST1:.*]] = arith.xori %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[EIGHT64:.*]] = arith.constant 8 : i64
// CHECK-NEXT:  %[[SRC1:.*]] = arith.addi %[[SRC]], %[[EIGHT64]] : i64
// CHECK-NEXT:  ptx.cp_async ca %[[DST1]], %[[SRC1]], 8, %[[SIZE1_32]]
// CHECK-COUNT-2: ptx.cp_async ca %{{.*}}, %{{.*}}, 8, %{{.*}}
// CHECK-NEXT:  ptx.cp_async_commit
func.func @fp4_padded(%b_ptr: !qdot.ptr<i8>, %n: index, %kb: index {qdot.divisibility = 64 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b_desc = qdot.make_desc %b_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<32x32xi8, #pad, mutable>
  qgpu.async_copy %b_desc[%c0, %c0], %s : !qdot.desc<32x32xi8>, !qgpu.memdesc<32x32xi8, #pad, mutable>
  qgpu.async_commit
  func.return
}

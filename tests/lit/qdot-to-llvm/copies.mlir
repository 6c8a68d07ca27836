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

// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_90}' --remarks=qdot-to-llvm 2>&1 | grep griddepcontrol | filecheck %s --check-prefix=REMARK
// Where griddepcontrol.wait goes when arguments are marked qdot.not_written_by_previous_grid
// (passes/support/grid_wait.py): after the reads of marked arrays that come first in the entry block,
// before the first operation that may touch any other memory. A region is taken whole.
// (grid-dependency.mlir: without a marked argument the wait is the first instruction.)

// The weight tile's eight copies per thread go out first, then the wait, then the activations' two. The
// wait lists the argument read ahead of it (for the emulator's check; no PTX of its own).
// CHECK-LABEL: func.func @weights_first
// CHECK-SAME:    (%x_ptr: i64, %w_ptr: i64, %k: index {qdot.divisibility = 32 : i64})
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK-COUNT-8: ptx.cp_async cg
// CHECK-NOT:     ptx.cp_async
// CHECK:         ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 1>}
// CHECK-COUNT-2: ptx.cp_async cg
// CHECK-NEXT:    ptx.cp_async_commit
// REMARK: grid-wait-placement.mlir:[[# @LINE + 11]]:3: remark: qdot-to-llvm: @weights_first: griddepcontrol.wait after 1 read of %w_ptr (qdot.not_written_by_previous_grid), before this qgpu.async_copy, the first operation that may touch memory the previous grid writes
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @weights_first(%x_ptr: !qdot.ptr<f32>, %w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index {qdot.divisibility = 32 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %x_desc = qdot.make_desc %x_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %ws = qgpu.local_alloc : () -> !qgpu.memdesc<32x32xf32, #sh, mutable>
  %xs = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %ws : !qdot.desc<32x32xf32>, !qgpu.memdesc<32x32xf32, #sh, mutable>
  qgpu.async_copy %x_desc[%c0, %c0], %xs : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// The activations come first: no copy may go ahead of them.
// CHECK-LABEL: func.func @activations_first
// CHECK-NOT:     ptx.cp_async
// CHECK:         ptx.griddepcontrol_wait
// REMARK: grid-wait-placement.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: @activations_first: griddepcontrol.wait before this qgpu.async_copy, the first operation that may touch memory the previous grid writes; no read of %w_ptr (qdot.not_written_by_previous_grid) comes before it
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @activations_first(%x_ptr: !qdot.ptr<f32>, %w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %xs = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_copy %x_desc[%c0, %c0], %xs : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %ws = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %ws : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// A loop whose only memory access is a marked copy goes ahead whole (its two copies, one per
// iteration, before the wait); the commit after it has effects and is where the wait goes.
// CHECK-LABEL: func.func @loop_of_weight_copies
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK:         ptx.cp_async ca
// CHECK:         ptx.griddepcontrol_wait
// CHECK-NEXT:    ptx.cp_async_commit
// REMARK: grid-wait-placement.mlir:[[# @LINE + 14]]:3: remark: qdot-to-llvm: @loop_of_weight_copies: griddepcontrol.wait after 1 read of %w_ptr (qdot.not_written_by_previous_grid), before this qgpu.async_commit, the first operation that may touch memory the previous grid writes
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @loop_of_weight_copies(%w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %ws = qgpu.local_alloc : () -> !qgpu.memdesc<2x8x32xf32, #sh, mutable>
  scf.for %i = %c0 to %c2 step %c1 {
    %slot = qgpu.memdesc_index %ws[%i] : !qgpu.memdesc<2x8x32xf32, #sh, mutable> -> !qgpu.memdesc<8x32xf32, #sh, mutable>
    qgpu.async_copy %w_desc[%c0, %c0], %slot : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
    scf.yield
  }
  qgpu.async_commit
  func.return
}

// -----

// A loop that also reads the activations is not split: the wait goes before it.
// CHECK-LABEL: func.func @loop_of_both
// CHECK-NOT:     ptx.cp_async
// CHECK:         ptx.griddepcontrol_wait
// REMARK: grid-wait-placement.mlir:[[# @LINE + 11]]:3: remark: qdot-to-llvm: @loop_of_both: griddepcontrol.wait before this scf.for, the first operation that may touch memory the previous grid writes; no read of %w_ptr (qdot.not_written_by_previous_grid) comes before it
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @loop_of_both(%x_ptr: !qdot.ptr<f32>, %w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %x_desc = qdot.make_desc %x_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %ws = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  %xs = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  scf.for %i = %c0 to %c2 step %c1 {
    qgpu.async_copy %w_desc[%c0, %c0], %ws : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
    qgpu.async_copy %x_desc[%c0, %c0], %xs : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
    scf.yield
  }
  qgpu.async_commit
  func.return
}

// -----

// A prefetch of a marked array is a read of it like a copy: ahead of the wait.
// CHECK-LABEL: func.func @prefetch_first
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK:         ptx.prefetch_global_l2
// CHECK-NOT:     ptx.cp_async
// CHECK:         ptx.griddepcontrol_wait
// CHECK:         ptx.cp_async
// REMARK: grid-wait-placement.mlir:[[# @LINE + 10]]:3: remark: qdot-to-llvm: @prefetch_first: griddepcontrol.wait after 1 read of %w_ptr (qdot.not_written_by_previous_grid), before this qgpu.async_copy, the first operation that may touch memory the previous grid writes
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @prefetch_first(%x_ptr: !qdot.ptr<f32>, %w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %x_desc = qdot.make_desc %x_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  %xs = qgpu.local_alloc : () -> !qgpu.memdesc<8x32xf32, #sh, mutable>
  qdot.prefetch %w_desc[%c0, %c0] : !qdot.desc<8x32xf32>
  qgpu.async_copy %x_desc[%c0, %c0], %xs : !qdot.desc<8x32xf32>, !qgpu.memdesc<8x32xf32, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// Nothing but a marked read: the wait closes the entry block, before its terminator.
// CHECK-LABEL: func.func @only_marked_reads
// CHECK:         ptx.prefetch_global_l2
// CHECK-NEXT:    ptx.griddepcontrol_wait
// CHECK-NEXT:    func.return
// REMARK: grid-wait-placement.mlir:[[# @LINE + 7]]:3: remark: qdot-to-llvm: @only_marked_reads: griddepcontrol.wait after 1 read of %w_ptr (qdot.not_written_by_previous_grid), at the end of the entry block: nothing else in it may touch memory the previous grid writes
func.func @only_marked_reads(%w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x32xf32>
  qdot.prefetch %w_desc[%c0, %c0] : !qdot.desc<8x32xf32>
  func.return
}

// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// RUN: not qdot-translate %s --target ptx --arch sm_80 2>&1 | filecheck %s --check-prefix=SM80
// griddepcontrol is sm_90+ (PTX 7.8): the instruction on sm_90, a located refusal on sm_80. A copy from
// an argument marked qdot.not_written_by_previous_grid stays ahead of the wait in the PTX.

// CHECK:       .entry wait_first
// CHECK-NOT:   ld.global
// CHECK:       griddepcontrol.wait;
// SM80: grid-dependency.mlir:[[# @LINE + 1]]:1: error: 'ptx.griddepcontrol_wait' op griddepcontrol.wait requires sm_90 or later, got sm_80
func.func @wait_first(%x: !qdot.ptr<f32>) attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %pid = qdot.program_id x
  func.return
}

// CHECK:       .entry weights_first
// CHECK-NOT:   griddepcontrol.wait
// CHECK-COUNT-2: cp.async.cg.shared.global
// CHECK-NOT:   cp.async
// CHECK:       griddepcontrol.wait;
// CHECK-NOT:   griddepcontrol
// CHECK:       cp.async.cg.shared.global
// CHECK:       cp.async.commit_group
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @weights_first(%x_ptr: !qdot.ptr<f32>, %w_ptr: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %k: index {qdot.divisibility = 32 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x8xf32>
  %x_desc = qdot.make_desc %x_ptr, [%k, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<8x8xf32>
  %ws = qgpu.local_alloc : () -> !qgpu.memdesc<32x8xf32, #sh, mutable>
  %xs = qgpu.local_alloc : () -> !qgpu.memdesc<8x8xf32, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %ws : !qdot.desc<32x8xf32>, !qgpu.memdesc<32x8xf32, #sh, mutable>
  qgpu.async_copy %x_desc[%c0, %c0], %xs : !qdot.desc<8x8xf32>, !qgpu.memdesc<8x8xf32, #sh, mutable>
  qgpu.async_commit
  func.return
}

// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// Programmatic dependent launch: a kernel marked qdot.wait_previous_grid starts with
// ptx.griddepcontrol_wait, one marked qdot.launch_dependents with
// ptx.griddepcontrol_launch_dependents — before its first instruction, so no memory access of
// the kernel can race the previous kernel of the stream. Unmarked kernels get neither. With
// arguments marked qdot.previous_grid (what the previous kernel writes), the wait comes just
// before the first access through one of them: reads of the others start before it.

// CHECK-LABEL: func.func @gemm
// CHECK-NEXT:    ptx.griddepcontrol_wait
// CHECK-NOT:     ptx.griddepcontrol
// CHECK:         func.return
func.func @gemm() attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %pid = qdot.program_id x
  func.return
}

// CHECK-LABEL: func.func @quantize
// CHECK-NEXT:    ptx.griddepcontrol_launch_dependents
// CHECK-NOT:     ptx.griddepcontrol
func.func @quantize() attributes {qdot.kernel, qdot.launch_dependents} {
  func.return
}

// CHECK-LABEL: func.func @plain
// CHECK-NOT:     ptx.griddepcontrol
func.func @plain() attributes {qdot.kernel} {
  func.return
}

#sh = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// The weight tile's copies are issued, then the wait, then the activation tile's copies and,
// after the loop that reads both, the store into Y (also the previous kernel's). The marks are
// gone from the lowered signature.
// CHECK-LABEL: func.func @weights_first
// CHECK-SAME:    (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: index)
// CHECK-NOT:     qdot.previous_grid
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK:         ptx.cp_async cg
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK:         ptx.cp_async_commit
// CHECK-NEXT:    ptx.griddepcontrol_wait
// CHECK:         ptx.cp_async cg
// CHECK-NOT:     ptx.griddepcontrol_wait
// CHECK:         ptx.st_global
func.func @weights_first(%x_ptr: !qdot.ptr<i8> {qdot.previous_grid}, %w_ptr: !qdot.ptr<i8>,
                         %y_ptr: !qdot.ptr<i32> {qdot.previous_grid}, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %w_desc = qdot.make_desc %w_ptr, [%c16, %c16], [%c16, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x16xi8>
  %x_desc = qdot.make_desc %x_ptr, [%c16, %c16], [%c16, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x16xi8>
  %y_desc = qdot.make_desc %y_ptr, [%c1, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<1x32xi32>
  %w_smem = qgpu.local_alloc : () -> !qgpu.memdesc<16x16xi8, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %c0], %w_smem : !qdot.desc<16x16xi8>, !qgpu.memdesc<16x16xi8, #sh, mutable>
  qgpu.async_commit
  %x_smem = qgpu.local_alloc : () -> !qgpu.memdesc<16x16xi8, #sh, mutable>
  qgpu.async_copy %x_desc[%c0, %c0], %x_smem : !qdot.desc<16x16xi8>, !qgpu.memdesc<16x16xi8, #sh, mutable>
  qgpu.async_commit
  qgpu.async_wait {pending = 0}
  %zero = arith.constant dense<0> : tensor<1x32xi32, #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>
  qdot.store %y_desc[%c0, %c0], %zero : !qdot.desc<1x32xi32>, tensor<1x32xi32, #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>
  func.return
}

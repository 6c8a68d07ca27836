// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// Programmatic dependent launch: a kernel marked qdot.wait_previous_grid starts with
// ptx.griddepcontrol_wait, one marked qdot.launch_dependents with
// ptx.griddepcontrol_launch_dependents — before its first instruction, so no memory access of
// the kernel can race the previous kernel of the stream. Unmarked kernels get neither.

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

// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// ptx.griddepcontrol_wait / launch_dependents (Hopper's programmatic dependent launch): no operands. The wait may
// list the kernel arguments read before it (qdot-to-llvm's not_written_by_previous_grid, for the emulator's
// check; targets/ptx/grid-dependency.mlir: the PTX, the same either way).

// CHECK-LABEL: func.func @grid_dependency
// CHECK-NEXT:  ptx.griddepcontrol_launch_dependents
// CHECK-NEXT:  ptx.griddepcontrol_wait{{$}}
// CHECK-NEXT:  ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 1, 3>}
func.func @grid_dependency() {
  ptx.griddepcontrol_launch_dependents
  ptx.griddepcontrol_wait
  ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 1, 3>}
  func.return
}

// -----

// CHECK: grid-dependency.mlir:[[# @LINE + 1]]:1: error: 'ptx.griddepcontrol_wait' op not_written_by_previous_grid must list argument positions, increasing, as array<i64: ...>, got 1 : i64
ptx.griddepcontrol_wait {not_written_by_previous_grid = 1 : i64}

// -----

// CHECK: grid-dependency.mlir:[[# @LINE + 1]]:1: error: 'ptx.griddepcontrol_wait' op not_written_by_previous_grid must list argument positions, increasing, as array<i64: ...>, got array<i64: 3, 1>
ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 3, 1>}

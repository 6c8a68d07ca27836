// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// RUN: not qdot-translate %s --target ptx --arch sm_80 2>&1 | filecheck %s --check-prefix=SM80
// griddepcontrol is sm_90+ (PTX 7.8): the instruction on sm_90, a located refusal on sm_80.

// CHECK:       .entry wait_first
// CHECK-NOT:   ld.global
// CHECK:       griddepcontrol.wait;
// SM80: grid-dependency.mlir:[[# @LINE + 1]]:1: error: 'ptx.griddepcontrol_wait' op griddepcontrol.wait requires sm_90 or later, got sm_80
func.func @wait_first(%x: !qdot.ptr<f32>) attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.wait_previous_grid} {
  %pid = qdot.program_id x
  func.return
}

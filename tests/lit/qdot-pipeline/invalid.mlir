// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-pipeline' | filecheck %s
// RUN: not qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=0}' 2>&1 | filecheck %s --check-prefix=STAGES
// What qdot-pipeline refuses.

// STAGES: qdot-opt: error: qdot-pipeline: num-stages must be at least 1, got 0

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The prologue recomputes the tile offsets of future iterations, so they must be arith on
// the loop variable and values from outside the loop.
func.func @offsets_not_arith(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %pid = qdot.program_id x
    %off = arith.addi %kk, %pid : index
    %a = qdot.load %a_desc[%c0, %off] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  }
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 8]]:5: error: 'qdot.program_id' op qdot-pipeline: tile offsets must be computed with arith from the loop variable

// The broadcast of a #qgpu.block_part view (a kernel's qdot.broadcast_rhs) belongs to the op and its view type
// together: one without the other is a type mismatch that names both.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

%x = "test.op"() : () -> !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
%qs = qgpu.block_part %x {part = "qs", broadcast} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK: broadcast-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.block_part' op result must be !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = true}>>, got {{.*}}valueDim = 1}>>

// -----

%x = "test.op"() : () -> !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
%qs = qgpu.block_part %x {part = "qs"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = true}>>
// CHECK: broadcast-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.block_part' op result must be !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>, got {{.*}}broadcast = true}>>

// -----

// The keyword takes true or false.
"test.op"() {enc = #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = 1}>} : () -> ()
// CHECK: broadcast-invalid.mlir:[[# @LINE - 1]]:110: error: Expected boolean literal

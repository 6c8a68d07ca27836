// One case per rule of the #qgpu.shared rowPad parameter (qdot-accelerate-matmul{pad-block-rows=true}'s padding);
// each names the parameter and the numbers.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// rowPad: whole 16-byte bank groups, so that a padded pitch moves the next row by a group.
"test.op"() {enc = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 8}>} : () -> ()
// CHECK: row-pad-invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.shared rowPad must be a multiple of 16 bytes (a bank group), got 8

// -----

// A block_part view carries its parent's padding: its offsets step over it.
%x = "test.op"() : () -> !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>>
%qs = qgpu.block_part %x {part = "qs"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK: row-pad-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.block_part' op result must be !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, rowPad = 16}>>, got {{.*}}valueDim = 1}>>

// -----

// Padding is for plain rows: a swizzle (or fp4Padded, or rowElems) already decides where a row's bytes go.
%m = "test.op"() : () -> !qgpu.memdesc<64x64xi8, #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], rowPad = 16}>>
// CHECK: row-pad-invalid.mlir:[[# @LINE - 1]]:39: error: rowPad = 16 pads plain rows: it does not combine with a swizzle (maxPhase > 1), fp4Padded or rowElems

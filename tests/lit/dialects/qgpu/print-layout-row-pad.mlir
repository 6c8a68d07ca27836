// --print-layout of a #qgpu.shared buffer with rowPad (qdot-accelerate-matmul{pad-block-rows=true}'s activation
// tile) and of its #qgpu.block_part views: every row is 16 bytes longer than its two 144-byte q8_1_mmq blocks, so
// rows start 304 bytes apart — 19 bank groups, not 18 — and the views' offsets step over the padding.
// RUN: qdot-opt %s --print-layout | filecheck %s
// RUN: qdot-opt %s | filecheck %s --check-prefix=ROUNDTRIP

#sp = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>

func.func @padded(%x: !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp>) {
  %qs = qgpu.block_part %x {part = "qs"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, rowPad = 16}>>
  %d = qgpu.block_part %x {part = "d"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp> -> !qgpu.memdesc<4x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1, rowPad = 16}>>
  func.return
}

// CHECK:      !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>>:
// CHECK-NEXT:   4 row(s) x 304 bytes = 1216 bytes; allocation 1216 bytes
// CHECK-NEXT:   {{.*}}; rowPad: the last 16 bytes of every row are padding
// CHECK-NEXT:   row 0 (d0=0): [0..1]@0
// CHECK-NEXT:   row 1 (d0=1): [0..1]@304

// CHECK:      #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, rowPad = 16}>>:
// CHECK-NEXT:   view of part 'qs' {{.*}} rows 304 bytes apart; the parent buffer owns the bytes
// CHECK-NEXT:   row 0: [0..127]@16 [128..255]@160
// CHECK-NEXT:   row 1: [0..127]@320 [128..255]@464

// The parameter prints back as parsed, on the buffer and on the views the op derives.
// ROUNDTRIP: qgpu.block_part %x {part = "qs"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], rowPad = 16}>> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, rowPad = 16}>>

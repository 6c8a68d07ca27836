// --print-layout of #qgpu.block_part views with broadcast = true (a kernel's qdot.broadcast_rhs: the one-token
// kernel's activation tile read as its token 0 in every column): every row of the view has row 0's offsets, so the
// eight row addresses of an ldmatrix are one. The op's broadcast property derives the view type.
// RUN: qdot-opt %s --print-layout | filecheck %s
// RUN: qdot-opt %s | filecheck %s --check-prefix=ROUNDTRIP

#sp = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

func.func @broadcast(%x: !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp>) {
  %qs = qgpu.block_part %x {part = "qs", broadcast} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = true}>>
  %d = qgpu.block_part %x {part = "d", broadcast} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sp> -> !qgpu.memdesc<4x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1, broadcast = true}>>
  func.return
}

// CHECK:      #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = true}>>:
// CHECK-NEXT:   view of part 'qs' {{.*}} rows 288 bytes apart; the parent buffer owns the bytes
// CHECK-NEXT:   broadcast: every row reads the parent's row 0
// CHECK-NEXT:   row 0: [0..127]@16 [128..255]@160
// CHECK-NEXT:   row 1: [0..127]@16 [128..255]@160
// CHECK-NEXT:   row 2: [0..127]@16 [128..255]@160
// CHECK-NEXT:   row 3: [0..127]@16 [128..255]@160
// CHECK:      #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1, broadcast = true}>>:
// CHECK-NEXT:   view of part 'd'
// CHECK-NEXT:   broadcast: every row reads the parent's row 0

// ROUNDTRIP: qgpu.block_part %x {part = "qs", broadcast} : {{.*}} -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1, broadcast = true}>>

// --print-layout of #qgpu.block_part views (the q4_K and q8_1 kernels' operands): where each
// row's values sit in the parent's blocks for raw parts, and that derived parts (scales, mins,
// sums) have no byte offsets. It crashed on every q4_K kernel until the input fuzz found it.
// RUN: qdot-opt %s --print-layout | filecheck %s
// RUN: qdot-opt %S/../../../../examples/q4k_mmq.mlir -p 'qdot-accelerate-matmul{arch=sm_90}' --print-layout | filecheck %s --check-prefix=EXAMPLE

#sx = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sw = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>

func.func @parts(%x: !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sx>, %w: !qgpu.memdesc<1x4x!qdot.block<q4_K>, #sw>) {
  %qs = qgpu.block_part %x {part = "qs"} : !qgpu.memdesc<4x2x!qdot.block<q8_1_mmq>, #sx> -> !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
  %wq = qgpu.block_part %w {part = "qs"} : !qgpu.memdesc<1x4x!qdot.block<q4_K>, #sw> -> !qgpu.memdesc<128x4xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 0}>>
  %sc = qgpu.block_part %w {part = "scale"} : !qgpu.memdesc<1x4x!qdot.block<q4_K>, #sw> -> !qgpu.memdesc<4x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 0}>>
  func.return
}

// Two q8_1_mmq blocks per row (144 bytes each, the 128 quants from byte 16): a row is 288 bytes.
// CHECK:      !qgpu.memdesc<4x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>:
// CHECK-NEXT:   view of part 'qs' of q8_1_mmq blocks (144 bytes each) from block 0 of each row: 4 row(s) x 256 value(s), rows 288 bytes apart; the parent buffer owns the bytes
// CHECK-NEXT:   row 0: [0..127]@16 [128..255]@160
// CHECK-NEXT:   row 1: [0..127]@304 [128..255]@448
// CHECK:        row 3: [0..127]@880 [128..255]@1024

// q4_K's 128 nibble bytes run along dim 0 (valueDim = 0): column r of the view is weight row r.
// CHECK:      !qgpu.memdesc<128x4xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 0}>>:
// CHECK-NEXT:   view of part 'qs' of q4_K blocks (144 bytes each) from block 0 of each row: 4 row(s) x 128 value(s), rows 144 bytes apart; the parent buffer owns the bytes
// CHECK-NEXT:   row 0: [0..127]@16
// CHECK-NEXT:   row 1: [0..127]@160

// CHECK:      !qgpu.memdesc<4x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 0}>>:
// CHECK-NEXT:   view of part 'scale' of q4_K blocks (144 bytes each) from block 0 of each row: 4 row(s) x 8 value(s), rows 144 bytes apart; the parent buffer owns the bytes
// CHECK-NEXT:   8 value(s) per block, computed from the block's bytes when loaded (no byte offsets)

// EXAMPLE: view of part 'qs' of q4_K blocks (144 bytes each) from block 0 of each row: 128 row(s) x 128 value(s), rows 144 bytes apart
// EXAMPLE: view of part 'dmin' of q4_K blocks

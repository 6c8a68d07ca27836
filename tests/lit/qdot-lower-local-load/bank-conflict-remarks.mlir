// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load -o /dev/null 2>&1 | filecheck %s
// Each load's remark counts its shared-memory wavefronts per warp from the two layout functions
// (passes/support/bank_conflicts.py): an ldmatrix phase is one matrix's eight 16-byte rows. The activation
// tile of a q8_1_mmq dot — two 144-byte blocks a token, rows 288 bytes (18 bank groups) apart — puts rows r and
// r + 4 on one group, so each matrix takes two wavefronts (run 306 measured 2 × on the one-token kernel); 304 bytes
// apart (rowPad = 16, qdot-accelerate-matmul{pad-block-rows=true}) the eight rows fall on eight groups.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>

// CHECK: remark: qdot-lower-local-load: rhs operand 256x8xi8 (kWidth 4): 4 × ldmatrix.sync.aligned.m8n8.x4.shared.b16; 32 wavefronts where 16 would do (2-way bank conflicts) per warp
func.func @rows_288_bytes_apart(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<256x8xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
  %r = qgpu.local_load %qs : !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>> -> tensor<256x8xi8, #b>
  func.return %r : tensor<256x8xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>

// CHECK: remark: qdot-lower-local-load: rhs operand 256x8xi8 (kWidth 4): 4 × ldmatrix.sync.aligned.m8n8.x4.shared.b16; 16 wavefronts, no bank conflict per warp
func.func @rows_padded(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<256x8xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0, rowPad = 16}>>
  %r = qgpu.local_load %qs : !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0, rowPad = 16}>> -> tensor<256x8xi8, #b>
  func.return %r : tensor<256x8xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sw = #qgpu.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The decoded q4_K scales (scales.mlir): 16-byte loads of rows g, g + 8, … — a quarter-warp's eight lanes ask
// for two rows (the four lanes of a quad share one), so no bank conflict, swizzled or not.
// CHECK: remark: qdot-lower-local-load: lhs scales 64x8xf32: scalar ld.shared fallback: {{.*}}; 32 wavefronts, no bank conflict per warp
func.func @decoded_scales(%m: !qgpu.memdesc<64x8xf32, #sw>) -> tensor<64x8xf32, #sa> {
  %r = qgpu.local_load %m : !qgpu.memdesc<64x8xf32, #sw> -> tensor<64x8xf32, #sa>
  func.return %r : tensor<64x8xf32, #sa>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load -o /dev/null 2>&1 | filecheck %s
// Each load's remark counts its shared-memory wavefronts per warp from the two layout functions
// (passes/support/bank_conflicts.py): an ldmatrix phase is one matrix's eight 16-byte rows. The activation
// tile of a q8_1_mmq dot — two 144-byte blocks a token, rows 288 bytes (18 bank groups) apart — puts rows r and
// r + 4 on one group, so each matrix takes two wavefronts (run 306 measured 2 × on the one-token kernel); 304 bytes
// apart (rowPad = 16, qdot-accelerate-matmul{pad-block-rows=true}) the eight rows fall on eight groups, and read
// as a broadcast (a kernel's qdot.broadcast_rhs) they are one row. The
// loads of derived block fields (d, s, the q4_K header) are counted too, each (byte, width) of a thread once.

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

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>

// A broadcast view (a kernel's qdot.broadcast_rhs): each matrix's eight row addresses are token 0's one row, still an
// ldmatrix, one wavefront a matrix as padded rows give.
// CHECK: remark: qdot-lower-local-load: rhs operand 256x8xi8 (kWidth 4): 4 × ldmatrix.sync.aligned.m8n8.x4.shared.b16; 16 wavefronts, no bank conflict per warp
func.func @rows_broadcast(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<256x8xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs", broadcast} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0, broadcast = true}>>
  %r = qgpu.local_load %qs : !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0, broadcast = true}>> -> tensor<256x8xi8, #b>
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

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#d = #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0}>

// The activation tile's d (the one-token kernel's rhs scales): the four lanes of a quad read their token's fp16,
// so a load's 32 lanes ask for 8 words 288 bytes (72 words) apart, and tokens g and g + 4 share a bank: 2 wavefronts
// for each of the thread's 16 loads. Run 306 measured these loads at twice their ideal.
// CHECK: remark: qdot-lower-local-load: rhs scales 8x8xf32: scalar ld.shared of the q8_1_mmq block fields that 'd' is decoded from (no ldmatrix: the values are computed, not copied); 32 wavefronts where 16 would do (2-way bank conflicts) per warp
func.func @activation_d(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<8x8xf32, #sb> {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<8x8xf32, #d>
  %r = qgpu.local_load %v : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  func.return %r : tensor<8x8xf32, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>
#d = #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0, rowPad = 16}>

// Rows 304 bytes (76 words) apart: the eight tokens' words on banks 12g mod 32, all distinct.
// CHECK: remark: qdot-lower-local-load: rhs scales 8x8xf32: scalar ld.shared of the q8_1_mmq block fields that 'd' is decoded from (no ldmatrix: the values are computed, not copied); 16 wavefronts, no bank conflict per warp
func.func @activation_d_padded(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<8x8xf32, #sb> {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<8x8xf32, #d>
  %r = qgpu.local_load %v : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  func.return %r : tensor<8x8xf32, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#d = #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0, broadcast = true}>

// Broadcast: a thread's two columns are one word (loaded once), and every lane asks for the same word of a block.
// CHECK: remark: qdot-lower-local-load: rhs scales 8x8xf32: scalar ld.shared of the q8_1_mmq block fields that 'd' is decoded from (no ldmatrix: the values are computed, not copied); 8 wavefronts, no bank conflict per warp
func.func @activation_d_broadcast(%m: !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x>) -> tensor<8x8xf32, #sb> {
  %v = qgpu.block_part %m {part = "d", broadcast} : !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #x> -> !qgpu.memdesc<8x8xf32, #d>
  %r = qgpu.local_load %v : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  func.return %r : tensor<8x8xf32, #sb>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>
#x = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#s16 = #qgpu.block_part<{format = "q4_K", part = "scale16", blocks = 1, valueDim = 1}>

// The decode kernels' q4_K scales, a weight row per lane: the block header is one 16-byte load, counted once for
// the eight fields it gives; a quarter-warp's eight headers 144 bytes (9 bank groups) apart fall on eight groups.
// CHECK: remark: qdot-lower-local-load: 64x8xf32 in blocked layout: scalar ld.shared of the q4_K block fields that 'scale16' is decoded from (no ldmatrix: the values are computed, not copied); 4 wavefronts, no bank conflict per warp
func.func @q4k_header(%m: !qgpu.memdesc<64x1x!qdot.block<q4_K>, #x>) -> tensor<64x8xf32, #bl> {
  %v = qgpu.block_part %m {part = "scale16"} : !qgpu.memdesc<64x1x!qdot.block<q4_K>, #x> -> !qgpu.memdesc<64x8xf32, #s16>
  %r = qgpu.local_load %v : !qgpu.memdesc<64x8xf32, #s16> -> tensor<64x8xf32, #bl>
  func.return %r : tensor<64x8xf32, #bl>
}

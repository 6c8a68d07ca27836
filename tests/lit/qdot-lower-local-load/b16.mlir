// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90 ldmatrix=false}' | filecheck %s --check-prefix=SCALAR
// 8- and 16-bit dot operands in the ISA arrangement: ldmatrix .m8n8 .x4 .b16 — an 8-bit
// row of 16 bytes is a .b16 row of 8 halves, and the fragment of k-width 4 bytes is one
// .b32 register — with .trans when the buffer is contiguous along the other dimension.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// An e4m3 A operand [M, K] = [32, 64], K contiguous: 2 × 2 mma tiles of 4 registers, 4 x4 loads.
// CHECK-LABEL: func.func @e4m3_a
// CHECK-COUNT-4: ptx.ldmatrix m8n8 x4 b16 %{{.*}}
// CHECK-NOT:   ptx.ld_shared
// CHECK:       builtin.unrealized_conversion_cast {{.*}} to tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0,
// SCALAR-LABEL: func.func @e4m3_a
// SCALAR-NOT:  ptx.ldmatrix
// SCALAR-COUNT-16: ptx.ld_shared %{{.*}} : i32
func.func @e4m3_a(%m: !qgpu.memdesc<32x64xf8E4M3FN, #sh>) -> tensor<32x64xf8E4M3FN, #a> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x64xf8E4M3FN, #sh> -> tensor<32x64xf8E4M3FN, #a>
  func.return %r : tensor<32x64xf8E4M3FN, #a>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]}>

// An i8 B operand [K, N] = [64, 32], K contiguous (weights stored N-major rows of K).
// CHECK-LABEL: func.func @i8_b
// CHECK-COUNT-4: ptx.ldmatrix m8n8 x4 b16 %{{.*}}
// CHECK-NOT:   ptx.ldmatrix
func.func @i8_b(%m: !qgpu.memdesc<64x32xi8, #sh>) -> tensor<64x32xi8, #b> {
  %r = qgpu.local_load %m : !qgpu.memdesc<64x32xi8, #sh> -> tensor<64x32xi8, #b>
  func.return %r : tensor<64x32xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// A bf16 B operand [K, N] with N contiguous: the transposing form.
// CHECK-LABEL: func.func @bf16_b_n_major
// CHECK-COUNT-4: ptx.ldmatrix m8n8 x4 trans b16 %{{.*}}
func.func @bf16_b_n_major(%m: !qgpu.memdesc<32x32xbf16, #sh>) -> tensor<32x32xbf16, #b> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x32xbf16, #sh> -> tensor<32x32xbf16, #b>
  func.return %r : tensor<32x32xbf16, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1]}>

// A bf16 B operand [K, N] = [16, 8], K contiguous: one mma tile is only 2 registers per lane
// (k pairs 2t, 2t+1 and 2t+8, 2t+9 of column g), so .x4 does not divide them and the pass
// takes the next form, one .x2 without .trans (each of the 8 columns is a 16-byte row of K).
// CHECK-LABEL: func.func @bf16_b_k_major_one_tile
// CHECK:       %[[R0:.*]], %[[R1:.*]] = ptx.ldmatrix m8n8 x2 b16 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]], %[[R1]] : i32, i32 to tensor<16x8xbf16, #qgpu.dot_op<{opIdx = 1,
// CHECK-NOT:   ptx.ldmatrix
// CHECK-NOT:   ptx.ld_shared
func.func @bf16_b_k_major_one_tile(%m: !qgpu.memdesc<16x8xbf16, #sh>) -> tensor<16x8xbf16, #b> {
  %r = qgpu.local_load %m : !qgpu.memdesc<16x8xbf16, #sh> -> tensor<16x8xbf16, #b>
  func.return %r : tensor<16x8xbf16, #b>
}

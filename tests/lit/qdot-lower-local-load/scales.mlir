// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// Block scales read into the #qgpu.dot_scale layouts. The four lanes of a quad hold the same
// rows' scales; ldmatrix .m8n8 .x2 .trans .b16 delivers exactly that when several row
// addresses point at the same 16 bytes (tests/passes/test_local_load_equivalence.py checks
// every byte). Over several warps no form fits and the scalar path reads them. A tile too
// small for .x2 takes .x1 (.trans for A's rows g and g+8; without for B's columns 2t and 2t+1,
// which the four lanes of a quad take side by side, as a non-transposed row delivers them).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>

// CHECK-LABEL: func.func @scale_a
// CHECK:       %[[R0:.*]], %[[R1:.*]] = ptx.ldmatrix m8n8 x2 trans b16 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]], %[[R1]] : i32, i32 to tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   ptx.ld_shared
func.func @scale_a(%m: !qgpu.memdesc<32x2xf8E8M0FNU, #sh>) -> tensor<32x2xf8E8M0FNU, #sa> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x2xf8E8M0FNU, #sh> -> tensor<32x2xf8E8M0FNU, #sa>
  func.return %r : tensor<32x2xf8E8M0FNU, #sa>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 16, perPhase = 32, maxPhase = 1, order = [1, 0]}>

// CHECK-LABEL: func.func @scale_a_four_warps
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       ptx.ld_shared %{{.*}} : i32
// CHECK:       builtin.unrealized_conversion_cast {{.*}} to tensor<128x4xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0,
func.func @scale_a_four_warps(%m: !qgpu.memdesc<128x4xf8E8M0FNU, #sh>) -> tensor<128x4xf8E8M0FNU, #sa> {
  %r = qgpu.local_load %m : !qgpu.memdesc<128x4xf8E8M0FNU, #sh> -> tensor<128x4xf8E8M0FNU, #sa>
  func.return %r : tensor<128x4xf8E8M0FNU, #sa>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// A local_load marked {fallback} takes the scalar path even where ldmatrix fits.
// CHECK-LABEL: func.func @forced_fallback
// CHECK-NOT:   ptx.ldmatrix
// CHECK-COUNT-16: ptx.ld_shared %{{.*}} : i32
func.func @forced_fallback(%m: !qgpu.memdesc<32x64xi8, #sh>) -> tensor<32x64xi8, #a> {
  %r = qgpu.local_load %m {fallback} : !qgpu.memdesc<32x64xi8, #sh> -> tensor<32x64xi8, #a>
  func.return %r : tensor<32x64xi8, #a>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>

// One mma tile of A scales, [16, 2]: lane g·4+t wants rows g and g+8, 32 bytes in all — the
// halves g of two 16-byte rows, one 8×8 .b16 matrix read transposed: a single .x1 .trans.
// CHECK-LABEL: func.func @scale_a_one_tile
// CHECK:       %[[R0:.*]] = ptx.ldmatrix m8n8 x1 trans b16 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]] : i32 to tensor<16x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   ptx.ldmatrix
// CHECK-NOT:   ptx.ld_shared
func.func @scale_a_one_tile(%m: !qgpu.memdesc<16x2xf8E8M0FNU, #sh>) -> tensor<16x2xf8E8M0FNU, #sa> {
  %r = qgpu.local_load %m : !qgpu.memdesc<16x2xf8E8M0FNU, #sh> -> tensor<16x2xf8E8M0FNU, #sa>
  func.return %r : tensor<16x2xf8E8M0FNU, #sa>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>

// B scales follow the accumulator columns 2t, 2t+1, which a non-transposed .b16 row delivers
// (lane 4g+t gets bytes 4t..4t+3 of its row): 8 columns × 2 blocks are one 16-byte row that
// all eight row addresses point at, a single .x1 ...
// CHECK-LABEL: func.func @scale_b_one_tile
// CHECK:       %[[R0:.*]] = ptx.ldmatrix m8n8 x1 b16 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]] : i32 to tensor<8x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NOT:   ptx.ldmatrix
// CHECK-NOT:   ptx.ld_shared
func.func @scale_b_one_tile(%m: !qgpu.memdesc<8x2xf8E8M0FNU, #sh>) -> tensor<8x2xf8E8M0FNU, #sb> {
  %r = qgpu.local_load %m : !qgpu.memdesc<8x2xf8E8M0FNU, #sh> -> tensor<8x2xf8E8M0FNU, #sb>
  func.return %r : tensor<8x2xf8E8M0FNU, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>

// ... and 16 columns (two n tiles) two such rows, one .x2 without .trans.
// CHECK-LABEL: func.func @scale_b_two_tiles
// CHECK:       %[[R0:.*]], %[[R1:.*]] = ptx.ldmatrix m8n8 x2 b16 %{{.*}}
// CHECK-NEXT:  builtin.unrealized_conversion_cast %[[R0]], %[[R1]] : i32, i32 to tensor<16x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NOT:   ptx.ldmatrix
// CHECK-NOT:   ptx.ld_shared
func.func @scale_b_two_tiles(%m: !qgpu.memdesc<16x2xf8E8M0FNU, #sh>) -> tensor<16x2xf8E8M0FNU, #sb> {
  %r = qgpu.local_load %m : !qgpu.memdesc<16x2xf8E8M0FNU, #sh> -> tensor<16x2xf8E8M0FNU, #sb>
  func.return %r : tensor<16x2xf8E8M0FNU, #sb>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sw = #qgpu.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// q4_K's decoded f32 scales, a row's eight sub-blocks contiguous and its two 16-byte chunks swizzled
// (qdot-accelerate-matmul's decode-once buffer, tests/lit/qdot-accelerate-matmul/decoded-scale-order.mlir):
// each of a thread's four rows is two ld.shared.v4 whose registers are bitcast to f32; the swizzle moves
// whole chunks, so the second chunk's address is the first's XOR 16 (its row's bit 2 may have swapped them).
// CHECK-LABEL: func.func @decoded_scales_swizzled
// CHECK-NOT:   ptx.ld_shared %{{.*}} : i32
// CHECK:       arith.addi %{{[0-9]+}}, %[[ROW:[0-9]+]] : i32
// CHECK-NEXT:  %[[V:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NEXT:  %[[W0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.unpack %[[V]] : vector<4xi32> -> i32, i32, i32, i32
// CHECK-NEXT:  arith.bitcast %[[W0]] : i32 to f32
// CHECK-COUNT-3: arith.bitcast
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  arith.xori %[[ROW]], %[[SIXTEEN]] : i32
// CHECK-COUNT-7: ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.ld_shared
func.func @decoded_scales_swizzled(%m: !qgpu.memdesc<64x8xf32, #sw>) -> tensor<64x8xf32, #sa> {
  %r = qgpu.local_load %m : !qgpu.memdesc<64x8xf32, #sw> -> tensor<64x8xf32, #sa>
  func.return %r : tensor<64x8xf32, #sa>
}

// --print-layout: every distributed tensor and buffer type, in order of first appearance.
// RUN: qdot-opt %s --print-layout | filecheck %s

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#mma21 = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#sw = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#pad = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 2, order = [1, 0], fp4Padded = true}>

// The A operand of m16n8k32 (ptx.md §3.1): lane 5 = (g 1, t 1), register 1 = row g+8, k 4t..4t+3.
// CHECK:      tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>>:
// CHECK-NEXT:   1 warp(s) x 32 lanes x 4 register(s); 8-bit values, 4 per register
// CHECK-NEXT:   warp 0 lane 0 reg 0: (0, 0) (0, 1) (0, 2) (0, 3)
// CHECK:        warp 0 lane 5 reg 1: (9, 4) (9, 5) (9, 6) (9, 7)
// CHECK:        warp 0 lane 31 reg 3: (15, 28) (15, 29) (15, 30) (15, 31)
// CHECK-NEXT:   grid (row \ column; cell = lowest owner W<warp>T<lane>:<reg>.<byte>, +n = further copies):
// CHECK-NEXT:   {{ +}}0{{ +}}1{{ +}}2{{ +}}3{{ +}}4{{ .*}} 31
// CHECK-NEXT:   0 T0:0.0 T0:0.1 T0:0.2 T0:0.3 T1:0.0 {{.*}} T3:2.3
// CHECK:        9 T4:1.0 T4:1.1 T4:1.2 T4:1.3 T5:1.0 {{.*}} T7:3.3

// The fp4Unpacked B operand: one fp4 value per byte, coordinates (packed k, n, nibble).
// CHECK:      tensor<16x8xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}fp4Unpacked = true}>>:
// CHECK-NEXT:   1 warp(s) x 32 lanes x 2 register(s); 8-bit values, 4 per register
// CHECK-NEXT:   coordinates (row, packed column, nibble) for A, (packed row, column, nibble) for B
// CHECK:        warp 0 lane 5 reg 1: (10, 1, 0) (10, 1, 1) (11, 1, 0) (11, 1, 1)
// CHECK:        grid (rows are fp4 values (packed element r, nibble h -> 2r+h)
// CHECK:        20 T1:1.0 T5:1.0 T9:1.0 T13:1.0 T17:1.0 T21:1.0 T25:1.0 T29:1.0

// The accumulator: c_i at row g + 8(i >> 1), column 2t + (i & 1).
// CHECK:      tensor<16x8xf32, #qgpu.mma<{{.*}}>>:
// CHECK-NEXT:   1 warp(s) x 32 lanes x 4 register(s); 32-bit values, 1 per register
// CHECK:        warp 0 lane 5 reg 1: (1, 3)
// CHECK:        warp 0 lane 5 reg 2: (9, 2)

// Scales of the B side: lane 5 (t = 1) holds the scales of columns 2 and 3; the rest is padding.
// CHECK:      tensor<8x1xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, {{.*}}>>:
// CHECK:        warp 0 lane 5 reg 0: (2, 0) (3, 0) - -
// CHECK:        0 T0:0.0+7

// CHECK:      tensor<8x16xi8, #qgpu.blocked<{{.*}}>>:
// CHECK:        warp 0 lane 1 reg 0: (0, 4) (0, 5) (0, 6) (0, 7)
// CHECK:        warp 0 lane 4 reg 0: (1, 0) (1, 1) (1, 2) (1, 3)

// Two warps along M: cells of warp 1 say so.
// CHECK:      tensor<32x8xf32, #qgpu.mma<{{.*}}warpsPerCTA = [2, 1]{{.*}}>>:
// CHECK-NEXT:   2 warp(s) x 32 lanes x 4 register(s)
// CHECK:        warp 1 lane 0 reg 0: (16, 0)
// CHECK:        16 W1T0:0.0 W1T0:1.0

// Swizzled rows: phase (row // 2) % 4 XORs the 16-byte chunk index.
// CHECK:      !qgpu.memdesc<16x64xi8, #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>>:
// CHECK-NEXT:   16 row(s) x 64 bytes = 1024 bytes; allocation 1024 bytes
// CHECK-NEXT:   contiguous dim 1, rows along dim(s) [0]; swizzle unit 16 bytes, perPhase 2, maxPhase 4
// CHECK-NEXT:   row 0 (d0=0): [0..63]@0
// CHECK-NEXT:   row 1 (d0=1): [0..63]@64
// CHECK-NEXT:   row 2 (d0=2): [0..15]@144 [16..31]@128 [32..47]@176 [48..63]@160

// fp4Padded: 8 data bytes then 8 padding bytes; stages repeat every buffer.
// CHECK:      !qgpu.memdesc<2x8x32xi8, #qgpu.shared<{{.*}}fp4Padded = true}>, mutable>:
// CHECK-NEXT:   2 stage(s) of 8 row(s) x 64 bytes = 512 bytes per stage; allocation 1024 bytes
// CHECK-NEXT:   contiguous dim 2, rows along dim(s) [1]; swizzle unit 16 bytes, perPhase 2, maxPhase 2; fp4Padded: bytes 8..15 of every 16 are padding
// CHECK-NEXT:   row 0 (d1=0): [0..7]@0 [8..15]@16 [16..23]@32 [24..31]@48
// CHECK-NEXT:   row 1 (d1=1): [0..7]@64 [8..15]@80 [16..23]@96 [24..31]@112
// CHECK-NEXT:   row 2 (d1=2): [0..7]@144 [8..15]@128 [16..23]@176 [24..31]@160

// An encoding that does not fit its tensor is reported, not a crash.
// CHECK:      tensor<16x32xi8, #qgpu.dot_op<{{.*}}kWidth = 2}>>:
// CHECK-NEXT:   error: kWidth = 2 is not valid for 8-bit elements: it must be 4, 8 or 16
// CHECK-NOT:  tensor<

func.func @layouts(%a: tensor<16x32xi8, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>,
                   %sb: tensor<8x1xf8E8M0FNU, #sb>, %t: tensor<8x16xi8, #blocked>, %c2: tensor<32x8xf32, #mma21>,
                   %m: !qgpu.memdesc<16x64xi8, #sw>, %p: !qgpu.memdesc<2x8x32xi8, #pad, mutable>,
                   %bad: tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>) {
  "test.op"(%a, %c, %m) : (tensor<16x32xi8, #a>, tensor<16x8xf32, #mma>, !qgpu.memdesc<16x64xi8, #sw>) -> ()
  func.return
}

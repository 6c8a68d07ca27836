// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s
// Layouts no ldmatrix form delivers fall back to scalar ld.shared: a whole 32-bit register
// when its four bytes are contiguous in shared memory, single bytes otherwise (two 16-bit
// halves when they are contiguous at a 2-byte aligned place: q4_0-block-parts.mlir,
// halves-swizzled.mlir).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a8 = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// kWidth 8 (8-bit values to be unpacked later): each thread holds 8 consecutive K bytes,
// which no ldmatrix distribution gives; every register is one aligned 4-byte load.
// CHECK-LABEL: func.func @kwidth8
// CHECK-NOT:   ptx.ldmatrix
// CHECK-COUNT-16: ptx.ld_shared %{{.*}} : i32
// CHECK-NOT:   ptx.ld_shared
func.func @kwidth8(%m: !qgpu.memdesc<32x64xi8, #sh>) -> tensor<32x64xi8, #a8> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x64xi8, #sh> -> tensor<32x64xi8, #a8>
  func.return %r : tensor<32x64xi8, #a8>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// An 8-bit B operand stored N-contiguous: a register's 4 K values are 4 rows apart, so they
// are loaded byte by byte and packed with shifts. (8-bit data has no .m8n8 .trans form.)
// CHECK-LABEL: func.func @i8_b_n_major
// CHECK-NOT:   ptx.ldmatrix
// CHECK:       %[[B0:.*]] = ptx.ld_shared %{{.*}} : i8
// CHECK-NEXT:  %[[W0:.*]] = arith.extui %[[B0]] : i8 to i32
// CHECK:       %[[B1:.*]] = ptx.ld_shared %{{.*}} : i8
// CHECK-NEXT:  %[[W1:.*]] = arith.extui %[[B1]] : i8 to i32
// CHECK-NEXT:  %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[W1]], %[[EIGHT]] : i32
// CHECK-NEXT:  arith.ori %{{.*}}, %[[S1]] : i32
// CHECK-COUNT-62: ptx.ld_shared %{{.*}} : i8
// CHECK-NOT:   ptx.ld_shared
func.func @i8_b_n_major(%m: !qgpu.memdesc<64x32xi8, #sh>) -> tensor<64x32xi8, #b> {
  %r = qgpu.local_load %m : !qgpu.memdesc<64x32xi8, #sh> -> tensor<64x32xi8, #b>
  func.return %r : tensor<64x32xi8, #b>
}

// -----

#run = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#half = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#plain = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// A thread's 16-byte aligned run (a row of 16 bytes here, as the dequantize-once conversion
// reads its raw tile) is one ld.shared.v4, split into its four registers by ptx.unpack.
// CHECK-LABEL: func.func @runs_of_16_bytes
// CHECK:       %[[V:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = ptx.unpack %[[V]] : vector<4xi32> -> i32, i32, i32, i32
// CHECK-NOT:   ptx.ld_shared
func.func @runs_of_16_bytes(%m: !qgpu.memdesc<32x16xi8, #plain>) -> tensor<32x16xi8, #run> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x16xi8, #plain> -> tensor<32x16xi8, #run>
  func.return %r : tensor<32x16xi8, #run>
}

// Runs of 8 bytes: the second lane of a row starts 8 bytes in, so no 16-byte vector; each
// register is its own 4-byte load.
// CHECK-LABEL: func.func @runs_of_8_bytes
// CHECK-COUNT-2: ptx.ld_shared %{{.*}} : i32
// CHECK-NOT:   ptx.ld_shared
func.func @runs_of_8_bytes(%m: !qgpu.memdesc<16x16xi8, #plain>) -> tensor<16x16xi8, #half> {
  %r = qgpu.local_load %m : !qgpu.memdesc<16x16xi8, #plain> -> tensor<16x16xi8, #half>
  func.return %r : tensor<16x16xi8, #half>
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// How the warps tile the output (warpsPerCTA of #qgpu.mma): each warp takes a whole number
// of 16×8 mma tiles, and the grid keeps each warp's tile as square as possible; a tie goes
// to more warps along M.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @one_warp
// CHECK:       qgpu.mma {{.*}} -> tensor<32x32xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
func.func @one_warp(%a: tensor<32x32xi8>, %b: tensor<32x32xi8>, %acc: tensor<32x32xi32, #bl>) -> tensor<32x32xi32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32, #bl>
  func.return %d : tensor<32x32xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>

// 4 warps over 64×64: 2×2 warps of 32×32.
// CHECK-LABEL: func.func @four_warps_square
// CHECK:       qgpu.mma {{.*}} -> tensor<64x64xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
func.func @four_warps_square(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %acc: tensor<64x64xi32, #bl>) -> tensor<64x64xi32, #bl>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32, #bl>
  func.return %d : tensor<64x64xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>

// No qdot.num_warps: the default of 4 warps.
// CHECK-LABEL: func.func @default_warps
// CHECK:       qgpu.mma {{.*}} -> tensor<64x64xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
func.func @default_warps(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %acc: tensor<64x64xi32, #bl>) -> tensor<64x64xi32, #bl> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32, #bl>
  func.return %d : tensor<64x64xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>

// 4 warps over 64×32: [2, 2] (32×16 tiles) and [4, 1] (16×32) are equally square; M wins.
// CHECK-LABEL: func.func @four_warps_tie
// CHECK:       qgpu.mma {{.*}} -> tensor<64x32xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>>
func.func @four_warps_tie(%a: tensor<64x32xi8>, %b: tensor<32x32xi8>, %acc: tensor<64x32xi32, #bl>) -> tensor<64x32xi32, #bl>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<64x32xi8> * tensor<32x32xi8> -> tensor<64x32xi32, #bl>
  func.return %d : tensor<64x32xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>

// A 16-row tile has room for one warp along M: all 4 go along N.
// CHECK-LABEL: func.func @four_warps_wide
// CHECK:       qgpu.mma {{.*}} -> tensor<16x64xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], instrShape = [16, 8]}>>
func.func @four_warps_wide(%a: tensor<16x32xi8>, %b: tensor<32x64xi8>, %acc: tensor<16x64xi32, #bl>) -> tensor<16x64xi32, #bl>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<16x32xi8> * tensor<32x64xi8> -> tensor<16x64xi32, #bl>
  func.return %d : tensor<16x64xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 2], order = [1, 0]}>

// 8 warps over 128×64: [4, 2] gives square 32×32 warp tiles.
// CHECK-LABEL: func.func @eight_warps
// CHECK:       qgpu.mma {{.*}} -> tensor<128x64xi32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>>
func.func @eight_warps(%a: tensor<128x32xi8>, %b: tensor<32x64xi8>, %acc: tensor<128x64xi32, #bl>) -> tensor<128x64xi32, #bl>
    attributes {qdot.num_warps = 8 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<128x32xi8> * tensor<32x64xi8> -> tensor<128x64xi32, #bl>
  func.return %d : tensor<128x64xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 2], order = [1, 0]}>

// 8 warps over 64×128 (bf16): [2, 4] gives square 32×32 warp tiles.
// CHECK-LABEL: func.func @eight_warps_wide
// CHECK:       qgpu.mma {{.*}} -> tensor<64x128xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>>
func.func @eight_warps_wide(%a: tensor<64x32xbf16>, %b: tensor<32x128xbf16>, %acc: tensor<64x128xf32, #bl>) -> tensor<64x128xf32, #bl>
    attributes {qdot.num_warps = 8 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<64x32xbf16> * tensor<32x128xbf16> -> tensor<64x128xf32, #bl>
  func.return %d : tensor<64x128xf32, #bl>
}

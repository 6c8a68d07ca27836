// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-int8}' | filecheck %s
// strategy=promote-int8: values that are small integers after a power-of-two shift become s8
// (e2m1 × 2, e2m3 × 8); the s8 mma sums one scale block exactly in i32 and the fp32
// accumulator takes each block sum times its scales and 2^-(shifts) (rescale = "per_block").

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// MXFP4 × MXFP4: both sides upcast e2m1 → s8 (packed 4 bytes in, 8 s8 values out per
// thread: kWidth 4 → 8), the shifts recorded as qdot.exp = [1, 1], the ue8m0 scales
// given to the per-block rescale as they are.
// CHECK-LABEL: func.func @mxf4
// A (K contiguous) is converted to s8 once per CTA: blocked runs of 32 values (16 packed bytes),
// the 16-entry table (× 2, exact), stored as s8 and read back in the ISA arrangement; B, a function
// argument not known to be K-contiguous, is converted in registers (8 wide).
// CHECK:       %[[ARAW:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.blocked<{sizePerThread = [1, 16], {{.*}}}>>
// CHECK:       %[[AUP:.*]] = qgpu.upcast %[[ARAW]] from = e2m1 to = s8 : {{.*}} -> tensor<32x64xi8, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// CHECK:       %[[ABUF:.*]] = qgpu.local_alloc %[[AUP]]
// CHECK:       %[[AR:.*]] = qgpu.local_load %[[ABUF]] : {{.*}} -> tensor<32x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 8}>>
// CHECK:       %[[BP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %[[BP]] from = e2m1 to = s8 : {{.*}} -> tensor<64x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// CHECK:       %[[SA:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:       %[[SB:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale %[[SA]], %[[SB]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.exp = array<i64: 1, 1>, rescale = "per_block"}
// CHECK-SAME:  -> tensor<32x32xf32, [[MMA]]>
func.func @mxf4(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// Unscaled e2m1 × e2m1: an f32 accumulator still needs the 2^-2 of the shifts, so the mma
// rescales per block with unit f32 scales (splat constants in the dot_scale layouts), one
// block per 32-value mma k tile: [rows, K / 32] = [32, 2].
// CHECK-LABEL: func.func @e2m1_e2m1_unscaled
// CHECK:       %[[UA:.*]] = arith.constant dense<1.000000e+00> : tensor<32x2xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]]}>>
// CHECK:       %[[UB:.*]] = arith.constant dense<1.000000e+00> : tensor<32x2xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %[[UA]], %[[UB]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.exp = array<i64: 1, 1>, rescale = "per_block"}
func.func @e2m1_e2m1_unscaled(%a: tensor<32x32xi8>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = e2m1 : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m3 (fp6, values k/8) × e2m1: shifts 3 and 1; e2m3 travels one value per byte, so its
// upcast keeps the shape and kWidth 8.
// CHECK-LABEL: func.func @e2m3_e2m1
// CHECK:       qgpu.upcast %{{.*}} from = e2m3 to = s8 : tensor<32x64xf6E2M3FN, #qgpu.blocked<{{.*}}>> -> tensor<32x64xi8, #qgpu.blocked<{{.*}}>>
// CHECK:       %[[AR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x64xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 8}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = s8 :
// CHECK:       qgpu.mma %[[AR]], %[[BR]], {{.*}} {qdot.strategy = "promote-int8", qdot.exp = array<i64: 3, 1>, rescale = "per_block"}
func.func @e2m3_e2m1(%a: tensor<32x64xf6E2M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m3 rhs = e2m1 : tensor<32x64xf6E2M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

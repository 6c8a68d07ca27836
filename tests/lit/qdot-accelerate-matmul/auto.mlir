// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s --check-prefixes=CHECK,SM80
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=auto}' | filecheck %s --check-prefixes=CHECK,SM89
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=auto}' | filecheck %s --check-prefixes=CHECK,SM90
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a}' | filecheck %s --check-prefixes=CHECK,SM90
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=auto}' | filecheck %s --check-prefixes=CHECK,SM120
// strategy=auto (the default) picks the fastest legal strategy for the arch: native on the
// sm_120a family, promote-fp8 on sm_89 for fp8-class pairs, dequant-bf16 on sm_90 / sm_90a
// (measured faster than promote-int8 there, run 134), elsewhere promote-int8 where both
// formats are small integers after a shift, else dequant-bf16 — never sm_90's emulated fp8 mma.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @mxfp4_mxfp4
// SM80:        qgpu.mma {{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.exp = array<i64: 1, 1>, rescale = "per_block"}
// SM89:        qgpu.mma {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// SM90:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM120:       qgpu.mma {{.*}} lhs = e2m1 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
func.func @mxfp4_mxfp4(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                       %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @mxfp8_mxfp4
// SM80:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM89:        qgpu.mma {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// SM90:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM120:       qgpu.mma {{.*}} lhs = e4m3 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
func.func @mxfp8_mxfp4(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                       %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @e4m3_e2m1_unscaled
// SM80:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM89:        qgpu.mma {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8"}
// SM90:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM120:       qgpu.mma {{.*}} lhs = e4m3 rhs = e2m1 {qdot.strategy = "native"}
func.func @e4m3_e2m1_unscaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// 16-bit floats run on the bf16 mma on every arch.
// CHECK-LABEL: func.func @bf16_bf16
// CHECK:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @bf16_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// i8 × i8 with an i32 accumulator: the s8 mma, summing in i32 with no rescale, everywhere.
// CHECK-LABEL: func.func @i8_i8
// CHECK:       qgpu.mma {{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8"} : {{.*}} -> tensor<32x32xi32, #qgpu.mma
func.func @i8_i8(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>, %acc: tensor<32x32xi32, #bl>) -> tensor<32x32xi32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<32x64xi8> * tensor<64x32xi8> -> tensor<32x32xi32, #bl>
  func.return %d : tensor<32x32xi32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m3 (× 8) is a small integer too: promote-int8 on sm_80, dequant-bf16 on Hopper.
// CHECK-LABEL: func.func @mxfp6_mxfp4
// SM80:        qgpu.mma {{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.exp = array<i64: 3, 1>, rescale = "per_block"}
// SM89:        qgpu.mma {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// SM90:        qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// SM120:       qgpu.mma {{.*}} lhs = e2m3 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
func.func @mxfp6_mxfp4(%a: tensor<32x64xf6E2M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                       %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m3 rhs = e2m1
     : tensor<32x64xf6E2M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

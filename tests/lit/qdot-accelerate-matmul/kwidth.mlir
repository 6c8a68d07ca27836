// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefix=FP8
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s --check-prefix=BF16
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s --check-prefix=NATIVE
// The kWidth of the dot operands (consecutive K elements per thread in the registers the
// mma reads): the ISA arrangement (4) unless a conversion needs more values per thread
// without moving them between threads. Both sides of one mma always agree.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// fp8 × fp8 needs no conversion under promote-fp8 (ISA: 4); converted to bf16 the values
// stay where they are, so the fp8 sources are read 8 wide (= 16 bytes of bf16).
// FP8-LABEL:    func.func @e4m3_e4m3
// FP8:          qgpu.mma {{.*}} : tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>, tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 4}>>
// Under dequant-bf16 A (K contiguous) is dequantized once per CTA into a bf16 buffer; B, a
// function argument not known to be K-contiguous, is converted in registers, 8 wide.
// BF16-LABEL:   func.func @e4m3_e4m3
// BF16:         qgpu.local_load %{{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// BF16:         qgpu.local_load %{{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
// BF16:         qgpu.mma {{.*}} : tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 8}>>, tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
// NATIVE-LABEL: func.func @e4m3_e4m3
// NATIVE:       qgpu.mma {{.*}} : tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>, tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 4}>>
func.func @e4m3_e4m3(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e4m3 : tensor<32x64xf8E4M3FN> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// A packed e2m1 operand unpacked in registers: 4 packed bytes hold 8 values, so the 8-bit mma
// operands are 8 wide on both sides. Native keeps the ISA arrangement instead: the fp4Unpacked
// operand counts 2 packed bytes (4 values, one per register byte).
// FP8-LABEL:    func.func @e4m3_e2m1
// FP8:          qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 4}>>
// FP8:          qgpu.mma {{.*}} : tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 8}>>, tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
// BF16-LABEL:   func.func @e4m3_e2m1
// BF16:         qgpu.mma {{.*}} : tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 8}>>, tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
// NATIVE-LABEL: func.func @e4m3_e2m1
// NATIVE:       qgpu.mma {{.*}} : tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>, tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 2, fp4Unpacked = true}>>
func.func @e4m3_e2m1(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// fp6 travels one value per byte: promoted to e4m3 it keeps the ISA arrangement (4).
// FP8-LABEL:    func.func @e2m3_e2m3
// FP8:          qgpu.upcast %{{.*}} from = e2m3 to = e4m3 : tensor<32x64xf6E2M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>> -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>
// BF16-LABEL:   func.func @e2m3_e2m3
// BF16:         qgpu.upcast %{{.*}} from = e2m3 to = bf16 : tensor<32x64xf6E2M3FN, #qgpu.blocked<{{.*}}>> -> tensor<32x64xbf16, #qgpu.blocked<{{.*}}>>
// BF16:         qgpu.upcast %{{.*}} from = e2m3 to = bf16 : tensor<64x32xf6E2M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>> -> tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
// NATIVE-LABEL: func.func @e2m3_e2m3
// NATIVE:       qgpu.mma {{.*}} lhs = e2m3 rhs = e2m3 {{.*}} : tensor<32x64xf6E2M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>
func.func @e2m3_e2m3(%a: tensor<32x64xf6E2M3FN>, %b: tensor<64x32xf6E2M3FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m3 rhs = e2m3 : tensor<32x64xf6E2M3FN> * tensor<64x32xf6E2M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// MXFP4 × MXFP4, native: both operands stay packed for the k64 mxf4 mma, 4 bytes (8 values)
// per thread and k tile.
// NATIVE-LABEL: func.func @mxf4
// NATIVE:       qgpu.mma {{.*}} : tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>, tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 4}>>
// BF16-LABEL:   func.func @mxf4
// BF16:         qgpu.upcast {{.*}} -> tensor<32x64xbf16, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// BF16:         qgpu.upcast {{.*}} -> tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 8}>>
func.func @mxf4(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

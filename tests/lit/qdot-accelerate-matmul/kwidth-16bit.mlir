// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=KWIDTH
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90},qdot-lower-local-load{arch=sm_90}' | filecheck %s --check-prefix=LOAD
// The kWidth of 16-bit operands the mma reads as they are, and the ldmatrix that kWidth lets
// qdot-lower-local-load use (kwidth.mlir has the converted operands').
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// 16-bit operands the mma reads as they are (bf16 × bf16, fp16 × fp16): the ISA arrangement
// of the k16 mma, 2 values per register, which ldmatrix .b16 delivers. fp16 took kWidth 4
// until the remarks showed its operands read with scalar ld.shared.
// KWIDTH-LABEL:   func.func @fp16_fp16
// LOAD-LABEL:   func.func @fp16_fp16
// LOAD-NOT:     ptx.ld_shared
// LOAD-COUNT-16: ptx.ldmatrix m8n8 x4 {{(trans )?}}b16
// LOAD-NOT:     ptx.ld_shared
// KWIDTH:         qgpu.mma {{.*}} lhs = fp16 rhs = fp16 {{.*}} : tensor<32x64xf16, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 2}>>, tensor<64x32xf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 2}>>
func.func @fp16_fp16(%a: tensor<32x64xf16>, %b: tensor<64x32xf16>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<32x64xf16> * tensor<64x32xf16> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// KWIDTH-LABEL:   func.func @bf16_bf16
// LOAD-LABEL:   func.func @bf16_bf16
// LOAD-NOT:     ptx.ld_shared
// LOAD-COUNT-16: ptx.ldmatrix m8n8 x4 {{(trans )?}}b16
// LOAD-NOT:     ptx.ld_shared
// KWIDTH:         qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {{.*}} : tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 2}>>, tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 2}>>
func.func @bf16_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s --check-prefix=INT8
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefix=FP8
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s --check-prefix=BF16
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=AUTO
// Requests a strategy cannot run, refused at the dot with the reason (never a qgpu.mma that
// fails verification). Each RUN line checks the cases illegal under its options, in file order.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// NVFP4: ue4m3 scales per 16 values. The s8 and fp8 mma k tiles are 32 wide (two scale
// groups) and a per-block rescale applies one group per tile, so promote-int8 and
// promote-fp8 refuse; dequant-bf16 (auto's pick) folds the scales into bf16.
func.func @nvfp4(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                 %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// INT8: strategy-refusals.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' cannot apply scales per 16 values (NVFP4 ue4m3): the s8 mma k tile spans 32 values, two scale groups; use 'dequant-bf16', which folds them exactly
// FP8:  strategy-refusals.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' cannot apply scales per 16 values (NVFP4 ue4m3): the fp8 mma k tile spans 32 values, two scale groups; use 'dequant-bf16', which folds them exactly
// BF16-LABEL: func.func @nvfp4
// BF16:       qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16
// BF16:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
// AUTO-LABEL: func.func @nvfp4
// AUTO:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// A ue4m3 scale on one side only is still a 16-value group.
func.func @nvfp4_one_sided(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>,
                           %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// INT8: strategy-refusals.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' cannot apply scales per 16 values
// FP8:  strategy-refusals.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' cannot apply scales per 16 values
// AUTO-LABEL: func.func @nvfp4_one_sided
// AUTO:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// fp4 packed along N (B is [K, N/2]): the fp8 and s8 mma fragments hold fp4 pairs along K,
// so promote-int8 and promote-fp8 refuse; dequant-bf16 (auto's pick) unpacks it along N
// once per CTA (tests/lit/qdot-accelerate-matmul/n-packed-fp4.mlir shows that plan).
func.func @n_packed(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN> * tensor<64x16xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// INT8: strategy-refusals.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' needs fp4 packed along K (rhs packed along N): the promote-int8 mma fragments hold fp4 pairs along K; use 'dequant-bf16' (or 'auto')
// FP8:  strategy-refusals.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs fp4 packed along K (rhs packed along N)
// BF16-LABEL: func.func @n_packed
// BF16:       qgpu.upcast %{{.*}} from = e2m1 to = bf16 : tensor<64x16xi8, {{.*}}> -> tensor<64x32xbf16
// AUTO-LABEL: func.func @n_packed
// AUTO:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// fp4 packed along M must come from a tile contiguous along M (A column-major): the
// cooperative upcast unpacks along the contiguous dimension. This A is K-contiguous.
func.func @m_packed(%a: tensor<16x64xi8>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = e4m3 {lhs_k_pack = false}
     : tensor<16x64xi8> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// INT8: strategy-refusals.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' needs fp4 packed along K (lhs packed along M)
// FP8:  strategy-refusals.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs fp4 packed along K (lhs packed along M)
// BF16: strategy-refusals.mlir:[[# @LINE - 6]]:3: error: 'qdot.dot_scaled' op lhs e2m1 packed along M must be loaded from a tile that is contiguous along M with a whole number of 32-value runs per row (a power of two of them, at most 32), got a tile of [16, 64] bytes contiguous along dimension 1
// AUTO: strategy-refusals.mlir:[[# @LINE - 7]]:3: error: 'qdot.dot_scaled' op lhs e2m1 packed along M must be loaded from a tile that is contiguous along M

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// bf16 × fp16: neither 16-bit mma type holds the other's values (fp16 lacks bf16's range, bf16
// fp16's mantissa), so dequant-bf16 refuses rather than convert one side in registers (it made
// the bf16 side fp16: NaN past 65504), and no other strategy takes 16-bit floats.
func.func @bf16_fp16(%a: tensor<32x32xbf16>, %b: tensor<32x32xf16>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = fp16
     : tensor<32x32xbf16> * tensor<32x32xf16> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
// INT8: strategy-refusals.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers
// FP8:  strategy-refusals.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' takes fp8/fp6/fp4 operands; lhs is bf16
// BF16: strategy-refusals.mlir:[[# @LINE - 6]]:3: error: 'qdot.dot_scaled' op bf16 × fp16 has no exact 16-bit mma type: fp16 lacks bf16's exponent range (bf16 values overflow or round in it) and bf16 fp16's 11 significant bits; convert one operand to the other's type in the IR, where the rounding is yours to choose
// AUTO: strategy-refusals.mlir:[[# @LINE - 7]]:3: error: 'qdot.dot_scaled' op no strategy runs bf16 × fp16 on sm_90: bf16 × fp16 has no exact 16-bit mma type

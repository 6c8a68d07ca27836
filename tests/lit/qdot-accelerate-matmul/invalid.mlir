// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=native}' > %t.native-sm90
// RUN: filecheck %s --check-prefix=NATIVE-SM90 < %t.native-sm90
// RUN: grep -c ' error: ' %t.native-sm90 | filecheck %s --check-prefix=NATIVE-SM90-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-fp8}' > %t.fp8-sm80
// RUN: filecheck %s --check-prefix=FP8-SM80 < %t.fp8-sm80
// RUN: grep -c ' error: ' %t.fp8-sm80 | filecheck %s --check-prefix=FP8-SM80-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' > %t.fp8-sm89
// RUN: filecheck %s --check-prefix=FP8-SM89 < %t.fp8-sm89
// RUN: grep -c ' error: ' %t.fp8-sm89 | filecheck %s --check-prefix=FP8-SM89-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' > %t.int8
// RUN: filecheck %s --check-prefix=INT8 < %t.int8
// RUN: grep -c ' error: ' %t.int8 | filecheck %s --check-prefix=INT8-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' > %t.native
// RUN: filecheck %s --check-prefix=NATIVE < %t.native
// RUN: grep -c ' error: ' %t.native | filecheck %s --check-prefix=NATIVE-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' > %t.bf16
// RUN: filecheck %s --check-prefix=BF16 < %t.bf16
// RUN: grep -c ' error: ' %t.bf16 | filecheck %s --check-prefix=BF16-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.auto
// RUN: filecheck %s --check-prefix=AUTO < %t.auto
// RUN: grep -c ' error: ' %t.auto | filecheck %s --check-prefix=AUTO-COUNT
// RUN: not qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_70}' 2>&1 | filecheck %s --check-prefix=ARCH
// RUN: not qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{strategy=fast}' 2>&1 | filecheck %s --check-prefix=STRATEGY
// RUN: not qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{num-warps=4}' 2>&1 | filecheck %s --check-prefix=OPTION
// Every request qdot-accelerate-matmul refuses, as a diagnostic at the dot (or, for bad
// options, at the command line). Each option set's CHECKs name every diagnostic it produces, in
// file order (one dot per case), and its COUNT line how many there are, so a diagnostic no
// CHECK names fails the test.

// NATIVE-SM90-COUNT: {{^8$}}
// FP8-SM80-COUNT: {{^9$}}
// FP8-SM89-COUNT: {{^6$}}
// INT8-COUNT: {{^8$}}
// NATIVE-COUNT: {{^6$}}
// BF16-COUNT: {{^3$}}
// AUTO-COUNT: {{^2$}}
// ARCH:     qdot-opt: error: qdot-accelerate-matmul: unknown arch 'sm_70'; expected one of sm_80, sm_86, sm_89, sm_90, sm_90a, sm_120a, sm_120f, sm_121a
// STRATEGY: error: qdot-accelerate-matmul: unknown strategy 'fast'; expected one of auto, native, promote-fp8, promote-int8, dequant-bf16
// OPTION:   qdot-opt: error: qdot-accelerate-matmul has no option 'num-warps'; its options are: arch, strategy, q4k-fold

func.func @e4m3_e2m1(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got sm_80
// INT8:        error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is e4m3

// -----

func.func @e2m1_e5m2(%a: tensor<32x32xi8>, %b: tensor<64x32xf8E5M2>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = e5m2 : tensor<32x32xi8> * tensor<64x32xf8E5M2> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// INT8: error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); rhs is e5m2
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got sm_80

// -----

// On sm_89, which has the fp8 mma, promote-fp8 gets as far as its operand check: bf16 is not an
// fp8/fp6/fp4 format.
func.func @bf16_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// NATIVE: error: 'qdot.dot_scaled' op strategy 'native' takes fp8/fp6/fp4 operands; lhs is bf16
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got sm_80
// INT8:        error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is bf16
// FP8-SM89: invalid.mlir:[[# @LINE - 7]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' takes fp8/fp6/fp4 operands; lhs is bf16

// -----

func.func @i8_i8(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>, %acc: tensor<32x32xi32>) -> tensor<32x32xi32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<32x64xi8> * tensor<64x32xi8> -> tensor<32x32xi32>
  func.return %d : tensor<32x32xi32>
}
// FP8-SM80: error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'
// BF16:     error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'dequant-bf16'
// FP8-SM89: invalid.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'

// -----

// The block-scaled instructions take scales on both sides.
func.func @one_sided_hw(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// NATIVE: error: 'qdot.dot_scaled' op the block-scaled mma needs scales on both sides; give the unscaled side unit scales (ue8m0 code 127)
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got sm_80
// INT8:        error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is e4m3

// -----

// NVFP4 scales (ue4m3 per 16) exist only for kind::mxf4nvf4, e2m1 × e2m1.
func.func @nvfp4_mixed(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b, %acc lhs = e2m1 rhs = e4m3
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// NATIVE: error: 'qdot.dot_scaled' op NVFP4 (ue4m3 scales per 16) needs e2m1 × e2m1 for kind::mxf4nvf4
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got sm_80
// INT8:        error: 'qdot.dot_scaled' op strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); rhs is e4m3
// FP8-SM89: invalid.mlir:[[# @LINE - 8]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' cannot apply scales per 16 values (NVFP4 ue4m3)

// -----

// fp4 packed along N cannot feed the mma fragments, which pack fp4 along K.
func.func @n_packed(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN> * tensor<64x16xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
// NATIVE: error: 'qdot.dot_scaled' op strategy 'native' needs K-packed fp4 (the mma fragments pack fp4 along K); use 'dequant-bf16' for M/N-packed fp4
// NATIVE-SM90: error: 'qdot.dot_scaled' op strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got sm_90
// FP8-SM80:    error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs fp4 packed along K (rhs packed along N): the promote-fp8 mma fragments hold fp4 pairs along K; use 'dequant-bf16' (or 'auto')
// INT8:        error: 'qdot.dot_scaled' op strategy 'promote-int8' needs fp4 packed along K (rhs packed along N): the promote-int8 mma fragments hold fp4 pairs along K; use 'dequant-bf16' (or 'auto')
// FP8-SM89: invalid.mlir:[[# @LINE - 8]]:3: error: 'qdot.dot_scaled' op strategy 'promote-fp8' needs fp4 packed along K (rhs packed along N)

// -----

// A 16×8 output is one mma tile: it cannot be shared by 4 warps.
func.func @tile_too_small(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %acc: tensor<16x8xi32>) -> tensor<16x8xi32>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<16x32xi8> * tensor<32x8xi8> -> tensor<16x8xi32>
  func.return %d : tensor<16x8xi32>
}
// AUTO: error: 'qdot.dot_scaled' op the 16×8 output tile cannot be split over 4 warps in 16×8 mma tiles (M must be a multiple of 16·warpsPerCTA[0] and N of 8·warpsPerCTA[1])
// NATIVE-SM90: error: 'qdot.dot_scaled' op the 16×8 output tile cannot be split over 4 warps in 16×8 mma tiles (M must be a multiple of 16·warpsPerCTA[0] and N of 8·warpsPerCTA[1])
// FP8-SM80:    error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'
// INT8:        error: 'qdot.dot_scaled' op the 16×8 output tile cannot be split over 4 warps in 16×8 mma tiles (M must be a multiple of 16·warpsPerCTA[0] and N of 8·warpsPerCTA[1])
// NATIVE:      error: 'qdot.dot_scaled' op the 16×8 output tile cannot be split over 4 warps in 16×8 mma tiles (M must be a multiple of 16·warpsPerCTA[0] and N of 8·warpsPerCTA[1])
// BF16:        error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'dequant-bf16'
// FP8-SM89: invalid.mlir:[[# @LINE - 9]]:3: error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'

// -----

// 48 rows: no power of two, so no register or shared layout covers the tile (they map the bits of
// an index); refused at the dot before any warp split is tried, naming the dimension.
func.func @tile_not_divisible(%a: tensor<48x32xi8>, %b: tensor<32x16xi8>, %acc: tensor<48x16xi32>) -> tensor<48x16xi32>
    attributes {qdot.num_warps = 4 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<48x32xi8> * tensor<32x16xi8> -> tensor<48x16xi32>
  func.return %d : tensor<48x16xi32>
}
// AUTO: error: 'qdot.dot_scaled' op tile M = 48 is not a power of two: qdot's register and shared layouts map the bits of an index, so a dot's M, N and K per tile must be powers of two (M = 48, N = 16, K = 32 here)
// NATIVE-SM90: error: 'qdot.dot_scaled' op tile M = 48 is not a power of two: qdot's register and shared layouts map the bits of an index, so a dot's M, N and K per tile must be powers of two (M = 48, N = 16, K = 32 here)
// FP8-SM80:    error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'
// INT8:        error: 'qdot.dot_scaled' op tile M = 48 is not a power of two: qdot's register and shared layouts map the bits of an index, so a dot's M, N and K per tile must be powers of two (M = 48, N = 16, K = 32 here)
// NATIVE:      error: 'qdot.dot_scaled' op tile M = 48 is not a power of two: qdot's register and shared layouts map the bits of an index, so a dot's M, N and K per tile must be powers of two (M = 48, N = 16, K = 32 here)
// BF16:        error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'dequant-bf16'
// FP8-SM89: invalid.mlir:[[# @LINE - 9]]:3: error: 'qdot.dot_scaled' op i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not 'promote-fp8'

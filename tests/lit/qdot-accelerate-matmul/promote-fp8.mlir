// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefixes=CHECK,STAGED
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-fp8}' | filecheck %s --check-prefixes=CHECK,REGS
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=promote-fp8}' | filecheck %s --check-prefixes=CHECK,STAGED
// Why an e2m1 side is not converted once per CTA, as --remarks says it:
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' --remarks --verify-diagnostics | filecheck %s --check-prefix=WHY89
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-fp8}' --remarks --verify-diagnostics | filecheck %s --check-prefix=WHY90
// WHY89: promote-fp8.mlir:[[# @LINE + 25]]:3: remark: qdot-accelerate-matmul: e2m1 not converted to e4m3 once per CTA: the e2m1 tile is not contiguous along K in whole 32-value runs
// WHY89: promote-fp8.mlir:[[# @LINE + 123]]:3: remark: qdot-accelerate-matmul: lhs e2m1 → e4m3: converted once per CTA into a shared buffer; rhs e4m3: no conversion, read as it is
// WHY89: promote-fp8.mlir:[[# @LINE + 142]]:3: remark: qdot-accelerate-matmul: e2m1 not converted to e4m3 once per CTA: the other operand's tile is not contiguous along K, so ldmatrix cannot read it either way
// WHY89: promote-fp8.mlir:[[# @LINE + 160]]:3: remark: qdot-accelerate-matmul: e2m1 not converted to e4m3 once per CTA: the 64x64 warp tile holds 128 accumulator registers per thread (the e4m3 fragments fit beside at most 64)
// WHY90: promote-fp8.mlir:[[# @LINE + 120]]:3: remark: qdot-accelerate-matmul: e2m1 not converted to e4m3 once per CTA: ptxas emulates the fp8 mma on sm_90 with registers of its own; staged tiles spilled there

// strategy=promote-fp8: fp4/fp6 become e4m3 in registers (exact), e5m2 stays e5m2, and the
// fp8 mma runs them (native on sm_89, emulated by ptxas on sm_90, still legal there). Forced on
// sm_120a it makes the same choices, output for output: an e4m3/e5m2 qgpu.mma (the plain fp8
// mma.sync), not the fp4 operand and fp4Padded staging of the native strategy there.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// Unscaled e4m3 × e2m1 where the fp4 tile is not K-contiguous (a function argument [K/2, N]):
// the packed operand is loaded as 4 packed bytes (kWidth 4 bytes = 8 values) and upcast to
// e4m3 with kWidth 8, which both sides then share. No fp4Padded staging (that is the native
// path), no rescale.
// CHECK-LABEL: func.func @e4m3_e2m1
// CHECK-NOT:   fp4Padded
// CHECK:       %[[AR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 8}>>
// CHECK:       %[[BP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %[[BP]] from = e2m1 to = e4m3 : tensor<32x32xi8, {{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8"} :
func.func @e4m3_e2m1(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// With ue8m0 scales on both sides the scales are not folded into e4m3 (they may not fit):
// each scale block gets its own mma and the fp32 accumulator takes d · sa · sb
// (rescale = "per_block"); neither scale layout follows the B operand (no operand = true).
// CHECK-LABEL: func.func @e4m3_e2m1_ue8m0
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 :
// CHECK:       %[[SA:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]]}>>
// CHECK:       %[[SB:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} scale %[[SA]], %[[SB]] lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// CHECK-NOT:   qdot.exp
func.func @e4m3_e2m1_ue8m0(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                           %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 × e2m1 with scales: both sides are upcast to e4m3 (not the packed mxf4 kinds). B is
// not K-contiguous, so both stay on the kWidth-8 register path: converting A once per CTA
// would leave its e4m3 buffer to be read 8 wide, by scalar loads, all the same.
// CHECK-LABEL: func.func @e2m1_e2m1_ue8m0
// CHECK:       %[[AR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 8}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = e4m3 : {{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
func.func @e2m1_e2m1_ue8m0(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                           %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e5m2 stays e5m2 (its range does not fit e4m3); fp6 e3m2 is promoted to e4m3.
// CHECK-LABEL: func.func @e5m2_e3m2
// CHECK-NOT:   qgpu.upcast %{{.*}} from = e5m2
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e3m2 to = e4m3 :
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = e5m2 rhs = e4m3 {qdot.strategy = "promote-fp8"}
func.func @e5m2_e3m2(%a: tensor<32x64xf8E5M2>, %b: tensor<64x32xf6E3M2FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e5m2 rhs = e3m2 : tensor<32x64xf8E5M2> * tensor<64x32xf6E3M2FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 × e4m3, both tiles loaded contiguous along K (A [M, K/2] row-major, B [K, N] stored as N
// rows of K), where the fp8 mma is native (sm_89, sm_120a): the fp4 tile is converted to e4m3
// once per CTA (blocked runs of 32 values, the prmt table), stored to a swizzled e4m3 buffer,
// and read from there like the e4m3 side, in the ISA arrangement (kWidth 4), which ldmatrix
// delivers. The scales stay at the mma. On sm_90, where ptxas expands the fp8 mma into f16 HMMA
// with registers of its own, the staged tiles spilled: the fp4 side stays packed and is
// converted in registers (kWidth 8).
// CHECK-LABEL: func.func @e2m1_k_contiguous
// STAGED:       %[[RAW:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.blocked<{sizePerThread = [1, 16], {{.*}}}>>
// STAGED-NEXT:  %[[UP:.*]] = qgpu.upcast %[[RAW]] from = e2m1 to = e4m3 : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// STAGED-NEXT:  %[[BUF:.*]] = qgpu.local_alloc %[[UP]] : {{.*}} -> !qgpu.memdesc<32x64xf8E4M3FN, #qgpu.shared<{{.*}}>>
// STAGED-NEXT:  %[[AR:.*]] = qgpu.local_load %[[BUF]] : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// STAGED:       %[[BR:.*]] = qgpu.local_load %{{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// STAGED:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
// REGS:         %[[AP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// REGS-NEXT:    %[[AR:.*]] = qgpu.upcast %[[AP]] from = e2m1 to = e4m3 : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 8}>>
// REGS:         %[[BR:.*]] = qgpu.local_load %{{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// REGS:         qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
func.func @e2m1_k_contiguous(%a_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>, %b_ptr: !qdot.ptr<f8E4M3FN>,
                             %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %kh = arith.divui %k, %c2 : index
  %ks = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %kh], [%kh, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %ks], [%ks, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x32xf8E4M3FN>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %ks], [%ks, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
  %sa = qdot.load %sa_desc[%c0, %c0] : !qdot.desc<32x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %sb = qdot.load %sb_desc[%c0, %c0] : !qdot.desc<32x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %zero lhs = e2m1 rhs = e4m3
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<64x32xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// The same with B a function argument, taken to be contiguous along its last dimension (N): an
// 8-bit tile along N is read byte by byte whatever the kWidth (ldmatrix has no transposed 8-bit
// form), so staging the fp4 side would only add a buffer: it stays packed, converted in registers.
// CHECK-LABEL: func.func @e2m1_other_side_n_major
// CHECK:       %[[AP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[AR:.*]] = qgpu.upcast %[[AP]] from = e2m1 to = e4m3 : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %{{.*}}, %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
func.func @e2m1_other_side_n_major(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<64x32xf8E4M3FN>,
                                   %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e4m3
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<64x32xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// The same with a 64×64 warp tile: 128 accumulator registers per thread, more than the 64 up
// to which the staged e4m3 fragments (twice the registers of the packed bytes) fit without
// spilling, so the fp4 side is converted in registers on every arch.
// CHECK-LABEL: func.func @e2m1_k_contiguous_wide_warp_tile
// CHECK:       %[[AP:.*]] = qgpu.local_load %{{.*}} -> tensor<64x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[AR:.*]] = qgpu.upcast %[[AP]] from = e2m1 to = e4m3 : {{.*}} -> tensor<64x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %{{.*}}, %{{.*}} scale {{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8", rescale = "per_block"}
func.func @e2m1_k_contiguous_wide_warp_tile(%a: tensor<64x32xi8>, %sa: tensor<64x2xf8E8M0FNU>, %b: tensor<64x64xf8E4M3FN>,
                                            %sb: tensor<64x2xf8E8M0FNU>, %acc: tensor<64x64xf32, #bl>) -> tensor<64x64xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e4m3
     : tensor<64x32xi8>, tensor<64x2xf8E8M0FNU> * tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32, #bl>
  func.return %d : tensor<64x64xf32, #bl>
}

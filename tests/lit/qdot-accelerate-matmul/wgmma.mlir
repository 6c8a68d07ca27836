// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=SM90
// On sm_90a a dot whose operands both end up as bf16 tiles in shared memory runs on wgmma
// (qgpu.warp_group_dot, a versionMajor = 3 accumulator): the tensor cores read the dequantized
// buffers through descriptors, no ldmatrix, no operand registers. Plain sm_90 has no wgmma
// (it is an sm_90a feature) and keeps mma.sync.

// e4m3 × e2m1 with ue8m0 scales, 64 × 64 tile on one warpgroup: both operands are dequantized
// once per CTA with their scales folded, stored K-major in the 128-byte swizzle (a 64-value K
// row is 128 bytes), and handed to the dot as buffers; the accumulator is #qgpu.mma v3 with the
// tile's N in instrShape. Both stores come after both conversions.
// CHECK-LABEL: func.func @e4m3_e2m1
// CHECK:       %[[AUP:.*]] = qgpu.upcast %{{.*}} scale %{{.*}} from = e4m3 to = bf16
// CHECK:       %[[BUP:.*]] = qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16
// CHECK-NEXT:  %[[A:.*]] = qgpu.local_alloc %[[AUP]] : {{.*}} -> !qgpu.memdesc<64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK-NEXT:  %[[B:.*]] = qgpu.local_alloc %[[BUP]] : {{.*}} -> !qgpu.memdesc<64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>>
// CHECK-NEXT:  %{{.*}} = qgpu.warp_group_dot %[[A]], %[[B]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} : {{.*}} -> tensor<64x64xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
// CHECK-NOT:   qgpu.mma %
// CHECK-NOT:   qgpu.local_load %[[A]]
// SM90-LABEL:  func.func @e4m3_e2m1
// SM90-NOT:    qgpu.warp_group_dot
// SM90:        qgpu.mma %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} : {{.*}} -> tensor<64x64xf32, #qgpu.mma<{versionMajor = 2,
func.func @e4m3_e2m1(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// K = 128 per step: a K row of bf16 would be 256 bytes, longer than the widest swizzle, so the
// buffers are split into two 64-value swizzle atoms along K (rowElems = 64).
// CHECK-LABEL: func.func @k128
// CHECK:       qgpu.local_alloc %{{.*}} -> !qgpu.memdesc<64x128xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 64}>>
// CHECK:       qgpu.local_alloc %{{.*}} -> !qgpu.memdesc<128x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], rowElems = 64}>>
// CHECK:       qgpu.warp_group_dot
func.func @k128(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x128xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x4xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x4xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c128 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x4xf8E8M0FNU> -> tensor<64x4xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x4xf8E8M0FNU> -> tensor<64x4xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> * tensor<64x64xi8>, tensor<64x4xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// Two warps are not a warpgroup: mma.sync, on sm_90a too.
// CHECK-LABEL: func.func @two_warps
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = bf16 rhs = bf16
func.func @two_warps(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// Eight warps on a 64-row tile would leave a warpgroup without rows (each takes 64): mma.sync.
// CHECK-LABEL: func.func @eight_warps_64_rows
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %
func.func @eight_warps_64_rows(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// fp16 × e2m1 with ue8m0 scales on B: fp16 lacks ue8m0's range, so dequant-bf16 computes in
// fp16 and rescales the accumulator per 32-value block instead of folding the scales into the
// values. wgmma has no per-block rescale (one instruction spans the whole K of the tile), so the
// dot keeps mma.sync with its scale operands, on sm_90a too.
// CHECK-LABEL: func.func @fp16_e2m1_per_block
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} scale %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 {qdot.strategy = "dequant-bf16", rescale = "per_block"}
func.func @fp16_e2m1_per_block(%a_ptr: !qdot.ptr<f16>, %b_ptr: !qdot.ptr<i8>, %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f16> -> !qdot.desc<64x64xf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %ks = arith.divui %k, %c32 : index
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %ks], [%ks, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xf16> -> tensor<64x64xf16>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
  %sb = qdot.load %sb_desc[%c0, %c0] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = fp16 rhs = e2m1
     : tensor<64x64xf16> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// A 64 × 512 bf16 tile: one wgmma spans the tile's N, and the instruction's N stops at 256, so
// the dot keeps mma.sync.
// CHECK-LABEL: func.func @n512
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} : {{.*}} -> tensor<64x512xf32, #qgpu.mma<{versionMajor = 2,
func.func @n512(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<bf16> -> !qdot.desc<64x512xbf16>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x512xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x512xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x512xbf16> -> tensor<64x512xbf16>
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16
     : tensor<64x64xbf16> * tensor<64x512xbf16> -> tensor<64x512xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x512xf32>, tensor<64x512xf32>
  func.return
}

// -----

// bf16 B stored N-major (stride 1 along N): it would be staged N-contiguous, and the pass hands
// wgmma only K-contiguous buffers (the K-major swizzled layout its descriptors describe), so the
// dot keeps mma.sync.
// CHECK-LABEL: func.func @b_n_major
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @b_n_major(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x64xbf16> -> tensor<64x64xbf16>
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16
     : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// e2m1 packed along N (rhs_k_pack = false): the cooperative upcast unpacks it along N, its
// contiguous dimension, into an N-contiguous bf16 buffer no wgmma descriptor reads: mma.sync.
// (A free-packed side is refused as such, and its N-contiguous storage would refuse it too.)
// CHECK-LABEL: func.func @e2m1_n_packed
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @e2m1_n_packed(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%n, %c1] : !qdot.ptr<i8> -> !qdot.desc<64x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x32xi8> -> tensor<64x32xi8>
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<64x64xf8E4M3FN> * tensor<64x32xi8> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// i8 × i8 runs on the s8 mma (auto picks promote-int8): wgmma is taken here only for bf16 /
// fp16 register formats (and an s8 buffer has no wgmma descriptor either), so the dot keeps
// mma.sync.
// CHECK-LABEL: func.func @i8_i8_s8
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = s8 rhs = s8 {qdot.strategy = "promote-int8"}
func.func @i8_i8_s8(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<64x64xi32>
  %acc = arith.constant dense<0> : tensor<64x64xi32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8
     : tensor<64x64xi8> * tensor<64x64xi8> -> tensor<64x64xi32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xi32>, tensor<64x64xi32>
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// fp4 packed along N (B is [K, N/2]) cannot take the native path (its fragments pack fp4 along
// K), so strategy.py sends it to dequant-bf16 (auto does the same on every arch): the tile is
// read in runs along N (its contiguous dimension, a blocked layout with order [1, 0]), the
// upcast unpacks each byte into two neighbouring columns, giving a [K, N] = [64, 32] bf16 tile,
// which is stored N-contiguous to shared memory and read back as the mma's B operand.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @n_packed
// CHECK:       %[[RAW:.*]] = qgpu.local_load %{{.*}} -> tensor<64x16xi8, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK:       %[[UP:.*]] = qgpu.upcast %[[RAW]] from = e2m1 to = bf16 : {{.*}} -> tensor<64x32xbf16, #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK:       %[[BUF:.*]] = qgpu.local_alloc %[[UP]] : {{.*}} -> !qgpu.memdesc<64x32xbf16, #qgpu.shared<{{.*}}order = [1, 0]}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %[[BUF]] : {{.*}} -> tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1,
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @n_packed(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN> * tensor<64x16xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

// The same N-packed e2m1 with ue8m0 scales on both sides: the unpacking threads hold runs along
// N, not whole 32-value K groups, so no scale is folded into the values (neither upcast takes
// one); strategy.py's _free_packed rescales the accumulator per K block instead.
// CHECK-LABEL: func.func @n_packed_scaled
// CHECK:       qgpu.upcast %{{.*}} from = e4m3 to = bf16 : tensor<32x64xf8E4M3FN,
// CHECK:       qgpu.upcast %{{.*}} from = e2m1 to = bf16 : tensor<64x16xi8,
// CHECK:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16", rescale = "per_block"}
func.func @n_packed_scaled(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<64x16xi8>, %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<64x16xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

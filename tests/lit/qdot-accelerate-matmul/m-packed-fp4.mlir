// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// fp4 packed along M (A is [M/2, K], stored as K rows of M/2 bytes, so M is its contiguous
// dimension; compiler.templates.gemm_kernel with lhs_k_pack=False wrote this kernel): auto picks
// dequant-bf16 on every arch, the tile is read in runs along M (order [0, 1]), the upcast
// unpacks each byte into two neighbouring rows, [16, 64] bytes -> [32, 64] bf16, stored
// M-contiguous to shared memory and read back as the mma's A operand.

// CHECK-LABEL: func.func @gemm_e2m1_e4m3_mpack_noscale_32x32x64_w1
// CHECK:       %[[RAW:.*]] = qgpu.local_load %{{.*}} -> tensor<16x64xi8, #qgpu.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>>
// CHECK-NEXT:  %[[UP:.*]] = qgpu.upcast %[[RAW]] from = e2m1 to = bf16 : {{.*}} -> tensor<32x64xbf16, #qgpu.blocked<{sizePerThread = [32, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>>
// CHECK-NEXT:  %[[BUF:.*]] = qgpu.local_alloc %[[UP]] : {{.*}} -> !qgpu.memdesc<32x64xbf16, #qgpu.shared<{{.*}}order = [0, 1]}>>
// CHECK-NEXT:  %[[AR:.*]] = qgpu.local_load %[[BUF]] : {{.*}} -> tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0,
// CHECK:       qgpu.mma %[[AR]], %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"}
func.func @gemm_e2m1_e4m3_mpack_noscale_32x32x64_w1(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<f8E4M3FN>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 128 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid = qdot.program_id x
  %tiles_m = arith.ceildivui %m, %c32 : index
  %tiles_n = arith.ceildivui %n, %c32 : index
  %in_group = arith.muli %tiles_n, %c1 : index
  %group = arith.divui %pid, %in_group : index
  %first_m = arith.muli %group, %c1 : index
  %left_m = arith.subi %tiles_m, %first_m : index
  %group_m = arith.minui %left_m, %c1 : index
  %pos = arith.remui %pid, %in_group : index
  %pid_m_in = arith.remui %pos, %group_m : index
  %pid_m = arith.addi %first_m, %pid_m_in : index
  %pid_n = arith.divui %pos, %group_m : index
  %off_m = arith.muli %pid_m, %c32 : index
  %off_n = arith.muli %pid_n, %c32 : index
  %ka = arith.divui %k, %c1 : index
  %kb = arith.divui %k, %c1 : index
  %mb = arith.divui %m, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%mb, %k], [%c1, %mb] : !qdot.ptr<i8> -> !qdot.desc<16x64xi8>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x32xf8E4M3FN>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kka = arith.divui %kk, %c1 : index
    %kkb = arith.divui %kk, %c1 : index
    %off_mb = arith.divui %off_m, %c2 : index
    %a = qdot.load %a_desc[%off_mb, %kk] : !qdot.desc<16x64xi8> -> tensor<16x64xi8>
    %b = qdot.load %b_desc[%kkb, %off_n] : !qdot.desc<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e2m1 rhs = e4m3 {lhs_k_pack = false}
         : tensor<16x64xi8> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}


// -----

// The same M-packed e2m1 with ue8m0 scales on both sides: the unpacking threads hold runs along
// M, not whole 32-value K groups, so no scale can be folded into the values (neither upcast
// takes one); strategy.py's _free_packed rescales the accumulator per K block instead.
// CHECK-LABEL: func.func @gemm_e2m1_e4m3_mpack_scaled
// CHECK:       qgpu.upcast %{{.*}} from = e2m1 to = bf16 : tensor<16x64xi8,
// CHECK:       qgpu.upcast %{{.*}} from = e4m3 to = bf16 : tensor<64x32xf8E4M3FN,
// CHECK:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16", rescale = "per_block"}
func.func @gemm_e2m1_e4m3_mpack_scaled(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<f8E4M3FN>, %sa_ptr: !qdot.ptr<f8E8M0FNU>, %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 128 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %mb = arith.divui %m, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%mb, %k], [%c1, %mb] : !qdot.ptr<i8> -> !qdot.desc<16x64xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x32xf8E4M3FN>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x64xi8> -> tensor<16x64xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<32x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<32x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e2m1 rhs = e4m3 {lhs_k_pack = false}
         : tensor<16x64xi8>, tensor<32x2xf8E8M0FNU> * tensor<64x32xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

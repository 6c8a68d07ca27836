// MX GEMM, mixed fp8 × fp4:  C[M, N] (f32) = (A · 2^SA) × (B · 2^SB)
//   A  [M, K]    e4m3, row-major (K contiguous)
//   B  [K, N]    e2m1, packed two per byte along K; stored transposed as N rows of
//                K/2 bytes (K contiguous), the way weights are usually kept
//   SA [M, K/32] ue8m0 scales, SB [N, K/32] ue8m0 scales (one per 32 K-values)
//   C  [M, N]    f32, row-major
// K must be a multiple of 128 (qdot.divisibility): the kernel copies rows of K/32 scales with 4-byte cp.async.
// One program computes a 128×128 tile of C, 64 K-values per step; grid = (ceil(M/128) · ceil(N/128), 1, 1)
// (compiler.templates.grid), 256 threads (8 warps), dynamic shared memory = kernels[0].shared_bytes.
// Programs walk the tiles in groups of 8 tile-rows so that neighbouring programs share B tiles in L2.
//
//   qdot-translate examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_90      (dequant-bf16)
//   qdot-translate examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_120a    (native kind::mxf8f6f4)
func.func @mx_gemm_e4m3_e2m1(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>,
                             %sa_ptr: !qdot.ptr<f8E8M0FNU>, %sb_ptr: !qdot.ptr<f8E8M0FNU>,
                             %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                             %k: index {qdot.divisibility = 128 : i64})
    attributes {qdot.kernel, qdot.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  // Grouped tile order (GROUP_M = 8).
  %pid = qdot.program_id x
  %tiles_m = arith.ceildivui %m, %c128 : index
  %tiles_n = arith.ceildivui %n, %c128 : index
  %in_group = arith.muli %tiles_n, %c8 : index
  %group = arith.divui %pid, %in_group : index
  %first_m = arith.muli %group, %c8 : index
  %left_m = arith.subi %tiles_m, %first_m : index
  %group_m = arith.minui %left_m, %c8 : index
  %pos = arith.remui %pid, %in_group : index
  %pid_m_in = arith.remui %pos, %group_m : index
  %pid_m = arith.addi %first_m, %pid_m_in : index
  %pid_n = arith.divui %pos, %group_m : index
  %off_m = arith.muli %pid_m, %c128 : index
  %off_n = arith.muli %pid_n, %c128 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<128x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x128xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<128x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<128x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<128x128xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%off_m, %kk] : !qdot.desc<128x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %off_n] : !qdot.desc<32x128xi8> -> tensor<32x128xi8>
    %sa = qdot.load %sa_desc[%off_m, %kk_scales] : !qdot.desc<128x2xf8E8M0FNU> -> tensor<128x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%off_n, %kk_scales] : !qdot.desc<128x2xf8E8M0FNU> -> tensor<128x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU> * tensor<32x128xi8>, tensor<128x2xf8E8M0FNU>
         -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  qdot.store %c_desc[%off_m, %off_n], %acc : !qdot.desc<128x128xf32>, tensor<128x128xf32>
  func.return
}

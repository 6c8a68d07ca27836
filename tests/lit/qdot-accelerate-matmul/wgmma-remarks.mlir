// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s
// What --remarks says of a dot qdot-accelerate-matmul puts on wgmma (wgmma.mlir pins the IR): the
// instruction, its operands' shared buffers, and the warps stacked as warpgroups of 64 rows along M.

// CHECK: wgmma-remarks.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: wgmma m64n64k16 bf16 (both operands bf16 buffers in shared memory): 4 warps as 1 warpgroup along M{{$}}
func.func @one_warpgroup(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
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

// CHECK: wgmma-remarks.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: wgmma m64n64k16 bf16 (both operands bf16 buffers in shared memory): 8 warps as 2 warpgroups along M{{$}}
func.func @two_warpgroups(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<128x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<128x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<128x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<128x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<128x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<128x2xf8E8M0FNU> -> tensor<128x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<128x64xf32>, tensor<128x64xf32>
  func.return
}


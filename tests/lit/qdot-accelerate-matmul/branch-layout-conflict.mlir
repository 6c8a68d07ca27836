// RUN: qdot-opt %s --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90a}'
// Two dots in the branches of an scf.if whose forms differ on sm_90a (bf16 × bf16 takes wgmma, #qgpu.mma
// version 3; e4m3 × e4m3 mma.sync, version 2) give the branch's result two layouts. Retyping the result to one
// and then the other never settled: the pass ran until memory ran out (18 GB). It is refused at the scf.if.
// On sm_90 both are mma.sync and the kernel compiles.

func.func @kern(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %e_ptr: !qdot.ptr<f8E4M3FN>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 32 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x32xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<bf16> -> !qdot.desc<32x64xbf16>
  %e_desc = qdot.make_desc %e_ptr, [%k, %n], [%n, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %ea_desc = qdot.make_desc %e_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x32xf8E4M3FN>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %step = arith.divui %kk, %c32 : index
    %par = arith.remui %step, %c2 : index
    %even = arith.cmpi eq, %par, %c0 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x32xbf16> -> tensor<64x32xbf16>
    // expected-error @+1 {{the branches of this scf.if yield result #0 in two register layouts}}
    %r = scf.if %even -> (tensor<64x64xf32>) {
      %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x64xbf16> -> tensor<32x64xbf16>
      %d = qdot.dot_scaled %a, %b, %acc_i lhs = bf16 rhs = bf16 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    } else {
      %ea = qdot.load %ea_desc[%c0, %kk] : !qdot.desc<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
      %b2 = qdot.load %e_desc[%kk, %c0] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
      %d2 = qdot.dot_scaled %ea, %b2, %acc_i lhs = e4m3 rhs = e4m3 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
      scf.yield %d2 : tensor<64x64xf32>
    }
    scf.yield %r : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

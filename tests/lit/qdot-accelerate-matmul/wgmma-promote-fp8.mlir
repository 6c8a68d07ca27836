// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90a strategy=promote-fp8}' | filecheck %s
// On sm_90a wgmma is taken only when both operands end up as bf16 (fp16) buffers. promote-fp8
// keeps e4m3 × e4m3 as fp8 in registers for the fp8 mma.sync (unscaled, so no per-block
// rescale stands in the way): the operands are not bf16, and the dot keeps mma.sync.
// (auto would dequantize this dot to bf16 and take wgmma; see wgmma.mlir.)

// CHECK-LABEL: func.func @e4m3_e4m3
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       qgpu.mma %{{.*}} lhs = e4m3 rhs = e4m3 {qdot.strategy = "promote-fp8"} : tensor<64x64xf8E4M3FN,
func.func @e4m3_e4m3(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<f8E4M3FN>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e4m3
     : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}


// RUN: qdot-translate %s --target llvm --arch sm_90 | filecheck %s
// --target llvm stops at the LLVM IR: the kernel is a ptx_kernel function of the NVPTX
// triple, its pointers passed as i64 (qdot.arg_kinds), index as i64.

// CHECK:       target triple = "nvptx64-nvidia-cuda"
// CHECK:       define ptx_kernel void @copy_tile(i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}})
// CHECK:       call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK:       ret void
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @copy_tile(%a_ptr: !qdot.ptr<f32>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c0, %c0], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

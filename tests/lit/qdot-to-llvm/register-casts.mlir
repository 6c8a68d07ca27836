// RUN: qdot-opt %s -p 'qdot-to-llvm' --verify-diagnostics 2>&1 | filecheck %s
// Registers handed to a distributed tensor by hand (an unrealized_conversion_cast from i32s, as
// the earlier passes write them) must be as many as the tensor's layout holds per thread: a
// dot_scale tensor of 16x4 e4m3 scales holds two (rows g and g + 8), and a cast of one is refused
// at the cast, where before a later pass indexed past it (IndexError, an internal error).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#src = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#dst = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#sc = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>

func.func @one_scale_register(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %s0: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : i32, i32, i32, i32 to tensor<16x32xi8, #src>
  %sc = builtin.unrealized_conversion_cast %s0 : i32 to tensor<16x4xf8E4M3FN, #sc>
// CHECK: register-casts.mlir:[[# @LINE - 1]]:3: error: 'builtin.unrealized_conversion_cast' op this cast gives a [16, 4] tensor 1 register per thread; its layout holds 2
  %u = qgpu.upcast %q scale %sc from = e2m1 to = bf16 : tensor<16x32xi8, #src>, tensor<16x4xf8E4M3FN, #sc> -> tensor<16x64xbf16, #dst>
  %o:16 = builtin.unrealized_conversion_cast %u : tensor<16x64xbf16, #dst> to i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#15) : (i32, i32, i32) -> ()
  func.return
}
// CHECK-NOT: internal error

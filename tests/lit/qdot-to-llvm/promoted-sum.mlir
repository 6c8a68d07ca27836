// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// arith.addf of two f32 tiles in one #qgpu.mma layout (a K step's dot added to the loop's sum,
// GemmConfig(promote=True)): each thread adds its own registers, one addf per register, in
// register order; no value moves between threads.

// CHECK-LABEL: func.func @sum
// CHECK-SAME:  (%[[A0:[^:]*]]: f32, %[[A1:[^:]*]]: f32, %[[A2:[^:]*]]: f32, %[[A3:[^:]*]]: f32, %[[B0:[^:]*]]: f32, %[[B1:[^:]*]]: f32, %[[B2:[^:]*]]: f32, %[[B3:[^:]*]]: f32)
// CHECK-NEXT:  %[[S0:.*]] = arith.addf %[[A0]], %[[B0]] : f32
// CHECK-NEXT:  %[[S1:.*]] = arith.addf %[[A1]], %[[B1]] : f32
// CHECK-NEXT:  %[[S2:.*]] = arith.addf %[[A2]], %[[B2]] : f32
// CHECK-NEXT:  %[[S3:.*]] = arith.addf %[[A3]], %[[B3]] : f32
// CHECK-NEXT:  "test.op"(%[[S0]], %[[S1]], %[[S2]], %[[S3]])
// CHECK-NOT:   tensor<

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @sum(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %b0: f32, %b1: f32, %b2: f32, %b3: f32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %a = builtin.unrealized_conversion_cast %a0, %a1, %a2, %a3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %b = builtin.unrealized_conversion_cast %b0, %b1, %b2, %b3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %s = arith.addf %a, %b : tensor<16x8xf32, #mma>
  %o:4 = builtin.unrealized_conversion_cast %s : tensor<16x8xf32, #mma> to f32, f32, f32, f32
  "test.op"(%o#0, %o#1, %o#2, %o#3) : (f32, f32, f32, f32) -> ()
  func.return
}

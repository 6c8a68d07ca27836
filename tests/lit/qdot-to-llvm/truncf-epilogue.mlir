// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// arith.truncf of an f32 accumulator tile to bf16 (the epilogue of GemmConfig(out="bf16")):
// the 16-bit #qgpu.mma keeps each element in the same thread, two to a register — (c0, c1)
// and (c2, c3) of each 16×8 tile, the even column low — so each destination register is one
// cvt.rn.bf16x2.f32 of two of the thread's own registers, high half first: no shuffles.

// CHECK-LABEL: func.func @pairs
// CHECK-SAME:  (%[[R0:[^:]*]]: f32, %[[R1:[^:]*]]: f32, %[[R2:[^:]*]]: f32, %[[R3:[^:]*]]: f32)
// CHECK-NEXT:  %[[P01:.*]] = ptx.cvt bf16x2.f32 %[[R1]], %[[R0]]
// CHECK-NEXT:  %[[O0:.*]] = ptx.bitcast %[[P01]] : vector<2xbf16> -> i32
// CHECK-NEXT:  %[[P23:.*]] = ptx.cvt bf16x2.f32 %[[R3]], %[[R2]]
// CHECK-NEXT:  %[[O1:.*]] = ptx.bitcast %[[P23]] : vector<2xbf16> -> i32
// CHECK-NEXT:  "test.op"(%[[O0]], %[[O1]])
// CHECK-NOT:   arith.truncf

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @pairs(%r0: f32, %r1: f32, %r2: f32, %r3: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %c = arith.truncf %acc : tensor<16x8xf32, #mma> to tensor<16x8xbf16, #mma>
  %o:2 = builtin.unrealized_conversion_cast %c : tensor<16x8xbf16, #mma> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}

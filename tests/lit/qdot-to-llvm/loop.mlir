// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// The K loop: a tensor-valued iter_arg becomes the registers of its layout (4 f32 for a
// 16×8 #qgpu.mma tile on one warp), carried through the loop, and scf lowers to cf blocks —
// no scf and no tensor survives. (The store pairs them: 16 columns, so every pair (2t, 2t+1)
// is one 8-byte store; f32-pair-stores.mlir has the cases.)

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @k_loop
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  cf.br ^[[HEAD:.*]](%{{.*}}, %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : index, f32, f32, f32, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[IV:.*]]: index, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[C2:.*]]: f32, %[[C3:.*]]: f32):
// CHECK:       cf.cond_br %{{.*}}, ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:  %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{{.*}}] B[{{.*}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK:       cf.br ^[[HEAD]](%{{.*}}, %[[D0]], %[[D1]], %[[D2]], %[[D3]] : index, f32, f32, f32, f32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK:       %[[W0:.*]] = arith.bitcast %[[C0]] : f32 to i32
// CHECK-NEXT:  %[[W1:.*]] = arith.bitcast %[[C1]] : f32 to i32
// CHECK-NEXT:  %[[P01:.*]] = ptx.pack %[[W0]], %[[W1]]
// CHECK-NEXT:  ptx.st_global %{{.*}}, %[[P01]] if
// CHECK:       %[[W2:.*]] = arith.bitcast %[[C2]] : f32 to i32
// CHECK-NEXT:  %[[W3:.*]] = arith.bitcast %[[C3]] : f32 to i32
// CHECK-NEXT:  %[[P23:.*]] = ptx.pack %[[W2]], %[[W3]]
// CHECK-NEXT:  ptx.st_global %{{.*}}, %[[P23]] if
// CHECK-NOT:   scf.
// CHECK-NOT:   tensor<
// CHECK-NOT:   unrealized_conversion_cast
func.func @k_loop(%c_ptr: !qdot.ptr<f32>, %x: i32, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c_desc = qdot.make_desc %c_ptr, [%c16, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32, #mma>
  %acc = scf.for %kk = %c0 to %k step %c16 iter_args(%c = %zero) -> (tensor<16x8xf32, #mma>) {
    %r0, %r1, %r2, %r3 = builtin.unrealized_conversion_cast %c : tensor<16x8xf32, #mma> to f32, f32, f32, f32
    %d0, %d1, %d2, %d3 = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%x, %x, %x, %x] B[%x, %x] C[%r0, %r1, %r2, %r3]
    %d = builtin.unrealized_conversion_cast %d0, %d1, %d2, %d3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
    scf.yield %d : tensor<16x8xf32, #mma>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

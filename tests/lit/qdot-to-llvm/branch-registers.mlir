// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// A persistent kernel's tile end: an scf.if that stores the finished accumulator and yields
// zeros, or else yields the accumulator. Its tensor result becomes the registers of its layout
// (4 f32 for a 16×8 #qgpu.mma tile on one warp), as a loop-carried tensor does: the storing
// branch passes four zeros to the join block, the other branch the mma's four results, and the
// loop carries the join block's arguments.

// CHECK-LABEL: func.func @tile_end
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       ^[[HEAD:.*]](%[[IV:.*]]: index, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[C2:.*]]: f32, %[[C3:.*]]: f32):
// CHECK:       %[[D0:.*]], %[[D1:.*]], %[[D2:.*]], %[[D3:.*]] = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{{.*}}] B[{{.*}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
// CHECK-NEXT:  %[[DONE:.*]] = arith.cmpi eq, %[[IV]], %{{.*}} : index
// CHECK-NEXT:  cf.cond_br %[[DONE]], ^[[STORE:.*]], ^[[KEEP:.*]]
// CHECK-NEXT:  ^[[STORE]]:
// CHECK:       %[[W0:.*]] = arith.bitcast %[[D0]] : f32 to i32
// CHECK:       ptx.st_global
// CHECK:       ptx.st_global
// CHECK-NEXT:  cf.br ^[[JOIN:.*]](%[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : f32, f32, f32, f32)
// CHECK-NEXT:  ^[[KEEP]]:
// CHECK-NEXT:  cf.br ^[[JOIN]](%[[D0]], %[[D1]], %[[D2]], %[[D3]] : f32, f32, f32, f32)
// CHECK-NEXT:  ^[[JOIN]](%[[N0:.*]]: f32, %[[N1:.*]]: f32, %[[N2:.*]]: f32, %[[N3:.*]]: f32):
// CHECK:       cf.br ^[[HEAD]](%{{.*}}, %[[N0]], %[[N1]], %[[N2]], %[[N3]] : index, f32, f32, f32, f32)
// CHECK-NOT:   scf.
// CHECK-NOT:   tensor<
// CHECK-NOT:   unrealized_conversion_cast
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

func.func @tile_end(%c_ptr: !qdot.ptr<f32>, %x: i32, %k: index, %last: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c_desc = qdot.make_desc %c_ptr, [%c16, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32, #mma>
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%c = %zero) -> (tensor<16x8xf32, #mma>) {
    %r0, %r1, %r2, %r3 = builtin.unrealized_conversion_cast %c : tensor<16x8xf32, #mma> to f32, f32, f32, f32
    %d0, %d1, %d2, %d3 = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%x, %x, %x, %x] B[%x, %x] C[%r0, %r1, %r2, %r3]
    %d = builtin.unrealized_conversion_cast %d0, %d1, %d2, %d3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
    %done = arith.cmpi eq, %kk, %last : index
    %next = scf.if %done -> (tensor<16x8xf32, #mma>) {
      qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
      scf.yield %zero : tensor<16x8xf32, #mma>
    } else {
      scf.yield %d : tensor<16x8xf32, #mma>
    }
    scf.yield %next : tensor<16x8xf32, #mma>
  }
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' | filecheck %s
// qgpu.warp_group_dot → wgmma (sm_90a): the writers of the operand buffers publish them to the
// tensor cores (fence.proxy.async, then a barrier), wgmma.fence orders the accumulator
// registers, then each warpgroup issues one m64nNk16 per 64-row slice of A and k16 step, chained
// on the slice's N/2 accumulators, with the descriptor fields of the buffers' layout; one commit
// and a wait for the dot's pendings close it.

#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#mma = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>

// 256 × 64 on two warpgroups: warpgroup g (warp >> 2) takes rows 64·g (slice 0) and 128 + 64·g
// (slice 1) of A, 8 KiB apart per 64 rows of 128 bytes; each k16 step moves the descriptor start
// 32 bytes along the swizzled rows; B (N = 64 rows of K) is read whole by both.
// CHECK-LABEL: func.func @two_slices
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[WARP:.*]] = arith.shrui %[[TID]], %{{.*}} : i32
// CHECK:       %[[WG:.*]] = arith.shrui %[[WARP]], %{{.*}} : i32
// CHECK:       %[[GROFF:.*]] = arith.shli %[[WG]], %{{.*}} : i32
// CHECK:       %[[ABASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<256x64xbf16, {{.*}}> to i32
// CHECK-NEXT:  %[[BBASE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !qgpu.memdesc<64x64xbf16, {{.*}}> to i32
// CHECK:       ptx.fence_proxy_async
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  ptx.wgmma_fence
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[ABASE]], %[[GROFF]] : i32
// CHECK-NEXT:  %{{.*}} = ptx.wgmma m64n64k16 f32.bf16.bf16 A[%[[A0]]] B[%[[BBASE]]] C[{{.*}}] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK:       %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[A0]], %[[C32]] : i32
// CHECK-NEXT:  %[[B1:.*]] = arith.addi %[[BBASE]], %[[C32]] : i32
// CHECK-NEXT:  %{{.*}} = ptx.wgmma m64n64k16 f32.bf16.bf16 A[%[[A1]]] B[%[[B1]]] C[%{{[0-9]+}},
// CHECK-COUNT-2: ptx.wgmma m64n64k16
// CHECK:       %[[C16K:.*]] = arith.constant 16384 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.addi %[[A0]], %[[C16K]] : i32
// CHECK-NEXT:  %{{.*}} = ptx.wgmma m64n64k16 f32.bf16.bf16 A[%[[S1]]] B[%[[BBASE]]]
// CHECK-COUNT-3: ptx.wgmma m64n64k16
// CHECK-NEXT:  ptx.wgmma_commit
// CHECK-NEXT:  ptx.wgmma_wait 0
// CHECK-NOT:   ptx.wgmma
func.func @two_slices(%c: tensor<256x64xf32, #mma>) attributes {qdot.kernel, qdot.num_warps = 8 : i64} {
  %a = qgpu.local_alloc : () -> !qgpu.memdesc<256x64xbf16, #sa, mutable>
  %b = qgpu.local_alloc : () -> !qgpu.memdesc<64x64xbf16, #sb, mutable>
  %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16
     : !qgpu.memdesc<256x64xbf16, #sa, mutable>, !qgpu.memdesc<64x64xbf16, #sb, mutable>, tensor<256x64xf32, #mma>
     -> tensor<256x64xf32, #mma>
  "test.op"(%d) : (tensor<256x64xf32, #mma>) -> ()
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 64}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], rowElems = 64}>
#mma = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>

// An asynchronous dot (pendings = 1) waits only for the dot before it; the wait after the loop
// becomes wgmma.wait_group 0. K = 128 in two swizzle atoms (rowElems = 64): steps 4..7 start in
// the second block of rows, A's at 64 rows × 128 bytes = 8192, B's at 32 rows × 128 = 4096.
// CHECK-LABEL: func.func @async_two_atoms
// CHECK-COUNT-4: ptx.wgmma m64n32k16
// CHECK-NEXT:  %{{.*}} = arith.constant 8192 : i32
// CHECK-NEXT:  %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %{{.*}} = arith.constant 4096 : i32
// CHECK-NEXT:  %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  ptx.wgmma m64n32k16
// CHECK-COUNT-3: ptx.wgmma m64n32k16
// CHECK-NEXT:  ptx.wgmma_commit
// CHECK-NEXT:  ptx.wgmma_wait 1
// CHECK-NOT:   qgpu.warp_group_dot
// CHECK:       ptx.wgmma_wait 0
// CHECK-NEXT:  "test.op"
func.func @async_two_atoms(%c: tensor<64x32xf32, #mma>) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %a = qgpu.local_alloc : () -> !qgpu.memdesc<64x128xbf16, #sa, mutable>
  %b = qgpu.local_alloc : () -> !qgpu.memdesc<128x32xbf16, #sb, mutable>
  %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 {pendings = 1 : i64}
     : !qgpu.memdesc<64x128xbf16, #sa, mutable>, !qgpu.memdesc<128x32xbf16, #sb, mutable>, tensor<64x32xf32, #mma>
     -> tensor<64x32xf32, #mma>
  %w = qgpu.warp_group_dot_wait %d {pendings = 0 : i64} : tensor<64x32xf32, #mma>
  "test.op"(%w) : (tensor<64x32xf32, #mma>) -> ()
  func.return
}

// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// Register → shared stores into a wgmma ring slot (qdot-pipeline's overlapped dot): a store marked
// qdot.readers_synced needs no barrier before it (the cp.async wait's barrier already ordered the
// slot's last reader) and qdot.reader_syncs none after it (the dot fences and waits itself); an
// unmarked store keeps both. Four registers that are 16 contiguous, 16-byte aligned bytes for
// every thread go out as one st.shared.v4 (ptx.pack). A buffer a wgmma reads (qdot.align = 1024,
// set by qdot-lower-mma) starts on a 1024-byte boundary: the 128-byte swizzle repeats every 8 rows.

// CHECK-LABEL: func.func @ring_store
// CHECK-SAME:  qdot.shared_bytes = 3072 : i64
// CHECK:       %[[RING:.*]] = arith.constant 1024 : i32
// CHECK-NOT:   ptx.bar_sync
// CHECK:       %[[V0:.*]] = ptx.pack %r0, %r1, %r2, %r3 : i32, i32, i32, i32 -> vector<4xi32>
// CHECK-NEXT:  ptx.st_shared %{{.*}}, %[[V0]] : vector<4xi32>
// CHECK:       %[[V1:.*]] = ptx.pack %r4, %r5, %r6, %r7 : i32, i32, i32, i32 -> vector<4xi32>
// CHECK-NEXT:  ptx.st_shared %{{.*}}, %[[V1]] : vector<4xi32>
// CHECK-NEXT:  "test.op"() : () -> ()
// CHECK-NEXT:  ptx.bar_sync
// CHECK-COUNT-2: ptx.st_shared %{{.*}} : vector<4xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  func.return
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#plain = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @ring_store(%r0: i32, %r1: i32, %r2: i32, %r3: i32,
                      %r4: i32, %r5: i32, %r6: i32, %r7: i32, %slot: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %pad = qgpu.local_alloc : () -> !qgpu.memdesc<4x4xi8, #plain, mutable>
  %ring = qgpu.local_alloc {qdot.align = 1024 : i64} : () -> !qgpu.memdesc<2x8x64xbf16, #sh, mutable>
  %t = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<8x64xbf16, #bl>
  %view = qgpu.memdesc_index %ring[%slot] : !qgpu.memdesc<2x8x64xbf16, #sh, mutable> -> !qgpu.memdesc<8x64xbf16, #sh, mutable>
  qgpu.local_store %t, %view {qdot.readers_synced, qdot.reader_syncs} : tensor<8x64xbf16, #bl>, !qgpu.memdesc<8x64xbf16, #sh, mutable>
  "test.op"() : () -> ()
  qgpu.local_store %t, %view : tensor<8x64xbf16, #bl>, !qgpu.memdesc<8x64xbf16, #sh, mutable>
  func.return
}

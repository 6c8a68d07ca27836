// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s --check-prefix=BARS
// Register → shared: the lowering of a qgpu.local_alloc of a register tensor, here the q4_K
// decode-once buffers (16 columns × 8 sub-blocks of f32, columns contiguous). Each thread stores
// its 8 values with st.shared at (column · 4 + sub-block · 64); lanes 16-31 hold the same columns
// as lanes 0-15 and store the same values. Each copy brings a barrier before (readers of the old
// contents) and after (readers of the new); between two copies in a row the barriers order no
// read against any write, so they go: bar; 8 stores; 8 stores; bar. (qdot-to-llvm schedules —
// and drops barriers — in blocks with an mma, hence the mma_sync standing in for the K step.)

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>

// The scale buffer at 0, the min buffer at 512 (16 · 8 · 4 bytes); the shared total 1024.
// CHECK-LABEL: func.func @two_decodes
// CHECK-SAME:  qdot.shared_bytes = 1024 : i64
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:  %[[LANE:.*]] = arith.andi %[[TID]], %[[C31]] : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.andi %[[LANE]], %[[C15]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[OFF:.*]] = arith.shli %[[COL]], %[[C2]] : i32
// CHECK-NEXT:  ptx.st_shared %[[OFF]], %v0 : f32
// CHECK-NEXT:  %[[C64:.*]] = arith.constant 64 : i32
// CHECK-NEXT:  %[[OFF1:.*]] = arith.addi %[[OFF]], %[[C64]] : i32
// CHECK-NEXT:  ptx.st_shared %[[OFF1]], %v1 : f32
// CHECK-COUNT-6: ptx.st_shared %{{.*}}, %v{{[2-7]}} : f32
// CHECK-NOT:   ptx.bar_sync
// CHECK:       %[[MIN:.*]] = arith.constant 512 : i32
// CHECK-NEXT:  %[[M0:.*]] = arith.addi %[[MIN]], %[[OFF]] : i32
// CHECK-NEXT:  ptx.st_shared %[[M0]], %v7 : f32
// CHECK-NOT:   ptx.bar_sync
// CHECK-COUNT-7: ptx.st_shared %{{.*}}, %v{{[0-6]}} : f32
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NOT:   ptx.bar_sync
// CHECK:       ptx.ld_shared
// CHECK:       ptx.mma_sync
// The two barriers are the only ones.
// BARS-LABEL:  func.func @two_decodes
// BARS-COUNT-2: ptx.bar_sync
// BARS-NOT:    ptx.bar_sync
// BARS:        func.return
func.func @two_decodes(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %a: i32, %b: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %sc = builtin.unrealized_conversion_cast %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #bl>
  %mn = builtin.unrealized_conversion_cast %v7, %v6, %v5, %v4, %v3, %v2, %v1, %v0 : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #bl>
  %s = qgpu.local_alloc %sc : (tensor<16x8xf32, #bl>) -> !qgpu.memdesc<16x8xf32, #sh>
  %m = qgpu.local_alloc %mn : (tensor<16x8xf32, #bl>) -> !qgpu.memdesc<16x8xf32, #sh>
  %sa = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<16x8xf32, #sh> to i32
  %ma = builtin.unrealized_conversion_cast %m : !qgpu.memdesc<16x8xf32, #sh> to i32
  %x = ptx.ld_shared %sa : i32
  %y = ptx.ld_shared %ma : i32
  %z = arith.constant 0 : i32
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%x, %y, %a, %b] B[%a, %b] C[%z, %z, %z, %z]
  "test.op"(%d#0) : (i32) -> ()
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// 16-bit elements (the f16 `m_pad` / `s_pad` buffers of the dmin mma: 16 rows of 16 values,
// rows contiguous): a register holds two adjacent values, and four registers — 16 contiguous
// bytes at a 16-byte boundary for every thread — go out as one st.shared.v4 (ptx.pack of the
// four), at row · 32 and row · 32 + 16.
// CHECK-LABEL: func.func @f16_pairs
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK-NEXT:  %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NEXT:  %[[V0:.*]] = ptx.pack %r0, %r1, %r2, %r3 : i32, i32, i32, i32 -> vector<4xi32>
// CHECK-NEXT:  %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT:  %[[LANE:.*]] = arith.andi %[[TID]], %[[C31]] : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.andi %[[LANE]], %[[C15]] : i32
// CHECK-NEXT:  %[[OFF:.*]] = arith.shli %[[ROW]], %[[C5]] : i32
// CHECK-NEXT:  ptx.st_shared %[[OFF]], %[[V0]] : vector<4xi32>
// CHECK-NEXT:  %[[V1:.*]] = ptx.pack %r4, %r5, %r6, %r7 : i32, i32, i32, i32 -> vector<4xi32>
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[OFF1:.*]] = arith.addi %[[OFF]], %[[C16]] : i32
// CHECK-NEXT:  ptx.st_shared %[[OFF1]], %[[V1]] : vector<4xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NOT:   ptx.st_shared
func.func @f16_pairs(%r0: i32, %r1: i32, %r2: i32, %r3: i32, %r4: i32, %r5: i32, %r6: i32, %r7: i32, %a: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %t = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x16xf16, #bl>
  %s = qgpu.local_alloc %t : (tensor<16x16xf16, #bl>) -> !qgpu.memdesc<16x16xf16, #sh>
  %sa = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<16x16xf16, #sh> to i32
  %x = ptx.ld_shared %sa : i32
  %z = arith.constant 0 : i32
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%x, %a, %a, %a] B[%a, %a] C[%z, %z, %z, %z]
  "test.op"(%d#0) : (i32) -> ()
  func.return
}

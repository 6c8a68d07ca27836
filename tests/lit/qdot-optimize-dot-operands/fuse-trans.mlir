// RUN: qdot-opt %s --split-input-file -p 'qdot-optimize-dot-operands' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-optimize-dot-operands' --remarks=qdot-optimize-dot-operands \
// RUN:   2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// qdot-optimize-dot-operands: local_alloc(qdot.trans(x)) becomes memdesc_trans(local_alloc(x)):
// the untransposed tile is staged (a plain copy) and read through a transposed view, whose
// shared encoding is the staged one with its order permuted; fp4Padded carries over.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// B stored as [N, K/2] (K contiguous) and transposed to [K/2, N] for the dot: the staged
// buffer is [N, K/2] with order [1, 0] — still K contiguous — and fp4Padded.
// REMARK: fuse-trans.mlir:{{[0-9]+}}:3: remark: qdot-optimize-dot-operands: the 32x64 tile staged as loaded
// REMARK-SAME: and read through a transposed view (qgpu.memdesc_trans, order [1, 0]): no transpose in registers
// CHECK-LABEL: func.func @fp4_b
// CHECK-SAME:  (%[[X:[^:]*]]: tensor<32x64xi8>)
// CHECK-NOT:   qdot.trans
// CHECK:       %[[S:.*]] = qgpu.local_alloc %[[X]] : (tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>>
// CHECK-NEXT:  %[[V:.*]] = qgpu.memdesc_trans %[[S]] {order = array<i64: 1, 0>} : !qgpu.memdesc<32x64xi8, {{.*}}> -> !qgpu.memdesc<64x32xi8, #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.local_load %[[V]] : !qgpu.memdesc<64x32xi8, {{.*}}> -> tensor<64x32xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>
// CHECK-NEXT:  func.return %[[R]]
func.func @fp4_b(%x: tensor<32x64xi8>) -> tensor<64x32xi8, #bu> {
  %t = qdot.trans %x {order = array<i64: 1, 0>} : tensor<32x64xi8> -> tensor<64x32xi8>
  %m = qgpu.local_alloc %t : (tensor<64x32xi8>) -> !qgpu.memdesc<64x32xi8, #kmajor>
  %r = qgpu.local_load %m : !qgpu.memdesc<64x32xi8, #kmajor> -> tensor<64x32xi8, #bu>
  func.return %r : tensor<64x32xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>

// A 16-bit operand: the same fusion, no fp4Padded appears.
// CHECK-LABEL: func.func @bf16_b
// CHECK-NOT:   qdot.trans
// CHECK:       %[[S:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x64xbf16>) -> !qgpu.memdesc<32x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK-NEXT:  %[[V:.*]] = qgpu.memdesc_trans %[[S]] {order = array<i64: 1, 0>} : {{.*}} -> !qgpu.memdesc<64x32xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>>
// CHECK-NEXT:  qgpu.local_load %[[V]]
// CHECK-NOT:   qdot.trans
func.func @bf16_b(%x: tensor<32x64xbf16>) -> tensor<64x32xbf16, #b> {
  %t = qdot.trans %x {order = array<i64: 1, 0>} : tensor<32x64xbf16> -> tensor<64x32xbf16>
  %m = qgpu.local_alloc %t : (tensor<64x32xbf16>) -> !qgpu.memdesc<64x32xbf16, #sh>
  %r = qgpu.local_load %m : !qgpu.memdesc<64x32xbf16, #sh> -> tensor<64x32xbf16, #b>
  func.return %r : tensor<64x32xbf16, #b>
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// The transposed tensor has another user: the transpose stays for it, the allocation is
// still fused.
// CHECK-LABEL: func.func @trans_kept
// CHECK:       %[[T:.*]] = qdot.trans
// CHECK:       %[[S:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x64xi8>)
// CHECK-NEXT:  qgpu.memdesc_trans %[[S]]
// CHECK:       "test.op"(%[[T]])
func.func @trans_kept(%x: tensor<32x64xi8>) -> !qgpu.memdesc<64x32xi8, #sh> {
  %t = qdot.trans %x {order = array<i64: 1, 0>} : tensor<32x64xi8> -> tensor<64x32xi8>
  %m = qgpu.local_alloc %t : (tensor<64x32xi8>) -> !qgpu.memdesc<64x32xi8, #sh>
  "test.op"(%t) : (tensor<64x32xi8>) -> ()
  func.return %m : !qgpu.memdesc<64x32xi8, #sh>
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// An allocation of an untransposed tile is left alone.
// CHECK-LABEL: func.func @no_trans
// CHECK:       qgpu.local_alloc %{{.*}} : (tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
// CHECK-NOT:   qgpu.memdesc_trans
func.func @no_trans(%x: tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #sh> {
  %m = qgpu.local_alloc %x : (tensor<32x64xi8>) -> !qgpu.memdesc<32x64xi8, #sh>
  func.return %m : !qgpu.memdesc<32x64xi8, #sh>
}

// -----

// A buffer with a leading stage dimension its rank-2 encoding does not order: the transposed view would move it
// among the tile's dimensions, so the transpose stays (it was an error without a location).
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-LABEL: func.func @stage_dimension
// CHECK:       qdot.trans
// CHECK-NOT:   qgpu.memdesc_trans
func.func @stage_dimension(%x: tensor<64x2x32xi8>) -> !qgpu.memdesc<2x32x64xi8, #sh> {
  %t = qdot.trans %x {order = array<i64: 1, 2, 0>} : tensor<64x2x32xi8> -> tensor<2x32x64xi8>
  %m = qgpu.local_alloc %t : (tensor<2x32x64xi8>) -> !qgpu.memdesc<2x32x64xi8, #sh>
  func.return %m : !qgpu.memdesc<2x32x64xi8, #sh>
}

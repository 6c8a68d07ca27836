// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b}' | filecheck %s
// One decision per case: how a dot tile becomes fragment loads and a chain of agx.mma8.

// fp16 x fp16 with an accumulator argument, 16x16x16 (2x2 output blocks, 2 K steps):
// C fragments are loaded first, then per K step the A and B fragments, then one MMA
// per output block in serpentine order, each accumulating into the previous step's D.
// CHECK-LABEL: func.func @fp16_acc
// CHECK-SAME:  (%[[A:.*]]: tensor<16x16xf16>, %[[B:.*]]: tensor<16x16xf16>, %[[ACC:.*]]: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {agx.form = "agx3b"}
// CHECK:       %[[C00:.*]] = agx.load_frag acc %[[ACC]][0, 0] : tensor<16x16xf32> -> !agx.frag<fp32>
// CHECK:       %[[C01:.*]] = agx.load_frag acc %[[ACC]][0, 8]
// CHECK:       %[[C10:.*]] = agx.load_frag acc %[[ACC]][8, 0]
// CHECK:       %[[C11:.*]] = agx.load_frag acc %[[ACC]][8, 8]
// CHECK:       %[[A0:.*]] = agx.load_frag lhs %[[A]][0, 0] : tensor<16x16xf16> -> !agx.frag<fp16>
// CHECK:       %[[A1:.*]] = agx.load_frag lhs %[[A]][8, 0]
// CHECK:       %[[B0:.*]] = agx.load_frag rhs %[[B]][0, 0] : tensor<16x16xf16> -> !agx.frag<fp16>
// CHECK:       %[[B1:.*]] = agx.load_frag rhs %[[B]][0, 8]
// CHECK:       %[[D00:.*]] = agx.mma8 %[[A0]], %[[B0]], %[[C00]] : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
// CHECK:       %[[D01:.*]] = agx.mma8 %[[A0]], %[[B1]], %[[C01]]
// CHECK:       %[[D11:.*]] = agx.mma8 %[[A1]], %[[B1]], %[[C11]]
// CHECK:       %[[D10:.*]] = agx.mma8 %[[A1]], %[[B0]], %[[C10]]
// CHECK:       %[[A0K:.*]] = agx.load_frag lhs %[[A]][0, 8]
// CHECK:       %[[A1K:.*]] = agx.load_frag lhs %[[A]][8, 8]
// CHECK:       %[[B0K:.*]] = agx.load_frag rhs %[[B]][8, 0]
// CHECK:       %[[B1K:.*]] = agx.load_frag rhs %[[B]][8, 8]
// CHECK:       %[[E00:.*]] = agx.mma8 %[[A0K]], %[[B0K]], %[[D00]]
// CHECK:       %[[E01:.*]] = agx.mma8 %[[A0K]], %[[B1K]], %[[D01]]
// CHECK:       %[[E11:.*]] = agx.mma8 %[[A1K]], %[[B1K]], %[[D11]]
// CHECK:       %[[E10:.*]] = agx.mma8 %[[A1K]], %[[B0K]], %[[D10]]
// CHECK:       %[[R:.*]] = agx.store_tile %[[E00]], %[[E01]], %[[E10]], %[[E11]] : {{.*}} -> tensor<16x16xf32>
// CHECK:       func.return %[[R]] : tensor<16x16xf32>
// CHECK-NOT:   qdot.dot_scaled
func.func @fp16_acc(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  func.return %d : tensor<16x16xf32>
}

// -----

// A constant-zero accumulator: the first K step uses the multiply form (no C is read),
// later steps accumulate; the constant goes away.
// CHECK-LABEL: func.func @zero_acc
// CHECK-NOT:   arith.constant
// CHECK-NOT:   agx.load_frag acc
// CHECK:       %[[D:.*]] = agx.mma8 %{{.*}}, %{{.*}}, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
// CHECK:       %[[E:.*]] = agx.mma8 %{{.*}}, %{{.*}}, %[[D]] : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
// CHECK:       agx.store_tile %[[E]] : !agx.frag<fp32> -> tensor<8x8xf32>
func.func @zero_acc(%a: tensor<8x16xf16>, %b: tensor<16x8xf16>) -> tensor<8x8xf32> {
  %acc = arith.constant dense<0.0> : tensor<8x8xf32>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x16xf16> * tensor<16x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// The 32x32x32 tile of one simdgroup: 4x4 output blocks x 4 K steps = 64 MMAs.
// CHECK-LABEL: func.func @count_32x32x32
// CHECK-COUNT-64: agx.mma8
// CHECK-NOT:   agx.mma8
func.func @count_32x32x32(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

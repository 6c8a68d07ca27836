// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b},agx-hints-and-waits{waits=needed}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c},agx-hints-and-waits{waits=needed}' | filecheck %s --check-prefix=AGX3C
// One decision per case: which scoreboard slots agx-hints-and-waits assigns and, with
// waits=needed, waits on. waits-all.mlir has the default, waits=all.

// Loads take slots round-robin over the form's slots; an MMA waits on the slots of its
// pending operands, and a wait retires every load of its slot. On agx3b (six slots) the
// first and the seventh load share slot 0, so the first MMA's wait on slot 0 also
// retires the seventh, and the last MMA needs no wait. On agx3c (eight) it does.
// CHECK-LABEL: func.func @round_robin
// CHECK:       agx.load_frag lhs %{{.*}}[0, 0] slot 0
// CHECK:       agx.load_frag rhs %{{.*}}[0, 0] slot 1
// CHECK:       agx.load_frag rhs %{{.*}}[0, 8] slot 2
// CHECK:       agx.load_frag rhs %{{.*}}[0, 16] slot 3
// CHECK:       agx.load_frag rhs %{{.*}}[0, 24] slot 4
// CHECK:       agx.load_frag rhs %{{.*}}[0, 32] slot 5
// CHECK:       agx.load_frag rhs %{{.*}}[0, 40] slot 0
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [0, 1] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [2] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [3] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [4] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [5] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero :
// AGX3C-LABEL: func.func @round_robin
// AGX3C:       agx.load_frag rhs %{{.*}}[0, 40] slot 6
// AGX3C:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [0, 1] :
// AGX3C-COUNT-4: agx.mma8 %{{.*}}, %{{.*}}, zero wait [{{[2-5]}}] :
// AGX3C:       agx.mma8 %{{.*}}, %{{.*}}, zero wait [6] :
func.func @round_robin(%x: tensor<8x8xf16>, %w: tensor<8x48xf16>) -> tensor<8x48xf32> {
  %acc = arith.constant dense<0.0> : tensor<8x48xf32>
  %d = qdot.dot_scaled %x, %w, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x48xf16> -> tensor<8x48xf32>
  func.return %d : tensor<8x48xf32>
}

// -----

// A fragment already waited for needs no second wait; a C loaded with the operands is
// waited for by the MMA that reads it.
// CHECK-LABEL: func.func @once
// CHECK:       agx.load_frag acc %{{.*}}[0, 0] slot 0
// CHECK:       agx.load_frag acc %{{.*}}[0, 8] slot 1
// CHECK:       agx.load_frag lhs %{{.*}}[0, 0] slot 2
// CHECK:       agx.load_frag rhs %{{.*}}[0, 0] slot 3
// CHECK:       agx.load_frag rhs %{{.*}}[0, 8] slot 4
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} wait [0, 2, 3] :
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, %{{.*}} wait [1, 4] :
func.func @once(%x: tensor<8x8xf16>, %w: tensor<8x16xf16>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = qdot.dot_scaled %x, %w, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x16xf16> -> tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}

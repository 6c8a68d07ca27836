// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b},agx-hints-and-waits{waits=all}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c},agx-hints-and-waits{waits=all}' | filecheck %s --check-prefix=AGX3C
// waits=all (the default): an MMA that needs a wait waits on every slot of the form, six on
// agx3b and eight on agx3c, which retires every pending load. All wait bits are set together,
// so what the wait means does not depend on which bit is which slot (assumption A3).
// waits.mlir has the same tiles with waits=needed.

// Seven loads, then six MMAs: the first waits on every slot, after which nothing is pending,
// so the other five do not wait (waits=needed: five of them wait, one slot each).
// CHECK-LABEL:   func.func @round_robin
// CHECK:         agx.load_frag rhs %{{.*}}[0, 40] slot 0
// CHECK-NEXT:    agx.mma8 %{{.*}}, %{{.*}}, zero wait [0, 1, 2, 3, 4, 5] :
// CHECK-COUNT-5: agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, zero :
// AGX3C-LABEL:   func.func @round_robin
// AGX3C:         agx.load_frag rhs %{{.*}}[0, 40] slot 6
// AGX3C-NEXT:    agx.mma8 %{{.*}}, %{{.*}}, zero wait [0, 1, 2, 3, 4, 5, 6, 7] :
// AGX3C-COUNT-5: agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, zero :
func.func @round_robin(%x: tensor<8x8xf16>, %w: tensor<8x48xf16>) -> tensor<8x48xf32> {
  %acc = arith.constant dense<0.0> : tensor<8x48xf32>
  %d = qdot.dot_scaled %x, %w, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x48xf16> -> tensor<8x48xf32>
  func.return %d : tensor<8x48xf32>
}

// -----

// Two K steps: each step's loads are pending again, so the first MMA of each step waits on
// every slot and the second on none.
// CHECK-LABEL: func.func @two_steps
// CHECK:       agx.mma8 %{{.*}} wait [0, 1, 2, 3, 4, 5] :
// CHECK-NEXT:  agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
// CHECK:       agx.load_frag rhs %{{.*}}[8, 8] slot 1
// CHECK-NEXT:  agx.mma8 %{{.*}} wait [0, 1, 2, 3, 4, 5] :
// CHECK-NEXT:  agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
// AGX3C-LABEL: func.func @two_steps
// AGX3C:       agx.mma8 %{{.*}} wait [0, 1, 2, 3, 4, 5, 6, 7] :
// AGX3C-NEXT:  agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
// AGX3C:       agx.mma8 %{{.*}} wait [0, 1, 2, 3, 4, 5, 6, 7] :
// AGX3C-NEXT:  agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
func.func @two_steps(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x16xf16> * tensor<16x16xf16> -> tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}

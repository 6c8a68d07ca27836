// RUN: qdot-opt %s -p 'qdot-to-agx,agx-hints-and-waits' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-to-agx,agx-hints-and-waits{hints=false waits=all}' | filecheck %s
// RUN: qdot-translate %s --target agx3b --print-pipeline | filecheck %s --check-prefix=PIPELINE
// RUN: qdot-translate %s --target agx3c --print-pipeline | filecheck %s --check-prefix=PIPELINE
// The defaults are hints=false waits=all, and the pipeline qdot-translate and compiler.compile
// run spells them out: no hint bit is set and an MMA that waits sets every wait bit, so the
// stream's meaning rests on neither assumption A4 (which hint bit is which) nor A3 (which
// wait bit is which slot). {hints=true waits=needed} is the liveness-based stream.

// CHECK-LABEL: func.func @tile
// CHECK:       agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} wait [0, 1, 2, 3, 4, 5] :
// CHECK-NEXT:  agx.mma8 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} :
// CHECK-NOT:   cache
// CHECK-NOT:   discard
// PIPELINE: {{^}}qdot-to-agx{form=agx3{{[bc]}}},agx-allocate-registers,agx-hints-and-waits{hints=false waits=all}{{$}}
func.func @tile(%a: tensor<8x8xf16>, %b: tensor<8x16xf16>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x16xf16> -> tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}

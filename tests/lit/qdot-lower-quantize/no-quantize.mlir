// RUN: qdot-opt %s > %t.plain
// RUN: qdot-opt %s -p qdot-lower-quantize > %t.lowered
// RUN: diff %t.plain %t.lowered
// RUN: qdot-opt %S/../../../examples/mx_gemm_e4m3_e2m1.mlir > %t.gemm.plain
// RUN: qdot-opt %S/../../../examples/mx_gemm_e4m3_e2m1.mlir -p qdot-lower-quantize > %t.gemm.lowered
// RUN: diff %t.gemm.plain %t.gemm.lowered
// RUN: qdot-opt %s -p qdot-lower-quantize | filecheck %s
// Without qdot.quantize the pass changes nothing, byte for byte: a kernel that copies an
// f32 tile through qdot.load / qdot.store, and the GEMM example.

// CHECK-LABEL: func.func @copy
// CHECK:       %[[T:.*]] = qdot.load
// CHECK-NEXT:  qdot.store %{{.*}}[%{{.*}}, %{{.*}}], %[[T]]
func.func @copy(%x_ptr: !qdot.ptr<f32>, %y_ptr: !qdot.ptr<f32>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x128xf32>
  %y_desc = qdot.make_desc %y_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x128xf32>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x128xf32> -> tensor<1x128xf32>
  qdot.store %y_desc[%c0, %c0], %x : !qdot.desc<1x128xf32>, tensor<1x128xf32>
  func.return
}

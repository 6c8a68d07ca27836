// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qdot.store {reduce = "add"}: split-K programs meet in Y by atomic addition — each element
// a predicated ptx.red_global_add (red.global.add.f32) at the address and under the bounds
// predicate a plain store would use; without `reduce` the same tile is a predicated st.global.
// Here the small-M kernel's Yᵀ tile: the mma accumulator of 16 weight rows × 8 tokens stored
// through a transposed descriptor (strides [1, N]).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @store_add
// CHECK-SAME:  (%[[Y:[^:]*]]: i64, %[[N:[^:]*]]: index, %[[M:[^:]*]]: index, %[[OFF:[^:]*]]: index)
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:   %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-DAG:   %[[M32:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK:       %[[INN:.*]] = arith.cmpi ult, %{{.*}}, %[[N32]] : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  %[[INM:.*]] = arith.cmpi ult, %{{.*}}, %[[M32]] : i32
// CHECK-NEXT:  %[[IN:.*]] = arith.andi %[[INN]], %[[INM]] : i1
// CHECK:       %[[ADDR:.*]] = arith.addi %[[Y]], %{{.*}} : i64
// CHECK-NEXT:  ptx.red_global_add %[[ADDR]], %[[ONE]] if %[[IN]] : f32
// CHECK-COUNT-3: ptx.red_global_add %{{.*}}, %[[ONE]] if %{{.*}} : f32
// CHECK-NOT:   ptx.red_global_add
// CHECK-NOT:   ptx.st_global
// CHECK-NOT:   qdot.store
func.func @store_add(%y_ptr: !qdot.ptr<f32>, %n: index, %m: index, %off: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %yt_desc[%off, %c0], %ones {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @store_plain
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
// CHECK-NOT:   ptx.red_global_add
func.func @store_plain(%y_ptr: !qdot.ptr<f32>, %n: index, %m: index, %off: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %yt_desc[%off, %c0], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s
// The qdot level is written with plain tensors (DESIGN.md §2); a function that takes and
// returns an unencoded accumulator must come out verified, the mma in its #qgpu.mma layout
// and the function's own types unchanged: the plain ↔ #qgpu.mma boundary is a
// builtin.unrealized_conversion_cast (a change of type system, not a layout conversion).

// CHECK-LABEL: func.func @plain
// CHECK-SAME:  %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       builtin.unrealized_conversion_cast %acc : tensor<32x32xf32> to tensor<32x32xf32, #qgpu.mma
// CHECK:       qgpu.mma {{.*}} -> tensor<32x32xf32, #qgpu.mma<{{.*}}>>
// CHECK:       func.return %{{.*}} : tensor<32x32xf32>
func.func @plain(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// Through a K loop the accumulator is carried in the #qgpu.mma layout; only the loop's
// init and result cross to the plain function types.
// CHECK-LABEL: func.func @plain_loop
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       %[[IN:.*]] = builtin.unrealized_conversion_cast %acc : tensor<32x32xf32> to tensor<32x32xf32, [[MMA:#qgpu.mma<[^>]*>]]>
// CHECK:       %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[IN]]) -> (tensor<32x32xf32, [[MMA]]>)
// CHECK:         qgpu.mma
// CHECK:       %[[OUT:.*]] = builtin.unrealized_conversion_cast %[[R]] : tensor<32x32xf32, [[MMA]]> to tensor<32x32xf32>
// CHECK-NEXT:  func.return %[[OUT]] : tensor<32x32xf32>
func.func @plain_loop(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>, %n: index) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %acc) -> (tensor<32x32xf32>) {
    %d = qdot.dot_scaled %a, %b, %x lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  func.return %r : tensor<32x32xf32>
}

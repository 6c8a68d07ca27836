// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm' | filecheck %s
// qdot-to-llvm distributes a tensor constant over the threads only when it is a splat (every
// register the same scalar: passes/to_llvm.py, the arith.constant lowering); a dense constant of
// distinct values is refused at the constant, not lowered to wrong registers. The splat of the
// same type is lowered (stored-splat.mlir pins its stores).

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

func.func @distinct_values(%q: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x4xf32>
  %t = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<1x4xf32>, tensor<1x4xf32, #bl>
  func.return
}
// CHECK: non-splat-constant.mlir:[[# @LINE - 4]]:3: error: 'arith.constant' op only splat tensor constants can be distributed{{$}}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @splat
// CHECK-NOT:   arith.constant dense
// CHECK:       %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %[[TWO]] if %{{.*}} : f32
func.func @splat(%q: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x4xf32>
  %t = arith.constant dense<2.0> : tensor<1x4xf32, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<1x4xf32>, tensor<1x4xf32, #bl>
  func.return
}

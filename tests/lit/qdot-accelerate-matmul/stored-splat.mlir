// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// A splat constant stored by a kernel (zeroing an output that a split-K kernel adds into,
// from a kernel that runs before it anyway) gets the default blocked layout: 16-byte runs
// along the destination's unit-stride dimension, lanes along it, the warps across it while
// the tile has rows for them. Any other plain stored tile that no load, dot or quantize produced
// (register-loads.mlir has the loaded ones), and a splat whose dimensions are not powers of two,
// is refused at the store.
// tests/lit/qdot-to-llvm/stored-splat.mlir follows the first kernel to PTX.

// One row: 4 f32 per thread, the 32 lanes and the 4 warps all along the row (no thread
// repeats another's elements); the constant is re-made next to the store, in the loop.
// CHECK-LABEL: func.func @zero_row
// CHECK:       scf.for
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1x512xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK-NEXT:    qdot.store %y_desc[%pid_m, %j], %[[Z]]
func.func @zero_row(%y_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %pid_k = qdot.program_id x
  %pid_m = qdot.program_id y
  %nk = qdot.num_programs x
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x512xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1x512xf32>
  %start = arith.muli %pid_k, %c512 : index
  %step = arith.muli %nk, %c512 : index
  scf.for %j = %start to %n step %step {
    qdot.store %y_desc[%pid_m, %j], %zero : !qdot.desc<1x512xf32>, tensor<1x512xf32>
  }
  func.return
}

// -----

// Eight rows of a column-major output: the runs go down the columns (dim 0), 2 lanes
// cover a column's 8 values, 16 columns per warp, 4 warps across.
// CHECK-LABEL: func.func @zero_columns
// CHECK:       arith.constant dense<0> : tensor<8x64xi32, #qgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @zero_columns(%y_ptr: !qdot.ptr<i32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<8x64xi32>
  %zero = arith.constant dense<0> : tensor<8x64xi32>
  qdot.store %y_desc[%c0, %c0], %zero : !qdot.desc<8x64xi32>, tensor<8x64xi32>
  func.return
}

// -----

func.func @argument(%a_ptr: !qdot.ptr<f32>, %m: index, %n: index, %t: tensor<16x64xf32>)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  // expected-error@+1 {{a splat constant, not a block argument}}
  qdot.store %a[%c0, %c0], %t : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}

// -----

func.func @not_power_of_two(%y_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<3x512xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<3x512xf32>
  // expected-error@+1 {{qdot-accelerate-matmul: cannot give the stored tensor<3x512xf32> a register layout (2-D tiles of integers or floats with power-of-two dimensions only)}}
  qdot.store %y_desc[%c0, %c0], %zero : !qdot.desc<3x512xf32>, tensor<3x512xf32>
  func.return
}

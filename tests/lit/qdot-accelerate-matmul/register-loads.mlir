// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// A tile loaded only to be added and stored (the stream-K fix-up's partial tiles; no dot stages
// it in shared memory) goes into registers in the blocked layout a stored splat gets: 16-byte runs
// along the descriptor's unit-stride dimension. The layout is carried as a dot's accumulator's
// is: through the sum, the loop that carries it (its zero start re-made in the layout) and into
// the store, with no qgpu.convert_layout left. tests/lit/qdot-to-llvm/register-loads.mlir follows
// the first kernel to PTX.

// CHECK-LABEL: func.func @sum_parts
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #[[B:qgpu.blocked<[^>]*>]]>
// CHECK:       %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<64x128xf32, #[[B]]>)
// CHECK:         %[[PART:.*]] = qdot.load %part_desc[%row, %c0] : !qdot.desc<64x128xf32> -> tensor<64x128xf32, #[[B]]>
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : tensor<64x128xf32, #[[B]]>
// CHECK-NEXT:    scf.yield %[[NEXT]] : tensor<64x128xf32, #[[B]]>
// CHECK:       qdot.store %y_desc[%c0, %c0], %[[SUM]] : !qdot.desc<64x128xf32>, tensor<64x128xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NOT:   qgpu.convert_layout
func.func @sum_parts(%y_ptr: !qdot.ptr<f32>, %part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %count: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %rows = arith.muli %count, %c64 : index
  %part_desc = qdot.make_desc %part_ptr, [%rows, %c128], [%c128, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x128xf32>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x128xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
  %sum = scf.for %p = %c0 to %count step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %row = arith.muli %p, %c64 : index
    %part = qdot.load %part_desc[%row, %c0] : !qdot.desc<64x128xf32> -> tensor<64x128xf32>
    %next = arith.addf %acc, %part : tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  qdot.store %y_desc[%c0, %c0], %sum : !qdot.desc<64x128xf32>, tensor<64x128xf32>
  func.return
}

// -----

// A tile loaded and stored as it is (a copy), from a column-major descriptor: the runs go down
// the columns (dim 0), 4 lanes cover a column's 16 values, 8 columns per warp, 2 warps across.
// CHECK-LABEL: func.func @copy_columns
// CHECK:       %[[T:.*]] = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xi32> -> tensor<16x64xi32, #qgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>>
// CHECK-NEXT:  qdot.store %b[%c0, %c0], %[[T]] : !qdot.desc<16x64xi32>, tensor<16x64xi32, #qgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>>
func.func @copy_columns(%a_ptr: !qdot.ptr<i32>, %b_ptr: !qdot.ptr<i32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %b = qdot.make_desc %b_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i32> -> !qdot.desc<16x64xi32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xi32> -> tensor<16x64xi32>
  qdot.store %b[%c0, %c0], %t : !qdot.desc<16x64xi32>, tensor<16x64xi32>
  func.return
}

// -----

// A loaded tile passed through a loop that does not change it, and an scf.if choosing between it and another
// loaded tile: the loop carries the layout it starts from, the branch the one its arms yield; nothing is left plain
// (no builtin.unrealized_conversion_cast, which qdot-to-llvm could not lower).
// CHECK-LABEL: func.func @pass_through
// CHECK:       %[[T:.*]] = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32, #[[B:qgpu.blocked<[^>]*>]]>
// CHECK-NEXT:  %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[T]]) -> (tensor<16x64xf32, #[[B]]>)
// CHECK-NEXT:    scf.yield %[[ACC]] : tensor<16x64xf32, #[[B]]>
// CHECK:       %[[S:.*]] = scf.if %{{.*}} -> (tensor<16x64xf32, #[[B]]>)
// CHECK-NEXT:    scf.yield %[[R]]
// CHECK:       qdot.store %a[%c0, %c0], %[[S]]
// CHECK-NOT:   unrealized_conversion_cast
func.func @pass_through(%a_ptr: !qdot.ptr<f32>, %m: index, %n: index, %count: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %t) -> (tensor<16x64xf32>) {
    scf.yield %acc : tensor<16x64xf32>
  }
  %cond = arith.cmpi ult, %m, %n : index
  %s = scf.if %cond -> (tensor<16x64xf32>) {
    scf.yield %r : tensor<16x64xf32>
  } else {
    %u = qdot.load %a[%c1, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
    scf.yield %u : tensor<16x64xf32>
  }
  qdot.store %a[%c0, %c0], %s : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}

// -----

// Loaded tiles are added, not multiplied: the product has no layout, refused at its store.
func.func @product(%a_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %sq = arith.mulf %t, %t : tensor<16x64xf32>
  // expected-error@+1 {{qdot-accelerate-matmul: the stored tile has no register layout; a kernel stores a dot's result, a quantized tile, a loaded tile, a sum of them or a splat constant, not the result of 'arith.mulf'}}
  qdot.store %a[%c0, %c0], %sq : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}

// -----

// One element per 32-bit register: a 16-bit tile is refused at its load.
func.func @half(%a_ptr: !qdot.ptr<f16>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f16> -> !qdot.desc<16x64xf16>
  // expected-error@+1 {{qdot-accelerate-matmul: a tile loaded into registers (not read by a dot or a quantize) must be 2-D, with power-of-two dimensions and 32-bit elements; got tensor<16x64xf16>}}
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf16> -> tensor<16x64xf16>
  qdot.store %a[%c0, %c0], %t : !qdot.desc<16x64xf16>, tensor<16x64xf16>
  func.return
}

// -----

// A loop that carries only constants and sums of them, added to a loaded tile after it: the loop result has no
// register layout (one comes from a tile met inside the loop), refused at the loop, not left for qdot-to-llvm to
// find at the constant.
func.func @constant_loop(%a_ptr: !qdot.ptr<f32>, %m: index, %n: index, %count: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<16x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  // expected-error@+1 {{qdot-accelerate-matmul: its result (tensor<16x64xf32>) meets a tile in a register layout (#qgpu.blocked) but has none itself: a loop or branch that carries only constants takes no layout from a use after it; start it from the loaded tile or the dot's result, or add them inside it}}
  %sum = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %zero) -> (tensor<16x64xf32>) {
    %next = arith.addf %acc, %one : tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %r = arith.addf %sum, %t : tensor<16x64xf32>
  qdot.store %a[%c0, %c0], %r : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}

// -----

// The same for a branch choosing between two constants.
func.func @constant_branch(%a_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %cond = arith.cmpi ult, %m, %n : index
  // expected-error@+1 {{qdot-accelerate-matmul: its result (tensor<16x64xf32>) meets a tile in a register layout (#qgpu.blocked)}}
  %s = scf.if %cond -> (tensor<16x64xf32>) {
    %one = arith.constant dense<1.000000e+00> : tensor<16x64xf32>
    scf.yield %one : tensor<16x64xf32>
  } else {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
    scf.yield %zero : tensor<16x64xf32>
  }
  %t = qdot.load %a[%c0, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
  %r = arith.addf %s, %t : tensor<16x64xf32>
  qdot.store %a[%c0, %c0], %r : !qdot.desc<16x64xf32>, tensor<16x64xf32>
  func.return
}

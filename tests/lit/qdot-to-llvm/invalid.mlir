// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm' | filecheck %s
// What qdot-to-llvm refuses: tile-level ops that earlier passes must have lowered, and the
// conversions it has no lowering for.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

func.func @mma_left(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op qgpu.mma must be lowered by qdot-lower-mma before qdot-to-llvm

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

func.func @local_load_left(%i: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %m = qgpu.local_alloc : () -> !qgpu.memdesc<16x64xi8, #sh, mutable>
  %r = qgpu.local_load %m : !qgpu.memdesc<16x64xi8, #sh, mutable> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op qgpu.local_load must be lowered by qdot-lower-local-load before qdot-to-llvm

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>

func.func @convert_layout(%c_ptr: !qdot.ptr<f32>, %m: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %c_ptr, [%m, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %v = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  %w = qgpu.convert_layout %v : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #bl>
  qdot.store %d[%c1, %c1], %w : !qdot.desc<16x8xf32>, tensor<16x8xf32, #bl>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.convert_layout' op qgpu.convert_layout between different layouts is not supported by qdot-to-llvm yet

// -----

// A tensor that qdot-accelerate-matmul never gave a layout (it did not run): a diagnostic at
// the first op that needs one, not a bare message without a location.
func.func @no_layout(%y: !qdot.ptr<f32>) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %y, [%c1, %c32], [%c32, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x32xf32>
  %v = arith.constant dense<1.000000e+00> : tensor<1x32xf32>
  qdot.store %d[%c0, %c0], %v : !qdot.desc<1x32xf32>, tensor<1x32xf32>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'arith.constant' op tensor has no qgpu layout encoding

// -----

// qdot.l2_prefetch is a cp.async prefetch size: 64, 128 or 256 bytes (dialects/qdot/kernel_attrs.py),
// refused at the kernel even when it has no copy to put it on.
func.func @l2_prefetch_size() attributes {qdot.kernel, qdot.l2_prefetch = 100 : i64} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.l2_prefetch must be 64, 128 or 256 (bytes), got 100

// -----

func.func @l2_prefetch_type() attributes {qdot.kernel, qdot.l2_prefetch = "128B"} {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.l2_prefetch must be an integer 64, 128 or 256 (bytes), got "128B"

// -----

// A buffer read by an op this pass does not lower (here the lit tests' stand-in) would be left
// a tile-level value after the kernel's pointers became addresses: refused at that reader.
#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @buffer_read_by_another_dialect(%a_ptr: !qdot.ptr<i8>, %m: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %m], [%m, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
  %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
  "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'test.op' op operand #0 is a 'qgpu.local_alloc' value, which qdot-to-llvm lowers only for the qdot and qgpu ops that read it

// -----

// Copies and stores move 2-D tiles; a rank-1 one was an internal error (copies) or an IndexError
// (stores).
#sh = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @rank_one_copy(%x: !qdot.ptr<i8>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xd = qdot.make_desc %x, [%n], [%c1] : !qdot.ptr<i8> -> !qdot.desc<64xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64xi8, #sh, mutable>
  qgpu.async_copy %xd[%c0], %s : !qdot.desc<64xi8>, !qgpu.memdesc<64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op qdot-to-llvm moves 2-D tiles between global memory and shared memory or registers; this tile has rank 1

// -----

#bl = #qgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @rank_one_store(%y: !qdot.ptr<i32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %yd = qdot.make_desc %y, [%n], [%c1] : !qdot.ptr<i32> -> !qdot.desc<32xi32>
  %v = arith.constant dense<0> : tensor<32xi32, #bl>
  qdot.store %yd[%c0], %v : !qdot.desc<32xi32>, tensor<32xi32, #bl>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.store' op qdot-to-llvm moves 2-D tiles between global memory and shared memory or registers; this tile has rank 1

// -----

// cp.async copies runs of a row along the shared buffer's contiguous dimension (order[0]), so
// the global tile must be contiguous there too: a column stride that is not the constant 1
// (here the run-time %m, a transposed or strided view) is refused at the copy, not copied as
// if it were 1.
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @strided_columns(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %m] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %s : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op the global tile's contiguous dimension must match the shared buffer's (dimension 1 needs stride 1 in qdot.make_desc)

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

func.func @addf_f16() attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %a = arith.constant dense<1.000000e+00> : tensor<16x8xf16, #mma>
  %s = arith.addf %a, %a : tensor<16x8xf16, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'arith.addf' op arith.addf of distributed tensors adds f32, not f16

// -----

// Tensor code outside a kernel (the form qdot-opt accepts for one op) has no memory to live in.
func.func @not_a_kernel(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  func.return %a : tensor<16x16xf32>
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op @not_a_kernel takes or returns tensors, so it cannot be GPU code: qdot-to-llvm lowers kernels (func.func with the qdot.kernel attribute

// -----

func.func @tensor_inside(%x: f32) -> f32 {
  %t = arith.constant dense<1.000000e+00> : tensor<16x8xf32>
  func.return %x : f32
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'arith.constant' op computes a tensor in @tensor_inside, which is not a kernel

// -----

// A tile one element wide along the shared buffer's contiguous dimension is no exception: 64
// q4_K blocks of one K step next to each other read column-wise (strides [1, 64], a 64x1 tile
// at [0, col]; tile_weights' order, which MmqConfig(tiled_weights) reads K-contiguous instead:
// tiled-weight-copies.mlir) has a column stride of 64, refused at the copy like any other.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @strided_one_wide(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %cols: index, %col: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w_desc = qdot.make_desc %w_ptr, [%c64, %cols], [%c1, %c64] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %s = qgpu.local_alloc : () -> !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  qgpu.async_copy %w_desc[%c0, %col], %s : !qdot.desc<64x1x!qdot.block<q4_K>>, !qgpu.memdesc<64x1x!qdot.block<q4_K>, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op the global tile's contiguous dimension must match the shared buffer's (dimension 1 needs stride 1 in qdot.make_desc)

// -----

// A swizzled buffer's offsets are an XOR of the bits of (row, column), so it is copied into only with
// power-of-two tile dimensions; a 48-row one was an internal ValueError.
#sh = #qgpu.shared<{vec = 1, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @swizzled_48_rows(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<48x64xi8>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<48x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %buf : !qdot.desc<48x64xi8>, !qgpu.memdesc<48x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.async_copy' op a swizzled or fp4Padded shared buffer is copied into only with power-of-two tile dimensions (its offsets are then an XOR of bits), not 48x64

// -----

// A buffer carried through a loop is refused at the op that uses it (the error had no location).
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @carried_buffer(%n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant dense<3> : tensor<32x64xi8, #bl>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %buf) -> (!qgpu.memdesc<32x64xi8, #sh, mutable>) {
    qgpu.local_store %v, %b : tensor<32x64xi8, #bl>, !qgpu.memdesc<32x64xi8, #sh, mutable>
    scf.yield %b : !qgpu.memdesc<32x64xi8, #sh, mutable>
  }
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 5]]:5: error: 'qgpu.local_store' op shared-memory buffers must come from qgpu.local_alloc or qgpu.memdesc_index; this one is a block argument (a buffer carried through a loop or a branch)

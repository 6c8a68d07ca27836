// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s
// The qdot.* attributes of a function and its arguments are discardable attributes, which no op
// definition checks: the verifier checks them (dialects/qdot/kernel_attrs.py,
// kernel_attribute_problem), so a misspelt or malformed one is reported where it is, not
// ignored or left to the pass that reads it. One case per rule; the last case is valid.

func.func @unknown(%n: index) attributes {qdot.kernel, qdot.num_wraps = 4 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op unknown kernel attribute 'qdot.num_wraps'; a function takes qdot.kernel, qdot.wait_previous_grid, qdot.launch_dependents, qdot.unguarded_copies, qdot.pad_block_rows, qdot.swizzle_fold_buffers, qdot.broadcast_rhs, qdot.num_warps, qdot.min_blocks_per_sm, qdot.l2_prefetch, qdot.q4k_fold, qdot.arg_kinds, qdot.shared_bytes

// -----

func.func @unit_with_value(%n: index) attributes {qdot.kernel, qdot.wait_previous_grid = 1 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.wait_previous_grid is a unit attribute (it takes no value), got 1 : i64

// -----

func.func @unit_with_false(%n: index) attributes {qdot.kernel, qdot.unguarded_copies = false} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.unguarded_copies is a unit attribute (it takes no value), got false

// -----

func.func @unknown_fold(%n: index) attributes {qdot.kernel, qdot.q4k_fold = "auto"} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.q4k_fold must be one of 'mma', 'fma' (a string), got "auto"

// -----

func.func @fold_not_a_string(%n: index) attributes {qdot.kernel, qdot.q4k_fold = 1 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.q4k_fold must be one of 'mma', 'fma' (a string), got 1 : i64

// -----

func.func @zero_warps(%n: index) attributes {qdot.kernel, qdot.num_warps = 0 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.num_warps must be an integer from 1 to 32, got 0 : i64

// -----

func.func @too_many_warps(%n: index) attributes {qdot.kernel, qdot.num_warps = 1099511627776 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.num_warps must be an integer from 1 to 32, got 1099511627776 : i64

// -----

func.func @min_blocks_text(%n: index) attributes {qdot.kernel, qdot.min_blocks_per_sm = "two"} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.min_blocks_per_sm must be an integer from 1 to 32, got "two"

// -----

func.func @l2_prefetch_size(%n: index) attributes {qdot.kernel, qdot.l2_prefetch = 100 : i64} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.l2_prefetch must be 64, 128 or 256 (bytes), got 100

// -----

func.func @argument_typo(%n: index {qdot.divisibilty = 8 : i64}) attributes {qdot.kernel} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op unknown attribute 'qdot.divisibilty' on argument 0; an argument takes qdot.divisibility, qdot.not_written_by_previous_grid

// -----

func.func @divisibility_not_power_of_two(%p: !qdot.ptr<f32>, %n: index {qdot.divisibility = 24 : i64}) attributes {qdot.kernel} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.divisibility of argument 1 must be a power of two, got 24 : i64

// -----

func.func @divisibility_of_pointer(%p: !qdot.ptr<f32> {qdot.divisibility = 16 : i64}) attributes {qdot.kernel} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.divisibility applies to integer arguments; argument 0 is !qdot.ptr<f32>

// -----

func.func @not_written_with_value(%p: !qdot.ptr<f32> {qdot.not_written_by_previous_grid = true}) attributes {qdot.kernel, qdot.wait_previous_grid} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.not_written_by_previous_grid on argument 0 is a unit attribute (it takes no value), got true

// -----

func.func @not_written_scalar(%n: index {qdot.not_written_by_previous_grid}) attributes {qdot.kernel, qdot.wait_previous_grid} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.not_written_by_previous_grid applies to pointer arguments; argument 0 is index

// -----

func.func @not_written_without_wait(%p: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}) attributes {qdot.kernel} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op qdot.not_written_by_previous_grid on argument 0 says when the kernel may read the array, relative to its griddepcontrol.wait, and this kernel has none: add qdot.wait_previous_grid or remove it

// -----

// A layout spans the kernel's warps: four warps' layout in a one-warp kernel compiled to stores
// of a quarter of the tile. A kernel without qdot.num_warps has the default, 4.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
func.func @layout_warps(%c_ptr: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %ones = arith.constant dense<1.000000e+00> : tensor<32x16xf32, #mma>
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:3: error: 'arith.constant' op has a value laid out over 4 warps (tensor<32x16xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>), but the function's qdot.num_warps is 1: a layout spans the kernel's warps

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @default_warps(%x: tensor<32x32xf32, #bl>) attributes {qdot.kernel} {
  func.return
}
// CHECK: kernel-attributes-invalid.mlir:[[# @LINE - 3]]:1: error: 'func.func' op has a value laid out over 1 warp (tensor<32x32xf32, #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>), but the function's qdot.num_warps is 4 (the default: the kernel sets none): a layout spans the kernel's warps

// -----

// CHECK-LABEL: func.func @valid
// CHECK-SAME:  qdot.not_written_by_previous_grid
// CHECK-SAME:  qdot.divisibility = 8 : i64
// CHECK-SAME:  qdot.kernel, qdot.num_warps = 8 : i64, qdot.min_blocks_per_sm = 2 : i64, qdot.wait_previous_grid, qdot.launch_dependents, qdot.l2_prefetch = 128 : i64, qdot.q4k_fold = "fma"
func.func @valid(%p: !qdot.ptr<f32> {qdot.not_written_by_previous_grid}, %n: index {qdot.divisibility = 8 : i64}) attributes {qdot.kernel, qdot.num_warps = 8 : i64, qdot.min_blocks_per_sm = 2 : i64, qdot.wait_previous_grid, qdot.launch_dependents, qdot.l2_prefetch = 128 : i64, qdot.q4k_fold = "fma"} {
  func.return
}

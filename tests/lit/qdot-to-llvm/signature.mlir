// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm' | filecheck %s
// The kernel signature: !qdot.ptr arguments become i64 addresses, and qdot.arg_kinds records
// what the runner must pass for each argument; qdot.shared_bytes is the dynamic shared memory
// the launch must request. Functions without qdot.kernel are left alone.

// CHECK-LABEL: func.func @args
// CHECK-SAME:  (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: index, %{{[^:]*}}: i32, %{{[^:]*}}: f32)
// CHECK-SAME:  attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.arg_kinds = ["ptr", "ptr", "index", "i32", "f32"], qdot.shared_bytes = 0 : i64}
// CHECK-LABEL: func.func @helper
// CHECK-SAME:  (%{{[^:]*}}: !qdot.ptr<f32>)
// CHECK-NOT:   qdot.arg_kinds
func.func @args(%p: !qdot.ptr<f32>, %q: !qdot.ptr<i8>, %n: index, %x: i32, %alpha: f32) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  func.return
}
func.func @helper(%p: !qdot.ptr<f32>) {
  func.return
}

// -----

// Integer arguments keep their width, and their kind says it ("i" + width): the runner
// (targets/ptx/runner.py) passes an "i64" (a 64-bit count or offset) as np.int64 and an "i32"
// as np.int32, so an i64 recorded as "i32" would misplace every argument after it.
// CHECK-LABEL: func.func @integer_widths
// CHECK-SAME:  (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i32, %{{[^:]*}}: i64)
// CHECK-SAME:  qdot.arg_kinds = ["ptr", "i64", "i32", "ptr"]
func.func @integer_widths(%p: !qdot.ptr<f32>, %count: i64, %n: i32, %q: !qdot.ptr<i8>) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  func.return
}

// -----

func.func @tensor_argument(%t: tensor<4xf32>) attributes {qdot.kernel} {
  func.return
}
// CHECK: signature.mlir:[[# @LINE - 3]]:1: error: 'func.func' op kernel argument 0 has type tensor<4xf32>; kernels take !qdot.ptr, index, i32, i64 and f32

// -----

// Narrower integers are refused at the kernel: the runner, the programmatic launcher and the
// emulator pass i32 and i64 scalars only, and an i16 parameter given 4 bytes would shift every
// argument after it.
func.func @narrow_integer(%p: !qdot.ptr<f32>, %flag: i16) attributes {qdot.kernel} {
  func.return
}
// CHECK: signature.mlir:[[# @LINE - 3]]:1: error: 'func.func' op kernel argument 1 has type i16; kernels take !qdot.ptr, index, i32, i64 and f32

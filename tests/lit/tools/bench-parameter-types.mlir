// qdot-bench takes the parameter types a kernel takes (!qdot.ptr, index, i32, i64, f32) and refuses any other
// where it reads the signature, before any --shape value is checked against a range (an i1 once was "from 0 to
// 0"), and with the compile's words. From stdin the diagnostic names '<stdin>'.

// RUN: not qdot-bench %s --shape n=16,flag=1 --grid 1 --emulate 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not qdot-bench %s --shape n=16,flag=0 --grid 1 --emulate 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not qdot-bench --shape n=16 --grid 1 --emulate < %s 2>&1 | filecheck %s --check-prefix=STDIN

// FLAG: bench-parameter-types.mlir:[[# @LINE + 4]]:1: error: 'func.func' op parameter %flag has type i1;
// FLAG-SAME: a kernel takes !qdot.ptr arrays and index, i32, i64 and f32 scalars
// FLAG-NOT: from 0 to
// STDIN: <stdin>:[[# @LINE + 1]]:1: error: 'func.func' op parameter %flag has type i1
func.func @flagged(%out: !qdot.ptr<f32>, %n: index, %flag: i1) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %out, [%n, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %z = arith.constant dense<1.000000e+00> : tensor<16x16xf32>
  qdot.store %d[%c0, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

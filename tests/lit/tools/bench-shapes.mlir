// qdot-bench's --shape and --flops against the kernel's parameters: a kernel without scalar parameters needs no
// --shape (one run, named by its grid alone; --shape '' says the same), one with them still does; a FLOP count
// must be positive at every shape; the input read from stdin is '<stdin>' in the compile's diagnostics, as in
// qdot-opt and qdot-translate.

// RUN: qdot-bench %s --kernel fixed --grid 2 --emulate | filecheck %s --check-prefix=NO-SHAPE
// RUN: qdot-bench %s --kernel fixed --shape '' --grid 2 --emulate --json | filecheck %s --check-prefix=EMPTY-JSON
// RUN: not qdot-bench %s --kernel fixed --shape n=16 --grid 2 --emulate 2>&1 | filecheck %s --check-prefix=NOT-A-PARAM
// RUN: not qdot-bench %s --kernel fixed --grid "cdiv(n,16)" --emulate 2>&1 | filecheck %s --check-prefix=NO-NAMES
// RUN: not qdot-bench %s --kernel rows --grid 2 --emulate 2>&1 | filecheck %s --check-prefix=REQUIRED
// RUN: not qdot-bench %s --kernel rows --shape '' --grid 2 --emulate 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not qdot-bench %s --kernel rows --shape n=16 --grid 2 --flops -5 --emulate 2>&1 \
// RUN:   | filecheck %s --check-prefix=NEGATIVE
// RUN: not qdot-bench %s --kernel rows --shape n=16 --shape n=0 --grid 2 --flops n --emulate 2>&1 \
// RUN:   | filecheck %s --check-prefix=ZERO
// RUN: not qdot-bench %s --kernel fixed --grid 2 --flops 0 --emulate 2>&1 | filecheck %s --check-prefix=ZERO-FIXED
// RUN: not qdot-bench --strategy native --shape m=256,n=256,k=256 --grid 4 --emulate \
// RUN:   < %S/../../../examples/mx_gemm_e4m3_e2m1.mlir 2>&1 | filecheck %s --check-prefix=STDIN

// NO-SHAPE: fixed  grid=(2,1,1)  emulated: 2 CTAs, {{.*}}  out: all 32 elements written
// EMPTY-JSON: "kernel": "fixed", "arch": "sm_90", "shape": {}, "grid": [2, 1, 1]
// EMPTY-JSON-SAME: "unwritten_elements": {"out": 0}
// NOT-A-PARAM: qdot-bench: error: --shape 'n=16': 'n' is not a parameter; the kernel's scalar parameters are none
// NO-NAMES: qdot-bench: error: --grid 'cdiv(n,16)': unknown name 'n' (the kernel's integer parameters: none)
// REQUIRED: qdot-bench: error: --shape is required: every scalar parameter of the kernel
// EMPTY: qdot-bench: error: --shape '' does not give n; the kernel's scalar parameters are n
// NEGATIVE: qdot-bench: error: --flops '-5' gives -5 at n=16; the operations of a launch must be a positive count
// ZERO: qdot-bench: error: --flops 'n' gives 0 at n=0; the operations of a launch must be a positive count
// ZERO-FIXED: qdot-bench: error: --flops '0' gives 0; the operations of a launch must be a positive count
// STDIN: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: 'qdot.dot_scaled' op strategy 'native' needs

// A row of 16 f32 per program, the grid's size in rows: no scalar parameter.
func.func @fixed(%out: !qdot.ptr<f32>) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = qdot.program_id x
  %gx = qdot.num_programs x
  %d = qdot.make_desc %out, [%gx, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x16xf32>
  %z = arith.constant dense<1.000000e+00> : tensor<1x16xf32>
  qdot.store %d[%x, %c0], %z : !qdot.desc<1x16xf32>, tensor<1x16xf32>
  func.return
}

// The same, %n wide.
func.func @rows(%out: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = qdot.program_id x
  %gx = qdot.num_programs x
  %d = qdot.make_desc %out, [%gx, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x16xf32>
  %z = arith.constant dense<1.000000e+00> : tensor<1x16xf32>
  qdot.store %d[%x, %c0], %z : !qdot.desc<1x16xf32>, tensor<1x16xf32>
  func.return
}

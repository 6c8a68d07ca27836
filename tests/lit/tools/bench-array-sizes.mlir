// How qdot-bench sizes each pointer's array from the kernel's own descriptors when their shapes depend on the
// program: a region of rows per program ((x · gy + y) · 16 … + n) is sized for the last program, (gx − 1, gy − 1),
// and a counter array indexed inside a loop for the loop's last iteration. --emulate --json prints the plan.

// RUN: qdot-bench %s --kernel regions --shape n=16 --grid "3, 2" --emulate --json | filecheck %s --check-prefix=REGIONS
// RUN: qdot-bench %s --kernel regions --shape n=5 --grid "1, 1" --emulate --json | filecheck %s --check-prefix=ONE
// RUN: qdot-bench %s --kernel loop_counters --shape n=6 --grid 2 --emulate --json | filecheck %s --check-prefix=LOOP
// RUN: not qdot-bench %s --kernel may_divide_by_zero --shape n=16 --grid 3 --emulate 2>&1 | filecheck %s --check-prefix=DIV

// (3 · 2 − 1) · 16 + 16 = 96 rows of 16 f32; one program: 5 rows.
// REGIONS: "grid": [3, 2, 1]
// REGIONS-SAME: "ws": {"element_type": "f32", "elements": 1536, "bytes": 6144, "output": true}
// ONE: "ws": {"element_type": "f32", "elements": 80, "bytes": 320, "output": true}
func.func @regions(%ws: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = qdot.program_id x
  %y = qdot.program_id y
  %gy = qdot.num_programs y
  %xs = arith.muli %x, %gy : index
  %region = arith.addi %xs, %y : index
  %row0 = arith.muli %region, %c16 : index
  %rows = arith.addi %row0, %n : index
  %d = qdot.make_desc %ws, [%rows, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  qdot.store %d[%row0, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

// Tiles x · n + t for t = 0 … n − 1 (the loop's variable): (2 − 1) · 6 + 5 = 11, so 12 counters, zeros.
// LOOP: "counts": {"element_type": "i32", "elements": 12, "bytes": 48, "output": true}
func.func @loop_counters(%counts: !qdot.ptr<i32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = qdot.program_id x
  %programs = qdot.num_programs x
  %first = arith.muli %x, %n : index
  scf.for %t = %c0 to %n step %c1 {
    %tile = arith.addi %first, %t : index
    %last = qdot.last_arrival %counts[%tile], %programs : !qdot.ptr<i32>
  }
  func.return
}

// A divisor that is zero in program 0: a diagnostic at the division, not a size.
// DIV: bench-array-sizes.mlir:[[# @LINE + 7]]:3: error: 'arith.divui' op may divide by zero (its divisor ranges over 0 … 2 across the programs) at n=16, computing shape operand 0 of the descriptor over %p at line [[# @LINE + 8]]
func.func @may_divide_by_zero(%p: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = qdot.program_id x
  %rows = arith.divui %n, %x : index
  %d = qdot.make_desc %p, [%rows, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  qdot.store %d[%c0, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}

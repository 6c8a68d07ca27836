// qdot-bench --emulate on a grid meant for a GPU: refused past --max-ctas unless --ctas picks some CTAs; the ones
// picked run (linear ids, negative from the end, Python slices) and the outputs are not counted then.

// RUN: not qdot-bench %s --shape n=16 --grid "100, 30" --emulate 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: qdot-bench %s --shape n=16 --grid "100, 30" --emulate --ctas 0,-1 --json | filecheck %s --check-prefix=EDGES
// RUN: qdot-bench %s --shape n=16 --grid "100, 30" --emulate --ctas=-2:,0:2,1 | filecheck %s --check-prefix=SLICES
// RUN: qdot-bench %s --shape n=16 --grid "4, 2" --emulate --max-ctas 8 | filecheck %s --check-prefix=WHOLE
// RUN: not qdot-bench %s --shape n=16 --grid "4, 2" --emulate --ctas 8 2>&1 | filecheck %s --check-prefix=OUTSIDE

// REFUSED: qdot-bench: error: grid=(100,30,1) at n=16 has 3000 CTAs, more than --emulate runs whole (--max-ctas 1024); pick some with --ctas
// EDGES: "ctas": 2, "grid_ctas": 3000,
// EDGES-SAME: "unwritten_elements": null, "cta_ids": [0, 2999]
// SLICES: emulated: 4 CTAs of 3000, {{.*}} outputs not counted (--ctas ran part of the grid)
// WHOLE: emulated: 8 CTAs, {{.*}} out: all 128 elements written
// OUTSIDE: qdot-bench: error: --ctas: CTA 8 is outside grid=(4,2,1) at n=16 (8 CTAs: ids 0 to 7, or -8 to -1 from the end)

// One row of 16 f32 per program: row x · gy + y.
func.func @rows(%out: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = qdot.program_id x
  %y = qdot.program_id y
  %gx = qdot.num_programs x
  %gy = qdot.num_programs y
  %programs = arith.muli %gx, %gy : index
  %xs = arith.muli %x, %gy : index
  %row = arith.addi %xs, %y : index
  %d = qdot.make_desc %out, [%programs, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x16xf32>
  %z = arith.constant dense<1.000000e+00> : tensor<1x16xf32>
  qdot.store %d[%row, %c0], %z : !qdot.desc<1x16xf32>, tensor<1x16xf32>
  func.return
}

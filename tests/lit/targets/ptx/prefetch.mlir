// RUN: qdot-translate %s --target ptx --arch sm_80 | filecheck %s
// prefetch.global.L2 in the PTX: predicated where the op is, and kept although it yields no value
// (xDSL's dead-code rules would erase an op with read effects only); a qdot.prefetch of a repacked
// q4_K K step (one 9216-byte run) becomes 73 line prefetches over 64 threads, two per thread.

// CHECK-LABEL: .entry prefetch
// CHECK:       @%qdot_p prefetch.global.L2 [%rd{{[0-9]+}}];
// CHECK:       prefetch.global.L2 [%rd{{[0-9]+}}];
func.func @prefetch(%a: i64, %p: i64) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : i64
  %in = arith.cmpi ne, %p, %c0 : i64
  ptx.prefetch_global_l2 %a if %in
  ptx.prefetch_global_l2 %a
  func.return
}

// CHECK-LABEL: .entry one_step
// CHECK-COUNT-2: prefetch.global.L2
// CHECK-NOT:   prefetch.global.L2
// CHECK:       ret;
func.func @one_step(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %rows = arith.divui %k, %c64 : index
  %w_desc = qdot.make_desc %w_ptr, [%rows, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  qdot.prefetch %w_desc[%c64, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>>
  func.return
}

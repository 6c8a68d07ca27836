// RUN: python -m compiler.mmq_choice q4_K 1 4096 14336 --tiled-weights | qdot-translate --target ptx --arch sm_90 --num-stages 2 | filecheck %s
// RUN: python -m compiler.mmq_choice q4_K 1 4096 14336 --tiled-weights | qdot-translate --target ptx --arch sm_90 --num-stages 2 --remarks=qdot-to-llvm 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// The decode goal row's kernel (one token, W repacked, 14 K splits of 4 super-blocks): its K loop runs from the
// split's first super-block, so qdot-pipeline makes each copy only if the loop runs its K position
// (qdot-pipeline/partial-range.mlir). In PTX that is one test per iteration, ahead < the split's end, and one
// source size, 16 or 0, that all nine 16-byte chunks of W's 9216-byte run take: the last iteration's copy ahead
// reads nothing, where it used to read the split's last tile again. W's run stays declared in bounds (no bound
// per chunk, the chunks' addresses constant offsets of one).

// CHECK:       cp.async.wait_group 0;
// CHECK:       setp.lt.u64 [[RUNS:%p[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK:       selp.b32 [[SIZE:%r[0-9]+]], 16, 0, [[RUNS]];
// CHECK-COUNT-9: cp.async.cg.shared.global [%r{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, [[SIZE]];
// CHECK:       cp.async.commit_group;
// REMARK: copy of a 64x1x!qdot.block<q4_K> tile: one contiguous run of 9216 B (rows back to back) by 16-byte cp.async, 9 per thread; declared in bounds: no bounds tests{{$}}

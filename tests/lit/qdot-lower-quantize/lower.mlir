// RUN: qdot-opt %s --split-input-file -p qdot-lower-quantize | filecheck %s
// The lanes strategy (tiles with fewer 32-value groups than threads, or whose staged wave
// would need more than 48 KB of shared memory): eight lanes per group, lane l holding values
// l, l+8, l+16, l+24 (passes/lower_quantize.py).

// One q8_1_mmq block, one warp: the whole arithmetic of a group.
// CHECK-LABEL: func.func @mmq_one_block
// CHECK-NOT:   qdot.load
// CHECK-NOT:   qgpu.local_alloc
// CHECK:       %[[X:.*]] = builtin.unrealized_conversion_cast %x_ptr : !qdot.ptr<f32> to i64
// CHECK:       %[[Q:.*]] = builtin.unrealized_conversion_cast %q_ptr : !qdot.ptr<!qdot.block<q8_1_mmq>> to i64
// Four predicated loads (out of bounds reads 0), coalesced across the eight lanes.
// CHECK:       %[[V0:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : f32
// CHECK:       %[[V1:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : f32
// CHECK:       %[[V2:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : f32
// CHECK:       %[[V3:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : f32
// amax: |x| as maximumf(x, -x) (fabs for LLVM), then maxnumf.
// CHECK:       %[[N0:.*]] = arith.negf %[[V0]] : f32
// CHECK-NEXT:  %[[A0:.*]] = arith.maximumf %[[V0]], %[[N0]] : f32
// CHECK-COUNT-3: arith.maximumf
// CHECK:       %[[M02:.*]] = arith.maxnumf %[[A0]], %{{.*}} : f32
// CHECK-NEXT:  %[[M13:.*]] = arith.maxnumf
// CHECK-NEXT:  %[[M:.*]] = arith.maxnumf %[[M02]], %[[M13]] : f32
// The sum in warp_reduce_sum<32>'s order: offsets 16 and 8 in registers ...
// CHECK:       %[[S02:.*]] = arith.addf %[[V0]], %[[V2]] : f32
// CHECK:       %[[S13:.*]] = arith.addf %[[V1]], %[[V3]] : f32
// CHECK:       %[[S:.*]] = arith.addf %[[S02]], %[[S13]] : f32
// ... then xor shuffles 4, 2, 1 over the whole warp.
// CHECK:       %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK:       %[[SHUF_M:.*]] = ptx.shfl_sync bfly %[[M]], %[[FOUR]], %[[CLAMP:.*]], %[[ALL:.*]] : f32
// CHECK:       %[[M4:.*]] = arith.maxnumf %[[M]], %[[SHUF_M]] : f32
// CHECK:       %[[SHUF_S:.*]] = ptx.shfl_sync bfly %[[S]], %[[FOUR]], %[[CLAMP]], %[[ALL]] : f32
// CHECK:       %[[S4:.*]] = arith.addf %[[S]], %[[SHUF_S]] : f32
// CHECK:       ptx.shfl_sync bfly %[[M4]], {{.*}} : f32
// CHECK:       ptx.shfl_sync bfly %[[S4]], {{.*}} : f32
// CHECK:       ptx.shfl_sync bfly {{.*}} : f32
// CHECK:       %[[AMAX:.*]] = arith.maxnumf
// CHECK:       ptx.shfl_sync bfly {{.*}} : f32
// CHECK:       %[[SUM:.*]] = arith.addf
// d = (amax + 0) / 127, a real division (+ 0 makes a -0 maximum +0).
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  %[[AMAX0:.*]] = arith.addf %[[AMAX]], %[[ZERO]] : f32
// CHECK-NEXT:  %[[C127:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT:  %[[D:.*]] = arith.divf %[[AMAX0]], %[[C127]] : f32
// d = 0 divides by 1, and positive values then add -1.5 instead of 0.49999997.
// CHECK-NEXT:  %[[DZERO:.*]] = arith.cmpf oeq, %[[D]], %[[ZERO]] : f32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:  %[[DIV:.*]] = arith.select %[[DZERO]], %[[ONE]], %[[D]] : f32
// CHECK-NEXT:  %[[SAT:.*]] = arith.constant -1.500000e+00 : f32
// CHECK-NEXT:  %[[HALF:.*]] = arith.constant 0.49999997 : f32
// CHECK-NEXT:  %[[UP:.*]] = arith.select %[[DZERO]], %[[SAT]], %[[HALF]] : f32
// q = trunc(x / d + copysign(0.49999997, x)) = roundf(x / d): x / d, not x * (1/d); a zero x
// divides d by d instead (div.rn.f32's fast path; 1 - 0.49999997 truncates to 0, as 0 / d does).
// CHECK-NEXT:  %[[XZERO:.*]] = arith.cmpf oeq, %[[V0]], %[[ZERO]] : f32
// CHECK-NEXT:  %[[NUM:.*]] = arith.select %[[XZERO]], %[[DIV]], %[[V0]] : f32
// CHECK-NEXT:  %[[QUOT:.*]] = arith.divf %[[NUM]], %[[DIV]] : f32
// CHECK-NEXT:  %[[POS:.*]] = arith.cmpf ogt, %[[V0]], %[[ZERO]] : f32
// CHECK-NEXT:  %[[MHALF:.*]] = arith.constant -0.49999997 : f32
// CHECK-NEXT:  %[[OFF:.*]] = arith.select %[[POS]], %[[UP]], %[[MHALF]] : f32
// CHECK-NEXT:  %[[BIASED:.*]] = arith.addf %[[QUOT]], %[[OFF]] : f32
// CHECK-NEXT:  %[[QI:.*]] = arith.fptosi %[[BIASED]] : f32 to i32
// CHECK-NEXT:  %[[Q0:.*]] = arith.trunci %[[QI]] : i32 to i8
// CHECK-COUNT-3: arith.trunci %{{.*}} : i32 to i8
// (d, s) as one f16 pair, d in the low half, written by the group's first lane; then the quants.
// CHECK:       %[[PAIR:.*]] = ptx.cvt f16x2.f32 %[[SUM]], %[[D]]
// CHECK:       %[[WORD:.*]] = ptx.bitcast %[[PAIR]] : vector<2xf16> -> i32
// CHECK:       %[[BLOCK_BYTES:.*]] = arith.constant 144 : i64
// CHECK:       %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:       %[[WRITE_PAIR:.*]] = arith.andi %[[IN:.*]], %[[FIRST]] : i1
// CHECK:       ptx.st_global %{{.*}}, %[[WORD]] if %[[WRITE_PAIR]] : i32
// CHECK:       %[[QS:.*]] = arith.constant 16 : i64
// CHECK:       %[[AT:.*]] = arith.addi %{{.*}}, %[[QS]] : i64
// CHECK:       ptx.st_global %{{.*}}, %[[Q0]] if %[[IN]] : i8
// CHECK-COUNT-3: ptx.st_global %{{.*}}, %{{.*}} if %[[IN]] : i8
// CHECK-NOT:   qdot.quantize
// CHECK-NOT:   qdot.store
// CHECK:       func.return
func.func @mmq_one_block(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                         %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x128xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x1x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x128xf32> -> tensor<1x128xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x128xf32> -> tensor<1x1x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1_mmq>>, tensor<1x1x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// q8_1: 36-byte blocks, one per group; the (d, s) pair is the block's first word.
// CHECK-LABEL: func.func @q8_1_blocks
// CHECK:       %[[Q:.*]] = builtin.unrealized_conversion_cast %q_ptr
// CHECK:       %[[BYTES:.*]] = arith.constant 36 : i64
// CHECK:       %[[ROW:.*]] = arith.muli %{{.*}}, %[[BYTES]] : i64
// CHECK:       %[[START:.*]] = arith.addi %[[Q]], %[[ROW]] : i64
// CHECK:       %[[COL:.*]] = arith.muli %{{.*}}, %[[BYTES]] : i64
// CHECK:       %[[BLOCK:.*]] = arith.addi %[[START]], %[[COL]] : i64
// CHECK:       ptx.st_global %[[BLOCK]], %{{.*}} if %{{.*}} : i32
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i8
func.func @q8_1_blocks(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index,
                       %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x128xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x4x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x128xf32> -> tensor<1x128xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x128xf32> -> tensor<1x4x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x4x!qdot.block<q8_1>>, tensor<1x4x!qdot.block<q8_1>>
  func.return
}

// -----

// 16 groups for one warp's 4 slots: 4 steps, at most UNROLLED_LANES_STEPS, so no loop — the steps one after
// another (the step number folded into each group's number), and every step's four loads before the first step's
// arithmetic (the loads of all four wait for memory together).
// CHECK-LABEL: func.func @steps
// CHECK-NOT:     scf.for
// CHECK-COUNT-16: ptx.ld_global {{.*}} : f32
// CHECK-NOT:     ptx.ld_global
// CHECK:         ptx.shfl_sync bfly
// CHECK-COUNT-4: ptx.st_global {{.*}} : i8
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @steps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                 %kb: index, %row: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<2x256xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x2x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%row, %c0] : !qdot.desc<2x256xf32> -> tensor<2x256xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<2x256xf32> -> tensor<2x2x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%row, %c0], %q : !qdot.desc<2x2x!qdot.block<q8_1_mmq>>, tensor<2x2x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// 3 groups for 4 slots: the fourth group of lanes loads and stores nothing.
// CHECK-LABEL: func.func @idle_slots
// CHECK:       builtin.unrealized_conversion_cast %q_ptr
// CHECK:       %[[GROUPS:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[REAL:.*]] = arith.cmpi ult, %{{.*}}, %[[GROUPS]] : i32
// CHECK:       %[[OK:.*]] = arith.andi %[[REAL]], %{{.*}} : i1
// CHECK-NEXT:  ptx.ld_global %{{.*}} if %[[OK]] : f32
// CHECK-COUNT-4: arith.trunci
// CHECK:       %[[WRITES:.*]] = arith.andi %[[REAL]], %{{.*}} : i1
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %[[WRITES]] : i8
func.func @idle_slots(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index,
                      %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<3x32xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<3x1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<3x32xf32> -> tensor<3x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<3x32xf32> -> tensor<3x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<3x1x!qdot.block<q8_1>>, tensor<3x1x!qdot.block<q8_1>>
  func.return
}

// -----

// 512 groups for 16 warps would be staged (a group per thread), but a wave's buffer of 512
// 144-byte rows is 72 KB, over the 48 KB of shared memory a kernel has without opting in:
// the lanes strategy instead, 64 groups per step in 8 steps, no buffer, no cp.async.
// CHECK-LABEL: func.func @sixteen_warps
// CHECK-NOT:   qgpu.local_alloc
// CHECK-NOT:   ptx.cp_async
// CHECK:       %[[STEPS:.*]] = arith.constant 8 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK-NOT:   ptx.cp_async
// CHECK-COUNT-4: ptx.ld_global %{{.*}} if %{{.*}} : f32
// CHECK:       ptx.shfl_sync bfly
// CHECK-NOT:   ptx.ld_shared
// CHECK:       ptx.st_global
func.func @sixteen_warps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                         %kb: index) attributes {qdot.kernel, qdot.num_warps = 16 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<16x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<16x1024xf32> -> tensor<16x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<16x1024xf32> -> tensor<16x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<16x8x!qdot.block<q8_1_mmq>>, tensor<16x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// The limit itself: 11 warps' wave would take 352 · 144 = 50688 bytes, just over 48 KB (10 warps'
// 46080 bytes fit: staged.mlir): lanes, 44 groups per step, 12 steps for the 512 groups.
// CHECK-LABEL: func.func @eleven_warps
// CHECK-NOT:   qgpu.local_alloc
// CHECK-NOT:   ptx.cp_async
// CHECK:       %[[STEPS:.*]] = arith.constant 12 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK-NOT:   ptx.cp_async
// CHECK:       ptx.shfl_sync bfly
func.func @eleven_warps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                        %kb: index) attributes {qdot.kernel, qdot.num_warps = 11 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<16x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<16x1024xf32> -> tensor<16x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<16x1024xf32> -> tensor<16x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<16x8x!qdot.block<q8_1_mmq>>, tensor<16x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// One loaded tile quantized twice (two outputs): each chain reads the tile itself, and the load goes with
// the last of them (the first chain erased it under the second: an internal error).
// CHECK-LABEL: func.func @one_tile_two_outputs
// CHECK-NOT:   qdot.load
// CHECK-NOT:   qdot.quantize
// CHECK:       func.return
func.func @one_tile_two_outputs(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>,
                                %q2_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x32xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %q2_desc = qdot.make_desc %q2_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x1x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x32xf32> -> tensor<1x32xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  %q2 = qdot.quantize %x format = q8_1 : tensor<1x32xf32> -> tensor<1x1x!qdot.block<q8_1>>
  qdot.store %q2_desc[%c0, %c0], %q2 : !qdot.desc<1x1x!qdot.block<q8_1>>, tensor<1x1x!qdot.block<q8_1>>
  func.return
}

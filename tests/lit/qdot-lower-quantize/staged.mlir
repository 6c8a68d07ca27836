// RUN: qdot-opt %s --split-input-file -p qdot-lower-quantize | filecheck %s
// The staged strategy (tiles with at least one 32-value group per thread): the CTA copies
// the groups into shared memory with 16-byte cp.async, then each thread quantizes one
// group from registers (passes/lower_quantize.py).

// 32 groups for the 32 threads of one warp: one wave.
// CHECK-LABEL: func.func @one_wave
// A [threads, 36] f32 buffer: 128 bytes of values and 16 of padding per thread, unswizzled.
// CHECK:       %[[ALLOC:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<32x36xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable>
// CHECK-NEXT:  %[[SMEM:.*]] = builtin.unrealized_conversion_cast %[[ALLOC]] : {{.*}} to i32
// CHECK-NEXT:  %[[TID:.*]] = ptx.special_reg tid.x
// Chunk tid % 8 of group tid / 8 (then 4, 8, ... groups further): its place at 144 · group + 16 · chunk.
// CHECK:       %[[EIGHTH:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[GROUP:.*]] = arith.shrui %[[TID]], %[[EIGHTH]] : i32
// CHECK:       %[[PITCH:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[ROW_AT:.*]] = arith.muli %[[GROUP]], %[[PITCH]] : i32
// CHECK:       %[[DST0:.*]] = arith.addi %[[SMEM]], %{{.*}} : i32
// Iteration 1 is 4 groups (576 bytes) further.
// CHECK:       %[[STEP:.*]] = arith.constant 576 : i32
// CHECK-NEXT:  %[[DST1:.*]] = arith.addi %[[DST0]], %[[STEP]] : i32
// K is not known to be a multiple of 4: a uniform run-time check picks the 16-byte copies ...
// CHECK:       %[[K:.*]] = arith.index_cast %k : index to i64
// CHECK-NEXT:  %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  %[[LOW:.*]] = arith.andi %[[K]], %[[THREE]] : i64
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %[[ZERO]] : i64
// CHECK-NEXT:  scf.if %[[ALIGNED]] {
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[SIZE:.*]] = arith.select %{{.*}}, %[[SIXTEEN]], %[[NONE]] : i32
// CHECK-NEXT:    ptx.cp_async cg %[[DST0]], %{{.*}}, 16, %[[SIZE]]
// CHECK:         ptx.cp_async cg %[[DST1]], %{{.*}}, 16, %{{.*}}
// CHECK-COUNT-6: ptx.cp_async cg
// CHECK-NOT:     ptx.cp_async {{c[ag]}}
// ... or 4-byte copies (32 per thread).
// CHECK:       } else {
// CHECK-COUNT-32: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %{{.*}}
// CHECK-NOT:     ptx.cp_async {{c[ag]}}
// CHECK:       }
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NEXT:  ptx.cp_async_wait 0
// CHECK-NEXT:  ptx.bar_sync
// Thread t reads group t: 144 · t, then 8-byte pieces 8 bytes apart (LLVM merges pairs
// into 16-byte loads); piece 8 starts at value 16.
// CHECK:       %[[MINE:.*]] = arith.muli %[[TID]], %[[PITCH]] : i32
// CHECK-NEXT:  %[[AT:.*]] = arith.addi %[[SMEM]], %[[MINE]] : i32
// CHECK-NEXT:  %[[P0:.*]] = ptx.ld_shared %[[AT]] : i64
// CHECK-NEXT:  %[[LO0:.*]] = arith.trunci %[[P0]] : i64 to i32
// CHECK-NEXT:  %[[V0:.*]] = arith.bitcast %[[LO0]] : i32 to f32
// CHECK-COUNT-7: ptx.ld_shared
// CHECK:       %[[AT8:.*]] = arith.addi %[[AT]], %{{.*}} : i32
// CHECK-NEXT:  %[[P8:.*]] = ptx.ld_shared %[[AT8]] : i64
// CHECK-NEXT:  %[[LO8:.*]] = arith.trunci %[[P8]] : i64 to i32
// CHECK-NEXT:  %[[V16:.*]] = arith.bitcast %[[LO8]] : i32 to f32
// CHECK-COUNT-7: ptx.ld_shared
// No shuffles: amax over the 32 registers, then the sum's tree, offset 16 first.
// CHECK-NOT:   ptx.shfl_sync
// CHECK-COUNT-32: arith.maximumf
// CHECK-COUNT-31: arith.maxnumf
// CHECK-NEXT:  %[[S0:.*]] = arith.addf %[[V0]], %[[V16]] : f32
// CHECK-COUNT-30: arith.addf
// CHECK:       arith.divf %{{.*}}, %{{.*}} : f32
// Four quants per word: bytes 0 of a and b (selector 0x40), then the two halves (0x5410).
// CHECK:       %[[Q0:.*]] = arith.fptosi
// CHECK:       %[[Q1:.*]] = arith.fptosi
// CHECK:       %[[Q2:.*]] = arith.fptosi
// CHECK:       %[[Q3:.*]] = arith.fptosi
// CHECK-NEXT:  %[[A:.*]] = ptx.prmt %[[Q0]], %[[Q1]], %[[LOW_SEL:.*]]
// CHECK-NEXT:  %[[B:.*]] = ptx.prmt %[[Q2]], %[[Q3]], %[[LOW_SEL]]
// CHECK-NEXT:  %[[HALVES:.*]] = arith.constant 21520 : i32
// CHECK-NEXT:  %[[W0:.*]] = ptx.prmt %[[A]], %[[B]], %[[HALVES]]
// CHECK:       %[[W1:.*]] = ptx.prmt %{{.*}}, %{{.*}}, %[[HALVES]]
// CHECK-COUNT-18: ptx.prmt
// The group's (d, s) word, then its 32 quants as four 8-byte stores (d, s at block + 4 · group,
// quants at block + 16 + 32 · group).
// CHECK:       %[[PAIR:.*]] = ptx.cvt f16x2.f32
// CHECK-NEXT:  %[[WORD:.*]] = ptx.bitcast %[[PAIR]] : vector<2xf16> -> i32
// CHECK:       ptx.st_global %{{.*}}, %[[WORD]] if %[[IN:.*]] : i32
// CHECK:       %[[W0_64:.*]] = arith.extui %[[W0]] : i32 to i64
// CHECK-NEXT:  %[[W1_64:.*]] = arith.extui %[[W1]] : i32 to i64
// CHECK-NEXT:  %[[HIGH:.*]] = arith.shli %[[W1_64]], %{{.*}} : i64
// CHECK-NEXT:  %[[D0:.*]] = arith.ori %[[W0_64]], %[[HIGH]] : i64
// CHECK-NEXT:  ptx.st_global %{{.*}}, %[[D0]] if %[[IN]] : i64
// CHECK-COUNT-3: ptx.st_global %{{.*}}, %{{.*}} if %[[IN]] : i64
// CHECK-NOT:   ptx.st_global
// CHECK:       func.return
func.func @one_wave(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                    %kb: index, %row: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%row, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%row, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// K known to be a multiple of 16 (qdot.divisibility): only 16-byte copies, no run-time check.
// CHECK-LABEL: func.func @known_alignment
// CHECK-NOT:   scf.if
// CHECK-COUNT-8: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NOT:   ptx.cp_async {{c[ag]}}
// CHECK:       ptx.cp_async_commit
func.func @known_alignment(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index,
                           %k: index {qdot.divisibility = 16 : i64}, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// Columns that are not contiguous (stride %k): only 4-byte copies, no run-time check.
// CHECK-LABEL: func.func @strided_columns
// CHECK-NOT:   scf.if
// CHECK-NOT:   ptx.cp_async cg
// CHECK-COUNT-32: ptx.cp_async ca %{{.*}}, %{{.*}}, 4, %{{.*}}
// CHECK-NOT:   ptx.cp_async {{c[ag]}}
// CHECK:       ptx.cp_async_commit
func.func @strided_columns(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index,
                           %k: index, %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%c1, %m] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// 64 groups for 32 threads: two waves through one buffer, a barrier before each copy so that
// the second wave does not overwrite values the first is still reading.
// CHECK-LABEL: func.func @two_waves
// CHECK:       qgpu.local_alloc : () -> !qgpu.memdesc<32x36xf32
// CHECK:       %[[STEPS:.*]] = arith.constant 2 : index
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK-NEXT:    %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:         %[[FIVE:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    %[[FIRST:.*]] = arith.shli %[[I32]], %[[FIVE]] : i32
// CHECK-NEXT:    ptx.bar_sync
// CHECK:         scf.if
// CHECK:         ptx.bar_sync
// CHECK:         %[[GROUP:.*]] = arith.addi %[[FIRST]], %{{.*}} : i32
// CHECK-NOT:     ptx.bar_sync
// CHECK:         ptx.st_global
// CHECK:       }
// CHECK-NEXT:  func.return
func.func @two_waves(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                     %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<2x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x1024xf32> -> tensor<2x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<2x1024xf32> -> tensor<2x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<2x8x!qdot.block<q8_1_mmq>>, tensor<2x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// q8_1: 36-byte blocks keep the quants only 4-byte aligned: the (d, s) word and eight words
// of quants, each a 4-byte store.
// CHECK-LABEL: func.func @q8_1_words
// CHECK:       %[[BYTES:.*]] = arith.constant 36 : i64
// CHECK:       %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:       %[[BLOCK:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  ptx.st_global %[[BLOCK]], %{{.*}} if %[[IN]] : i32
// CHECK-NEXT:  %[[QS:.*]] = arith.addi %[[BLOCK]], %{{.*}} : i64
// CHECK-NEXT:  ptx.st_global %[[QS]], %{{.*}} if %[[IN]] : i32
// CHECK-COUNT-7: ptx.st_global %{{.*}}, %{{.*}} if %[[IN]] : i32
// CHECK-NOT:   ptx.st_global
func.func @q8_1_words(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index,
                      %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<1x32x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<1x1024xf32> -> tensor<1x32x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x32x!qdot.block<q8_1>>, tensor<1x32x!qdot.block<q8_1>>
  func.return
}

// -----

// Two staged chains in one kernel share one buffer; the second waits at a barrier before
// its copy overwrites what the first is reading.
// CHECK-LABEL: func.func @two_chains
// CHECK:       qgpu.local_alloc
// CHECK-NOT:   qgpu.local_alloc
// CHECK:       ptx.cp_async_commit
// CHECK:       ptx.st_global
// CHECK:       ptx.bar_sync
// CHECK-NOT:   ptx.st_global
// CHECK:       ptx.cp_async cg
// CHECK:       ptx.cp_async_commit
func.func @two_chains(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                      %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  %x2 = qdot.load %x_desc[%c1, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q2 = qdot.quantize %x2 format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c1, %c0], %q2 : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// A kernel with qdot.l2_prefetch: both forms of the staged copy carry the hint.
// CHECK-LABEL: func.func @l2_prefetch
// CHECK:       scf.if
// CHECK-NOT:     ptx.cp_async {{c[ag]}} %
// CHECK-COUNT-8: ptx.cp_async cg l2_prefetch 64 %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK:       } else {
// CHECK-NOT:     ptx.cp_async {{c[ag]}} %
// CHECK-COUNT-32: ptx.cp_async ca l2_prefetch 64 %{{.*}}, %{{.*}}, 4, %{{.*}}
// CHECK-NOT:     ptx.cp_async {{c[ag]}} %
// CHECK:       ptx.cp_async_commit
func.func @l2_prefetch(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                       %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.l2_prefetch = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// The largest wave that fits: 10 warps' 320 rows of 144 bytes are 46080 bytes, within the 48 KB
// a kernel has without opting in (11 warps' are over it: the lanes strategy, lower.mlir). 512
// groups take two waves.
// CHECK-LABEL: func.func @ten_warps
// CHECK:       qgpu.local_alloc : () -> !qgpu.memdesc<320x36xf32
// CHECK:       %[[STEPS:.*]] = arith.constant 2 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK:         ptx.cp_async cg
// CHECK:         ptx.cp_async_commit
// CHECK-NOT:     ptx.shfl_sync
func.func @ten_warps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
                     %kb: index) attributes {qdot.kernel, qdot.num_warps = 10 : i64} {
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

// 48 groups (2 rows of 24) for 32 threads: the second wave has 16 groups, and threads 16-31
// would quantize groups 48-63 — row 2, outside this program's tile (but maybe inside the
// tensor: another program's blocks). Their stores are predicated off: group < 48.
// CHECK-LABEL: func.func @ragged_wave
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[STEPS:.*]] = arith.constant 2 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK:         %[[FIRST:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    ptx.bar_sync
// CHECK:         %[[GROUPS:.*]] = arith.constant 48 : i32
// CHECK:         ptx.cp_async_wait 0
// CHECK-NEXT:    ptx.bar_sync
// CHECK-NEXT:    %[[GROUP:.*]] = arith.addi %[[FIRST]], %[[TID]] : i32
// CHECK-NEXT:    %[[REAL:.*]] = arith.cmpi ult, %[[GROUP]], %[[GROUPS]] : i32
// CHECK:         %[[WRITES:.*]] = arith.andi %[[REAL]], %{{.*}} : i1
// CHECK:         ptx.st_global %{{.*}}, %{{.*}} if %[[WRITES]] : i32
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %[[WRITES]] : i64
// CHECK-NOT:     ptx.st_global
// CHECK:       }
func.func @ragged_wave(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index,
                       %k: index {qdot.divisibility = 16 : i64}, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<2x768xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x6x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x768xf32> -> tensor<2x768xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<2x768xf32> -> tensor<2x6x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<2x6x!qdot.block<q8_1_mmq>>, tensor<2x6x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// The copy's chunk iterations move by compile-time steps. 64 threads copy 8 groups per
// iteration, 4 groups make a row: iteration i is 2i rows below iteration 0 in the same column,
// so each iteration adds a row and a constant multiple of the row stride to iteration 0's
// row and address, and every iteration reuses iteration 0's column (no per-iteration split of
// the group number into row and column).
// CHECK-LABEL: func.func @chunk_rows_apart
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[WG:.*]] = arith.shrui %[[TID]], %[[THREE]] : i32
// CHECK:       %[[ROW0:.*]] = arith.shrui %[[WG]], %{{.*}} : i32
// CHECK-NEXT:  %{{.*}} = arith.andi %[[WG]], %{{.*}} : i32
// CHECK:       %[[START0:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  arith.cmpi ult, %[[ROW0]], %[[M:.*]] : i32
// CHECK:       %[[COL0:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[ROW1:.*]] = arith.addi %[[ROW0]], %[[TWO:.*]] : i32
// CHECK:       arith.cmpi ult, %[[ROW1]], %[[M]] : i32
// CHECK-NEXT:  %[[START1:.*]] = arith.addi %[[START0]], %{{.*}} : i64
// CHECK-COUNT-8: arith.cmpi ult, %[[COL0]], %{{.*}} : i32
// CHECK:       ptx.cp_async_commit
func.func @chunk_rows_apart(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index,
                            %k: index {qdot.divisibility = 16 : i64}, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x128xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<16x1x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<16x128xf32> -> tensor<16x128xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<16x128xf32> -> tensor<16x1x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<16x1x!qdot.block<q8_1_mmq>>, tensor<16x1x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// The other compile-time step: 32 threads copy 4 groups per iteration and a row holds 8, so
// iteration i is group (i % 2) · 4 of row i / 2: iteration 1 is 128 values right of iteration
// 0 in the same row, iteration 2 one row below at iteration 0's column.
// CHECK-LABEL: func.func @chunk_groups_apart
// CHECK:       %[[TID:.*]] = ptx.special_reg tid.x
// CHECK:       %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[WG:.*]] = arith.shrui %[[TID]], %[[THREE]] : i32
// CHECK:       %[[ROW0:.*]] = arith.shrui %[[WG]], %{{.*}} : i32
// CHECK-NEXT:  %{{.*}} = arith.andi %[[WG]], %{{.*}} : i32
// CHECK:       %[[START0:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  arith.cmpi ult, %[[ROW0]], %[[M:.*]] : i32
// CHECK:       %[[COL0:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT:  %[[COL1:.*]] = arith.addi %[[COL0]], %[[C128]] : i32
// CHECK-NEXT:  %[[C576:.*]] = arith.constant 576 : i32
// CHECK-NEXT:  %{{.*}} = arith.addi %{{.*}}, %[[C576]] : i32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[ROW1:.*]] = arith.addi %[[ROW0]], %[[ONE]] : i32
// CHECK:       arith.cmpi ult, %[[ROW1]], %[[M]] : i32
// CHECK-NEXT:  %{{.*}} = arith.addi %[[START0]], %{{.*}} : i64
// CHECK:       arith.cmpi ult, %[[COL0]], %{{.*}} : i32
// CHECK:       arith.cmpi ult, %[[COL1]], %{{.*}} : i32
// CHECK:       arith.cmpi ult, %[[COL0]], %{{.*}} : i32
// CHECK:       ptx.cp_async_commit
func.func @chunk_groups_apart(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index,
                              %k: index {qdot.divisibility = 16 : i64}, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<4x256xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x2x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<4x256xf32> -> tensor<4x256xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<4x256xf32> -> tensor<4x2x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<4x2x!qdot.block<q8_1_mmq>>, tensor<4x2x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// A staged chain inside a loop runs once per iteration: its copies of one iteration would overwrite what
// threads still read of the one before, so a barrier goes before them as before a chain's later waves
// (there was none: the emulator found the write-after-read race).
// CHECK-LABEL: func.func @chain_in_a_loop
// CHECK:       scf.for
// CHECK-NOT:     ptx.cp_async
// CHECK:         ptx.bar_sync
// CHECK:         ptx.cp_async
func.func @chain_in_a_loop(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x64xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<16x2x!qdot.block<q8_1>>
  scf.for %i = %c0 to %c3 step %c1 {
    %r = arith.muli %i, %c16 : index
    %x = qdot.load %x_desc[%r, %c0] : !qdot.desc<16x64xf32> -> tensor<16x64xf32>
    %q = qdot.quantize %x format = q8_1 : tensor<16x64xf32> -> tensor<16x2x!qdot.block<q8_1>>
    qdot.store %q_desc[%r, %c0], %q : !qdot.desc<16x2x!qdot.block<q8_1>>, tensor<16x2x!qdot.block<q8_1>>
  }
  func.return
}

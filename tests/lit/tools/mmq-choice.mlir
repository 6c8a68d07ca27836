// RUN: python -m compiler.mmq_choice q4_K 48 4096 14336 | filecheck %s --check-prefix=STREAMK
// RUN: python -m compiler.mmq_choice q4_K 48 4096 14336 | qdot-translate --num-stages 2 | filecheck %s --check-prefix=PTX
// RUN: python -m compiler.mmq_choice q4_K 16 4096 14336 | filecheck %s --check-prefix=WIDE16
// RUN: python -m compiler.mmq_choice q2_K 24 4096 14336 | filecheck %s --check-prefix=WIDE32
// RUN: python -m compiler.mmq_choice q4_K 512 4096 4096 | filecheck %s --check-prefix=PLAIN
// RUN: python -m compiler.mmq_choice q4_0 40 4096 4096 | filecheck %s --check-prefix=WIDE64
// RUN: python -m compiler.mmq_choice q6_K 40 4096 4096 | filecheck %s --check-prefix=SUB-BLOCKS
// RUN: python -m compiler.mmq_choice q6_K 1 4096 14336 | filecheck %s --check-prefix=PAIRS
// RUN: python -m compiler.mmq_choice q2_K 128 4096 4096 --tiled-weights | filecheck %s --check-prefix=TILED
// RUN: python -m compiler.mmq_choice q4_K 512 4096 14336 --m-ranges | filecheck %s --check-prefix=RANGES
// RUN: python -m compiler.mmq_choice q8_0 100 4096 4096 --m-ranges | filecheck %s --check-prefix=RANGES-SMALL-W
// RUN: python -m compiler.mmq_choice q4_K 80 4096 4096 --reproducible | filecheck %s --check-prefix=REPRO
// RUN: python -m compiler.mmq_choice q4_K 80 4096 4096 --reproducible | qdot-translate --num-stages 2 | filecheck %s --check-prefix=REPRO-PTX
// RUN: python -m compiler.mmq_choice q8_0 1 4096 14336 --reproducible | filecheck %s --check-prefix=REPRO-DECODE
// RUN: python -m compiler.mmq_choice q8_0 1 4096 14336 --reproducible | qdot-translate --num-stages 2 | filecheck %s --check-prefix=REPRO-DECODE-PTX
// RUN: python -m compiler.mmq_choice q4_K 1 4096 14336 --reproducible | filecheck %s --check-prefix=REPRO-IN-GEMM
// RUN: python -m compiler.mmq_choice q4_K 1 4096 14336 --reproducible | qdot-translate --num-stages 2 | filecheck %s --check-prefix=REPRO-IN-GEMM-PTX
// RUN: python -m compiler.mmq_choice q4_K 1 32768 8192 --reproducible | filecheck %s --check-prefix=REPRO-TWO-SPLITS
// RUN: python -m compiler.mmq_choice q6_K 1 4096 4096 --tiled-weights | filecheck %s --check-prefix=UNGUARDED
// RUN: python -m compiler.mmq_choice q6_K 1 4096 4096 --tiled-weights | qdot-translate --num-stages 2 --remarks=qdot-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=UNGUARDED-REMARK
// RUN: python -m compiler.mmq_choice q4_K 1 4096 4096 --tiled-weights | filecheck %s --check-prefix=GUARDED
// RUN: python -m compiler.mmq_choice q4_K 1 4096 4096 --tiled-weights | qdot-translate --num-stages 2 --remarks=qdot-accelerate-matmul 2>&1 >/dev/null | filecheck %s --check-prefix=GUARDED-FOLD-REMARK
// RUN: python -m compiler.mmq_choice q3_K 1 4096 14336 --tiled-weights | filecheck %s --check-prefix=PADDED-Q3K
// RUN: python -m compiler.mmq_choice q3_K 1 4096 14336 --tiled-weights | qdot-translate --num-stages 2 --remarks=qdot-accelerate-matmul 2>&1 >/dev/null | filecheck %s --check-prefix=PADDED-Q3K-REMARK
// RUN: python -m compiler.mmq_choice q4_1 1 4096 14336 --tiled-weights | filecheck %s --check-prefix=PADDED-Q41
// RUN: python -m compiler.mmq_choice q4_1 1 4096 14336 --tiled-weights | qdot-translate --num-stages 2 --remarks=qdot-accelerate-matmul,qdot-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=PADDED-Q41-REMARK
// RUN: python -m compiler.mmq_choice q5_K 1 4096 14336 --tiled-weights | filecheck %s --check-prefix=UNPADDED-Q5K
// RUN: python -m compiler.mmq_choice q3_K 5 4096 4096 --tiled-weights | filecheck %s --check-prefix=UNGUARDED8
// RUN: python -m compiler.mmq_choice q4_K 5 4096 4096 --tiled-weights | filecheck %s --check-prefix=GUARDED8
// RUN: not python -m compiler.mmq_choice q4_K 16 4096 14300 2>&1 | filecheck %s --check-prefix=BAD-K
// RUN: not python -m compiler.mmq_choice q8_1 16 4096 4096 2>&1 | filecheck %s --check-prefix=BAD-FORMAT
// RUN: not python -m compiler.mmq_choice q4_K 4294967360 4096 4096 2>&1 | filecheck %s --check-prefix=BAD-GRID
// `python -m compiler.mmq_choice` prints the kernel choose_mmq picks for a format and a shape, its configuration,
// stage count, grid, the qdot-bench line that times it and the rules that chose it (with the runs they rest on) in comments, as IR qdot-translate reads: the weights-once kernel widened to 16 tokens for
// M = 16 and to 32 for M = 24 (q2_K's on 4 warps), and to 64 on 4 warps for M = 40 where W has at most 2^24
// weights (not for q6_K's 16-value sub-blocks), stream-K past that while the prefill grid has at most one
// tile per SM (M = 48: 32 tiles), the plain grid above (M = 512: 256 tiles), two q6_K super-blocks per stage in one
// stage for a one-token decode with K a multiple of 512, q2_K's 64 × 64 tile repacked; a bad shape or format is a
// one-line error, not a traceback. --m-ranges prints, instead of the IR, which kernel each range of M gets at one N
// and K, by which rule (from M = 96 the 64 x 128 stream-K tile with its fix-up kernel). --reproducible asks for the
// same bits at every launch: stream-K and split-K with their fix-up kernels (printed after the GEMM, which then has
// no atomics and leaves Y unzeroed), or at most 2 K splits where the default has no more.

// STREAMK:      // choose_mmq('q4_K', M=48, N=4096, K=14336, tiled_weights=False)
// STREAMK-NEXT: // MmqConfig(min_blocks_per_sm=2, stream_k=True)
// STREAMK-NEXT: // why: 32 < M ≤ 64 with N · K > 2^24 weights (runs 241–242): the prefill tile, 64 × 128 (runs 111–118, 174–175, 208); 32 tiles ≤ 132: stream-K (runs 232–234)
// STREAMK-NEXT: // compile with --num-stages 2: qdot-translate FILE --arch sm_90 --num-stages 2
// STREAMK-NEXT: // launch on grid (264, 1, 1) (mmq_grid); Y zeroed first: the kernel adds into it
// STREAMK-NEXT: // time it: qdot-bench --num-stages 2 --shape m=48,n=4096,k=14336 --grid 264,1,1
// STREAMK-NEXT: func.func @mmq_q8_1_q4_K_64x128_w4_streamk_b2(

// PTX: .entry mmq_q8_1_q4_K_64x128_w4_streamk_b2(
// PTX-DAG: mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32
// PTX-DAG: red.global.add.f32

// WIDE16:      // MmqConfig(block_n=64, num_warps=2, small_m=True, split_k=True, max_m=16)
// WIDE16-NEXT: // why: 8 < M ≤ 32: the weights-once kernel widened to 16 tokens (runs 235–239)
// WIDE16-NEXT: // compile with --num-stages 2
// WIDE16-NEXT: // launch on grid (64, 14, 1) (mmq_grid); Y zeroed first: the kernel adds into it
// WIDE16:      qdot.make_desc %x_ptr, {{.*}} -> !qdot.desc<2x16x!qdot.block<q8_1_mmq>>
// WIDE16:      %acc = scf.for {{.*}} -> (tensor<64x16xf32>)

// WIDE32:      // MmqConfig(weights='q2_K', block_n=64, small_m=True, split_k=True, max_m=32, k_blocks=2, k_divisibility=512)
// WIDE32-NEXT: // why: {{.*}} widened to 32 tokens {{.*}}; 4 warps: on 2 it spills (runs 236–237); two super-blocks per stage, 2 stages
// WIDE32:      func.func @small_m_q8_1_q2_K_64_w4_splitk_m32_kb2_kd512(
// WIDE32:      attributes {qdot.kernel, qdot.num_warps = 4 : i64}
// WIDE32:      -> !qdot.desc<4x32x!qdot.block<q8_1_mmq>>

// WIDE64:      // MmqConfig(weights='q4_0', block_n=64, small_m=True, split_k=True, max_m=64)
// WIDE64-NEXT: // why: 32 < M ≤ 64, N · K ≤ 2^24 weights, no 16-value sub-blocks: the weights-once kernel widened to 64 tokens (runs 241–242); 4 warps: on 2 it spills (run 235)
// WIDE64-NEXT: // compile with --num-stages 2
// WIDE64-NEXT: // launch on grid (64, {{[0-9]+}}, 1) (mmq_grid); Y zeroed first: the kernel adds into it
// WIDE64-NEXT: // time it: qdot-bench --num-stages 2 --shape m=40,n=4096,k=4096 --grid 64,{{[0-9]+}},1
// WIDE64:      attributes {qdot.kernel, qdot.num_warps = 4 : i64}
// WIDE64:      -> !qdot.desc<2x64x!qdot.block<q8_1_mmq>>
// WIDE64:      -> !qdot.desc<64x64xf32>

// SUB-BLOCKS:      // MmqConfig(weights='q6_K', block_n=64, min_blocks_per_sm=2, stream_k=True)
// SUB-BLOCKS-NEXT: // why: 32 < M ≤ 64 with 16-value sub-blocks (runs 241–242): the prefill tile, 64 × 64 for the 16-value sub-blocks

// PLAIN:      // MmqConfig(min_blocks_per_sm=2)
// PLAIN-NEXT: // why: {{.*}}; 256 tiles > 132: the plain grid
// PLAIN:      // launch on grid (256, 1, 1) (mmq_grid)
// PLAIN-NOT:  Y zeroed
// PLAIN:      func.func @mmq_q8_1_q4_K_64x128_w4_b2(

// PAIRS:      // MmqConfig(weights='q6_K', block_n=64, num_warps=2, small_m=True, split_k=True, max_m=1, k_blocks=2, l2_prefetch=128, k_divisibility=512)
// PAIRS-NEXT: // why: M = 1: the one-token weights-once kernel (runs 38–40); the 128-byte L2 prefetch hint (run 51); two super-blocks per stage, 1 stage: K a multiple of 512 (runs 222–228)
// PAIRS-NEXT: // compile with --num-stages 1
// PAIRS:      %k: index {qdot.divisibility = 512 : i64}

// TILED:      // MmqConfig(weights='q2_K', block_n=64, min_blocks_per_sm=2, stream_k=True, tiled_weights=True)
// TILED:      // W repacked by tile_weights for block_n = 64

// RANGES:      # choose_mmq('q4_K', M=1..512, N=4096, K=14336, tiled_weights=False): 8 ranges
// RANGES-NEXT: M        kernel {{ +}}stages  why (at the range's last M)
// RANGES-NEXT: 1        small_m_q8_1_q4_K_64_w2_splitk_m1_l2p128_fma  2       M = 1: the one-token weights-once kernel
// RANGES-NEXT: 2–8      small_m_q8_1_q4_K_64_w2_splitk {{ +}}2       M ≤ 8:
// RANGES-NEXT: 9–16     small_m_q8_1_q4_K_64_w2_splitk_m16 {{ +}}2       8 < M ≤ 32: {{.*}} 16 tokens
// RANGES-NEXT: 17–32    small_m_q8_1_q4_K_64_w2_splitk_m32 {{ +}}2       8 < M ≤ 32: {{.*}} 32 tokens
// RANGES-NEXT: 33–64    mmq_q8_1_q4_K_64x128_w4_streamk_b2 {{ +}}2       32 < M ≤ 64 with N · K > 2^24 weights
// RANGES-NEXT: 65–95    mmq_q8_1_q4_K_64x128_w4_streamk_b2 {{ +}}2       M > 64: {{.*}}; 64 tiles ≤ 132: stream-K (runs 232–234){{$}}
// RANGES-NEXT: 96–256   mmq_q8_1_q4_K_64x128_w4_streamk_fixup_b2 {{ +}}2       M > 64: {{.*}}; 128 tiles ≤ 132: stream-K {{.*}}; M ≥ 96: the pieces summed by the fix-up kernel
// RANGES-NEXT: 257–512  mmq_q8_1_q4_K_64x128_w4_b2 {{ +}}2       M > 64: {{.*}}; 256 tiles > 132: the plain grid

// RANGES-SMALL-W:      33–64   small_m_q8_1_q8_0_64_w4_splitk_m64 {{ +}}2       32 < M ≤ 64, N · K ≤ 2^24 weights
// RANGES-SMALL-W-NEXT: 65–95   mmq_q8_1_q8_0_64x128_w4_streamk_b2
// RANGES-SMALL-W-NEXT: 96–100  mmq_q8_1_q8_0_64x128_w4_streamk_fixup_b2

// REPRO:      // choose_mmq('q4_K', M=80, N=4096, K=4096, tiled_weights=False, reproducible=True)
// REPRO-NEXT: // MmqConfig(min_blocks_per_sm=2, stream_k=True, fixup=True)
// REPRO-NEXT: // why: {{.*}}; 64 tiles ≤ 132: stream-K (runs 232–234); reproducible: the pieces summed in program order by the fix-up kernel {{.*}}
// REPRO-NEXT: // compile with --num-stages 2
// REPRO-NEXT: // launch on grid (264, 1, 1) (mmq_grid){{$}}
// REPRO-NEXT: // then @mmq_fixup_64x128_g8_w4 (below) on grid (64, 4, 1) (fixup_grid), arguments Y, the workspace, 80, 4096, 4096, 264 (fixup_scalars): the GEMM leaves split tiles' pieces in a 33792 x 128 f32 workspace (fixup_workspace_shape), the fix-up adds them into Y
// REPRO-NEXT: // time it: qdot-bench --num-stages 2 --kernel mmq_q8_1_q4_K_64x128_w4_streamk_fixup_b2 --shape m=80,n=4096,k=4096 --grid 264,1,1
// REPRO-NEXT: func.func @mmq_q8_1_q4_K_64x128_w4_streamk_fixup_b2({{.*}}, %part_ptr: !qdot.ptr<f32>, %m: index
// REPRO:      func.func @mmq_fixup_64x128_g8_w4(%y_ptr: !qdot.ptr<f32>, %part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}, %programs: index)

// The GEMM stores pieces with plain stores (no red.global.add); the fix-up reads them with 16-byte loads.
// REPRO-PTX:     .entry mmq_q8_1_q4_K_64x128_w4_streamk_fixup_b2(
// REPRO-PTX-NOT: red.global.add
// REPRO-PTX:     .entry mmq_fixup_64x128_g8_w4(
// REPRO-PTX:     ld.global.v4.b32
// REPRO-PTX-NOT: red.global.add

// A decode whose grid splits K 14 ways takes the split-K fix-up: for q8_0 its pieces are summed in split order by a
// second kernel (16 splits loaded at once); for every other format (IN_GEMM_FIXUP, run 289) the one-token kernel's
// last program of each tile adds them itself, arriving at an i32 counter (fences, atom.global.add, bar.red), no second
// kernel; one split in two at most by default keeps its kernel, capped at two splits.
// REPRO-DECODE:      // MmqConfig(weights='q8_0', block_n=64, num_warps=2, small_m=True, split_k=True, fixup=True, max_m=1, l2_prefetch=128)
// REPRO-DECODE-NEXT: // why: M = 1: {{.*}}; reproducible: the K splits summed in split order by the fix-up kernel {{.*}}
// REPRO-DECODE:      // launch on grid (64, 14, 1) (mmq_grid){{$}}
// REPRO-DECODE-NEXT: // then @small_m_fixup_64x8_w2_m1 (below) on grid (64, 2, 1) (fixup_grid), arguments Y, the workspace, 1, 4096, 14 (fixup_scalars): the GEMM leaves split tiles' pieces in a 57344 x 8 f32 workspace (fixup_workspace_shape), the fix-up adds them into Y
// REPRO-DECODE:      func.func @small_m_fixup_64x8_w2_m1(%y_ptr: !qdot.ptr<f32>, %part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %splits: index)
// REPRO-DECODE-PTX:     .entry small_m_q8_1_q8_0_64_w2_splitk_fixup_m1_l2p128(
// REPRO-DECODE-PTX-NOT: red.global.add
// REPRO-DECODE-PTX:     .entry small_m_fixup_64x8_w2_m1(
// REPRO-DECODE-PTX-COUNT-16: ld.global.v4.b32
// REPRO-IN-GEMM:      // MmqConfig(block_n=64, num_warps=2, small_m=True, split_k=True, fixup=True, fixup_in_gemm=True, max_m=1, l2_prefetch=128, q4k_fold='fma')
// REPRO-IN-GEMM-NEXT: // why: M = 1: {{.*}}; reproducible: the K splits summed in split order by each tile's last program (fixup_in_gemm; {{.*}})
// REPRO-IN-GEMM:      // launch on grid (64, 14, 1) (mmq_grid){{$}}
// REPRO-IN-GEMM-NEXT: // arguments X, W, Y, a 57344 x 8 f32 workspace (fixup_workspace_shape) and 64 i32 counters, zero (fixup_counters_shape; each launch leaves them zero), M, N, K: the last program of each tile to arrive adds its split pieces into Y, no fix-up kernel
// REPRO-IN-GEMM-NEXT: // time it: qdot-bench --num-stages 2 --shape m=1,n=4096,k=14336 --grid 64,14,1{{$}}
// REPRO-IN-GEMM:      func.func @small_m_q8_1_q4_K_64_w2_splitk_fixup_ingemm_m1_l2p128_fma({{.*}}%part_ptr: !qdot.ptr<f32>, %count_ptr: !qdot.ptr<i32>,
// REPRO-IN-GEMM:      qdot.last_arrival
// REPRO-IN-GEMM-NOT:  func.func @small_m_fixup
// REPRO-IN-GEMM-PTX:     .entry small_m_q8_1_q4_K_64_w2_splitk_fixup_ingemm_m1_l2p128_fma(
// REPRO-IN-GEMM-PTX-NOT: red.global.add
// REPRO-IN-GEMM-PTX:     fence.acq_rel.gpu
// REPRO-IN-GEMM-PTX:     atom.global.add.u32
// REPRO-IN-GEMM-PTX:     fence.acq_rel.gpu
// REPRO-IN-GEMM-PTX:     bar.red.or.pred
// REPRO-IN-GEMM-PTX-NOT: .entry
// REPRO-TWO-SPLITS:      // why: M = 1: {{.*}}; reproducible: at most 2 K splits (run 252: the default's at this N, K)
// REPRO-TWO-SPLITS:      // launch on grid (512, 2, 1) (MmqChoice.grid); Y zeroed first: the kernel adds into it

// BAD-K:      python -m compiler.mmq_choice: error: K must be a positive multiple of 256, got 14300
// BAD-FORMAT: python -m compiler.mmq_choice: error: weights must be one of q4_K, {{.*}}, got 'q8_1'
// A shape whose grid CUDA cannot launch (more than 2^31 - 1 programs along x) is refused where the grid is
// computed, not printed as a launch line the runner would refuse later.
// BAD-GRID:   python -m compiler.mmq_choice: error: mmq_grid: M = 4294967360, N = 4096 need 2147483680 programs (one per 64 × 128 output tile), more than a grid's x dimension holds (2147483647): split M or N

// The one-token kernel over repacked W of a format in UNGUARDED_ONE_TOKEN (runs 290–294, an H100) carries
// qdot.unguarded_copies, which qdot-pipeline honours under the default pipeline; q4_K's keeps the guard, and
// carries qdot.q4k_fold = "fma" (the form its rows were timed with), which qdot-accelerate-matmul honours.
// The 8-token kernel of a format in UNGUARDED_EIGHT_TOKENS (runs 293–294) is unguarded too, q4_K's is not.
// q4_K's repacked one-token kernel carries qdot.pad_block_rows and its 8-token kernel qdot.swizzle_fold_buffers
// (PADDED_ROWS_ONE_TOKEN, SWIZZLED_FOLDS_EIGHT_TOKENS: run 317), which qdot-accelerate-matmul honours and names.
// UNGUARDED:      // MmqConfig(weights='q6_K', block_n=64, num_warps=2, small_m=True, split_k=True, max_m=1, tiled_weights=True, guard_copies=False){{$}}
// UNGUARDED-NEXT: // why: M = 1: the one-token weights-once kernel (runs 38–40); copies ahead unguarded (runs 290–294, an H100: {{.*}}
// UNGUARDED:      func.func @small_m_q8_1_q6_K_64_w2_splitk_m1_wt_ug(
// UNGUARDED-NEXT:   attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.unguarded_copies} {
// UNGUARDED-REMARK: remark: qdot-pipeline: 2 stages: {{.*}}; a loop over a share of K, but the kernel's qdot.unguarded_copies: a tile declared in bounds copied ahead past the share's end takes its last tile again{{$}}
// GUARDED:        // MmqConfig(block_n=64, num_warps=2, small_m=True, split_k=True, max_m=1, tiled_weights=True, q4k_fold='fma', pad_block_rows=True){{$}}
// GUARDED-NEXT:   // why: {{.*}}; the min term as an FMA per block (qdot.q4k_fold), the form its rows were timed with (runs 40, 181); the activation tile's rows padded to 304 bytes (run 317: {{.*}}){{$}}
// GUARDED:        func.func @small_m_q8_1_q4_K_64_w2_splitk_m1_wt_fma_padrows(
// GUARDED-NEXT:     attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.q4k_fold = "fma", qdot.pad_block_rows} {
// GUARDED-NOT:    unguarded
// GUARDED-FOLD-REMARK: remark: qdot-accelerate-matmul: {{.*}}; q4_K dmin term as an FMA per block (the kernel's qdot.q4k_fold = fma){{$}}
// GUARDED-FOLD-REMARK: remark: qdot-accelerate-matmul: rhs q8_1_mmq tile staged with its rows padded from 288 to 304 bytes (the kernel's qdot.pad_block_rows: {{.*}}){{$}}
// q3_K's repacked one-token kernel keeps the guard and is padded too (run 320, an H100); q4_1's, whose copies go
// unguarded, is padded in that form (runs 322–323, an H100: faster in all sixteen cells); q5_K's is not (1.011 × in one).
// PADDED-Q3K:      // MmqConfig(weights='q3_K', block_n=64, num_warps=2, small_m=True, split_k=True, max_m=1, tiled_weights=True, pad_block_rows=True){{$}}
// PADDED-Q3K-NEXT: // why: M = 1: the one-token weights-once kernel (runs 38–40); the activation tile's rows padded to 304 bytes (run 320, an H100: {{.*}}){{$}}
// PADDED-Q3K:      func.func @small_m_q8_1_q3_K_64_w2_splitk_m1_wt_padrows(
// PADDED-Q3K-NEXT:   attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.pad_block_rows} {
// PADDED-Q3K-REMARK: remark: qdot-accelerate-matmul: rhs q8_1_mmq tile staged with its rows padded from 288 to 304 bytes (the kernel's qdot.pad_block_rows: {{.*}}){{$}}
// PADDED-Q41:      // MmqConfig(weights='q4_1', {{.*}}, guard_copies=False, q4k_fold='fma', pad_block_rows=True){{$}}
// PADDED-Q41-NEXT: // why: {{.*}}; copies ahead unguarded (runs 290–294, {{.*}}); the activation tile's rows padded to 304 bytes (runs 322–323, an H100: {{.*}}){{$}}
// PADDED-Q41:      func.func @small_m_q8_1_q4_1_64_w2_splitk_m1_wt_ug_fma_padrows(
// PADDED-Q41-NEXT:   attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.unguarded_copies, qdot.q4k_fold = "fma", qdot.pad_block_rows} {
// PADDED-Q41-REMARK: remark: qdot-pipeline: 2 stages: {{.*}}; a loop over a share of K, but the kernel's qdot.unguarded_copies: {{.*}}
// PADDED-Q41-REMARK: remark: qdot-accelerate-matmul: rhs q8_1_mmq tile staged with its rows padded from 288 to 304 bytes (the kernel's qdot.pad_block_rows: {{.*}}){{$}}
// UNPADDED-Q5K:      // MmqConfig(weights='q5_K', {{.*}}, guard_copies=False, q4k_fold='fma'){{$}}
// UNPADDED-Q5K-NOT:  padded
// UNPADDED-Q5K:      func.func @small_m_q8_1_q5_K_64_w2_splitk_m1_wt_ug_fma(
// UNPADDED-Q5K-NOT:  pad_block_rows
// UNGUARDED8:      // MmqConfig(weights='q3_K', block_n=64, num_warps=2, small_m=True, split_k=True, tiled_weights=True, guard_copies=False){{$}}
// UNGUARDED8-NEXT: // why: M ≤ 8: the weights-once kernel (runs 7–9, 112); copies ahead unguarded (runs 293–294, an H100: {{.*}}
// UNGUARDED8:      func.func @small_m_q8_1_q3_K_64_w2_splitk_wt_ug(
// UNGUARDED8-NEXT:   attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.unguarded_copies} {
// GUARDED8:        // MmqConfig(block_n=64, num_warps=2, small_m=True, split_k=True, tiled_weights=True, swizzle_fold_buffers=True){{$}}
// GUARDED8-NEXT:   // why: {{.*}}; the dmin mma's f16 operands swizzled (run 317: {{.*}}){{$}}
// GUARDED8:        func.func @small_m_q8_1_q4_K_64_w2_splitk_wt_swfold(
// GUARDED8-NEXT:     attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.swizzle_fold_buffers} {
// GUARDED8-NOT:    unguarded

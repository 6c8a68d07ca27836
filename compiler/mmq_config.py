"""What one llama.cpp-style quantized GEMM kernel is: ``MmqConfig``, the choices ``compiler.mmq_template`` turns
into kernel text, checked where they are made so that a config that names an impossible kernel is refused before
any text or PTX exists.

The counts every MMQ module shares live here too (a K step's 256 values, the decode kernel's 8 tokens, the weight
formats), so that the grids (``compiler.mmq_grids``), the fix-up kernels (``compiler.mmq_fixup``) and the kernel
text read one definition of each.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.format_table import FORMATS
from compiler.pipelines import Q4K_FOLDS
from compiler.templates import MAX_WARPS, check_field_types, check_int, check_power_of_two


K_STEP_VALUES = 256
"""Values per K step of every kernel here: one q4_K super-block, eight 32-value blocks (q4_0 … q8_0)."""
MMQ_VALUES = 128
SMALL_M_MAX = 8
"""The M ≤ 8 decode kernel's tokens (issue 6): ``MmqConfig.max_m``'s default, its mma's n tile."""
SMALL_M_WIDEST = 64
"""The most tokens a small_m kernel's n tile takes (``MmqConfig.max_m``): 64 tokens on 4 warps is 180
registers without spills on sm_90 (2 warps: 255 and spills)."""
WEIGHT_FORMATS = ("q4_K", "q4_0", "q8_0", "q6_K", "q5_K", "q4_1", "q5_0", "q5_1", "mxfp4", "q3_K", "q2_K", "iq4_nl",
                  "iq4_xs")
"""Weight blocks the kernels take (``MmqConfig.weights``)."""


@dataclass(frozen=True)
class MmqConfig:
    block_m: int = 64
    """Tokens per program (mmq) — ignored by small_m, whose n tile is the tokens."""
    weights: str = "q4_K"
    """The weights' ggml block format, one of ``WEIGHT_FORMATS``. q4_K is the design the seed
    dissects (raw nibbles, the dmin fold); q4_0 and q8_0 (one fp16 d per 32 values, no mins)
    go through the same kernels with eight blocks per K step: q4_0's nibbles are made s8
    (16 · (code − 8)) at use, q8_0's quants read as they are; q4_1's (one fp16 d and m per 32
    values) are made u8 codes and its m folded against the activations' sums (by f16 mma in the
    prefill, by FMA in the decode kernels); q5_0's and q5_1's take the fifth bit of each code from
    their block's qh word (q5_0: s8 8 · (code − 16), q5_1: u8 codes and q4_1's m); mxfp4's (gpt-oss's
    weights: e2m1 codes, one E8M0 exponent per 32 values) are looked up as s8 (ggml's kvalues); q3_K's
    2-bit fields and hmask bits are joined into s8 32 · (code − 4), its 6-bit scale per 16 values applied in
    s32 as q6_K's int8 one is; q2_K's 2-bit codes are u8 0..3 with q3_K's per-16 weighting by their 4-bit
    scale, and their 4-bit min per 16 values is a second s8 mma against the activations (``qgpu.mma …
    lhs_min``), scaled by dmin and the activations' d; iq4_nl's codes (q4_0's nibble pairs) are looked up as
    s8 in ggml's ``kvalues_iq4nl``, scaled by the block's fp16 d; iq4_xs's the same, eight such spans per
    super-block, each scaled by d · (ls − 32) from its packed 6-bit ls."""
    block_n: int = 128
    """Weight rows per program."""
    num_warps: int = 4
    group_m: int = 8
    small_m: bool = False
    min_blocks_per_sm: int = 0
    """Ask ptxas for this many resident programs per SM (``.minnctapersm``, a register cap); 0: no request."""
    split_k: bool = False
    """small_m: the grid's y dimension splits K — program (x, y) covers a contiguous 1/ny of it —
    and the partial results meet in Y through ``qdot.store {reduce = "add"}`` (Y must be zeroed
    first). Decode has only N/16 weight-row tiles (two warps per SM at N = 4096), too few to keep
    HBM busy; ``mmq_grid`` picks ny. The float additions land in whatever order the programs
    finish: with two splits every launch gives the same bits (0 + a + b rounds once either way),
    with more the last bits may vary between launches (``mmq_grid(..., max_splits=2)`` for
    reproducible output; docs/numerics.md)."""
    stream_k: bool = False
    """mmq: stream-K. The grid is a fixed number of programs (``mmq_grid``: the SMs' resident
    slots, or fewer) that share the flattened (output tile, super-block) iterations evenly,
    each a contiguous run of them, so a shape with fewer tiles than slots (M = 512, N = 3584:
    112 tiles of 128 × 128 for 132 SMs) keeps every SM busy to the end. A tile a program covers
    whole is stored; the pieces of a tile shared by two or more programs meet in Y through
    ``qdot.store {reduce = "add"}`` (the fix-up is the atomic addition, not a second kernel),
    so Y must be zeroed first (the quantize kernel's ``zero_output`` does it). A tile split among
    three or more programs may differ in its last bits from launch to launch (the additions'
    order); without stream-K, or with ``fixup``, the output is reproducible."""
    fixup: bool = False
    """stream_k or split_k: the pieces of a split tile are summed by a second kernel instead of atomic additions.
    Each program stores the partial tiles it computes — at most two, its first and last segments —
    in a workspace of ``fixup_workspace_shape`` f32, and ``mmq_fixup_kernel`` (one program per output
    tile, ``fixup_grid``) adds each split tile's pieces in program order and stores the sum. Y needs no
    zeroing (every tile is stored once, by the program that covers it whole or by the fix-up) and is
    the same bits at every launch, at the cost of a second launch and the workspace's traffic
    (llama.cpp's MMQ does the same with its ``tmp_fixup`` buffer and fix-up kernel). For split_k (small_m) each
    program (tile x, split y) stores its partial Yᵀ tile in slot y of tile x, and the fix-up adds a tile's splits
    in split order — the first ``FIXUP_UNROLL`` loaded at once — so the decode keeps its split count."""
    fixup_in_gemm: bool = False
    """With fixup: no second kernel — the fix-up runs in the GEMM. Each program stores its pieces in the workspace
    as for ``mmq_fixup_kernel`` (split-K: its partial Yᵀ tile, the token columns below M only) and arrives at the
    tile's counter (``qdot.last_arrival``, an i32 per output tile in ``counts``, ``fixup_counters_shape``); the
    last program of a tile to arrive adds the tile's pieces in the fix-up kernel's order — split order, program
    order for stream-K's — and stores the sum. Two launches per MUL_MAT instead of three (quantize, GEMM), Y needs
    no zeroing and is the same bits at every launch, whichever program finishes last; what it costs is the last
    program's wait for the counter and its reads of the pieces. The counters must be zero before the first launch
    and are left zero after each. For the decode, with ``quantize_in_gemm``, MUL_MAT in one launch. Run 280 (an H100):
    1.03–1.36 × the atomic form's MUL_MAT time; against the fix-up kernel 0.91–0.98 × for the one-token decode,
    1.02–1.12 × for the M ≤ 8 kernel except at N = 32768 (0.96–0.99 ×); for stream-K 0.96–1.08 × the atomic form."""
    quantize_in_gemm: bool = False
    """small_m with split_k and fixup_in_gemm: the kernel takes the activations as f32 (``%xf_ptr``, [M, K]) and
    quantizes them itself, so MUL_MAT is one launch. Before its K loop each program quantizes the K steps it covers
    (``qdot.quantize`` to q8_1_mmq, bit-exact with the quantize kernel) into its own region of a scratch buffer
    (``%x_ptr``, ``quantize_scratch_shape``: ``small_m_tokens`` rows per program, so no two programs store the same
    bytes, and a K loop copying a stage past its share reads outside its region), meets its threads at a
    ``qdot.barrier`` after each step, and its K loop copies them from there as it copies the quantize kernel's
    output otherwise. Each split's X is quantized once per weight-row tile (the N / block_n
    programs of a split all need it). The weights' prologue copies go before the quantization (qdot-pipeline: tiles
    of arrays the kernel never stores to, ahead of its own stores), so they stream from DRAM during it. Slower than two
    launches (run 280, an H100: 1.24–1.38 × the atomic MUL_MAT for the one-token decode, 1.8–2.8 × for M ≤ 8): the
    quantization's steps run before the K loop (presumably a chain of latencies), redone by every weight-row program.
    Runs 297–301 (an H100, ``bench/experiments/cluster_reduce.py``) tried the other half, a reduction without the
    fix-up's L2 round trips (the K splits of a tile as one thread-block cluster, summed in distributed shared memory):
    the cluster launch and its barriers alone cost more than the quantize kernel's launch saves."""
    max_m: int = SMALL_M_MAX
    """small_m: the most tokens the kernel serves, 1 to ``SMALL_M_WIDEST``. The mma's n tile holds
    ``small_m_tokens(max_m)`` tokens — 8 up to the default ``SMALL_M_MAX`` = 8 (the issue's M ≤ 8 decode kernel),
    else the power of two ≥ max_m — and the grid has no M dimension, so every token of the tile is multiplied by
    each weight byte read once. ``mmq_grid`` refuses an M above max_m; launched on a grid built by hand with a
    larger M, the kernel computes rows min(M, max_m) of Y and leaves the others as they were. The widened tiles
    (16, 32, 64 tokens) serve 9 ≤ M ≤ 64 with the weights still read once, where the prefill kernel's grid of
    ⌈M/64⌉ · ⌈N/128⌉ programs is a few programs walking all of K (runs 232–238). With max_m = 1 the bound
    tells the compiler that the columns of odd tokens are never stored, and ptxas drops their per-32-value
    rescale: 724 → 593 SASS instructions per warp and super-block in the benchmark's decode kernel (0–8 % faster,
    runs 38 and 40: the kernel is not bound by its issue rate at M = 1). Only 1 has that effect (a lane holds
    tokens 2t and 2t + 1, so any bound ≥ 2 leaves every column live)."""
    k_blocks: int = 1
    """256-value K steps (q4_K super-blocks) per cp.async stage (small_m and mmq, not stream_k), so a weight
    row's bytes in one copy are 144 · k_blocks contiguous bytes (q4_0: the same, q8_0: 272 · k_blocks); a split
    covers a multiple of it. Runs of 576 bytes would lift the copies' ceiling from 73–78 % to 91 % of copy
    bandwidth (run 41), and the step is read and multiplied one super-block at a time (no spills), but the
    tile's shared memory — the 8-token activation tile, the decoded scales of each slice — leaves fewer
    programs per SM:
    2 and 4 run 1.2–2.0 × and 2.3–9.4 × slower (run 45), so 1 stays the default. The exception is W whose
    blocks are 2-aligned in ggml's order (q6_K, q3_K): with ``k_divisibility = 512`` two blocks per stage are
    copied by 4-byte cp.async instead of 2 bytes at a time — compiled with one stage (7 programs per SM, not 3),
    1.13–1.49 × faster (runs 222–227). The mmq kernel takes the option too (the same 4-byte copies of q6_K's and
    q3_K's pairs), but its stage holds twice the activation tile's bytes as well and loses a stage or programs per
    SM for it: 0.48–1.03 × as fast (run 228)."""
    interleave_splits: bool = False
    """small_m with split_k: program (x, y) of a grid with S splits reads K steps y, y + S, y + 2S, …
    instead of the y-th contiguous S-th of K, so the S programs of a row tile, which start
    together and step at the same pace, read adjacent super-blocks of their rows at the same
    time. Run 106: 3–6 % faster for the M ≤ 8 kernel at 4096 × 4096 and 3584 × 3584 (M = 1 and
    8; 7.65 → 7.24 µs at M = 8, 4096 × 4096), up to 3 % for the one-token kernel there with
    twice the splits, but 5 % slower for the one-token kernel at N = 32768, K = 8192, where the
    weights stream from HBM; so it is an option, not the default."""
    tiled_weights: bool = False
    """Any kernel with one K step per stage (``k_blocks = 1``): W comes repacked by ``tile_weights``
    (ggml's blocks, each unchanged, in another order: for each tile of ``block_n`` rows, its
    256-value K steps one after the other, each step's rows next to each other), so the bytes a
    program copies per K step are one contiguous run (64 rows of q4_K: 9216 bytes) instead of
    ``block_n`` runs of 144 bytes (q8_0: 272) a row apart — the access pattern run 41 measured as
    the decode stream's cap. The caller repacks once (as llama.cpp's CPU backend repacks weights
    at load time); N is padded to whole tiles there with zero blocks. The order depends on
    ``block_n``: the prefill kernel (128 weight rows per tile) reads another one than the decode
    kernels (64)."""
    wait_previous_grid: bool = False
    """Start with ``griddepcontrol.wait`` (``qdot.wait_previous_grid``, sm_90+): launched with
    ``programmatic=True`` right after the quantize kernel (``quantize_kernel(...,
    launch_dependents=True)``), the GEMM's launch and set-up overlap the quantization; it waits
    for it to finish before its first memory access (but see ``weights_before_wait``)."""
    weights_before_wait: bool = False
    """With ``wait_previous_grid``: W is marked ``qdot.not_written_by_previous_grid``, so the wait
    comes after the first stage's weight copies (qdot-to-llvm, ``passes/support/grid_wait.py``) and
    they stream from DRAM while the quantize kernel finishes, not after it. The caller promises that
    W was final before the quantize kernel started (weights are: they are written once, at load
    time). Off: run 278 timed it on the H200 (``bench/experiments/weights_before_wait.py``) within ±2.5 % of
    the kernel that waits first, at the four decode shapes and M = 1 and 8 — at the goal row the programmatic
    launch saves 0.2–0.4 µs of the quantize kernel's 1.5 with the weights in flight or not."""
    prefetch_steps: int = 0
    """The split-K weights-once kernel: before its K loop, ask L2 (``qdot.prefetch``) for the weights of up to
    this many K steps after the first (which the pipeline's first stage copies). With ``weights_before_wait``
    the prefetches go before the wait too, so DRAM streams them while the quantize kernel finishes; a program of
    the one-token kernel at 4096 × 14336 has 4 steps. Each prefetched step of every program is held in L2 until
    its copy: 9216 B per 64-row q4_K step, so the grid's share must fit in L2 (50 MB on the H200). Off: three
    steps cost 1–18 % at the decode shapes, 5–28 % reading ggml's order (run 278,
    ``bench/experiments/weights_before_wait.py``)."""
    l2_prefetch: int = 0
    """The L2 prefetch-size hint of every ``cp.async`` of the kernel (``qdot.l2_prefetch``):
    64, 128 or 256 bytes, 0 for none. The decode kernel reads each weight row in 144-byte pieces
    (q8_0: 272), one K step of 256 values at a time; with 128, L2 fetches the whole 128-byte lines
    from DRAM: the one-token kernel (small_m, 64 rows, 2 warps, split-K, max_m = 1) is 6.5 % faster at N = 32768,
    K = 8192 and no different at the other decode shapes, and 256 is slower."""

    guard_copies: bool = True
    """False: the kernel carries ``qdot.unguarded_copies``, so ``qdot-pipeline`` leaves its K-split loop's copies
    ahead of W and X as they were before the forty-fourth session's guard (past the share's end they take its
    last tile again instead of being skipped), under the default pipeline as under ``guard-copies=false``. An
    option of the small_m kernel with split_k, the only kernel whose K loop starts at a run-time position: run
    290 (an H100) found the guard 3–4 % faster for the q4_K goal kernel and 4–6 % slower for q6_K's and q8_0's
    one-token kernels at the small shapes."""

    q4k_fold: str = "auto"
    """``"mma"`` or ``"fma"``: the kernel carries ``qdot.q4k_fold``, so ``qdot-accelerate-matmul`` (under its default
    ``q4k-fold=auto``) applies the min term of a q4_K, q5_K, q4_1 or q5_1 kernel that way; ``"auto"`` writes no
    attribute and leaves it to the pass. ``choose_mmq`` gives the one-token kernels ``"fma"``, the form their
    benchmark rows were timed with (``bench.mmq``'s ``fold=fma`` labels; for q4_K at M = 1, 2–3 % faster than the
    mma at three of the four decode shapes and 2 % slower at 32768 × 8192, run 40)."""

    pad_block_rows: bool = False
    """True: the kernel carries ``qdot.pad_block_rows``, so ``qdot-accelerate-matmul`` pads its staged block tiles'
    rows (the activation tile's 288 bytes become 304: its ldmatrix and d / s reads free of bank conflicts) under the
    default pipeline as under ``pad-block-rows=true``. ``choose_mmq`` sets it where run 317 measured it faster."""

    swizzle_fold_buffers: bool = False
    """True: the kernel carries ``qdot.swizzle_fold_buffers``, so ``qdot-accelerate-matmul`` swizzles its dmin mma's
    f16 operand buffers (``q4k_fold`` by mma: q4_K, q5_K, q4_1, q5_1) as under ``swizzle-fold-buffers=true``.
    ``choose_mmq`` sets it where run 317 measured it faster."""

    broadcast_rhs: bool = False
    """True (``max_m = 1`` only): the kernel carries ``qdot.broadcast_rhs``, so ``qdot-accelerate-matmul`` reads the
    activation tile's one token as every column of the n8 mma (one address per ldmatrix and per d / s read: no bank
    conflicts, as ``pad_block_rows`` gives, and one row of the tile read instead of eight). The tile's other columns
    are zeros the kernel never stores, so Y is the same; its dots' columns 1–7 become copies of column 0. Run 319 (an
    H100): 1.00–1.03 × the padded kernel's time (``pad_block_rows``), which ``choose_mmq`` keeps."""

    k_divisibility: int = K_STEP_VALUES
    """What the kernel assumes K is a multiple of (``qdot.divisibility`` of ``%k``; the runner refuses
    another K at launch): 256, or a larger power of two. With 512 and ``k_blocks = 2`` a row's two
    K steps of q6_K (210-byte blocks) or q3_K (110) are 4-aligned, so W in ggml's order is copied by
    4-byte cp.async instead of synchronous 2-byte loads, and q2_K's (84) 8-aligned, copied 8 bytes at a
    time instead of 4 (runs 222–226; every model dimension of the benchmark's shapes is a multiple of 512)."""

    @property
    def name(self) -> str:
        kind = "small_m" if self.small_m else "mmq"
        tile = f"{self.block_n}" if self.small_m else f"{self.block_m}x{self.block_n}"
        split = (("_splitk" if self.split_k else "_streamk" if self.stream_k else "") + "_fixup" * self.fixup
                 + "_ingemm" * self.fixup_in_gemm + "_quant" * self.quantize_in_gemm)
        occupancy = f"_b{self.min_blocks_per_sm}" if self.min_blocks_per_sm else ""
        tokens = f"_m{self.max_m}" if self.max_m != SMALL_M_MAX else ""
        k_step = (f"_kb{self.k_blocks}" if self.k_blocks != 1 else "") + ("_il" if self.interleave_splits else "")
        order = "_wt" if self.tiled_weights else ""
        pdl = ("_pdl" if self.wait_previous_grid else "") + ("_wbw" if self.weights_before_wait else "")
        pdl += f"_pf{self.prefetch_steps}" if self.prefetch_steps else ""
        prefetch = f"_l2p{self.l2_prefetch}" if self.l2_prefetch else ""
        k_div = f"_kd{self.k_divisibility}" if self.k_divisibility != K_STEP_VALUES else ""
        unguarded = "" if self.guard_copies else "_ug"
        fold = "" if self.q4k_fold == "auto" else f"_{self.q4k_fold}"
        fold += ("_padrows" if self.pad_block_rows else "") + ("_swfold" if self.swizzle_fold_buffers else "")
        fold += "_bcast" if self.broadcast_rhs else ""
        return (f"{kind}_q8_1_{self.weights}_{tile}_w{self.num_warps}{split}{tokens}{k_step}{k_div}{occupancy}{order}"
                f"{pdl}{prefetch}{unguarded}{fold}")

    @property
    def needs_zeroed_output(self) -> bool:
        return (self.split_k or self.stream_k) and not self.fixup

    def __post_init__(self) -> None:
        check_field_types(self)
        if not isinstance(self.weights, str) or self.weights not in WEIGHT_FORMATS:
            raise ValueError(f"MmqConfig: weights must be one of {', '.join(WEIGHT_FORMATS)}, got {self.weights!r}")
        layouts = "the register and shared layouts map an index's bits"
        check_power_of_two("MmqConfig", "block_m", self.block_m, layouts)
        check_power_of_two("MmqConfig", "block_n", self.block_n, layouts)
        check_power_of_two("MmqConfig", "num_warps", self.num_warps, layouts, most=MAX_WARPS)
        check_int("MmqConfig", "group_m", self.group_m, least=1)  # the tile order divides by it
        check_int("MmqConfig", "min_blocks_per_sm", self.min_blocks_per_sm, least=0)
        if self.split_k and not self.small_m:
            # the mmq kernel has no K split: split_k would only have named it _splitk and asked for a zeroed Y
            raise ValueError("MmqConfig: split_k is an option of the small_m kernel (small_m=True); the mmq kernel "
                             "shares K among programs with stream_k=True")
        if self.stream_k and (self.small_m or self.split_k):
            raise ValueError("MmqConfig: stream_k is an option of the mmq kernel (small_m = False, split_k = False)")
        if self.fixup and not (self.stream_k or self.split_k):
            raise ValueError("MmqConfig: fixup is an option of the stream_k and split_k kernels")
        if self.fixup_in_gemm and not self.fixup:
            raise ValueError("MmqConfig: fixup_in_gemm is an option of the fix-up (fixup, with split_k or stream_k)")
        if self.quantize_in_gemm and not (self.small_m and self.split_k and self.fixup_in_gemm):
            raise ValueError("MmqConfig: quantize_in_gemm is an option of the small_m kernel with split_k and "
                             "fixup_in_gemm (one launch: no quantize kernel before it, no zeroed Y)")
        if self.quantize_in_gemm and self.interleave_splits:
            raise ValueError("MmqConfig: quantize_in_gemm quantizes a contiguous share of K (no interleave_splits)")
        if not 1 <= self.max_m <= SMALL_M_WIDEST:
            raise ValueError(f"MmqConfig: max_m must be 1 to {SMALL_M_WIDEST}, got {self.max_m}")
        if self.max_m != SMALL_M_MAX and not self.small_m:
            raise ValueError("MmqConfig: max_m is an option of the small_m kernel")
        if self.broadcast_rhs and not (self.small_m and self.max_m == 1):
            raise ValueError("MmqConfig: broadcast_rhs is an option of the one-token kernel (small_m=True, max_m=1): "
                             "it reads token 0 as every column, and only that kernel stores column 0 alone")
        if self.k_blocks < 1 or self.k_blocks & (self.k_blocks - 1):
            # the layouts of a K step hold powers of two (3 blocks: sizePerThread [1, 24], refused)
            raise ValueError(f"MmqConfig: k_blocks must be a power of two, got {self.k_blocks}")
        if self.k_blocks != 1 and self.stream_k:
            # a stream-K share starts at any K step, not only at the first of a stage's
            raise ValueError("MmqConfig: k_blocks > 1 is an option of the small_m and mmq kernels, not of stream_k")
        if self.interleave_splits and not (self.small_m and self.split_k):
            raise ValueError("MmqConfig: interleave_splits is an option of the small_m kernel with split_k")
        if self.tiled_weights and self.k_blocks != 1:
            # tile_weights groups the blocks of one 256-value K step per row
            raise ValueError("MmqConfig: tiled_weights needs k_blocks = 1 (one K step per stage)")
        k_div = self.k_divisibility
        if k_div < K_STEP_VALUES or k_div & (k_div - 1):
            raise ValueError(f"MmqConfig: k_divisibility must be a power of two ≥ {K_STEP_VALUES}, got {k_div}")
        if self.weights_before_wait and not self.wait_previous_grid:
            raise ValueError("MmqConfig: weights_before_wait is an option of wait_previous_grid (the wait it moves)")
        if self.prefetch_steps and not (self.small_m and self.split_k and not self.interleave_splits):
            raise ValueError("MmqConfig: prefetch_steps is an option of the small_m kernel with split_k (contiguous "
                             "splits)")
        if not 0 <= self.prefetch_steps <= MAX_PREFETCH_STEPS:
            raise ValueError(f"MmqConfig: prefetch_steps must be 0 to {MAX_PREFETCH_STEPS}, got {self.prefetch_steps}")
        if not self.guard_copies and not (self.small_m and self.split_k):
            # every other K loop starts at 0 or lies inside stream-K's segment loop, which qdot-pipeline never guards
            raise ValueError("MmqConfig: guard_copies=False is an option of the small_m kernel with split_k (the only "
                             "K loop over a share of K that qdot-pipeline guards)")
        if self.q4k_fold not in Q4K_FOLDS:
            raise ValueError(f"MmqConfig: q4k_fold must be one of {', '.join(map(repr, Q4K_FOLDS))}, "
                             f"got {self.q4k_fold!r}")
        if self.q4k_fold != "auto" and not FORMATS[self.weights].min_term:
            minned = ", ".join(weights for weights in WEIGHT_FORMATS if FORMATS[weights].min_term)
            raise ValueError(f"MmqConfig: q4k_fold is an option of the weights with a min term ({minned}); "
                             f"{self.weights} has none")
        if self.l2_prefetch not in (0, 64, 128, 256):  # what ptx.cp_async's l2_prefetch takes
            raise ValueError("MmqConfig: l2_prefetch must be 0 (none), 64, 128 or 256 (bytes), "
                             f"got {self.l2_prefetch}")


MAX_PREFETCH_STEPS = 16
"""``MmqConfig.prefetch_steps``' bound, a sanity limit rather than a measured one: 16 steps of a 64-row q4_K tile are
147 KB per program, and a one-wave grid of ~1000 programs asking that much would want three times an H200's 50 MB
of L2 before its first copy."""


def small_m_tokens(max_m: int) -> int:
    """The tokens of a small_m kernel's n tile (its activation tile and accumulator): 8 — the mma's n — up to
    8, else the power of two ≥ ``max_m`` (the layouts of a tile hold powers of two)."""
    check_int("small_m_tokens", "max_m", max_m, least=1)
    return max(SMALL_M_MAX, 1 << (int(max_m) - 1).bit_length())


def served_tokens(cfg: MmqConfig) -> int:
    """The token columns of its tile a small_m kernel quantizes, stores and sums: max_m rounded up to a power of two,
    at most the tile's ``small_m_tokens`` (1 for the one-token kernel)."""
    return min(small_m_tokens(cfg.max_m), 1 << (cfg.max_m - 1).bit_length())

"""llama.cpp-style quantized GEMM kernels (q8_1 activations × ggml weight blocks) in the qdot vocabulary.

Memory layouts are ggml's: weights W are N rows of K/256 ``block_q4_K`` (144 bytes
each, K contiguous) — or, with ``MmqConfig(weights=...)``, K/256 ``block_q5_K`` (176 bytes),
``block_q6_K`` (210), ``block_q3_K`` (110), ``block_q2_K`` (84) or ``block_iq4_xs`` (136), or K/32
``block_q4_0`` (18 bytes),
``block_q4_1`` (20), ``block_q5_0`` (22), ``block_q5_1`` (24), ``block_q8_0`` (34), ``block_mxfp4`` (17) or
``block_iq4_nl`` (18), read
eight blocks (256 values) per K step — activations X
are M rows of K/128 ``block_q8_1_mmq`` (what ``qdot.quantize`` writes), and the output
Y = X · Wᵀ is [M, N] f32 row-major, as ``ggml_mul_mat`` computes it. Every kernel can also
read W repacked once by ``tile_weights`` (``MmqConfig(tiled_weights=True)``): the same blocks, a
tile's rows of one K step next to each other.

Two kernels, chosen by M (seed 000):

* ``mmq`` (M ≥ 9, prefill): one program per (M, N) output tile, the K loop steps one
  q4_K super-block (256 values) at a time; tokens are the mma's M side.
* ``small_m`` (M ≤ 8, decode): the weights are the mma's M side and the tokens its
  N side (an 8-wide n tile holds all of them), the grid runs over weight rows only,
  so every weight byte is read from global memory exactly once whatever M is; the
  output tile is Yᵀ, stored through a transposed descriptor. ``max_m`` widens its n
  tile to 16, 32 or 64 tokens for 9 ≤ M ≤ 64, the weights still read once.

Both are ordinary ``qdot.dot_scaled`` kernels; what makes them MMQ is the lowering
(``promote-int8``: raw nibbles in shared memory, the q4_K dmin fold at accumulate).
The mmq kernel's stream-K form (``stream_k``) adds the pieces of a tile shared by
several programs atomically into Y, or with ``fixup`` stores them in a workspace for a
second kernel, ``mmq_fixup_kernel``, that adds them in program order: three launches
for a MUL_MAT (quantize, GEMM, fix-up), the same bits every time. The decode kernels' K
splits take the same fix-up kernel, or sum their pieces in the GEMM itself
(``fixup_in_gemm``: the last program of a tile to finish, ``qdot.last_arrival``, adds them):
two launches, the same bits — or one, where the decode GEMM also quantizes the activations
itself (``quantize_in_gemm``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler import occupancy
from compiler.format_table import FORMATS
from compiler.pipelines import Q4K_FOLDS
from compiler.templates import MAX_WARPS, check_field_types, check_int, check_power_of_two, grouped_tile_offsets

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
    covers a multiple of it. Runs of 576 bytes would lift the copies' ceiling from 73–78 % to 91 % of copy bandwidth (run 41), and the step is
    read and multiplied one super-block at a time (no spills), but the tile's shared memory — the
    8-token activation tile, the decoded scales of each slice — leaves fewer programs per SM:
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


def mmq_kernel(cfg: MmqConfig) -> str:
    """The MLIR text of one q8_1 × weights GEMM kernel (see the module docstring)."""
    if cfg.small_m:
        return _small_m(cfg)
    return _stream_k(cfg) if cfg.stream_k else _mmq(cfg)


MAX_PREFETCH_STEPS = 16
"""``MmqConfig.prefetch_steps``' bound, a sanity limit rather than a measured one: 16 steps of a 64-row q4_K tile are
147 KB per program, and a one-wave grid of ~1000 programs asking that much would want three times an H200's 50 MB
of L2 before its first copy."""
SPLIT_TARGET_PROGRAMS = 1024
"""About eight programs per SM of an H200 (132 SMs): a program's K step is a long chain (wait,
decode, barrier, mma, rescale), so HBM needs many of them in flight. The three split defaults
are the best of the sweep in bench/RESULTS.md (run 8) for the 64-row, two-warp kernel."""
MAX_SPLITS = 16
MIN_BLOCKS_PER_SPLIT = 2


def split_factor(tiles: int, k: int, target: int = SPLIT_TARGET_PROGRAMS, max_splits: int = MAX_SPLITS,
                 min_blocks: int = MIN_BLOCKS_PER_SPLIT, resident: int | None = None) -> int:
    """K splits for ``tiles`` weight-row tiles: up to ``target`` programs, at least
    ``min_blocks`` super-blocks per split, at most ``max_splits`` splits — and then the fewest
    splits that keep the longest split as short: a split's K range is a chain of dependent
    steps, so 56 super-blocks in 16 splits (3 or 4 each) take as long as in 14 (4 each), which
    need fewer programs (run 55: 14.95 → 14.60 µs at M = 1, N = 4096, K = 14336).

    ``resident``, the programs the GPU holds at once (``resident_programs``): where that grid
    would overflow them, a second wave of a few programs runs alone at the end; the split count
    is then the one of least ``waves · (longest split + WAVE_OVERHEAD_STEPS)`` (fewest splits on a
    tie). Run 184, N = 32768, K = 8192 (32 super-blocks, 512 tiles): q6_K's one-token kernel (7
    programs per SM, 924 resident) took 60.2 / 77.0 / 61.0 / 65.5 µs in 1 / 2 / 3 / 4 splits, q5_1's
    61.4 / 62.4 / 56.3 / 59.0 — the model's order for both, 3 splits; q4_K (9 per SM) and q5_0 (8)
    hold 1024 programs at once and keep 2."""
    check_int("split_factor", "tiles", tiles, least=1)
    check_int("split_factor", "k", k, least=0)  # K = 0: one split, which has no work
    for name, value in (("target", target), ("max_splits", max_splits), ("min_blocks", min_blocks)):
        check_int("split_factor", name, value, least=1)
    if resident is not None:
        check_int("split_factor", "resident", resident)
        if resident < 1:
            raise ValueError(f"split_factor: resident must be the programs the GPU holds at once (≥ 1), got "
                             f"{resident}")
    blocks = k // K_STEP_VALUES
    splits = max(1, min(max_splits, -(-target // tiles), blocks // min_blocks))
    longest = -(-blocks // splits)
    splits = max(1, -(-blocks // longest)) if blocks else splits
    if resident is None or tiles * splits <= resident:
        return splits
    candidates = range(1, max(1, min(max_splits, blocks // min_blocks)) + 1)
    return min(candidates, key=lambda s: (-(-tiles * s // resident) * (-(-blocks // s) + WAVE_OVERHEAD_STEPS), s))


WAVE_OVERHEAD_STEPS = 3
"""A program's start and end (prologue, pipeline fill, the split-K store) in K steps of its chain,
for ``split_factor``'s wave model: fitted to run 184's eight q6_K / q5_1 rows (2 or 4 order them
the same way)."""


def resident_programs(shared_bytes: int, sms: int, shared_per_sm: int, reserved_per_program: int = 1024,
                      threads: int = 64, threads_per_sm: int = 2048, programs_per_sm: int = 32,
                      registers: int = 0) -> int:
    """Programs of a kernel the GPU holds at once: ``sms`` times what one SM holds by its shared memory,
    threads, registers (per thread as ptxas allocates them; 0: not counted) and the per-SM program limit
    (``compiler.occupancy.programs_per_sm``). H200 (``cudaDeviceProp``): 132 SMs, 233472 B of shared
    memory per SM, 1024 of them reserved per program. The runner's ``LoadedKernel.resident_programs``
    passes a loaded kernel's own registers: the q2_K, q5_K and lookup-format decode kernels are bound by
    them, not by shared memory."""
    if sms < 1 or shared_per_sm < 1 or threads < 1 or shared_bytes < 0 or registers < 0:
        raise ValueError(f"resident_programs: got shared_bytes = {shared_bytes}, sms = {sms}, shared_per_sm = "
                         f"{shared_per_sm}, threads = {threads}, registers = {registers}")
    per_sm, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                          reserved_per_program=reserved_per_program,
                                          threads_per_sm=threads_per_sm, programs_limit=programs_per_sm)
    return sms * per_sm


def spread_shared_bytes(shared_bytes: int, programs: int, sms: int, shared_per_sm: int,
                        reserved_per_program: int = occupancy.RESERVED_PER_PROGRAM,
                        granularity: int = occupancy.SHARED_UNIT, *, threads: int = 0,
                        registers: int = 0) -> int:
    """The dynamic shared memory to launch a one-wave grid of ``programs`` with so that no SM can take more
    than ⌈programs / sms⌉ of them: ``shared_bytes`` where that is already so — by shared memory, or by
    ``threads`` per program and ``registers`` per thread where given (0: not counted) —, else the smallest
    multiple of ``granularity`` above it at which one program more no longer fits on an SM.

    A programmatic launch of such a grid with room left on the SMs sometimes lands unevenly, and the decode
    kernels bound by their instructions per SM (iq4_xs's, iq4_nl's, mxfp4's table lookups) then take up to 20 %
    longer; capped they do not (run 197, padded to 28160 B at 32768 × 8192: iq4_xs's one-token MUL_MAT 67.5 →
    55.8 µs, q4_K's unchanged). The least padding is asked for because size itself costs: 32 KB and more per
    program slowed every kernel 5–15 % at 4096 × 14336, where a padding just past the threshold (28224 B, 7 per
    SM) changed nothing (run 199, launched plainly). A grid of more than one wave (``shared_bytes`` already allows no more than
    ⌈programs / sms⌉ per SM) is left as it is, and so is a kernel whose registers already cap it (q2_K's
    ggml-order decode kernels: 6 per SM) — where a padding lowers no cap it can still cost: 128 bytes cost
    mxfp4's and iq4_xs's 128-register decode kernels 18 %, pushing 8 programs past 196 KB per SM and so the SM's
    L1 from 60 to 28 KB (runs 209, 212–213: the shared-memory carve-out). The runner pads
    every programmatic launch so by default (``LoadedKernel.shared_bytes_for``): in runs 200 and 210 none of 66
    decode MUL_MATs padded so was more than 0.9 % slower for it."""
    if min(sms, shared_per_sm, programs) < 1 or shared_bytes < 0 or granularity < 1:
        raise ValueError(f"spread_shared_bytes: got shared_bytes = {shared_bytes}, programs = {programs}, "
                         f"sms = {sms}, shared_per_sm = {shared_per_sm}")
    cap = -(-programs // sms)
    held, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                        reserved_per_program=reserved_per_program)
    if held <= cap:  # capped already, or more than one wave
        return shared_bytes
    least = shared_per_sm // (cap + 1) - reserved_per_program + 1  # one program more no longer fits
    return max(shared_bytes, -(-least // granularity) * granularity)


def spread_launch(shared_bytes: int, programs: int, sms: int, shared_per_sm: int,
                  reserved_per_program: int = occupancy.RESERVED_PER_PROGRAM,
                  *, threads: int = 0, registers: int = 0) -> tuple[int, int | None]:
    """(dynamic shared memory, shared-memory configuration in KB to prefer, or None for the driver's choice) for a
    programmatic launch of ``programs``. One wave: ``spread_shared_bytes``' cap at ⌈programs / sms⌉ per SM, the
    driver's configuration (runs 216–217: capping by the configuration instead was no faster). More than one wave,
    where the programs an SM holds put it in its largest configuration (228 KB of shared memory, 28 KB of L1) and
    one program fewer fits a smaller one: that one — the kernel's own shared memory then fills it, as the smallest
    configuration holding one program fewer cannot hold one more. Run 220: q5_K's, q5_1's and q6_K's decode
    kernels (7 per SM at 29184–31488 B) at N = 32768, K = 8192 (512 × 3 programs, two waves), 6 per SM under
    196 KB: 0.924–1.000 × the MUL_MAT time over 17 (kernel, M) pairs; kernels already under a smaller
    configuration lost 8–12 % with one program fewer (6 → 5 per SM at 164 / 196 KB: mxfp4's, iq4_xs's and q5_K's
    register-bound one-token kernels)."""
    held, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                        reserved_per_program=reserved_per_program)
    if programs <= held * sms:
        return spread_shared_bytes(shared_bytes, programs, sms, shared_per_sm, reserved_per_program,
                                   threads=threads, registers=registers), None
    largest = shared_per_sm // 1024
    if held < 2 or occupancy.carveout_kb(held, shared_bytes, reserved_per_program) < largest:
        return shared_bytes, None
    fewer = occupancy.carveout_kb(held - 1, shared_bytes, reserved_per_program)
    return shared_bytes, fewer if fewer < largest else None


STREAM_K_PROGRAMS = 132
"""Programs of a stream-K grid per resident program per SM: the H200's SM count (a run-time
choice: the kernel reads the count from the grid)."""


def mmq_grid(cfg: MmqConfig, m: int, n: int, k: int, programs: int | None = None,
             **split: int) -> tuple[int, int, int]:
    """The launch grid of ``cfg`` for Y[m, n] += X[m, k] · W[n, k]ᵀ. ``split`` overrides
    ``split_factor``'s defaults (a run-time choice: the kernel reads its split count from
    the grid) — ``resident=resident_programs(...)`` lets it avoid a short second wave;
    ``programs`` the size of a stream-K grid (default: ``STREAM_K_PROGRAMS`` times
    ``min_blocks_per_sm``, or once without it, at most one per iteration).

    A small_m grid runs over weight rows (and K splits) only, the same for every M ≤ max_m, so
    each weight byte is read once whatever M is (seed 000 §12.4); it raises ``ValueError`` for
    M > ``cfg.max_m``, whose rows max_m.. the kernel would leave unwritten: M > 64 needs the mmq
    kernel, a smaller M a small_m config with a larger max_m (or the mmq kernel).

    M and N must be positive ints (an empty Y has no tile to launch a program for), K an int ≥ 0: the
    kernels take K = 0 (stream-K's shares and the split-K decode's one split are then empty, and the
    fix-up stores zeros). Arguments the grid would not use are refused rather than ignored: ``programs``
    but for a stream-K grid, the split overrides for a prefill grid (``max_splits=1`` excepted: every grid
    keeps to it). A decode grid takes them with or without split_k (without, it has one split whatever
    they say), so one set of overrides serves every decode kernel."""
    if not isinstance(cfg, MmqConfig):
        raise TypeError(f"mmq_grid: cfg must be an MmqConfig, got {type(cfg).__name__}")
    check_int("mmq_grid", "m", m, least=1)
    check_int("mmq_grid", "n", n, least=1)
    check_int("mmq_grid", "k", k, least=0)
    unknown = sorted(set(split) - set(SPLIT_ARGUMENTS))
    if unknown:
        raise TypeError(f"mmq_grid: unexpected keyword argument {unknown[0]!r} (the split-K grid's overrides: "
                        f"{', '.join(SPLIT_ARGUMENTS)})")
    if programs is not None:
        if not cfg.stream_k:
            raise ValueError(f"mmq_grid: programs is the size of a stream-K grid; {cfg.name} has one program per "
                             f"{'weight-row tile and K split' if cfg.small_m else 'output tile'}")
        check_int("mmq_grid", "programs", programs, least=1)
    split_factor(1, k, **split)  # its checks of the overrides, for every grid (some have no split to use them)
    unused = [name for name, value in split.items() if not (name == "max_splits" and value == 1)]
    if unused and not cfg.small_m:
        raise ValueError(f"mmq_grid: {unused[0]} overrides the K split of a decode grid (small_m with split_k); "
                         f"{cfg.name} is a prefill kernel, which does not split K")
    if cfg.small_m:
        if m > cfg.max_m:
            raise ValueError(_small_m_refusal(cfg, m))
        tiles = -(-n // cfg.block_n)
        return (tiles, split_factor(tiles, k, **split) if cfg.split_k else 1, 1)
    tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n)
    if cfg.stream_k:
        slots = programs or STREAM_K_PROGRAMS * max(1, cfg.min_blocks_per_sm)
        return (max(1, min(slots, tiles * (k // K_STEP_VALUES))), 1, 1)
    return (tiles, 1, 1)


SPLIT_ARGUMENTS = ("target", "max_splits", "min_blocks", "resident")
"""``split_factor``'s overrides, which ``mmq_grid`` passes on from its keyword arguments."""


def _small_m_refusal(cfg: MmqConfig, m: int) -> str:
    unwritten = f"row {cfg.max_m}" if m == cfg.max_m + 1 else f"rows {cfg.max_m}..{m - 1}"
    what = (f"mmq_grid: {cfg.name} (small_m, max_m = {cfg.max_m}) serves M ≤ {cfg.max_m}, got M = {m}: "
            f"{unwritten} of Y would be left unwritten; ")
    if m > SMALL_M_WIDEST:
        return what + (f"use the mmq kernel (MmqConfig(small_m=False)) for M > {SMALL_M_WIDEST}: max_m cannot "
                       f"exceed SMALL_M_WIDEST = {SMALL_M_WIDEST}")
    return what + (f"use a small_m config with max_m ≥ {m} (at most SMALL_M_WIDEST = {SMALL_M_WIDEST}) or the mmq "
                   "kernel (MmqConfig(small_m=False))")


_X = "!qdot.block<q8_1_mmq>"


@dataclass(frozen=True)
class _Weights:
    """How the kernel text names and indexes the weight blocks of ``cfg``: ``%kw`` is always the
    K steps (256 values) of a row; weights of 32-value blocks have ``%kwb`` = K/32 blocks per row
    and the K step's first block ``%kkw`` = 8 · step (q4_K: the super-block index itself)."""

    fmt: str

    @property
    def type(self) -> str:
        return f"!qdot.block<{self.fmt}>"

    @property
    def per_step(self) -> int:
        return K_STEP_VALUES // FORMATS[self.fmt].block_values

    @property
    def row_blocks(self) -> str:
        return "%kw" if self.per_step == 1 else "%kwb"

    def header(self) -> list[str]:
        if self.per_step == 1:
            return []
        return [f"  %kwb = arith.divui %k, %c{K_STEP_VALUES // self.per_step} : index"]

    def consts(self) -> set[int]:
        return set() if self.per_step == 1 else {self.per_step, K_STEP_VALUES // self.per_step}

    def first_block(self, step: str, indent: str) -> tuple[list[str], str]:
        """(lines, SSA name) of the first weight block of K step ``step``."""
        if self.per_step == 1:
            return [], step
        return [f"{indent}%kkw = arith.muli {step}, %c{self.per_step} : index"], "%kkw"


def _header(cfg: MmqConfig, consts: set[int]) -> list[str]:
    weights = _Weights(cfg.weights)
    early = " {qdot.not_written_by_previous_grid}" if cfg.weights_before_wait else ""
    args = [*(["%xf_ptr: !qdot.ptr<f32>"] if cfg.quantize_in_gemm else []),
            f"%x_ptr: !qdot.ptr<{_X}>", f"%w_ptr: !qdot.ptr<{weights.type}>{early}", "%y_ptr: !qdot.ptr<f32>",
            *(["%part_ptr: !qdot.ptr<f32>"] if cfg.fixup else []),
            *(["%count_ptr: !qdot.ptr<i32>"] if cfg.fixup_in_gemm else []),
            "%m: index", "%n: index", f"%k: index {{qdot.divisibility = {cfg.k_divisibility} : i64}}"]
    extra = f", qdot.min_blocks_per_sm = {cfg.min_blocks_per_sm} : i64" if cfg.min_blocks_per_sm else ""
    extra += ", qdot.wait_previous_grid" if cfg.wait_previous_grid else ""
    extra += f", qdot.l2_prefetch = {cfg.l2_prefetch} : i64" if cfg.l2_prefetch else ""
    extra += "" if cfg.guard_copies else ", qdot.unguarded_copies"
    extra += "" if cfg.q4k_fold == "auto" else f', qdot.q4k_fold = "{cfg.q4k_fold}"'
    extra += ", qdot.pad_block_rows" if cfg.pad_block_rows else ""
    extra += ", qdot.swizzle_fold_buffers" if cfg.swizzle_fold_buffers else ""
    extra += ", qdot.broadcast_rhs" if cfg.broadcast_rhs else ""
    lines = [f"func.func @{cfg.name}({', '.join(args)})",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{extra}}} {{"]
    constants = consts | {0, 1, 2, MMQ_VALUES, K_STEP_VALUES} | weights.consts()
    lines += [f"  %c{c} = arith.constant {c} : index" for c in sorted(constants)]
    lines += [f"  %kx = arith.divui %k, %c{MMQ_VALUES} : index",
              f"  %kw = arith.divui %k, %c{K_STEP_VALUES} : index"]
    return lines + weights.header()


def _mmq(cfg: MmqConfig) -> str:
    bm, bn, g = cfg.block_m, cfg.block_n, cfg.group_m
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    x_tile, w_tile = _mmq_tiles(cfg)
    lines = _header(cfg, {bm, bn, g, cfg.k_blocks})
    lines += grouped_tile_offsets(bm, bn, g)
    lines += [
        f"  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>",
        *_mmq_weight_desc(cfg, w, w_tile, kwb),
        f"  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{bm}x{bn}xf32>",
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        *_mmq_k_loop(cfg, "%c0", "%kw", "  "),
        f"  qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _mmq_tiles(cfg: MmqConfig) -> tuple[str, str]:
    """The mmq kernels' tile types of one K step (``k_blocks`` super-blocks): X's [block_m, 2 · k_blocks] q8_1_mmq
    blocks and W's [k_blocks · blocks per super-block, block_n] (W read as [K/bv, N])."""
    weights = _Weights(cfg.weights)
    return (f"{cfg.block_m}x{2 * cfg.k_blocks}x{_X}",
            f"{cfg.k_blocks * weights.per_step}x{cfg.block_n}x{weights.type}")


def _mmq_k_loop(cfg: MmqConfig, lower: str, upper: str, indent: str) -> list[str]:
    """The mmq K loop over super-blocks ``lower`` to ``upper`` of the tile at (%off_m, %off_n),
    ``k_blocks`` of them per step, from %zero to %acc."""
    bm, bn, kb = cfg.block_m, cfg.block_n, cfg.k_blocks
    weights = _Weights(cfg.weights)
    x_tile, w_tile = _mmq_tiles(cfg)
    first_lines, first = weights.first_block("%kk", "  ")
    w_at = f"{first}, %off_n"
    if cfg.tiled_weights:  # the tile's rows of step %kk: row %off_n · K/256 + %kk · block_n of the tiled matrix
        first_lines = ["  %w_tile_row = arith.muli %off_n, %kw : index", f"  %w_step = arith.muli %kk, %c{bn} : index",
                       "  %w_row = arith.addi %w_tile_row, %w_step : index"]
        w_at = "%c0, %w_row"
    lines = [
        f"%acc = scf.for %kk = {lower} to {upper} step %c{kb} iter_args(%acc_i = %zero) -> (tensor<{bm}x{bn}xf32>) {{",
        "  %kkx = arith.muli %kk, %c2 : index",
        *first_lines,
        f"  %x = qdot.load %x_desc[%off_m, %kkx]{_X_IN_K if kb == 1 else ''} : !qdot.desc<{x_tile}> "
        f"-> tensor<{x_tile}>",
        f"  %w = qdot.load %w_desc[{w_at}]{_W_IN_BOUNDS if cfg.tiled_weights else ''} : !qdot.desc<{w_tile}> "
        f"-> tensor<{w_tile}>",
        f"  %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = {cfg.weights}",
        f"       : tensor<{x_tile}> * tensor<{w_tile}> -> tensor<{bm}x{bn}xf32>",
        f"  scf.yield %d : tensor<{bm}x{bn}xf32>",
        "}",
    ]
    return [indent + line for line in lines]


def _stream_k(cfg: MmqConfig) -> str:
    """The mmq kernel over a contiguous share of the (tile, super-block) iterations: one
    segment per output tile the share touches, each a K loop from ``k0`` to ``k1``."""
    bm, bn, g = cfg.block_m, cfg.block_n, cfg.group_m
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    x_tile, w_tile = _mmq_tiles(cfg)
    in_gemm = {fixup_rows(cfg), *range(FIXUP_PIECES_AT_ONCE + 1)} if cfg.fixup_in_gemm else set()
    lines = _header(cfg, {bm, bn, g} | in_gemm)
    lines += [
        "  %pid = qdot.program_id x",
        "  %programs = qdot.num_programs x",
        f"  %tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"  %tiles_n = arith.ceildivui %n, %c{bn} : index",
        "  %tiles = arith.muli %tiles_m, %tiles_n : index",
        "  %total = arith.muli %tiles, %kw : index",
        "  %per = arith.ceildivui %total, %programs : index",
        "  %share = arith.muli %pid, %per : index",
        "  %start = arith.minui %share, %total : index",
        "  %share_end = arith.addi %start, %per : index",
        "  %end = arith.minui %share_end, %total : index",
        "  %kw_nz = arith.maxui %kw, %c1 : index",  # K = 0: no share has work, and no division by zero
        "  %first_tile = arith.divui %start, %kw_nz : index",
        "  %end_tile = arith.ceildivui %end, %kw_nz : index",
        "  %has_work = arith.cmpi ult, %start, %end : index",
        "  %tile_span = arith.subi %end_tile, %first_tile : index",
        "  %segments = arith.select %has_work, %tile_span, %c0 : index",
        f"  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>",
        *_mmq_weight_desc(cfg, w, w_tile, kwb),
        f"  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{bm}x{bn}xf32>",
        *(_workspace_desc(cfg, "%programs", bm) if cfg.fixup else []),
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        "  scf.for %s = %c0 to %segments step %c1 {",
        "    %tile = arith.addi %first_tile, %s : index",
        "    %tile_k = arith.muli %tile, %kw : index",
        "    %tile_k_end = arith.addi %tile_k, %kw : index",
        "    %from = arith.maxui %start, %tile_k : index",
        "    %to = arith.minui %end, %tile_k_end : index",
        "    %k0 = arith.subi %from, %tile_k : index",
        "    %k1 = arith.subi %to, %tile_k : index",
        "    %from_first = arith.cmpi eq, %k0, %c0 : index",
        "    %to_last = arith.cmpi eq, %k1, %kw : index",
        "    %whole = arith.andi %from_first, %to_last : i1",
        *grouped_tile_offsets(bm, bn, g, tile="%tile", indent="    "),
        *_mmq_k_loop(cfg, "%k0", "%k1", "    "),
        "    scf.if %whole {",
        f"      qdot.store %y_desc[%off_m, %off_n], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "    } else {",
        *(_partial_tile_store(cfg) if cfg.fixup else [
            f"      qdot.store %y_desc[%off_m, %off_n], %acc {{reduce = \"add\"}} : !qdot.desc<{bm}x{bn}xf32>, "
            f"tensor<{bm}x{bn}xf32>"]),
        *(_stream_k_fixup_by_last_program(cfg) if cfg.fixup_in_gemm else []),
        "    }",
        "  }",
        *(_stream_k_zero_tiles(cfg) if cfg.fixup_in_gemm else []),
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _stream_k_fixup_by_last_program(cfg: MmqConfig) -> list[str]:
    """``fixup_in_gemm`` for stream-K, after a split tile's piece is stored: the programs p_lo … p_hi that share
    the tile (as ``mmq_fixup_kernel`` finds them) arrive at its counter, and the last to arrive adds their pieces in
    program order — ``fixup_rows`` rows at a time, the first ``FIXUP_PIECES_AT_ONCE`` loaded together — and stores
    each chunk of the sum."""
    bm, bn, rows = cfg.block_m, cfg.block_n, fixup_rows(cfg)
    tile_t, desc_t = f"tensor<{rows}x{bn}xf32>", f"!qdot.desc<{rows}x{bn}xf32>"
    return [
        "      %fx_p_lo = arith.divui %tile_k, %per : index",
        "      %fx_last_k = arith.subi %tile_k_end, %c1 : index",
        "      %fx_p_hi = arith.divui %fx_last_k, %per : index",
        "      %fx_p_end = arith.addi %fx_p_hi, %c1 : index",
        "      %fx_sharers = arith.subi %fx_p_end, %fx_p_lo : index",
        "      %last = qdot.last_arrival %count_ptr[%tile], %fx_sharers : !qdot.ptr<i32>",
        "      scf.if %last {",
        f"        %fx_part_desc = qdot.make_desc %part_ptr, [%part_rows, %c{bn}], [%c{bn}, %c1] : !qdot.ptr<f32> "
        f"-> {desc_t}",
        f"        %fx_y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> {desc_t}",
        f"        %fx_zero = arith.constant dense<0.000000e+00> : {tile_t}",
        f"        scf.for %fx_chunk_row = %c0 to %c{bm} step %c{rows} {{",
        *_unrolled_pieces(bm, FIXUP_PIECES_AT_ONCE, tile_t, desc_t, "fx_", "          ", "%kw"),
        "          %fx_row = arith.addi %off_m, %fx_chunk_row : index",
        f"          qdot.store %fx_y_desc[%fx_row, %off_n], %fx_total_sum : {desc_t}, {tile_t}",
        "        }",
        "      }"]


def _stream_k_zero_tiles(cfg: MmqConfig) -> list[str]:
    """``fixup_in_gemm`` for stream-K at K = 0: no program has a segment and no fix-up kernel follows (which would
    store the zeros), so the programs store the zero tiles themselves, program p tiles p, p + programs, …"""
    bm, bn = cfg.block_m, cfg.block_n
    return [
        "  %no_k = arith.cmpi eq, %kw, %c0 : index",
        "  scf.if %no_k {",
        f"    %kz_zero = arith.constant dense<0.000000e+00> : tensor<{bm}x{bn}xf32>",
        "    scf.for %kz_tile = %pid to %tiles step %programs {",
        "      %kz_m = arith.divui %kz_tile, %tiles_n : index",
        "      %kz_n = arith.remui %kz_tile, %tiles_n : index",
        f"      %kz_off_m = arith.muli %kz_m, %c{bm} : index",
        f"      %kz_off_n = arith.muli %kz_n, %c{bn} : index",
        f"      qdot.store %y_desc[%kz_off_m, %kz_off_n], %kz_zero : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
        "    }",
        "  }"]


def _partial_tile_store(cfg: MmqConfig) -> list[str]:
    """A fixup kernel's piece of a split tile, into the program's workspace slot: slot 2·pid for its
    first segment (the only one that may start inside a tile), 2·pid + 1 for its last (the only other
    one that may end inside a tile)."""
    bm, bn = cfg.block_m, cfg.block_n
    return [
        "      %later = arith.cmpi ne, %s, %c0 : index",
        "      %slot_of = arith.select %later, %c1, %c0 : index",
        "      %pid_slots = arith.muli %pid, %c2 : index",
        "      %slot = arith.addi %pid_slots, %slot_of : index",
        f"      %part_row = arith.muli %slot, %c{bm} : index",
        f"      qdot.store %part_desc[%part_row, %c0], %acc : !qdot.desc<{bm}x{bn}xf32>, tensor<{bm}x{bn}xf32>",
    ]


def _workspace_desc(cfg: MmqConfig, programs: str, rows: int, indent: str = "  ",
                    no_k: str | None = None) -> list[str]:
    """``%part_desc``: the stream-K fix-up's workspace, two [block_m, block_n] f32 slots per program, as [rows,
    block_n] tiles. ``no_k``: an i1 that empties the descriptor (K = 0: there are no pieces, so its loads read
    zeros)."""
    bm, bn = cfg.block_m, cfg.block_n
    rows_name = "%slot_rows" if no_k else "%part_rows"
    return [f"{indent}%slots = arith.muli {programs}, %c2 : index",
            f"{indent}{rows_name} = arith.muli %slots, %c{bm} : index",
            *([f"{indent}%part_rows = arith.select {no_k}, %c0, %slot_rows : index"] if no_k else []),
            f"{indent}%part_desc = qdot.make_desc %part_ptr, [%part_rows, %c{bn}], [%c{bn}, %c1] : !qdot.ptr<f32> "
            f"-> !qdot.desc<{rows}x{bn}xf32>"]


def fixup_workspace_shape(cfg: MmqConfig, grid: tuple[int, ...], n: int) -> tuple[int, int]:
    """The f32 workspace [rows, cols] a ``fixup`` kernel launched on ``grid`` writes and its ``mmq_fixup_kernel``
    reads. Stream-K: two block_m × block_n slots per program (grid x). Split-K: per split (grid y),
    ⌈n / block_n⌉ · block_n rows of the tile's tokens."""
    if cfg.small_m:
        return (grid[1] * -(-n // cfg.block_n) * cfg.block_n, small_m_tokens(cfg.max_m))
    return (2 * grid[0] * cfg.block_m, cfg.block_n)


def fixup_counters_shape(cfg: MmqConfig, m: int, n: int) -> tuple[int]:
    """The i32 counters a ``fixup_in_gemm`` kernel's programs arrive at: one per output tile (split-K: per weight-row
    tile). Zero them once, before the first launch; every launch leaves them zero."""
    if not cfg.fixup_in_gemm:
        raise ValueError(f"fixup_counters_shape: {cfg.name} has no counters (MmqConfig(..., fixup_in_gemm=True))")
    if cfg.small_m:
        return (max(1, -(-n // cfg.block_n)),)
    return (max(1, -(-m // cfg.block_m) * -(-n // cfg.block_n)),)


def fixup_scalars(cfg: MmqConfig, grid: tuple[int, ...], m: int, n: int, k: int) -> tuple[int, ...]:
    """``mmq_fixup_kernel``'s scalar arguments after Y and the workspace, for a GEMM launched on ``grid``:
    stream-K (M, N, K, its program count), split-K (M, N, its split count)."""
    return (m, n, grid[1]) if cfg.small_m else (m, n, k, grid[0])


def fixup_grid(cfg: MmqConfig, m: int, n: int) -> tuple[int, int, int]:
    """``mmq_fixup_kernel``'s grid. Stream-K: a program per ``FIXUP_ROWS`` rows of each output tile (the programs
    of tiles no program split return at once). Split-K: a program per chunk of each weight-row tile. M and N as
    ``mmq_grid`` takes them: positive ints."""
    check_int("fixup_grid", "m", m, least=1)
    check_int("fixup_grid", "n", n, least=1)
    if cfg.small_m:
        return (max(1, -(-n // cfg.block_n)), cfg.block_n // _split_fixup_rows(cfg), 1)
    return (max(1, -(-m // cfg.block_m) * -(-n // cfg.block_n)), cfg.block_m // fixup_rows(cfg), 1)


FIXUP_ROWS = 16
"""Rows of an output tile one fix-up program sums: a 64-row tile is four programs, so that the few split
tiles of a stream-K grid (64 at M = 128, N = 4096) still spread over every SM."""


def fixup_rows(cfg: MmqConfig) -> int:
    return min(FIXUP_ROWS, cfg.block_m)


FIXUP_PIECES_AT_ONCE = 4
"""The stream-K fix-up's pieces loaded before its first addition (``mmq_fixup_kernel``'s ``unroll``): with one
piece loaded ahead of each addition (``unroll=0``) the fix-up was latency-bound, 0.92–1.13 × the atomic MUL_MAT's time
(runs 249–251); with 4 at once 0.85–1.05 ×, with 8 (160 registers) no better (run 255)."""


def fixup_kernel_name(cfg: MmqConfig, wait_previous_grid: bool = False, unroll: int = FIXUP_PIECES_AT_ONCE) -> str:
    pdl = ("_pdl" if wait_previous_grid else "") + (f"_u{unroll}" if unroll != FIXUP_PIECES_AT_ONCE else "")
    if cfg.small_m:
        tokens = f"_m{cfg.max_m}" if cfg.max_m != SMALL_M_MAX else ""
        return f"small_m_fixup_{cfg.block_n}x{small_m_tokens(cfg.max_m)}_w{cfg.num_warps}{tokens}{pdl}"
    return f"mmq_fixup_{cfg.block_m}x{cfg.block_n}_g{cfg.group_m}_w{cfg.num_warps}{pdl}"


def mmq_fixup_kernel(cfg: MmqConfig, wait_previous_grid: bool = False, unroll: int = FIXUP_PIECES_AT_ONCE) -> str:
    """The second kernel of a ``fixup`` GEMM (for split-K: ``_split_fixup``). Stream-K: program (t, r) finds the
    programs whose shares of the (tile, K step) iterations meet output tile ``t`` — p_lo = ⌊t·K/256 / per⌋ to
    p_hi = ⌊((t+1)·K/256 − 1) / per⌋, with the GEMM's ``per`` = ⌈iterations / programs⌉ — and, where there are two
    or more, adds rows [16r, 16r + 16) of their pieces in that order (program p's piece of tile t is its first
    segment, slot 2p, when t is p's first tile, else its last, slot 2p + 1) and stores the sum; rows past M are left
    out. A tile one program covers whole was stored by it. With K = 0 no program has work and every tile is stored
    as zeros here (the workspace descriptor is then empty, so its loads read zeros). The first ``unroll`` pieces are
    loaded before the first addition (``FIXUP_PIECES_AT_ONCE``), a loop adds the rest; with ``unroll=0`` the loop
    alone, each piece loaded one iteration ahead. Either way the sum keeps program order. Arguments: Y, the
    workspace and ``fixup_scalars`` (M, N, K, the GEMM's program count); the order of tiles is the GEMM's
    (``grouped_tile_offsets``). ``wait_previous_grid``: start with ``griddepcontrol.wait``, so that it may be
    launched programmatically right after the GEMM (sm_90+)."""
    if not cfg.fixup:
        raise ValueError(f"mmq_fixup_kernel: {cfg.name} has no fix-up kernel (MmqConfig(stream_k=True, fixup=True) "
                         "or MmqConfig(small_m=True, split_k=True, fixup=True))")
    if cfg.fixup_in_gemm:
        raise ValueError(f"mmq_fixup_kernel: {cfg.name} has no fix-up kernel: its fix-up runs in the GEMM "
                         "(fixup_in_gemm)")
    if cfg.small_m:
        return _split_fixup(cfg, wait_previous_grid)
    bm, bn, g, rows = cfg.block_m, cfg.block_n, cfg.group_m, fixup_rows(cfg)
    tile_t = f"tensor<{rows}x{bn}xf32>"
    desc_t = f"!qdot.desc<{rows}x{bn}xf32>"
    wait = ", qdot.wait_previous_grid" if wait_previous_grid else ""
    lines = [f"func.func @{fixup_kernel_name(cfg, wait_previous_grid, unroll)}(%y_ptr: !qdot.ptr<f32>, "
             "%part_ptr: !qdot.ptr<f32>, %m: index, "
             f"%n: index, %k: index {{qdot.divisibility = {cfg.k_divisibility} : i64}}, %programs: index)",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{wait}}} {{"]
    lines += [f"  %c{c} = arith.constant {c} : index"
              for c in sorted({0, 1, 2, bm, bn, g, rows, K_STEP_VALUES, *range(unroll + 1)})]
    lines += [
        f"  %kw = arith.divui %k, %c{K_STEP_VALUES} : index",
        "  %tile = qdot.program_id x",
        "  %chunk = qdot.program_id y",
        f"  %tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"  %tiles_n = arith.ceildivui %n, %c{bn} : index",
        "  %tiles = arith.muli %tiles_m, %tiles_n : index",
        "  %total = arith.muli %tiles, %kw : index",
        "  %per_any = arith.ceildivui %total, %programs : index",
        "  %per = arith.maxui %per_any, %c1 : index",
        "  %tile_k = arith.muli %tile, %kw : index",
        "  %p_lo = arith.divui %tile_k, %per : index",
        "  %no_k = arith.cmpi eq, %kw, %c0 : index",
        "  %kw_any = arith.maxui %kw, %c1 : index",  # a divisor even at K = 0 (whose loads read zeros)
        "  %tile_k_end = arith.addi %tile_k, %kw : index",
        "  %tile_k_last = arith.subi %tile_k_end, %c1 : index",
        "  %last_k = arith.select %no_k, %tile_k, %tile_k_last : index",
        "  %p_hi = arith.divui %last_k, %per : index",
        "  %split = arith.cmpi ult, %p_lo, %p_hi : index",
        "  %to_fix = arith.ori %no_k, %split : i1",
        *grouped_tile_offsets(bm, bn, g, tile="%tile"),
        f"  %chunk_row = arith.muli %chunk, %c{rows} : index",
        "  %off_row = arith.addi %off_m, %chunk_row : index",
        "  %inside = arith.cmpi ult, %off_row, %m : index",  # rows past M: nothing to store (a ragged last tile)
        "  %to_store = arith.andi %to_fix, %inside : i1",
        "  scf.if %to_store {",
        "    %p_next = arith.addi %p_lo, %c1 : index",
        "    %p_after = arith.addi %p_hi, %c1 : index",
        "    %p_end = arith.select %no_k, %p_next, %p_after : index",
        *_workspace_desc(cfg, "%programs", rows, "    ", no_k="%no_k"),
        f"    %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> {desc_t}",
        f"    %zero = arith.constant dense<0.000000e+00> : {tile_t}",
        *(_unrolled_pieces(bm, unroll, tile_t, desc_t) if unroll else _looped_pieces(bm, tile_t, desc_t)),
        f"    qdot.store %y_desc[%off_row, %off_n], %total_sum : {desc_t}, {tile_t}",
        "  }",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _looped_pieces(bm: int, tile_t: str, desc_t: str) -> list[str]:
    """``%total_sum`` of pieces p_lo … p_end − 1 in order, each loaded one iteration ahead of its addition."""
    return [*_piece_row("%p_lo", "    ", "_lo", bm),
            f"    %first_piece = qdot.load %part_desc[%part_row_lo, %c0] : {desc_t} -> {tile_t}",
            f"    %sum, %last = scf.for %p = %p_next to %p_end step %c1 iter_args(%acc = %zero, %cur = %first_piece) "
            f"-> ({tile_t}, {tile_t}) {{",
            *_piece_row("%p", "      ", "", bm),
            f"      %next = qdot.load %part_desc[%part_row, %c0] : {desc_t} -> {tile_t}",
            f"      %acc_next = arith.addf %acc, %cur : {tile_t}",
            f"      scf.yield %acc_next, %next : {tile_t}, {tile_t}",
            "    }",
            f"    %total_sum = arith.addf %sum, %last : {tile_t}"]


def _unrolled_pieces(bm: int, unroll: int, tile_t: str, desc_t: str, pre: str = "", indent: str = "    ",
                     kw: str = "%kw_any") -> list[str]:
    """``%{pre}total_sum`` of pieces p_lo … p_end − 1 in order: the first ``unroll`` loaded before any addition (a
    piece past p_end reads zeros, its row past the workspace, and adds +0, which changes no sum that starts from +0), a
    loop for the rest. ``pre`` prefixes the names this defines and the per-tile ones it reads (%{pre}p_lo,
    %{pre}p_end, %{pre}zero; the in-GEMM fix-up's live beside the GEMM's own); ``kw``: K's steps, never 0."""
    lines: list[str] = []
    for i in range(unroll):
        lines += [f"{indent}%{pre}p_{i} = arith.addi %{pre}p_lo, %c{i} : index",
                  *_piece_row(f"%{pre}p_{i}", indent, f"_{i}", bm, pre, kw),
                  f"{indent}%{pre}real_{i} = arith.cmpi ult, %{pre}p_{i}, %{pre}p_end : index",
                  f"{indent}%{pre}row_{i} = arith.select %{pre}real_{i}, %{pre}part_row_{i}, %part_rows : index",
                  f"{indent}%{pre}piece_{i} = qdot.load %{pre}part_desc[%{pre}row_{i}, %c0] : {desc_t} -> {tile_t}"]
    total = _ordered_sum(lines, unroll, tile_t, pre, indent)
    return [*lines,
            f"{indent}%{pre}p_rest = arith.addi %{pre}p_lo, %c{unroll} : index",
            f"{indent}%{pre}total_sum = scf.for %{pre}p = %{pre}p_rest to %{pre}p_end step %c1 "
            f"iter_args(%{pre}acc = {total}) -> ({tile_t}) {{",
            *_piece_row(f"%{pre}p", indent + "  ", "", bm, pre, kw),
            f"{indent}  %{pre}piece = qdot.load %{pre}part_desc[%{pre}part_row, %c0] : {desc_t} -> {tile_t}",
            f"{indent}  %{pre}next = arith.addf %{pre}acc, %{pre}piece : {tile_t}",
            f"{indent}  scf.yield %{pre}next : {tile_t}",
            f"{indent}}}"]


def _ordered_sum(lines: list[str], unroll: int, tile_t: str, pre: str, indent: str) -> str:
    """Appends to ``lines`` the sum of ``%{pre}piece_0`` … ``%{pre}piece_{unroll-1}`` in that order from
    ``%{pre}zero``, and returns its name: the one order of the additions, which every fix-up form (its kernel, the
    GEMM's last program) follows so that they give the same bits."""
    total = f"%{pre}zero"
    for i in range(unroll):
        lines.append(f"{indent}%{pre}sum_{i} = arith.addf {total}, %{pre}piece_{i} : {tile_t}")
        total = f"%{pre}sum_{i}"
    return total


def _piece_row(p: str, indent: str, suffix: str, bm: int, pre: str = "", kw: str = "%kw_any") -> list[str]:
    """``%{pre}part_row{suffix}``: the workspace row of program ``p``'s piece of ``%tile``, rows ``%{pre}chunk_row``
    on."""
    return [f"{indent}%{pre}p_start{suffix} = arith.muli {p}, %per : index",
            f"{indent}%{pre}p_first{suffix} = arith.divui %{pre}p_start{suffix}, {kw} : index",
            f"{indent}%{pre}first{suffix} = arith.cmpi eq, %{pre}p_first{suffix}, %tile : index",
            f"{indent}%{pre}slot_of{suffix} = arith.select %{pre}first{suffix}, %c0, %c1 : index",
            f"{indent}%{pre}p_slots{suffix} = arith.muli {p}, %c2 : index",
            f"{indent}%{pre}slot{suffix} = arith.addi %{pre}p_slots{suffix}, %{pre}slot_of{suffix} : index",
            f"{indent}%{pre}slot_row{suffix} = arith.muli %{pre}slot{suffix}, %c{bm} : index",
            f"{indent}%{pre}part_row{suffix} = arith.addi %{pre}slot_row{suffix}, %{pre}chunk_row : index"]


def _small_m(cfg: MmqConfig) -> str:
    bn, tokens, kb = cfg.block_n, small_m_tokens(cfg.max_m), cfg.k_blocks
    weights = _Weights(cfg.weights)
    w, kwb = weights.type, weights.row_blocks
    first_lines, first = weights.first_block("%kk", "    ")
    w_tile, x_tile = f"{bn}x{kb * weights.per_step}x{w}", f"{2 * kb}x{tokens}x{_X}"
    reduce = ' {reduce = "add"}' if cfg.split_k else ""
    in_gemm = ({*_in_gemm_fixup_tile(cfg), *range(in_gemm_fixup_unroll(cfg) + 1)} if cfg.fixup_in_gemm else set())
    lines = _header(cfg, {bn, tokens, cfg.max_m, kb} | ({cfg.prefetch_steps * kb} if cfg.prefetch_steps else set())
                    | in_gemm)
    if not cfg.interleave_splits:
        k_range, (k_lo, k_hi, k_step) = _contiguous_share(kb), ("%k_lo", "%k_hi", f"%c{kb}")
    elif kb == 1:  # split y starts at step y and strides by the split count
        k_range, (k_lo, k_hi, k_step) = [], ("%pid_k", "%kw", "%splits")
    else:
        k_range, (k_lo, k_hi, k_step) = _interleaved_steps(kb), ("%k_lo", "%kw", "%k_step")
    bound, m = _m_bound(cfg, tokens)
    lines += [
        *bound,
        "  %pid = qdot.program_id x",
        f"  %off_n = arith.muli %pid, %c{bn} : index",
        "  %pid_k = qdot.program_id y",
        "  %splits = qdot.num_programs y",
        *k_range,
        *_weight_desc(cfg, w, w_tile, kwb),
        *(_quantize_share(cfg, m) if cfg.quantize_in_gemm else [
            f"  %x_desc = qdot.make_desc %x_ptr, [%kx, {m}], [%c1, %kx] : !qdot.ptr<{_X}> -> !qdot.desc<{x_tile}>"]),
        f"  %yt_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<{bn}x{tokens}xf32>",
        f"  %zero = arith.constant dense<0.000000e+00> : tensor<{bn}x{tokens}xf32>",
        *_prefetch_loop(cfg, w_tile),
        f"  %acc = scf.for %kk = {k_lo} to {k_hi} step {k_step} iter_args(%acc_i = %zero) "
        f"-> (tensor<{bn}x{tokens}xf32>) {{",
        "    %kkx = arith.muli %kk, %c2 : index",
        *([] if cfg.tiled_weights else first_lines),
        *(["    %w_step = arith.addi %tile_first, %kk : index", f"    %w_row = arith.muli %w_step, %c{bn} : index"]
          if cfg.tiled_weights else []),
        f"    %w = qdot.load %w_desc[{'%w_row, %c0' if cfg.tiled_weights else f'%off_n, {first}'}]"
        f"{_W_IN_BOUNDS if cfg.tiled_weights else ''} : !qdot.desc<{w_tile}> -> tensor<{w_tile}>",
        *(["    %kk_share = arith.subi %kk, %k_lo : index", "    %kkx_share = arith.muli %kk_share, %c2 : index"]
          if cfg.quantize_in_gemm else []),
        f"    %x = qdot.load %x_desc[{'%kkx_share, %x_row0' if cfg.quantize_in_gemm else '%kkx, %c0'}]"
        f"{_XT_IN_K if cfg.tiled_weights else ''} "
        f": !qdot.desc<{x_tile}> -> tensor<{x_tile}>",
        f"    %d = qdot.dot_scaled %w, %x, %acc_i lhs = {cfg.weights} rhs = q8_1_mmq",
        f"         : tensor<{w_tile}> * tensor<{x_tile}> -> tensor<{bn}x{tokens}xf32>",
        f"    scf.yield %d : tensor<{bn}x{tokens}xf32>",
        "  }",
        *(_split_piece_store(cfg, m if cfg.fixup_in_gemm else f"%c{tokens}") if cfg.fixup else [
            f"  qdot.store %yt_desc[%off_n, %c0], %acc{reduce} : !qdot.desc<{bn}x{tokens}xf32>, "
            f"tensor<{bn}x{tokens}xf32>"]),
        *(_fixup_by_last_program(cfg, m) if cfg.fixup_in_gemm else []),
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _quantize_share(cfg: MmqConfig, m: str) -> list[str]:
    """``quantize_in_gemm``: the program's K steps of X quantized into its own region of the scratch — rows
    (x · splits + y) · tokens … + M, its K steps from column 0 —, a barrier after each; and ``%x_desc``, the K
    loop's view of that region as [2 · k_per, rows]. Regions per program, not per weight-row tile: the K loop's
    pipeline may copy a stage past its share (the copy is discarded), and that stage must be outside the region,
    where the descriptor reads zeros, not another program's scratch being written."""
    tokens = small_m_tokens(cfg.max_m)
    rows = _served_tokens(cfg)  # the one-token kernel quantizes one row
    tile = f"{rows}x{K_STEP_VALUES}xf32"
    blocks = f"{rows}x2x{_X}"
    return [
        "  %xs_program = arith.muli %pid, %splits : index",
        "  %xs_region = arith.addi %xs_program, %pid_k : index",
        f"  %x_row0 = arith.muli %xs_region, %c{tokens} : index",
        f"  %x_rows = arith.addi %x_row0, {m} : index",
        "  %xs_cols = arith.muli %k_per, %c2 : index",
        f"  %xf_desc = qdot.make_desc %xf_ptr, [{m}, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<{tile}>",
        f"  %xs_desc = qdot.make_desc %x_ptr, [%x_rows, %xs_cols], [%xs_cols, %c1] : !qdot.ptr<{_X}> "
        f"-> !qdot.desc<{blocks}>",
        "  scf.for %kq = %k_lo to %k_hi step %c1 {",
        f"    %kq_values = arith.muli %kq, %c{K_STEP_VALUES} : index",
        "    %kq_share = arith.subi %kq, %k_lo : index",
        "    %kq_blocks = arith.muli %kq_share, %c2 : index",
        f"    %xf = qdot.load %xf_desc[%c0, %kq_values] : !qdot.desc<{tile}> -> tensor<{tile}>",
        f"    %xq = qdot.quantize %xf format = q8_1_mmq : tensor<{tile}> -> tensor<{blocks}>",
        f"    qdot.store %xs_desc[%x_row0, %kq_blocks], %xq : !qdot.desc<{blocks}>, tensor<{blocks}>",
        "    qdot.barrier",  # the stores seen by the K loop's copies; a staged quantization's buffer free again
        "  }",
        f"  %x_desc = qdot.make_desc %x_ptr, [%xs_cols, %x_rows], [%c1, %xs_cols] : !qdot.ptr<{_X}> "
        f"-> !qdot.desc<{2 * cfg.k_blocks}x{tokens}x{_X}>"]


def quantize_scratch_shape(cfg: MmqConfig, grid: tuple[int, ...], n: int, k: int) -> tuple[int, int, int]:
    """The q8_1_mmq scratch bytes a ``quantize_in_gemm`` kernel launched on ``grid`` quantizes X into, [rows, blocks,
    144]: a region of ``small_m_tokens`` rows per program (x, y) — each program stores only its own, the first M
    rows of it — of 2 · k_per blocks, k_per its share of K's super-blocks (⌈⌈K / 256 / k_blocks⌉ / splits⌉ ·
    k_blocks)."""
    if not cfg.quantize_in_gemm:
        raise ValueError(f"quantize_scratch_shape: {cfg.name} takes X quantized "
                         "(MmqConfig(..., quantize_in_gemm=True) quantizes it)")
    kb = cfg.k_blocks  # a split's share is whole K steps of kb super-blocks (``_split_share``)
    k_per = -(-(-(-(k // K_STEP_VALUES) // kb)) // grid[1]) * kb
    return (max(1, grid[0] * grid[1] * small_m_tokens(cfg.max_m)), max(1, 2 * k_per), 144)


def _prefetch_loop(cfg: MmqConfig, w_tile: str) -> list[str]:
    """``prefetch_steps``: the weight tiles of the program's K steps 1 … ``prefetch_steps`` of its share (step 0 is
    the pipeline's first copy), each asked of L2 by one ``qdot.prefetch``."""
    if not cfg.prefetch_steps:
        return []
    kb, weights = cfg.k_blocks, _Weights(cfg.weights)
    first_lines, first = weights.first_block("%kp", "    ")
    if cfg.tiled_weights:
        at = ["    %p_step = arith.addi %tile_first, %kp : index",
              f"    %p_row = arith.muli %p_step, %c{cfg.block_n} : index"]
        where = "%p_row, %c0"
    else:
        at, where = first_lines, f"%off_n, {first}"
    return [f"  %pf_lo = arith.addi %k_lo, %c{kb} : index",
            f"  %pf_end = arith.addi %pf_lo, %c{cfg.prefetch_steps * kb} : index",
            "  %pf_hi = arith.minui %pf_end, %k_hi : index",
            f"  scf.for %kp = %pf_lo to %pf_hi step %c{kb} {{",
            *at,
            f"    qdot.prefetch %w_desc[{where}] : !qdot.desc<{w_tile}>",
            "  }"]


def _split_workspace(bn: int, tokens: int, rows: int, splits: str, cols: str | None = None) -> list[str]:
    """``%part_desc`` over a split-K fix-up's workspace: for each split, ⌈N / block_n⌉ · block_n rows of ``tokens``
    f32 (tile x of split y at row y · ⌈N / block_n⌉ · block_n + x · block_n), as [rows, tokens] tiles.
    ``cols``: the columns the descriptor lets through (default all ``tokens``; the in-GEMM fix-up's, the M
    tokens served)."""
    cols = cols or f"%c{tokens}"
    return [f"  %fx_tiles = arith.ceildivui %n, %c{bn} : index",
            f"  %per_split = arith.muli %fx_tiles, %c{bn} : index",
            f"  %fx_rows = arith.muli {splits}, %per_split : index",
            f"  %part_desc = qdot.make_desc %part_ptr, [%fx_rows, {cols}], [%c{tokens}, %c1] : !qdot.ptr<f32> "
            f"-> !qdot.desc<{rows}x{tokens}xf32>"]


def _split_piece_store(cfg: MmqConfig, cols: str) -> list[str]:
    """A split-K fix-up kernel's partial Yᵀ tile, into its split's slot of its tile (columns below ``cols``)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    return [*_split_workspace(bn, tokens, bn, "%splits", cols),
            "  %split_row = arith.muli %pid_k, %per_split : index",
            "  %part_row = arith.addi %split_row, %off_n : index",
            f"  qdot.store %part_desc[%part_row, %c0], %acc : !qdot.desc<{bn}x{tokens}xf32>, tensor<{bn}x{tokens}xf32>"]


IN_GEMM_FIXUP_REGISTERS = 64
"""Registers the in-GEMM split-K fix-up's last program gives the pieces it loads before its first addition
(``MmqConfig.fixup_in_gemm``): as many pieces as fit, at most ``MAX_SPLITS`` (the default grid's splits; more are
added by a loop after them, a piece at a time). The registers are the GEMM kernel's, whose K loop sets their count:
the one-token kernel's pieces are one value per thread (16 at once), the M ≤ 8 kernel's eight (8 at once)."""


def _fixup_by_last_program(cfg: MmqConfig, m: str) -> list[str]:
    """``fixup_in_gemm``: the program arrives at its tile's counter; the last to arrive sums the tile's pieces in
    split order — ``_in_gemm_fixup_tile`` at a time, the first ``in_gemm_fixup_unroll`` pieces loaded together —
    and stores each chunk of the sum into Yᵀ (the token columns below M)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    cols, rows = _in_gemm_fixup_tile(cfg)
    tile_t, desc_t = f"tensor<{rows}x{cols}xf32>", f"!qdot.desc<{rows}x{cols}xf32>"
    unroll = in_gemm_fixup_unroll(cfg)
    lines = ["  %last = qdot.last_arrival %count_ptr[%pid], %splits : !qdot.ptr<i32>",
             "  scf.if %last {",
             f"    %sum_desc = qdot.make_desc %part_ptr, [%fx_rows, {m}], [%c{tokens}, %c1] : !qdot.ptr<f32> "
             f"-> {desc_t}",
             f"    %ysum_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> {desc_t}",
             f"    %fx_zero = arith.constant dense<0.000000e+00> : {tile_t}",
             f"    scf.for %ch = %c0 to %c{bn} step %c{rows} {{",
             "      %ch_row = arith.addi %off_n, %ch : index"]
    lines += _split_piece_sum(unroll, tile_t, desc_t, "%sum_desc", "%ch_row", "fx_", "      ")
    lines += [
        f"      qdot.store %ysum_desc[%ch_row, %c0], %fx_sum : {desc_t}, {tile_t}",
        "    }",
        "  }"]
    return lines


IN_GEMM_FIXUP_VALUES = 8
"""Values of a piece each thread of the in-GEMM split-K fix-up's last program loads at once: the whole tile of the
decode kernels (64 rows on 2 warps) in one chunk, so its pieces cost one round trip to L2, not two."""


def _in_gemm_fixup_tile(cfg: MmqConfig) -> tuple[int, int]:
    """(columns, rows) of the chunks the in-GEMM split-K fix-up sums: the token columns the kernel stores
    (``_served_tokens``: the one-token kernel's pieces are one column), and as many rows as ``IN_GEMM_FIXUP_VALUES``
    per thread cover, at most the tile's."""
    cols = _served_tokens(cfg)
    return cols, max(1, min(cfg.block_n, IN_GEMM_FIXUP_VALUES * 32 * cfg.num_warps // cols))


def _served_tokens(cfg: MmqConfig) -> int:
    """The token columns of its tile a small_m kernel quantizes, stores and sums: max_m rounded up to a power of two,
    at most the tile's ``small_m_tokens`` (1 for the one-token kernel)."""
    return min(small_m_tokens(cfg.max_m), 1 << (cfg.max_m - 1).bit_length())


def in_gemm_fixup_unroll(cfg: MmqConfig) -> int:
    """Pieces the in-GEMM split-K fix-up loads before its first addition (``IN_GEMM_FIXUP_REGISTERS``)."""
    cols, rows = _in_gemm_fixup_tile(cfg)
    per_thread = max(1, rows * cols // (32 * cfg.num_warps))
    return max(1, min(MAX_SPLITS, IN_GEMM_FIXUP_REGISTERS // per_thread))


FIXUP_UNROLL = MAX_SPLITS
"""Splits a split-K fix-up program loads at once (``mmq_grid``'s default cap on splits): a split past the
grid's reads zeros (its rows lie past the workspace descriptor) and adds nothing; splits past 16 are added by a
loop after them."""


def _split_piece_sum(unroll: int, tile_t: str, desc_t: str, desc: str, row: str, pre: str = "",
                     indent: str = "  ") -> list[str]:
    """``%{pre}sum``: a split-K tile's pieces at rows ``row`` of each split's slot of ``desc``, added in split order
    from ``%{pre}zero`` — the first ``unroll`` loaded before the first addition (one round trip, not one per piece; a
    split past the grid's reads zeros, its rows past the workspace), a loop over ``%splits`` for the rest. ``pre``
    prefixes the names it defines (the in-GEMM fix-up's live beside the GEMM's own)."""
    lines = []
    for i in range(unroll):
        lines += [f"{indent}%{pre}split_row_{i} = arith.muli %per_split, %c{i} : index",
                  f"{indent}%{pre}part_row_{i} = arith.addi %{pre}split_row_{i}, {row} : index",
                  f"{indent}%{pre}piece_{i} = qdot.load {desc}[%{pre}part_row_{i}, %c0] : {desc_t} -> {tile_t}"]
    total = _ordered_sum(lines, unroll, tile_t, pre, indent)
    return [*lines,
            f"{indent}%{pre}sum = scf.for %{pre}s = %c{unroll} to %splits step %c1 iter_args(%{pre}acc = {total}) "
            f"-> ({tile_t}) {{",
            f"{indent}  %{pre}split_row = arith.muli %per_split, %{pre}s : index",
            f"{indent}  %{pre}part_row = arith.addi %{pre}split_row, {row} : index",
            f"{indent}  %{pre}piece = qdot.load {desc}[%{pre}part_row, %c0] : {desc_t} -> {tile_t}",
            f"{indent}  %{pre}next = arith.addf %{pre}acc, %{pre}piece : {tile_t}",
            f"{indent}  scf.yield %{pre}next : {tile_t}",
            f"{indent}}}"]


def _split_fixup_rows(cfg: MmqConfig) -> int:
    """Rows of Yᵀ one split-K fix-up program sums: 4 values per thread and piece, one 16-byte load (fewer rows
    would hand threads the same elements, more made ptxas keep fewer loads in flight)."""
    tokens = small_m_tokens(cfg.max_m)
    return max(1, min(cfg.block_n, 4 * 32 * cfg.num_warps // tokens))


def _split_fixup(cfg: MmqConfig, wait_previous_grid: bool) -> str:
    """``mmq_fixup_kernel`` of a split-K (small_m) kernel: program (x, r) adds rows [r · R, (r + 1) · R) of tile x's
    partial Yᵀ tiles in split order, 0 + p0 + p1 + …, and stores the sum (rows past max_m are left, as the GEMM
    leaves them)."""
    bn, tokens = cfg.block_n, small_m_tokens(cfg.max_m)
    rows = _split_fixup_rows(cfg)
    tile_t, desc_t = f"tensor<{rows}x{tokens}xf32>", f"!qdot.desc<{rows}x{tokens}xf32>"
    wait = ", qdot.wait_previous_grid" if wait_previous_grid else ""
    lines = [f"func.func @{fixup_kernel_name(cfg, wait_previous_grid)}(%y_ptr: !qdot.ptr<f32>, "
             "%part_ptr: !qdot.ptr<f32>, %m: index, %n: index, %splits: index)",
             f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{wait}}} {{"]
    lines += [f"  %c{c} = arith.constant {c} : index"
              for c in sorted({0, 1, bn, tokens, rows, cfg.max_m, *range(FIXUP_UNROLL + 1)})]
    bound, m = _m_bound(cfg, tokens)
    lines += [
        *bound,
        "  %tile = qdot.program_id x",
        "  %chunk = qdot.program_id y",
        f"  %tile_row = arith.muli %tile, %c{bn} : index",
        f"  %chunk_row = arith.muli %chunk, %c{rows} : index",
        "  %off_n = arith.addi %tile_row, %chunk_row : index",
        *_split_workspace(bn, tokens, rows, "%splits"),
        f"  %yt_desc = qdot.make_desc %y_ptr, [%n, {m}], [%c1, %n] : !qdot.ptr<f32> -> {desc_t}",
        f"  %zero = arith.constant dense<0.000000e+00> : {tile_t}",
    ]
    lines += _split_piece_sum(FIXUP_UNROLL, tile_t, desc_t, "%part_desc", "%off_n")
    lines += [
        f"  qdot.store %yt_desc[%off_n, %c0], %sum : {desc_t}, {tile_t}",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _m_bound(cfg: MmqConfig, tokens: int) -> tuple[list[str], str]:
    """(lines, SSA name) of the rows of Y a small_m kernel serves: ``%m``, or ``%m_bound`` = min(M, max_m) where
    max_m is below the tile's tokens (the rows past it are left as they were)."""
    if cfg.max_m < tokens:
        return [f"  %m_bound = arith.minui %m, %c{cfg.max_m} : index"], "%m_bound"
    return [], "%m"


def small_m_tokens(max_m: int) -> int:
    """The tokens of a small_m kernel's n tile (its activation tile and accumulator): 8 — the mma's n — up to
    8, else the power of two ≥ ``max_m`` (the layouts of a tile hold powers of two)."""
    check_int("small_m_tokens", "max_m", max_m, least=1)
    return max(SMALL_M_MAX, 1 << (int(max_m) - 1).bit_length())


def _weight_desc(cfg: MmqConfig, w: str, w_tile: str, kwb: str) -> list[str]:
    """``%w_desc`` over W as ggml lays it out ([N, K/256] super-blocks or [N, K/32] blocks, K
    contiguous) or, with ``tiled_weights``, over ``tile_weights``' order seen as a matrix of
    ``tiles · K/256 · block_n`` rows of one K step's blocks: row ``(tile · K/256 + step) · block_n
    + r`` holds step ``step`` of row ``r`` of tile ``tile`` (``%tile_first``: the program's first
    step). K stays the contiguous dimension, so the lowering is the ggml layout's; the tile's
    rows are back to back, which its copy turns into one contiguous run."""
    if not cfg.tiled_weights:
        return [f"  %w_desc = qdot.make_desc %w_ptr, [%n, {kwb}], [{kwb}, %c1] : !qdot.ptr<{w}> "
                f"-> !qdot.desc<{w_tile}>"]
    per_step = _Weights(cfg.weights).per_step
    return [*_tiled_rows(cfg.block_n),
            "  %tile_first = arith.muli %pid, %kw : index",
            f"  %w_desc = qdot.make_desc %w_ptr, [%w_rows, %c{per_step}], [%c{per_step}, %c1] : !qdot.ptr<{w}> "
            f"-> !qdot.desc<{w_tile}>"]


def _mmq_weight_desc(cfg: MmqConfig, w: str, w_tile: str, kwb: str) -> list[str]:
    """The prefill kernels' ``%w_desc``, W read as [K/bv, N] (the dot's rhs, K contiguous): over
    ggml's layout, or with ``tiled_weights`` over ``tile_weights``' order as [blocks of a K step,
    tiles · K/256 · block_n rows] — row ``(tile · K/256 + step) · block_n + r`` holds step ``step``
    of row ``r`` of tile ``tile``, so a program's tile of one step is one contiguous run."""
    if not cfg.tiled_weights:
        return [f"  %w_desc = qdot.make_desc %w_ptr, [{kwb}, %n], [%c1, {kwb}] : !qdot.ptr<{w}> -> !qdot.desc<{w_tile}>"]
    per_step = _Weights(cfg.weights).per_step
    return [*_tiled_rows(cfg.block_n),
            f"  %w_desc = qdot.make_desc %w_ptr, [%c{per_step}, %w_rows], [%c1, %c{per_step}] : !qdot.ptr<{w}> "
            f"-> !qdot.desc<{w_tile}>"]


_W_IN_BOUNDS = " {in_bounds = [true, true]}"
"""A tile of ``tile_weights``' order lies inside W at every K step a program runs: the order pads N to
whole tiles, each tile's K steps are its own rows, and no program runs a step past K (one super-block
per step; a split's steps end at K). So its copy tests no bounds (``qdot.load``'s ``in_bounds``)."""


_X_IN_K = " {in_bounds = [false, true]}"
"""An activation tile of one super-block lies inside X's K at every step a program runs (its rows
past M do not: X holds M of them), so its copy tests no K bound."""
_XT_IN_K = " {in_bounds = [true, false]}"
"""The same for the decode kernels' X, read as [K, M], declared where W is ``tile_weights``' (which has one
super-block per step): in ggml's order the declaration made the kernels 1.5–3.4 % slower at 4096 × 4096 — LLVM
hoists each chunk's source size out of the K loop, 7 registers more — and 0.9–1.7 % faster at 4096 × 14336
(bench/RESULTS.md, runs 264–265)."""


def _tiled_rows(block_n: int) -> list[str]:
    """``%w_rows``: the rows of ``tile_weights``' order seen as a matrix of one K step's blocks per
    row — ⌈N / block_n⌉ tiles of K/256 steps of ``block_n`` rows."""
    return [f"  %w_tiles = arith.ceildivui %n, %c{block_n} : index",
            "  %w_steps = arith.muli %w_tiles, %kw : index",
            f"  %w_rows = arith.muli %w_steps, %c{block_n} : index"]


def tile_weights(blocks: np.ndarray, cfg: MmqConfig) -> np.ndarray:
    """W's blocks (a uint8 array [N, K/bv, bytes] or [N, K/bv · bytes], ggml's row-major array of
    ``cfg.weights`` blocks) in the order ``cfg`` (``tiled_weights=True``) reads:
    [ceil(N / block_n), K/256, block_n, the bytes of one row's 256-value K step] (q4_K: one
    144-byte super-block, q4_0: eight 18-byte blocks, q8_0: eight 34-byte ones), rows past N
    zero blocks (d = 0: they add nothing, and their outputs are not stored). Each block's bytes
    are ggml's, unchanged. It takes the config, not its ``block_n``, because an array of
    another tile height has the same size and would be read without complaint.

    W's rows come first: an array whose first axis is not its outermost in memory — W viewed as
    [K/bv, N, bytes], the layout ``numerics.dot_scaled`` takes (``w.transpose(1, 0, 2)``) — is refused,
    as it would be read as K/bv rows of N blocks. A [K/bv, N, bytes] array copied into row-major order
    has a valid shape and cannot be told apart: pass W itself."""
    if not isinstance(cfg, MmqConfig):
        raise TypeError(f"tile_weights: cfg must be the MmqConfig that reads W (tiled_weights=True), got "
                        f"{type(cfg).__name__}")
    if not isinstance(blocks, np.ndarray):
        raise TypeError(f"tile_weights: blocks must be a numpy array, uint8 [N, K/bv, bytes] or [N, K/bv · bytes] "
                        f"(ggml's row-major {cfg.weights} blocks), got {type(blocks).__name__}")
    if not cfg.tiled_weights:
        raise ValueError(f"tile_weights: {cfg.name} reads W in ggml's order (tiled_weights=False): pass W as it is")
    size, values = FORMATS[cfg.weights].block_bytes, FORMATS[cfg.weights].block_values
    assert size is not None and values is not None
    step = K_STEP_VALUES // values * size
    row_bytes = blocks.shape[1] * (blocks.shape[2] if blocks.ndim == 3 else 1) if blocks.ndim >= 2 else 0
    if blocks.dtype != np.uint8 or blocks.ndim not in (2, 3) or (blocks.ndim == 3 and blocks.shape[2] != size) \
            or not blocks.shape[0] or not row_bytes or row_bytes % step:
        raise ValueError(f"tile_weights: expected {cfg.weights} blocks as uint8 [N, K/{values}, {size}] or "
                         f"[N, K/{values} · {size}] with N ≥ 1 and K a multiple of {K_STEP_VALUES}, got "
                         f"{blocks.dtype} {list(blocks.shape)}")
    if blocks.shape[0] > 1 and blocks.shape[1] > 1 and blocks.strides[0] < blocks.strides[1]:
        hint = (f": W seen as [K/{values}, N, {size}], as numerics.dot_scaled takes it? Pass W itself, not its "
                "transpose" if blocks.ndim == 3 else "")
        raise ValueError(f"tile_weights: expected {cfg.weights} blocks in ggml's order, uint8 [N, K/{values}, {size}] "
                         f"or [N, K/{values} · {size}] row-major (a row's blocks contiguous), got a "
                         f"{list(blocks.shape)} array whose second axis is its outermost (strides "
                         f"{list(blocks.strides)}){hint}")
    block_n = cfg.block_n
    n = blocks.shape[0]
    rows = blocks.reshape(n, -1, step)
    tiles = -(-n // block_n)
    padded = np.zeros((tiles * block_n, *rows.shape[1:]), dtype=np.uint8)
    padded[:n] = rows
    return np.ascontiguousarray(padded.reshape(tiles, block_n, *rows.shape[1:]).transpose(0, 2, 1, 3))


def _contiguous_share(kb: int) -> list[str]:
    """``%k_lo`` / ``%k_hi``: split y covers the y-th contiguous share of K, in steps of ``kb``."""
    return [*_split_share(kb),
            "  %k_lo = arith.muli %pid_k, %k_per : index",
            "  %k_end = arith.addi %k_lo, %k_per : index",
            "  %k_hi = arith.minui %k_end, %kw : index"]


def _interleaved_steps(kb: int) -> list[str]:
    """``%k_lo`` / ``%k_step`` for ``interleave_splits`` with ``kb`` > 1 (with one super-block per step
    they are the program's y index and the split count): split y covers K steps y, y + S, … up to
    ``%kw`` (a step reaching past the last super-block reads zero blocks there, as in the
    contiguous form)."""
    return [f"  %k_lo = arith.muli %pid_k, %c{kb} : index", f"  %k_step = arith.muli %splits, %c{kb} : index"]


def _split_share(kb: int) -> list[str]:
    """``%k_per``: the super-blocks of one K split, a whole number of ``kb``-block K steps (a
    step that crossed into the next split would add its blocks twice)."""
    if kb == 1:
        return ["  %k_per = arith.ceildivui %kw, %splits : index"]
    return [f"  %k_steps = arith.ceildivui %kw, %c{kb} : index",
            "  %k_per_steps = arith.ceildivui %k_steps, %splits : index",
            f"  %k_per = arith.muli %k_per_steps, %c{kb} : index"]

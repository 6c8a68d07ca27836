"""Which q8_1 × ggml-weights kernel to compile for a MUL_MAT: the benchmarks' findings as one function.

``compiler.mmq_template`` takes any ``MmqConfig``; which one is fast depends on M, the weight format,
whether W was repacked (``tile_weights``) and what K is a multiple of, and the answers live in
``bench/RESULTS.md``. ``choose_mmq`` returns the configuration and stage count measured fastest on the H200
(sm_90) for each case (``bench.mmq`` and the experiments it names; two rules, ``UNGUARDED_ONE_TOKEN`` and
``UNGUARDED_EIGHT_TOKENS``, rest on an H100's runs; an H200 timed four of their kernels, run 296), so a caller
does not have to read the runs:

* M ≥ 33 (prefill; M ≤ 64 with small W below): the 64 × 128 tile, 4 warps, 2 stages, 2 programs per SM (runs
  111–118, 174–175, 208 for q4_K; the other formats inherit it), except the formats of 16-value sub-blocks
  (``SUB_BLOCK_WEIGHTS``), whose prefill is 1.02–1.38 × faster on 64 × 64 (runs 229–230; both measured at M = 512).
  Where that grid has at most ``STREAM_K_PROGRAMS`` tiles (one per SM: M ≤ 256 at N = 4096 on 64 × 128), the same
  tile in stream-K (``stream_k``: two programs per SM share the (tile, K step) iterations): each program of the plain
  grid walks the whole K while most SMs idle, and stream-K is 1.92–5.96 × faster at 32 tiles, 1.24–3.23 × at 64 and
  0.87–1.75 × at 128 (runs 232–234, every format, both orders, N = 4096, K = 4096 and 14336); above, the plain grid
  (run 233: stream-K 0.93–1.00 × at 256 tiles; 5–6 % slower at M = 512, N = 3584, runs 32 and 208). From M = 96
  (``FIXUP_MIN_M``) the 64 × 128 stream-K tile sums its split tiles' pieces with the fix-up kernel rather than atomic
  additions into a zeroed Y (``fixup``: 0.85–1.02 × the atomic MUL_MAT's time, run 256), which also makes its Y the
  same bits at every launch.
* 9 ≤ M ≤ 32: the decode kernel below with its n tile widened to 16 tokens (M ≤ 16) or 32 (``max_m``), the weights
  still read once: 1.5–2.5 × faster than stream-K at M = 9–16 and 1.2–1.9 × at M = 17–32 (runs 235–238, every format,
  both orders, N = 4096 (q4_K also 14336), K = 4096 and 14336, and K = 3840 and 14080 where it rules out the aligned
  pairs); 2 warps, as for M ≤ 8 (4 are slower: q4_K's 32 tokens at M = 32, K = 14336 36.3 against 29.0 µs — they
  issue 1.26 × the SASS per K step, the kernel being issue-bound: RESULTS, the thirtieth session's census), except
  q2_K's 32-token kernel in ggml's order (on 2 warps it needs 255 registers and spills: 0.89–0.93 × stream-K at K =
  14336). Run 239: 1.19–2.76 × the faster prefill grid at 3584 × 3584 and 32768 × 8192 (q4_K, q8_0, q6_K, q2_K).
  The stage count and aligned pairs are the M ≤ 8 kernel's: within 3 % of the best of 1, 2 and 3 stages for 16, 32
  and 64 tokens (run 245, six formats and q4_K repacked), but for q4_K repacked on 32 tokens at K = 14336 (1 stage
  5 % faster there, 7 % slower at K = 4096).
* 33 ≤ M ≤ 64 with at most ``WIDE64_MAX_WEIGHTS`` = 2^24 weights (N · K), formats without 16-value sub-blocks: the
  decode kernel with 64 tokens on 4 warps (on 2 it spills): 1.04–1.55 × stream-K at 3584 × 3584, 4096 × 4096 and
  2048 × 8192 for every such format in both orders (measured at M = 33 and 64, q4_K, q4_0, q8_0 also 48), except
  q4_1 and q5_1 at M = 33 on the two 2^24 shapes (0.92–1.01 ×; 1.15–1.47 × at M = 64) (runs 241–242). At 2^25
  weights (4096 × 8192, 8192 × 4096) it is 0.91–1.23 × the faster prefill grid, at 58.7 M 0.82–1.04 × (run 241), so
  larger W stays with the prefill kernel, and so do q6_K, q3_K and q2_K (0.77–1.13 × on the small shapes).
* M ≤ 8 (decode): the ``small_m`` kernel, 64 weight rows on 2 warps, K split among programs (so Y must be
  zeroed first: ``cfg.needs_zeroed_output``), 2 stages; for M = 1 the one-token form (``max_m = 1``: runs 38–40)
  and, W in ggml's order, the 128-byte L2 prefetch hint (run 51: 6 % at N = 32768, K = 8192, no different
  elsewhere), and for the formats with a min term (q4_K, q5_K, q4_1, q5_1) that term as an FMA per block
  (``MmqConfig.q4k_fold``, which ``bench.mmq``'s one-token rows were timed with: ``fold=fma`` in their labels, run
  40 for q4_K); W repacked, for the formats of ``UNGUARDED_ONE_TOKEN`` (M = 1) and ``UNGUARDED_EIGHT_TOKENS``
  (2 ≤ M ≤ 8), copies ahead without the K split's guard (measured on an H100, runs 290–294); q4_K's, q3_K's, q4_1's
  and q5_1's repacked one-token kernels pad their activation tile's rows (``PADDED_ROWS_ONE_TOKEN``; runs 317, 320,
  322–323) and q4_K's 8-token kernel swizzles its dmin mma's f16 operands (``SWIZZLED_FOLDS_EIGHT_TOKENS``, run
  317), each removing bank conflicts.
  In ggml's order q6_K's and q3_K's 2-aligned super-blocks go two per stage by 4-byte cp.async where K is a multiple
  of 512, in one stage (1.13–1.49 ×, runs 222–227), q2_K's by 8-byte chunks in two stages (``ALIGNED_PAIRS``; runs
  225–226, 228).

What it leaves to the caller: the grid (``MmqChoice.grid``, with ``resident=`` from the loaded kernel), zeroing Y
(split-K and stream-K kernels add into it: ``cfg.needs_zeroed_output``), the fix-up kernel and its workspace where
``cfg.fixup`` (``mmq_fixup_kernel``, ``fixup_grid``, ``fixup_workspace_shape``) — or, where ``cfg.fixup_in_gemm``,
no fix-up kernel but the workspace and zeroed i32 counters (``fixup_counters_shape``) — the activation quantize
kernel, and a programmatic launch after it (``replace(cfg, wait_previous_grid=True)`` with ``quantize_kernel(...,
launch_dependents=True)``: 0.1–1.9 µs per decode call, run 42), which needs the launch protocol ``bench.mmq``
follows — and with it, W's first copies, and the next K steps' weights asked of L2, before the GEMM's wait
(``weights_before_wait``, ``prefetch_steps``: not chosen here, run 278 found no gain and a loss). Other GPUs were not
measured, and the choice does not adapt to them: on sm_120a / sm_121a (about 100 KB of shared memory per SM, the seed's
GB10 class) the q4_K prefill kernel's 83 968 bytes hold one program per SM, not two, and ptxas 13.0 spills 28 bytes
(48 repacked); the one-stage form that would fit two (47 104 bytes) spills 116–160, 64 × 64 (61 440) still fits one.

``reproducible=True`` gives up the atomics' freedom of order for the same bits at every launch: stream-K takes its
fix-up kernel where the default does not (``MmqConfig.fixup``: 0.96–1.05 × the atomic MUL_MAT's time at M = 65 on the
64 × 128 tile, 0.98–1.04 × on the 64 × 64 one; runs 255–256), and so does a split-K decode whose default grid splits
K more than twice (1.09–1.28 × at N = 4096, run 253; capping it at two splits instead cost 1.11–1.77 ×, run 252) —
the one-token kernel summing them itself instead (``IN_GEMM_FIXUP``: 0.88–0.99 × the fix-up kernel's time, run 289);
a decode split in two at most anyway keeps its kernel, with at most two splits (``MmqChoice.grid``).

From the shell, ``python -m compiler.mmq_choice WEIGHTS M N K [--tiled-weights] [--reproducible]`` prints the
chosen kernel's IR (and its fix-up kernel's, where one follows it), headed by comments that name the configuration,
why it was chosen (``MmqChoice.why``), the stage count, the launch grid and a ``qdot-bench`` command that times the
kernel, for ``qdot-translate`` or ``qdot-opt`` to read (``… | qdot-translate --num-stages S``); with
``--m-ranges``, instead, which kernel each range of M from 1 to M gets at that N and K (``m_ranges``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, fields, replace

from compiler.format_table import FORMATS
from compiler.mmq_template import (MAX_SPLITS, SMALL_M_MAX, SMALL_M_WIDEST, STREAM_K_PROGRAMS, WEIGHT_FORMATS,
                                   MmqConfig, fixup_counters_shape, fixup_grid, fixup_kernel_name, fixup_scalars,
                                   fixup_workspace_shape,
                                   mmq_fixup_kernel, mmq_grid, mmq_kernel, small_m_tokens, split_factor)
from compiler.templates import check_bool, check_int

SUB_BLOCK_WEIGHTS = ("q6_K", "q3_K", "q2_K")
"""The weights whose prefill is fastest on a 64 × 64 tile (runs 229–230: 1.03–1.38 × the 64 × 128 tile's speed in
ggml's order, 1.02–1.27 × repacked; every other format 0.69–1.04 ×). Their 16-value sub-blocks make each k32 step
two k16 mma whose s32 sums are weighted apart (q2_K: and a third mma for its mins); the 64 × 128 tile spills (28–176
bytes in ggml's order, up to 88 repacked) where 64 × 64 does not, and it has half the programs (224 at N = 3584, one
partial wave of 2 per SM). Which of these the time goes to is not measured."""
ALIGNED_PAIRS = {"q6_K": 1, "q3_K": 1, "q2_K": 2}
"""Weights whose ggml-order decode reads two super-blocks per stage where K is a multiple of 512, and the stage
count it is fastest with: q6_K's 210- and q3_K's 110-byte blocks, only 2-aligned alone, are 4-aligned in pairs
(1.13–1.49 × in one stage, runs 222–227); q2_K's 84-byte ones 8-aligned (0.91–1.01 × the one-block time in two
stages, runs 225–226; one stage 0.97–1.14 × that, run 228)."""
PAIR_K_DIVISIBILITY = 512
"""What K must be a multiple of for ``ALIGNED_PAIRS``' kernels (``MmqConfig.k_divisibility``)."""
WEIGHTS_ONCE_MAX = 32
"""The most tokens ``choose_mmq`` gives the weights-once (small_m) kernel whatever the shape: its 32-token tile is
1.2–1.9 × faster than stream-K at M = 17–32 (runs 235–238); the 64-token one only where W is small
(``WIDE64_MAX_WEIGHTS``)."""
WIDE64_MAX_WEIGHTS = 1 << 24
"""The most weights (N · K) for which ``choose_mmq`` gives 33 ≤ M ≤ 64 the weights-once kernel's 64-token tile
(formats without 16-value sub-blocks): at 12.8 M and 16.8 M weights 1.04–1.55 × stream-K (q4_1 and q5_1 at M = 33
0.92–1.01 ×), at 33.5 M 0.91–1.23 ×, at 58.7 M 0.82–1.04 × (runs 241–242); between, at 21–25 M, it wins where
N < K and loses for q4_K and q8_0 at 11008 × 2048 (run 247: a bound in N and K apart would rest on a few shapes).
Its time hardly moves with M, while the prefill grids' — a few programs walking all of K — grows with it; where W is
large both are issue-bound and the prefill tile issues fewer instructions per mma (13.4 SASS against 16.7, census)."""
FIXUP_MIN_M = 96
"""The least M at which ``choose_mmq``'s stream-K prefill (formats without 16-value sub-blocks) takes its fix-up
kernel (``MmqConfig.fixup``: pieces to a workspace, summed in program order, the same bits every launch) instead of
atomic additions into a zeroed Y: 0.85–1.02 × the atomic MUL_MAT's time over every such format and order at M = 96,
128, 256 (N = K = 4096) and M = 128 at 4096 × 14336 (run 256; the fix-up's stores and loads replace the atomics and
the zeroing), 0.96–1.05 × at M = 65, where most of the second tile row is padding the workspace still holds (run
255). The 64 × 64 tile of q6_K, q3_K and q2_K: 0.98–1.04 ×, so atomics there."""
UNGUARDED_ONE_TOKEN = ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q5_K", "q6_K", "iq4_nl", "iq4_xs", "mxfp4")
"""Weights whose one-token kernel over repacked W (``max_m = 1``, ``tiled_weights``) copies ahead unguarded
(``MmqConfig(guard_copies=False)``: past a K split's end it takes the split's last tile again, the form before the
forty-fourth session's guard). On an H100 the guard made each of them slower: the unguarded form 0.919–0.966 × the
guarded one's MUL_MAT time at each format's worst decode shape and at most 1.014 × at any (runs 290–294, every one of
these formats timed both ways, each kernel beside its other form). The three left out keep the guard: q4_K's goal
kernel is 3–6 % faster with it at 4096 × 14336 (the unguarded form 1.033–1.064 ×), q3_K's 2–6 % at every shape
(1.023–1.060 ×, runs 293–294), and q2_K's shows no difference (0.988–1.016 ×). On an H200 (run 296) q5_K's and
q6_K's one-token kernels are 0.943–0.993 × unguarded and q4_K's goal kernel 0.996–1.073 × (1.073 and 1.000 at
4096 × 14336); the other formats were not timed both ways there. The unguarded kernels of q4_0, q8_0, q6_K, iq4_nl
and iq4_xs, and their ``reproducible`` forms, compile to the PTX, names aside, of the kernels run 289 timed on an
H200 (forty-sixth session: hashes against that run's cache)."""
UNGUARDED_EIGHT_TOKENS = ("q4_1", "q6_K", "q3_K")
"""Weights whose 8-token decode kernel over repacked W (2 ≤ M ≤ 8) copies ahead unguarded, as
``UNGUARDED_ONE_TOKEN``'s do at M = 1: on an H100, timed at M = 2, 3, 4, 5 and 8, the unguarded form's median
0.951–0.982 × the guarded one's MUL_MAT time in each of runs 293 and 294, no pair above 1.002 × (q3_K
0.935–0.996 ×, q6_K 0.948–1.001 ×, q4_1 0.957–1.002 ×). The other formats keep the guard: q5_0's and q4_0's
medians are 0.985–0.990 × with pairs up to 1.005 ×, q5_1's reaches 1.025 × at 4096 × 14336, q4_K's, q5_K's, q8_0's
and iq4_nl's medians lie within 1 % of 1, and the guard is faster for iq4_xs, mxfp4 and q2_K (medians
1.009–1.018 ×). On an H200 q3_K's is 0.942–0.986 × unguarded (run 296; q4_1's and q6_K's not timed there). The
wider decode kernels (9 ≤ M ≤ 64) were not timed both ways and keep it."""
PADDED_ROWS_ONE_TOKEN = {"q4_K": "run 317: 0.97–1.00 ×", "q3_K": "run 320, an H100: 0.97–0.99 ×",
                        "q4_1": "runs 322–323, an H100: 0.93–1.00 ×", "q5_1": "runs 322–323, an H100: 0.97–1.00 ×"}
"""Weights whose one-token kernel over repacked W pads its activation tile's rows from 288 to 304 bytes, each with the
run ``MmqChoice.why`` cites (``MmqConfig(pad_block_rows=True)``: its ldmatrix and d / s reads free of bank conflicts, as
the remarks count them). Run 317 (an H200, each kernel beside its padded form in one process, two rounds in opposite
orders): q4_K's 0.983–0.990 × the MUL_MAT time at 4096 × 14336 (the goal row: 9.48 and 9.66 µs against 9.58 and 9.83),
0.967–0.969 × at 4096², 0.986–1.000 × at 3584², 0.997–1.001 × at 32768 × 8192. The 8-token kernel is not padded: at M =
8, N = 32768 it took 1.107 × the time padded (0.93–1.02 × at the other shapes and M; why is not known), and the prefill
kernel 0.997–1.014 ×. Run 320 (an H100, the same two rounds, ``padded_rows_ab --other_weights``) timed the other
formats' one-token kernels with the guard on their copies: q3_K's — the kernel chosen here, which keeps the guard —
0.966–0.993 × at all four decode shapes in both rounds. q4_1's (0.93–0.96 × at the goal row), q5_1's, q5_K's and q6_K's
gained too (0.96–0.98 × at one shape in both rounds, none above 1.002 ×), but the kernels chosen for them copy unguarded
(``UNGUARDED_ONE_TOKEN``), and that form was not timed padded then; q4_0, q8_0, q5_0, mxfp4, q2_K, iq4_nl and
iq4_xs gained nothing consistent (up to 1.08 × in one round). Runs 322–323 (an H100, ``padded_rows_ab --chosen_other``,
four rounds, two in each order) timed the unguarded kernels chosen for the ten formats of ``UNGUARDED_ONE_TOKEN``
beside their padded forms: q4_1's padded form was faster at all four shapes in all four rounds (0.926–0.946 × at the
goal row, 0.997–0.998 × at 32768 × 8192), q5_1's too (0.968–0.997 ×), so both are padded; q5_K's and q6_K's were
faster in 15 of 16 cells but 1.011 × in one, and the other six formats moved both ways, so they stay unpadded."""
SWIZZLED_FOLDS_EIGHT_TOKENS = ("q4_K",)
"""Weights whose 8-token kernel over repacked W (2 ≤ M ≤ 8) swizzles its dmin mma's f16 operand buffers
(``MmqConfig(swizzle_fold_buffers=True)``: their 2-way conflicted stores and ldmatrix reads made conflict-free).
Run 317 (an H200, as ``PADDED_ROWS_ONE_TOKEN``): q4_K's 0.912–0.941 × the MUL_MAT time at 4096 × 14336 for M = 1–8,
0.950–0.970 × at 4096², 0.964–0.987 × at 3584², 0.986–1.005 × at 32768 × 8192; with its rows padded too 0.85–0.90 ×
at 4096 × 14336 but 1.10 × at M = 8, N = 32768, so not padded. The prefill kernel keeps the plain buffers
(0.997–1.008 × swizzled), and so do the other formats' kernels, not timed (q5_K's is the only other decode kernel
with f16 fold buffers; its one-token kernel folds by FMA)."""
FOUR_WARP_WIDE = ("q2_K",)
"""Weights whose 32-token kernel in ggml's order runs on 4 warps: on 2, q2_K's (with and without its aligned
pairs) needs 255 registers and spills 40–60 bytes (ptxas, sm_90), 0.89–0.93 × stream-K's speed at K = 14336
(run 237); on 4, 1.27–1.32 × (run 236)."""


@dataclass(frozen=True)
class MmqChoice:
    """A kernel configuration and the pipeline depth to compile it with (``compiler.compile(mmq_kernel(cfg),
    arch=…, num_stages=num_stages)``), and ``why``: the rules that chose it and the runs of bench/RESULTS.md they
    rest on (``python -m compiler.mmq_choice`` prints it)."""

    cfg: MmqConfig
    num_stages: int
    why: str = ""
    max_splits: int = MAX_SPLITS
    """The most K splits of a split-K grid (``mmq_grid``'s ``max_splits``): 2 for a reproducible choice, whose two
    additions into a zeroed Y round the same in either order."""

    def grid(self, m: int, n: int, k: int, **split: int) -> tuple[int, int, int]:
        """The launch grid (``mmq_grid``) of this choice: ``split`` as there (``resident=`` for a decode choice,
        ``programs=`` for a stream-K one; ``mmq_grid`` refuses either where the grid would not use it)."""
        if self.cfg.split_k:
            split.setdefault("max_splits", self.max_splits)
        return mmq_grid(self.cfg, m, n, k, **split)


def choose_mmq(weights: str, m: int, n: int, k: int, tiled_weights: bool = False,
               reproducible: bool = False) -> MmqChoice:
    """The fastest measured kernel for Y[M, N] = X · Wᵀ with ``weights`` blocks (see the module docstring).

    ``tiled_weights``: W repacked by ``tile_weights`` for the returned ``cfg`` (its ``block_n``), so repack after
    choosing. ``n`` decides between the plain and the stream-K prefill grid; ``k`` whether the ggml-order decode of
    ``ALIGNED_PAIRS`` may assume K a multiple of 512. ``reproducible``: the same bits of Y at every launch — stream-K
    and split-K with their fix-ups (``MmqConfig.fixup``; the one-token kernel's in the GEMM, ``fixup_in_gemm``, for
    the weights of ``IN_GEMM_FIXUP``), or, where the default grid would split K in two at
    most anyway, a grid of at most 2 splits (``MmqChoice.max_splits``, which ``MmqChoice.grid`` applies); by default
    the pieces of a split tile, and more than two K splits, meet in Y through float atomics in whatever order they
    finish. Raises ``ValueError`` for a format the kernels do not take,
    M or N < 1, or a K that is not a positive multiple of 256 (every kernel's K step), ``TypeError`` for an M, N
    or K that is not an int (``numbers.Integral``, not a bool) and a ``tiled_weights`` or ``reproducible`` that
    is not a bool."""
    for name, value in (("M", m), ("N", n), ("K", k)):
        check_int("choose_mmq", name, value)
    m, n, k = int(m), int(n), int(k)  # a numpy int's repr is not its value (the printed grid, the why)
    for name, flag in (("tiled_weights", tiled_weights), ("reproducible", reproducible)):
        check_bool("choose_mmq", name, flag)
    choice = _fastest(weights, m, n, k, tiled_weights)
    if not reproducible or choice.cfg.fixup:
        return choice
    if choice.cfg.stream_k:
        return replace(choice, cfg=replace(choice.cfg, fixup=True),
                       why=f"{choice.why}; reproducible: the pieces summed in program order by the fix-up kernel "
                           f"(runs 255–256: 0.96–1.05 × the atomic MUL_MAT's time at M = 65, 0.98–1.04 × on 64 × 64)")
    if choice.cfg.split_k:
        if split_factor(-(-n // choice.cfg.block_n), k) <= 2:  # the default grid splits K in two at most anyway
            return replace(choice, max_splits=2, why=f"{choice.why}; reproducible: at most 2 K splits (run 252: "
                                                     "the default's at this N, K)")
        fixed = replace(choice.cfg, fixup=True)
        if fixed.max_m == 1 and weights in IN_GEMM_FIXUP:
            return replace(choice, cfg=replace(fixed, fixup_in_gemm=True),
                           why=f"{choice.why}; reproducible: the K splits summed in split order by each tile's last "
                               "program (fixup_in_gemm; run 289 on an H200: 0.88–0.99 × the MUL_MAT time with the "
                               "fix-up kernel over every format and order but q8_0)")
        return replace(choice, cfg=fixed,
                       why=f"{choice.why}; reproducible: the K splits summed in split order by the fix-up kernel (run "
                           "253: 1.09–1.28 × the atomic MUL_MAT's time where 2 splits cost 1.11–1.77 ×, run 252)")
    return choice


IN_GEMM_FIXUP = tuple(weights for weights in WEIGHT_FORMATS if weights != "q8_0")
"""The weights whose one-token decode kernel (``max_m = 1``), where ``reproducible`` gives it the fix-up, sums its K
splits itself (``fixup_in_gemm``: the last program of each tile to arrive adds them in split order, the same bits as
the fix-up kernel) instead of a fix-up kernel launched after it, in either order of W. Run 289 (an H200) timed the
kernels ``choose_mmq`` returns, launched plainly, at the three decode shapes where the fix-up is taken: the MUL_MAT
took 0.88–0.99 × the time with the fix-up kernel over every format and order but q8_0 (0.95–1.03 ×, so it keeps the
fix-up kernel); run 286 (an H200) gave the programmatically launched q4_K goal kernel 0.89–0.95 ×, runs 280 and 288 (an
H100) 0.91–0.98 × and a median of 0.96 ×. The M ≤ 8 kernel was not faster that way (0.98–1.08 ×, run 286), so it
keeps the fix-up kernel."""


def _fastest(weights: str, m: int, n: int, k: int, tiled_weights: bool) -> MmqChoice:
    if weights not in WEIGHT_FORMATS:
        raise ValueError(f"choose_mmq: weights must be one of {', '.join(WEIGHT_FORMATS)}, got {weights!r}")
    if m < 1 or n < 1:
        raise ValueError(f"choose_mmq: M and N must be at least 1, got M = {m}, N = {n}")
    if k < 1 or k % 256:
        raise ValueError(f"choose_mmq: K must be a positive multiple of 256, got {k}")
    wide64 = (WEIGHTS_ONCE_MAX < m <= SMALL_M_WIDEST and n * k <= WIDE64_MAX_WEIGHTS
              and weights not in SUB_BLOCK_WEIGHTS)
    if m > WEIGHTS_ONCE_MAX and not wide64:
        plain = MmqConfig(block_m=64, block_n=64 if weights in SUB_BLOCK_WEIGHTS else 128, num_warps=4,
                          min_blocks_per_sm=2, weights=weights, tiled_weights=tiled_weights)
        tiles = mmq_grid(plain, m, n, k)[0]  # the plain grid: one program per output tile
        stream_k = tiles <= STREAM_K_PROGRAMS
        fixup = stream_k and m >= FIXUP_MIN_M and weights not in SUB_BLOCK_WEIGHTS
        tile = ("64 × 64 for the 16-value sub-blocks (runs 229–230)" if weights in SUB_BLOCK_WEIGHTS
                else "64 × 128 (runs 111–118, 174–175, 208)")
        grid = (f"{tiles} tiles ≤ {STREAM_K_PROGRAMS}: stream-K (runs 232–234)" if stream_k
                else f"{tiles} tiles > {STREAM_K_PROGRAMS}: the plain grid (runs 32, 208, 233)")
        past = (f"M > {SMALL_M_WIDEST}" if m > SMALL_M_WIDEST else
                f"{WEIGHTS_ONCE_MAX} < M ≤ {SMALL_M_WIDEST} with "
                f"{'16-value sub-blocks' if weights in SUB_BLOCK_WEIGHTS else f'N · K > {_WIDE64_TEXT} weights'} "
                "(runs 241–242)")
        if fixup:
            grid += (f"; M ≥ {FIXUP_MIN_M}: the pieces summed by the fix-up kernel, not atomically (0.85–1.02 × the "
                     "atomic MUL_MAT's time, runs 255–256)")
        return MmqChoice(replace(plain, stream_k=stream_k, fixup=fixup), 2, f"{past}: the prefill tile, {tile}; {grid}")
    tokens = 1 if m == 1 else small_m_tokens(m)  # 8, 16, 32 or 64
    four = tokens == SMALL_M_WIDEST or (tokens == 32 and weights in FOUR_WARP_WIDE and not tiled_weights)
    warps = 4 if four else 2
    cfg = MmqConfig(small_m=True, block_n=64, num_warps=warps, split_k=True, max_m=tokens, weights=weights,
                    tiled_weights=tiled_weights, l2_prefetch=128 if m == 1 and not tiled_weights else 0)
    why = [_weights_once_rule(m, tokens)]
    if warps == 4:
        why.append(f"4 warps: on 2 it spills ({'run 235' if tokens == SMALL_M_WIDEST else 'runs 236–237'})")
    if cfg.l2_prefetch:
        why.append("the 128-byte L2 prefetch hint (run 51)")
    if m == 1 and FORMATS[weights].min_term:
        cfg = replace(cfg, q4k_fold="fma")
        why.append("the min term as an FMA per block (qdot.q4k_fold), the form its rows were timed with (runs 40, 181)")
    if tiled_weights and weights in _UNGUARDED.get(tokens, ()):
        cfg = replace(cfg, guard_copies=False)
        why.append(_UNGUARDED_WHY[tokens])
    if tiled_weights and weights in _PADDED_ROWS.get(tokens, ()):
        cfg = replace(cfg, pad_block_rows=True)
        why.append(f"the activation tile's rows padded to 304 bytes ({PADDED_ROWS_ONE_TOKEN[weights]})")
    if tiled_weights and weights in _SWIZZLED_FOLDS.get(tokens, ()):
        cfg = replace(cfg, swizzle_fold_buffers=True)
        why.append("the dmin mma's f16 operands swizzled (run 317: 0.91–1.01 ×)")
    if not tiled_weights and weights in ALIGNED_PAIRS and k % PAIR_K_DIVISIBILITY == 0:
        stages = ALIGNED_PAIRS[weights]
        why.append(f"two super-blocks per stage, {stages} stage{'s' if stages > 1 else ''}: K a multiple of "
                   f"{PAIR_K_DIVISIBILITY} (runs 222–228)")
        return MmqChoice(replace(cfg, k_blocks=2, k_divisibility=PAIR_K_DIVISIBILITY), stages, "; ".join(why))
    return MmqChoice(cfg, 2, "; ".join(why))


_WIDE64_TEXT = f"2^{WIDE64_MAX_WEIGHTS.bit_length() - 1}"
_UNGUARDED = {1: UNGUARDED_ONE_TOKEN, SMALL_M_MAX: UNGUARDED_EIGHT_TOKENS}
_PADDED_ROWS = {1: PADDED_ROWS_ONE_TOKEN}
_SWIZZLED_FOLDS = {SMALL_M_MAX: SWIZZLED_FOLDS_EIGHT_TOKENS}
_UNGUARDED_WHY = {
    1: "copies ahead unguarded (runs 290–294, an H100: with the guard 1.04–1.09 × the time at its worst shape)",
    SMALL_M_MAX: "copies ahead unguarded (runs 293–294, an H100: with the guard 1.02–1.05 × the median time)",
}


def _weights_once_rule(m: int, tokens: int) -> str:
    """``MmqChoice.why``'s first clause for the weights-once kernel with ``tokens`` tokens at ``m``."""
    if m == 1:
        return "M = 1: the one-token weights-once kernel (runs 38–40)"
    if tokens == SMALL_M_MAX:
        return f"M ≤ {SMALL_M_MAX}: the weights-once kernel (runs 7–9, 112)"
    if tokens < SMALL_M_WIDEST:
        return (f"{SMALL_M_MAX} < M ≤ {WEIGHTS_ONCE_MAX}: the weights-once kernel widened to {tokens} tokens "
                "(runs 235–239)")
    return (f"{WEIGHTS_ONCE_MAX} < M ≤ {SMALL_M_WIDEST}, N · K ≤ {_WIDE64_TEXT} weights, no 16-value sub-blocks: the "
            f"weights-once kernel widened to {tokens} tokens (runs 241–242)")


def _config_text(cfg: MmqConfig) -> str:
    """``MmqConfig(…)`` with the fields that differ from their defaults, as a caller would write it."""
    changed = [f"{f.name}={getattr(cfg, f.name)!r}" for f in fields(MmqConfig) if getattr(cfg, f.name) != f.default]
    return f"MmqConfig({', '.join(changed)})"


def choice_text(weights: str, m: int, n: int, k: int, tiled_weights: bool = False, reproducible: bool = False) -> str:
    """The chosen kernel's IR (``mmq_kernel``; with a fix-up kernel, ``mmq_fixup_kernel`` after it) under comment lines
    that say how to compile, launch and time it (the ``qdot-bench`` line reads the IR from stdin: the GEMM alone,
    without the quantize kernel of a MUL_MAT or a fix-up kernel; an in-GEMM fix-up is part of the GEMM)."""
    choice = choose_mmq(weights, m, n, k, tiled_weights, reproducible)
    cfg = choice.cfg
    zeroed = "; Y zeroed first: the kernel adds into it" if cfg.needs_zeroed_output else ""
    grid = choice.grid(m, n, k)
    args = f"M={m}, N={n}, K={k}, tiled_weights={tiled_weights}" + (", reproducible=True" if reproducible else "")
    separate = cfg.fixup and not cfg.fixup_in_gemm  # a fix-up kernel follows the GEMM in the text
    kernel = f" --kernel {cfg.name}" if separate else ""
    header = [f"// choose_mmq({weights!r}, {args})",
              f"// {_config_text(cfg)}",
              f"// why: {choice.why}",
              f"// compile with --num-stages {choice.num_stages}: qdot-translate FILE --arch sm_90 "
              f"--num-stages {choice.num_stages}",
              f"// launch on grid {grid} ({'MmqChoice.grid' if choice.max_splits != MAX_SPLITS else 'mmq_grid'})"
              f"{zeroed}"]
    if cfg.fixup_in_gemm:
        rows, cols = fixup_workspace_shape(cfg, grid, n)
        header.append(f"// arguments X, W, Y, a {rows} x {cols} f32 workspace (fixup_workspace_shape) and "
                      f"{fixup_counters_shape(cfg, m, n)[0]} i32 counters, zero (fixup_counters_shape; each launch "
                      "leaves them zero), M, N, K: the last program of each tile to arrive adds its split pieces into "
                      "Y, no fix-up kernel")
    elif cfg.fixup:
        rows, cols = fixup_workspace_shape(cfg, grid, n)
        scalars = ", ".join(map(str, fixup_scalars(cfg, grid, m, n, k)))
        header.append(f"// then @{fixup_kernel_name(cfg)} (below) on grid {fixup_grid(cfg, m, n)} (fixup_grid), "
                      f"arguments Y, the workspace, {scalars} (fixup_scalars): the GEMM leaves split tiles' pieces in "
                      f"a {rows} x {cols} f32 workspace (fixup_workspace_shape), the fix-up adds them into Y")
    header.append(f"// time it: qdot-bench --num-stages {choice.num_stages}{kernel} --shape m={m},n={n},k={k} "
                  f"--grid {','.join(map(str, grid))}")
    if tiled_weights:
        header.append(f"// W repacked by tile_weights for block_n = {cfg.block_n}")
    return "\n".join(header) + "\n" + mmq_kernel(cfg) + (mmq_fixup_kernel(cfg) if separate else "")


M_RANGES_MAX = 4096
"""The largest M ``m_ranges`` and ``--m-ranges`` walk: every M from 1 is asked of ``choose_mmq`` (about 50 µs each),
so an M of 2^31 would have run for more than a day."""


def m_ranges(weights: str, max_m: int, n: int, k: int, tiled_weights: bool = False,
             reproducible: bool = False) -> list[tuple[int, int, MmqChoice]]:
    """The M ranges 1 … ``max_m`` over which ``choose_mmq`` keeps one choice, by one rule, for this N and K: (first M,
    last M, the choice at the last M). Its configuration, stage count and the rule (``why`` up to its first colon)
    hold over the range; its grid and the rest of ``why`` (a tile count) may change with M. ``max_m`` from 1 to
    ``M_RANGES_MAX``; a ``ValueError`` otherwise."""
    check_int("choose_mmq", "max_m", max_m)
    if not 1 <= max_m <= M_RANGES_MAX:
        raise ValueError(f"choose_mmq: --m-ranges walks M = 1 to at most {M_RANGES_MAX}, got M = {max_m}")
    ranges: list[tuple[int, int, MmqChoice]] = []
    for m in range(1, max_m + 1):
        choice = choose_mmq(weights, m, n, k, tiled_weights, reproducible)
        if ranges and _same_choice(ranges[-1][2], choice):
            ranges[-1] = (ranges[-1][0], m, choice)
        else:
            ranges.append((m, m, choice))
    return ranges


def _same_choice(a: MmqChoice, b: MmqChoice) -> bool:
    return (a.cfg, a.num_stages, a.why.split(":")[0]) == (b.cfg, b.num_stages, b.why.split(":")[0])


def m_ranges_text(weights: str, max_m: int, n: int, k: int, tiled_weights: bool = False,
                  reproducible: bool = False) -> str:
    """``m_ranges`` as a table: one line per range with the kernel's name, its stage count and why it was chosen."""
    ranges = m_ranges(weights, max_m, n, k, tiled_weights, reproducible)
    rows = [(f"{first}" if first == last else f"{first}–{last}", choice.cfg.name, str(choice.num_stages), choice.why)
            for first, last, choice in ranges]
    widths = [max(len(row[i]) for row in [("M", "kernel", "stages", ""), *rows]) for i in range(3)]
    extra = ", reproducible=True" if reproducible else ""
    lines = [f"# choose_mmq({weights!r}, M=1..{max_m}, N={n}, K={k}, tiled_weights={tiled_weights}{extra}): "
             f"{len(ranges)} range{'s' if len(ranges) > 1 else ''}"]
    for row in [("M", "kernel", "stages", "why (at the range's last M)"), *rows]:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)) + "  " + row[3])
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compiler.mmq_choice",
        description="Print the q8_1 × ggml-weights kernel measured fastest on the H200 for a weight format and a "
                    "MUL_MAT shape (Y[M, N] = X[M, K] · W[N, K]ᵀ), as qdot IR with its configuration, stage count, "
                    "grid and a qdot-bench line that times it in comments.",
        epilog="examples: python -m compiler.mmq_choice q4_K 16 4096 14336 | qdot-translate --num-stages 2; "
               "python -m compiler.mmq_choice q4_K 512 4096 14336 --m-ranges")
    parser.add_argument("weights", help=f"the weights' ggml block format: {', '.join(WEIGHT_FORMATS)}")
    parser.add_argument("m", type=int, help="tokens (rows of X and Y)")
    parser.add_argument("n", type=int, help="weight rows (columns of Y)")
    parser.add_argument("k", type=int, help="the reduction length, a multiple of 256")
    parser.add_argument("--tiled-weights", action="store_true", help="W repacked once by tile_weights")
    parser.add_argument("--reproducible", action="store_true",
                        help="the same bits at every launch: stream-K and split-K with their fix-up kernel "
                             "(printed after the GEMM; the one-token kernel's in the GEMM), or at most 2 K splits "
                             "where the default grid has no more")
    parser.add_argument("--m-ranges", action="store_true",
                        help=f"instead of the IR, a table of the kernels chosen for every M from 1 to M (at most "
                             f"{M_RANGES_MAX}) at this N and K: one line per range of M with one kernel")
    args = parser.parse_args(argv)
    text = m_ranges_text if args.m_ranges else choice_text
    try:
        sys.stdout.write(text(args.weights, args.m, args.n, args.k, args.tiled_weights, args.reproducible))
    except ValueError as err:
        parser.exit(1, f"{parser.prog}: error: {str(err).removeprefix('choose_mmq: ')}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""GPU correctness of the q8_1 × q4_K kernels (issue 6): MMQ for M ≥ 9, the weights-once kernel for M ≤ 8 and its
16-, 32- and 64-token forms (and of the same kernels with every other ggml weight format).

Random f32 weights and activations quantized by ``compiler.numerics`` (ggml layouts),
fresh each run, NaN-poisoned outputs, ragged N; compared with the float64 meaning of
llama.cpp's MMQ (relative Frobenius error ≤ 1e-5), and, with unit scales, the integer
part bit for bit; the decode and the stream-K prefill MUL_MAT from f32 activations (the
quantize kernel that zeroes Y, then the kernel adding into it) on a NaN-poisoned Y. Compiles every kernel (filling the kernel cache) and skips without a GPU.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from compiler.mmq_choice import ALIGNED_PAIRS, PAIR_K_DIVISIBILITY, choose_mmq
from compiler.mmq_template import SMALL_M_MAX, WEIGHT_FORMATS, MmqConfig
from tests.gpu.mmq_harness import (ONE_TOKEN_LAYOUTS, MmqCase, check, fixup_mul_mat, integer_inputs, kernel_weights,
                                   make_inputs, quantized_activations, quantized_weights, reference, run_mmq)

CARVEOUT_ATTRIBUTE = 9  # CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
N, K = 1000, 3584  # ragged N (not a multiple of the 64/128-row weight tiles); K = 14 super-blocks
MS = (1, 2, 3, 5, 8, 9, 17, 512, 1000)
PREFILL = MmqConfig()
DECODE = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True)
DECODE_ONE_PASS = MmqConfig(small_m=True)
DECODE_BENCH = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)  # bench/mmq.py's, 2 stages
DECODE_BENCH_M1 = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1)  # bench's M = 1 kernel
DECODE_BENCH_IL = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, interleave_splits=True)
DECODE_BENCH_M1_IL = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, interleave_splits=True)
DECODE_BENCH_TILED = replace(DECODE_BENCH, tiled_weights=True)
DECODE_BENCH_M1_TILED = replace(DECODE_BENCH_M1, tiled_weights=True)
BENCH_DECODES = (DECODE_BENCH, DECODE_BENCH_M1, DECODE_BENCH_IL, DECODE_BENCH_M1_IL, DECODE_BENCH_TILED,
                 DECODE_BENCH_M1_TILED)
"""The decode kernels bench/mmq.py times, with its 2 stages (the splits interleaved by K step or not, the
weights as ggml lays them out or repacked by ``tile_weights``)."""


def _case(m: int, n: int = N, k: int = K, decode: MmqConfig = DECODE) -> MmqCase:
    return MmqCase(decode if m <= SMALL_M_MAX else PREFILL, m, n, k,
                   stages=2 if decode in BENCH_DECODES else 3)


def _check_on_gpu(case: MmqCase, gpu) -> None:  # noqa: ANN001
    """Compile (filling the kernel cache even without a GPU), then run on fresh random inputs into
    a NaN-poisoned Y and compare with the float64 reference."""
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_kernel

    get_or_compile(mmq_kernel(case.cfg), arch="sm_90", strategy="promote-int8", num_stages=case.stages)
    cupy = gpu()
    data = make_inputs(case, np.random.default_rng())
    out = run_mmq(case, data, cupy)
    ok, err = check(out, reference(case, data))
    assert ok, f"{case.id}: relative error {err:.3e}"


@pytest.mark.gpu
@pytest.mark.parametrize("m,decode", [*((m, DECODE) for m in MS), (3, DECODE_ONE_PASS), (8, DECODE_ONE_PASS),
                                      (1, DECODE_BENCH), (8, DECODE_BENCH), (1, DECODE_BENCH_M1),
                                      (2, DECODE_BENCH_IL), (8, DECODE_BENCH_IL), (1, DECODE_BENCH_M1_IL)],
                         ids=[*(f"M={m}" for m in MS), "M=3-one-pass", "M=8-one-pass", "M=1-bench", "M=8-bench",
                              "M=1-bench-m1", "M=2-bench-interleaved", "M=8-bench-interleaved",
                              "M=1-bench-m1-interleaved"])
def test_mmq_matches_reference(m: int, decode: MmqConfig, gpu) -> None:  # noqa: ANN001
    _check_on_gpu(_case(m, decode=decode), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("m,decode", [(1, DECODE_BENCH_M1_TILED), (1, DECODE_BENCH_TILED), (5, DECODE_BENCH_TILED),
                                      (8, DECODE_BENCH_TILED)])
def test_tiled_weights_match_reference(m: int, decode: MmqConfig, gpu) -> None:  # noqa: ANN001
    """W repacked by ``tile_weights`` (N = 1000: the last 64-row tile is 40 rows and 24 zero blocks),
    the reference on ggml's layout."""
    _check_on_gpu(_case(m, decode=decode), gpu)


@pytest.mark.gpu
def test_tiled_weights_integer_part_is_exact(gpu) -> None:  # noqa: ANN001
    _check_integer_part(_case(3, decode=DECODE_BENCH_TILED), gpu)


PREFILL_BENCH_TILED = MmqConfig(block_m=64, block_n=128, num_warps=4, min_blocks_per_sm=2, tiled_weights=True)
"""bench/mmq.py's prefill kernel reading W repacked by ``tile_weights`` (128-row tiles), 2 stages."""


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q4_K", "q6_K", "q5_K", "q8_0", "q4_1", "q5_0", "q5_1", "mxfp4", "q3_K", "q2_K", "iq4_nl",
                                     "iq4_xs"))
@pytest.mark.parametrize("m", (17, 512))
def test_prefill_tiled_weights_match_reference(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """The prefill kernel reading W repacked (N = 1000: the last 128-row tile is 104 rows and 24 zero
    blocks), against the float64 meaning of ggml's layout."""
    _check_on_gpu(MmqCase(replace(PREFILL_BENCH_TILED, weights=weights), m, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q4_K", "q6_K"))
def test_prefill_tiled_weights_integer_part_is_exact(weights: str, gpu) -> None:  # noqa: ANN001
    _check_integer_part(MmqCase(replace(PREFILL_BENCH_TILED, weights=weights), 200, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("m", (17, 512))
def test_mmq_odd_n_matches_reference(m: int, gpu) -> None:  # noqa: ANN001
    """The prefill kernel stores Y in f32 pairs when N is even and singly when it is odd (stores
    predicated on a run-time test of N's parity); the other tests have N = 1000, this one N = 999."""
    _check_on_gpu(_case(m, n=N - 1), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("m", (3, 200))
def test_mmq_integer_part_is_exact(m: int, gpu) -> None:  # noqa: ANN001
    _check_integer_part(_case(m), gpu)


def _check_integer_part(case: MmqCase, gpu) -> None:  # noqa: ANN001
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_kernel

    get_or_compile(mmq_kernel(case.cfg), arch="sm_90", strategy="promote-int8", num_stages=case.stages)
    cupy = gpu()
    data = integer_inputs(case, np.random.default_rng())
    out = run_mmq(case, data, cupy)
    assert np.array_equal(out.astype(np.int64), data["exact"]), \
        f"{case.id}: {int((out.astype(np.int64) != data['exact']).sum())} outputs differ from the exact integer dot"


OTHER_WEIGHTS = ("q4_0", "q8_0", "q6_K", "q5_K", "q4_1", "q5_0", "q5_1", "mxfp4", "q3_K", "q2_K", "iq4_nl", "iq4_xs")
"""The weight blocks besides q4_K (``MmqConfig.weights``): eight 32-value blocks per K step (q4_0, q8_0;
q4_1, with a + m per block folded as q4_K's dmin term; q5_0 and q5_1, q4_0's and q4_1's with a fifth bit
per value from the block's qh word; mxfp4, e2m1 codes looked up as s8 and an E8M0 exponent per block; iq4_nl,
codes looked up as s8 in kvalues_iq4nl and an fp16 d per block), or one
256-value super-block whose int8 scales weight each 16 values (q6_K; q3_K, 3-bit codes from two bit fields
and 6-bit scales; q2_K, 2-bit codes, 4-bit scales and 4-bit mins per 16 values, the mins a second mma), or q4_K's super-block with a fifth bit per value (q5_K), or iq4_nl's codes with d · (ls − 32) per 32 values
(iq4_xs)."""


@pytest.mark.gpu
@pytest.mark.parametrize("weights", OTHER_WEIGHTS)
@pytest.mark.parametrize("m", (1, 8, 17, 512))
def test_other_weights_match_reference(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """The other weights in the prefill kernel (M ≥ 9) and the benchmark's decode kernels (M = 1: the
    one-token one), ragged N, against the float64 meaning of their blocks (q5_K's, q4_1's and q5_1's min
    terms with the q8_1 block sums, as q4_K's)."""
    decode = replace(DECODE_BENCH_M1 if m == 1 else DECODE_BENCH, weights=weights)
    prefill = replace(PREFILL, weights=weights)
    _check_on_gpu(MmqCase(decode if m <= SMALL_M_MAX else prefill, m, N, K, stages=2 if m <= SMALL_M_MAX else 3), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", OTHER_WEIGHTS)
@pytest.mark.parametrize("m", (1, 8))
def test_other_weights_tiled_match_reference(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """The benchmark's decode kernels reading the other weights repacked by ``tile_weights`` (N = 1000:
    the last tile padded with zero blocks), against the float64 meaning of ggml's layout."""
    decode = replace(DECODE_BENCH_M1 if m == 1 else DECODE_BENCH, weights=weights, tiled_weights=True)
    _check_on_gpu(MmqCase(decode, m, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", OTHER_WEIGHTS)
@pytest.mark.parametrize("m", (3, 200))
def test_other_weights_integer_part_is_exact(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """d = 1 everywhere, random codes: Y is the exact integer dot of the quants (q4_0's 16 · (code − 8)
    and its d / 16 included; q6_K's int8 scales, in -4..3, weighting each 16 values; q5_K's 5-bit codes with
    sc = 1, m = 0; q4_1's and q5_1's codes with m = 0, q5_0's 8 · (code − 16) and its d / 8; mxfp4's kvalues
    with e = 128; q3_K's 32 · (code − 4), its scales in -4..3 and its d / 32; q2_K's codes with random 4-bit
    scales and mins, d = dmin = 1: the min mma's sum exact too), bit for bit."""
    _check_integer_part(MmqCase(replace(DECODE if m <= SMALL_M_MAX else PREFILL, weights=weights), m, N, K), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", sorted(ONE_TOKEN_LAYOUTS))
@pytest.mark.parametrize("tiled", (False, True), ids=("ggml-order", "repacked"))
@pytest.mark.parametrize("weights", ("q4_K", *OTHER_WEIGHTS))
def test_one_token_layouts_match_reference(weights: str, tiled: bool, layout: str, gpu) -> None:  # noqa: ANN001
    """The benchmark's one-token kernel with either layout, every weight format, W in ggml's order or repacked
    (N = 1000: a ragged last tile), against the float64 meaning of its blocks."""
    cfg = replace(DECODE_BENCH_M1, weights=weights, tiled_weights=tiled, **ONE_TOKEN_LAYOUTS[layout])
    _check_on_gpu(MmqCase(cfg, 1, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", sorted(ONE_TOKEN_LAYOUTS))
@pytest.mark.parametrize("weights", ("q4_K", "q6_K", "q2_K"))
def test_one_token_layouts_integer_part_is_exact(weights: str, layout: str, gpu) -> None:  # noqa: ANN001
    cfg = replace(DECODE_BENCH_M1_TILED, weights=weights, **ONE_TOKEN_LAYOUTS[layout])
    _check_integer_part(MmqCase(cfg, 1, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q6_K", "q3_K", "q2_K"))
@pytest.mark.parametrize("m", (1, 8))
def test_aligned_pairs_match_reference(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """The benchmark's ggml-order decode kernels for q6_K, q3_K and q2_K with two super-blocks per stage and K a
    multiple of 512 (K = 3584: 7 pairs, split among programs a whole number of pairs each), W copied by
    4-byte cp.async (q2_K: 8-byte), ragged N, against the float64 meaning of the blocks."""
    base = DECODE_BENCH_M1 if m == 1 else DECODE_BENCH
    decode = replace(base, weights=weights, k_blocks=2, k_divisibility=512)
    _check_on_gpu(MmqCase(decode, m, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q6_K", "q3_K", "q2_K"))
@pytest.mark.parametrize("m", (1, 8))
def test_aligned_pairs_in_one_stage(weights: str, m: int, gpu) -> None:  # noqa: ANN001
    """The same kernels compiled with one stage, the form ``bench.mmq`` times for q6_K and q3_K (7 programs per SM
    where two stages hold 3): no copy of the next pair in flight, the barrier before each copy the only guard of the
    tile still being read."""
    base = DECODE_BENCH_M1 if m == 1 else DECODE_BENCH
    decode = replace(base, weights=weights, k_blocks=2, k_divisibility=512)
    _check_on_gpu(MmqCase(decode, m, N, K, stages=1), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q6_K", "q3_K", "q2_K"))
def test_aligned_pairs_integer_part_is_exact(weights: str, gpu) -> None:  # noqa: ANN001
    _check_integer_part(MmqCase(replace(DECODE_BENCH, weights=weights, k_blocks=2, k_divisibility=512), 3, N, K,
                                stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q6_K", "q3_K", "q2_K"))
@pytest.mark.parametrize("tiled", (False, True), ids=("ggml", "wt"))
def test_sub_block_prefill_tile_matches_reference(weights: str, tiled: bool, gpu) -> None:  # noqa: ANN001
    """bench/mmq.py's prefill kernel for the formats of 16-value sub-blocks (``SUB_BLOCK_WEIGHTS``): a 64 × 64 tile,
    W in ggml's order or repacked for it, ragged M and N."""
    cfg = replace(PREFILL_BENCH_TILED, block_n=64, weights=weights, tiled_weights=tiled)
    _check_on_gpu(MmqCase(cfg, 200, N, K, stages=2), gpu)


WIDENED = [  # (config, M): the weights-once kernel with 16, 32 and 64 tokens per n tile (MmqConfig.max_m)
    *((replace(DECODE_BENCH, max_m=16), m) for m in (9, 16)),
    *((replace(DECODE_BENCH, max_m=32, num_warps=4), m) for m in (17, 32)),
    *((replace(DECODE_BENCH, max_m=64, num_warps=4), m) for m in (33, 64)),
    (replace(DECODE_BENCH, max_m=32, num_warps=4, tiled_weights=True), 25),
    (replace(DECODE_BENCH, max_m=64, num_warps=4, tiled_weights=True), 64),
]


@pytest.mark.gpu
@pytest.mark.parametrize("cfg,m", WIDENED, ids=[f"{cfg.name}-M{m}" for cfg, m in WIDENED])
def test_widened_small_m_matches_reference(cfg: MmqConfig, m: int, gpu) -> None:  # noqa: ANN001
    """The weights-once kernel past 8 tokens: its n tile 16, 32 or 64 tokens, M at both ends of what each serves
    (the tile's rows past M masked), ggml's order and repacked, ragged N, against the float64 meaning."""
    _check_on_gpu(MmqCase(cfg, m, N, K, stages=2), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("weights", OTHER_WEIGHTS)
def test_widened_small_m_other_weights(weights: str, gpu) -> None:  # noqa: ANN001
    """Every other format on the 32-token kernel at M = 25, on 4 warps — for q6_K, q3_K and q2_K with their aligned
    pairs in one stage and two (K = 3584: 7 pairs), as ``choose_mmq`` builds the decode kernel for them. (The 2-warp
    32-token kernels ``choose_mmq`` picks for all but q2_K are checked by the benchmark runs 237–239 before timing,
    not here.)"""
    cfg = replace(DECODE_BENCH, max_m=32, num_warps=4, weights=weights)
    if weights in ALIGNED_PAIRS:
        cfg = replace(cfg, k_blocks=2, k_divisibility=PAIR_K_DIVISIBILITY)
    _check_on_gpu(MmqCase(cfg, 25, N, K, stages=ALIGNED_PAIRS.get(weights, 2)), gpu)


@pytest.mark.gpu
def test_widened_small_m_integer_part_is_exact(gpu) -> None:  # noqa: ANN001
    _check_integer_part(MmqCase(replace(DECODE_BENCH, max_m=64, num_warps=4), 40, N, K, stages=2), gpu)


_PREFILL_PAIR = replace(PREFILL_BENCH_TILED, tiled_weights=False, k_blocks=2, k_divisibility=512)
PREFILL_PAIRS = [  # bench/experiments/prefill_aligned_pairs.py's two-step forms: (config, stages)
    (_PREFILL_PAIR, 1), (replace(_PREFILL_PAIR, min_blocks_per_sm=0), 2), (replace(_PREFILL_PAIR, block_n=64), 2),
]


@pytest.mark.gpu
@pytest.mark.parametrize("weights", ("q6_K", "q3_K"))
@pytest.mark.parametrize("pairs", PREFILL_PAIRS, ids=[f"{cfg.block_n}-s{stages}" for cfg, stages in PREFILL_PAIRS])
def test_prefill_pairs_match_reference(weights: str, pairs: tuple[MmqConfig, int], gpu) -> None:  # noqa: ANN001
    """The prefill kernel with two super-blocks per stage and K a multiple of 512 (K = 3584: 7 pairs), W in ggml's
    order by 4-byte cp.async, ragged M and N, against the float64 meaning of the blocks."""
    cfg, stages = pairs
    _check_on_gpu(MmqCase(replace(cfg, weights=weights), 200, N, K, stages=stages), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("m", (1, 8))
def test_decode_mul_mat_from_f32(m: int, gpu) -> None:  # noqa: ANN001
    """The decode MUL_MAT as bench/mmq.py runs it: f32 activations through the quantize kernel
    that also zeroes Y, then the split-K kernel adding into Y. Y starts as NaN, so a row or
    column the quantize kernel fails to zero (or the GEMM fails to write) shows."""
    _mul_mat_from_f32(_case(m, decode=DECODE_BENCH), gpu)


STREAM_K = MmqConfig(block_m=128, block_n=128, num_warps=8, stream_k=True)  # bench/mmq.py's, 2 stages


@pytest.mark.gpu
@pytest.mark.parametrize("m,programs", [(512, None), (512, 7), (1000, 131), (17, 5)],
                         ids=["M=512-SMs", "M=512-7-programs", "M=1000-131-programs", "M=17-5-programs"])
def test_stream_k_mul_mat_from_f32(m: int, programs: int | None, gpu) -> None:  # noqa: ANN001
    """Stream-K prefill from f32 activations (the zeroing quantize kernel, then the kernel),
    on grids that split tiles between programs at different places, into a NaN Y."""
    _mul_mat_from_f32(MmqCase(STREAM_K, m, N, K, stages=2), gpu, programs)


def _mul_mat_from_f32(case: MmqCase, gpu, programs: int | None = None,  # noqa: ANN001
                      inputs: Callable[[], dict] | None = None) -> None:
    """Quantize ``case``'s f32 activations with the kernel that also zeroes a NaN-filled Y, run
    the GEMM into it, and compare both with compiler.numerics (``inputs`` makes ``make_inputs``' arrays once a GPU
    is there; by default ``make_inputs`` on fresh random data). A fix-up kernel (``cfg.fixup``) runs after the GEMM,
    from a NaN-filled workspace, and its Y is not zeroed first."""
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_fixup_kernel, mmq_grid, mmq_kernel
    from compiler.quantize_template import quantize_grid, quantize_kernel
    from targets.ptx.runner import load

    m, n, k, cfg = case.m, case.n, case.k, case.cfg
    gemm = get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=case.stages)
    fixup = get_or_compile(mmq_fixup_kernel(cfg), arch="sm_90") if cfg.fixup else None
    quantize = get_or_compile(quantize_kernel("q8_1_mmq", zero_output=not cfg.fixup), arch="sm_90")
    cupy = gpu()
    data = inputs() if inputs else make_inputs(case, np.random.default_rng())
    x, xq = cupy.asarray(data["x_f32"]), cupy.empty_like(cupy.asarray(data["x"]))
    w, y = cupy.asarray(kernel_weights(cfg, data["w"])), cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    grid = mmq_grid(cfg, m, n, k, programs=programs) if cfg.stream_k else mmq_grid(cfg, m, n, k)
    if fixup is None:
        load(quantize.ptx, quantize.kernels[0]).launch(x, xq, y, m, k, n, grid=quantize_grid(m, k))
        load(gemm.ptx, gemm.kernels[0]).launch(xq, w, y, m, n, k, grid=grid)
        out = cupy.asnumpy(y)
    else:
        kernels = tuple(load(c.ptx, c.kernels[0]) for c in (quantize, gemm, fixup))
        out = fixup_mul_mat(kernels, cfg, grid, x, xq, w, m, n, k, cupy)
    assert np.array_equal(cupy.asnumpy(xq), data["x"]), "the quantized activations differ from compiler.numerics"
    ok, err = check(out, reference(case, data))
    assert ok, f"{case.id} on grid {grid}: relative error {err:.3e}"


CHOSEN_MS = (1, 5, 12, 25, 40, 64, 80, 100)
"""An M in each of ``choose_mmq``'s ranges: the one-token kernel, the M ≤ 8 kernel, the widened kernel's 16, 32 and
64 tokens (W of 1000 × 3584 is small; the prefill tile for the 16-value sub-blocks), the prefill tile (stream-K at
N = 1000: 16 tiles; its pieces added atomically at M = 80, by the fix-up kernel at M = 100 but for q6_K, q3_K and
q2_K)."""


@pytest.mark.gpu
@pytest.mark.parametrize("tiled", (False, True), ids=("ggml-order", "repacked"))
@pytest.mark.parametrize("m", CHOSEN_MS)
@pytest.mark.parametrize("weights", WEIGHT_FORMATS)
def test_chosen_kernel_mul_mat_from_f32(weights: str, m: int, tiled: bool, gpu) -> None:  # noqa: ANN001
    """The kernel ``choose_mmq`` picks, with its stage count, for every format, M range and weight order — the path
    a user of ``choose_mmq`` takes: f32 activations quantized by the kernel that zeroes a NaN Y, then the chosen
    kernel, ragged N, K = 14 super-blocks (a multiple of 512, so the aligned pairs where the choice takes them).
    Fresh random activations per case, W per format and run (``_chosen_weights``)."""
    choice = choose_mmq(weights, m, N, K, tiled_weights=tiled)

    def inputs() -> dict:
        return {**quantized_activations(m, K, np.random.default_rng()), "w": _chosen_weights(weights)}

    _mul_mat_from_f32(MmqCase(choice.cfg, m, N, K, stages=choice.num_stages), gpu, inputs=inputs)


@functools.cache
def _chosen_weights(weights: str) -> np.ndarray:
    """One W of fresh random ``weights`` blocks per run, for all of its format's 14 chosen kernels (quantizing W on the
    CPU took most of each case's time; the activations are drawn per case)."""
    return quantized_weights(MmqConfig(weights=weights), N, K, np.random.default_rng())


DECODE_PDL = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)
DECODE_PDL_M1 = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True)
WEIGHTS_FIRST = {"weights_before_wait": True, "tiled_weights": True}
"""The wait after the first stage's weight copies (``MmqConfig.weights_before_wait``), W repacked as for the
goal rows."""


@pytest.mark.gpu
@pytest.mark.parametrize("m,decode,carveout,stages", [
    (1, DECODE_PDL_M1, None, 2), (8, DECODE_PDL, None, 2), (8, DECODE_PDL, 85, 2),
    (1, replace(DECODE_PDL_M1, **WEIGHTS_FIRST), None, 2), (8, replace(DECODE_PDL, **WEIGHTS_FIRST), None, 2),
    (1, replace(DECODE_PDL_M1, **WEIGHTS_FIRST, prefetch_steps=3), None, 2),
    (1, replace(DECODE_PDL_M1, **WEIGHTS_FIRST), None, 3)],
    ids=["M=1-m1", "M=8", "M=8-carveout85", "M=1-m1-weights-before-wait", "M=8-weights-before-wait",
         "M=1-m1-weights-before-wait-prefetch3", "M=1-m1-weights-before-wait-3-stages"])
def test_decode_mul_mat_with_programmatic_launch(m: int, decode: MmqConfig, carveout: int | None, stages: int,
                                                 gpu) -> None:  # noqa: ANN001
    """The decode MUL_MAT with programmatic dependent launch: the quantize kernel lets the GEMM
    launch early (``launch_dependents``), the GEMM waits for it (``wait_previous_grid``) before
    reading X or adding into the Y it zeroes. Twelve calls back to back on one stream, the input
    alternating between two activations, without synchronising: a GEMM that did not wait would
    read the other call's activations or add before the zeroing, and the last call's Y shows it.
    ``carveout``: the launch also carries a preferred shared-memory configuration (85 %: 196 KB). With
    ``weights_before_wait`` the GEMM copies its first weights before the wait (and with ``prefetch_steps`` asks L2
    for the next ones there; in three stages both prologue stages' weights go first, the first commit group holding
    them and X's first tile): X and Y still wait."""
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_grid, mmq_kernel
    from compiler.quantize_template import quantize_grid, quantize_kernel
    from targets.ptx.runner import load

    case = MmqCase(decode, m, N, K, stages=stages)
    gemm = get_or_compile(mmq_kernel(decode), arch="sm_90", strategy="promote-int8", num_stages=stages)
    quantize = get_or_compile(quantize_kernel("q8_1_mmq", zero_output=True, launch_dependents=True), arch="sm_90")
    cupy = gpu()
    rng = np.random.default_rng()
    inputs = [make_inputs(case, rng) for _ in range(2)]
    w = cupy.asarray(kernel_weights(decode, inputs[0]["w"]))
    xs = [cupy.asarray(d["x_f32"]) for d in inputs]
    xq, y = cupy.empty_like(cupy.asarray(inputs[0]["x"])), cupy.full((m, N), cupy.nan, dtype=cupy.float32)
    quantizer, kernel = load(quantize.ptx, quantize.kernels[0]), load(gemm.ptx, gemm.kernels[0])
    assert kernel.info.waits_previous_grid
    for call in range(12):
        quantizer.launch(xs[call % 2], xq, y, m, K, N, grid=quantize_grid(m, K), sync=False)
        kernel.launch(xq, w, y, m, N, K, grid=mmq_grid(decode, m, N, K), sync=False, programmatic=True,
                      carveout=carveout)
    cupy.cuda.get_current_stream().synchronize()
    last = {**inputs[1], "w": inputs[0]["w"]}
    ok, err = check(cupy.asnumpy(y), reference(case, last))
    assert ok, f"{case.id}: relative error {err:.3e} after 12 programmatic calls"


@pytest.mark.gpu
def test_programmatic_launch_needs_a_kernel_that_waits(gpu) -> None:  # noqa: ANN001
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_kernel
    from targets.ptx.runner import load

    gemm = get_or_compile(mmq_kernel(DECODE_BENCH), arch="sm_90", strategy="promote-int8", num_stages=2)
    cupy = gpu()
    kernel = load(gemm.ptx, gemm.kernels[0])
    y = cupy.zeros((1, 64), dtype=cupy.float32)
    with pytest.raises(ValueError, match="does not wait for the previous grid"):
        kernel.launch(y, y, y, 1, 64, 256, grid=(1, 1, 1), programmatic=True)


@pytest.mark.gpu
@pytest.mark.parametrize("label", ["small_m 64 w2 splitk s2 pdl q2_K", "small_m 64 w2 splitk s2 pdl wt q2_K",
                                   "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",
                                   "small_m 64 w2 splitk s2 m1 pdl l2p128 mxfp4"])  # 135 registers: 6 per SM, not 7
def test_resident_programs_is_the_drivers_occupancy(label: str, gpu) -> None:  # noqa: ANN001
    """``LoadedKernel.resident_programs`` (shared memory and the loaded function's registers) is what the
    driver's occupancy calculator says for this GPU, for decode kernels bound by registers (q2_K's ggml-order
    kernel; mxfp4's one-token one, whose registers allow 15 warps of which an SM holds 12) and by shared memory;
    and the shared memory a programmatic launch is padded to caps the programs per SM at ⌈grid / SMs⌉ by the
    driver's count too."""
    import bench.mmq as mmq
    from targets.ptx.runner import device_shared, load

    (_, _, _, compiled), = mmq.compile_kernels([entry for entry in mmq.selected(label) if entry[0] == label])
    cupy = gpu()
    kernel = load(compiled.ptx, compiled.kernels[0])
    sms = device_shared(cupy)[0]
    threads = 32 * kernel.info.num_warps

    def driver(shared: int) -> int:
        if shared > kernel.allowed_shared:
            kernel.function.max_dynamic_shared_size_bytes = kernel.allowed_shared = shared
        return cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.function.kernel.ptr, threads, shared)

    assert kernel.registers > 0
    assert kernel.resident_programs() == sms * driver(kernel.info.shared_bytes)
    for programs in (sms * 4, sms * 6, sms * 7 - 5):
        padded = kernel.shared_bytes_for(programs, programmatic=True)
        held = driver(padded)
        assert held <= -(-programs // sms), (programs, padded, held)
        assert kernel.resident_programs(padded) == sms * held
    # a grid of more than one wave: where the runner prefers a smaller shared-memory configuration, the driver
    # holds one program per SM fewer under it (the percentage names the configuration the model means)
    held = driver(kernel.info.shared_bytes)
    shared, carveout = kernel.spread_for(sms * (held + 1), programmatic=True)
    if carveout is not None:
        cupy.cuda.driver.funcSetAttribute(kernel.function.kernel.ptr, CARVEOUT_ATTRIBUTE, carveout)
        try:
            assert driver(shared) == held - 1, (shared, carveout)
        finally:
            cupy.cuda.driver.funcSetAttribute(kernel.function.kernel.ptr, CARVEOUT_ATTRIBUTE, -1)

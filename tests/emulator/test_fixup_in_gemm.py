"""The fix-up in the GEMM (``MmqConfig(..., fixup=True, fixup_in_gemm=True)``) of the decode split-K kernel and of the
prefill stream-K kernel, on the CPU emulator.

Each program stores its pieces as for ``mmq_fixup_kernel`` and arrives at its tile's counter (``qdot.last_arrival``);
the last to arrive adds the tile's pieces in the fix-up kernel's order (split order; stream-K: program order): the same
additions as the two-kernel fix-up, so the same bits — and the atomic kernel's run in grid order — in whatever order
the programs run. The emulator runs them in the orders given here (``LaunchOptions.ctas``) and checks the protocol: a
program that reads a piece another stored without the release and acquire between them is an error, which the tests
provoke by deleting either fence. Workspace and Y start as NaN; rows past max_m must stay as they were.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from compiler.mmq_template import (MmqConfig, fixup_counters_shape, fixup_workspace_shape, in_gemm_fixup_unroll,
                                   mmq_fixup_kernel, mmq_grid, mmq_kernel, quantize_scratch_shape)
from dialects.ptx.ops import FenceAcqRelGpuOp
from targets.ptx.emulator import EmulationError, LaunchOptions, emulate
from tests.emulator.lowering import SM90_TWO_STAGES, fixup_kernel_y, lower
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, reference

DECODE = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, fixup=True)
IN_GEMM = replace(DECODE, fixup_in_gemm=True)


def _in_gemm_y(module, cfg: MmqConfig, args: list, grid: tuple[int, int, int], order=None,  # noqa: ANN001
               counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    x, w, m, n, k = args
    y = np.full((m, n), np.nan, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, grid, n), np.nan, dtype=np.float32)
    counts = np.zeros(fixup_counters_shape(cfg, m, n), dtype=np.int32) if counts is None else counts
    emulate(module, cfg.name, [x, w, y, parts, counts, m, n, k], grid, options=LaunchOptions(ctas=order))
    return y, counts


STREAM_K = MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True, fixup=True)
STREAM_K_IN_GEMM = replace(STREAM_K, fixup_in_gemm=True)


@pytest.mark.slow
@pytest.mark.parametrize("programs,what", [
    (7, "shares of 2 super-blocks: most tiles split between two programs"),
    (5, "shares of 3 = one whole tile each: nothing to fix up"),
    (13, "more programs than iterations: the last has no work"),
    (3, "shares of 4: a program's first and last segments both pieces"),
    (12, "a super-block each: three programs per tile"),
])
def test_stream_k_in_gemm_fixup_equals_the_fixup_kernel_in_any_program_order(programs: int, what: str) -> None:
    """4 tiles × 3 super-blocks (M = 40, N = 72, K = 768), as tests/emulator/test_stream_k_fixup.py."""
    case = MmqCase(STREAM_K_IN_GEMM, m=40, n=72, k=768)
    data = make_inputs(case, np.random.default_rng(100 + programs))
    args = [data["x"], kernel_weights(STREAM_K, data["w"]), case.m, case.n, case.k]
    grid = (programs, 1, 1)
    module = lower(mmq_kernel(STREAM_K_IN_GEMM), STREAM_K_IN_GEMM.name, SM90_TWO_STAGES)
    y, counts = _in_gemm_y(module, STREAM_K_IN_GEMM, args, grid)
    assert not np.isnan(y).any(), f"{programs} programs ({what}): {int(np.isnan(y).sum())} elements of Y unwritten"
    assert not counts.any(), f"counters left at {counts}"
    assert np.array_equal(_bits(y), _bits(fixup_kernel_y(STREAM_K, args, grid))), f"{programs} programs ({what})"
    for order in (list(range(programs))[::-1], [int(i) for i in np.random.default_rng(programs).permutation(programs)]):
        again, counts = _in_gemm_y(module, STREAM_K_IN_GEMM, args, grid, order)
        assert np.array_equal(_bits(again), _bits(y)) and not counts.any(), f"{programs} programs in order {order}"
    ok, err = check(y, reference(case, data))
    assert ok, f"{programs} programs ({what}): relative error {err:.3e}"


def _case(cfg: MmqConfig, m: int, n: int, k: int, splits: int, seed: int):  # noqa: ANN202
    case = MmqCase(cfg, m, n, k)
    data = make_inputs(case, np.random.default_rng(seed))
    grid = mmq_grid(cfg, min(m, cfg.max_m), n, k, target=1024, max_splits=splits, min_blocks=1)
    assert grid[1] == splits
    return case, data, [data["x"], kernel_weights(cfg, data["w"]), m, n, k], grid


def _bits(y: np.ndarray) -> np.ndarray:
    return y.view(np.uint32)


@pytest.mark.slow
@pytest.mark.parametrize("cfg,m,n,k,splits", [
    (IN_GEMM, 5, 40, 1280, 3),  # 3 splits of 5 steps: 2, 2, 1
    (IN_GEMM, 8, 40, 1280, 5),  # a step each
    (replace(IN_GEMM, max_m=1, block_n=64, num_warps=2), 1, 72, 768, 2),  # the one-token kernel, ragged N
    (replace(IN_GEMM, max_m=16, num_warps=2, interleave_splits=True), 12, 40, 1024, 4),  # 16 tokens, interleaved
    (replace(IN_GEMM, block_n=64, num_warps=2, tiled_weights=True), 3, 72, 768, 3),  # W repacked
    (replace(IN_GEMM, max_m=3), 8, 40, 1280, 2),  # max_m = 3 < M: rows 3.. left as they were
])
def test_in_gemm_fixup_equals_the_fixup_kernel_in_any_program_order(cfg: MmqConfig, m: int, n: int, k: int,
                                                                     splits: int) -> None:
    case, data, args, grid = _case(cfg, m, n, k, splits, seed=splits)
    rows = min(m, cfg.max_m)
    module = lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES)
    y, counts = _in_gemm_y(module, cfg, args, grid)
    assert not np.isnan(y[:rows]).any()
    assert np.isnan(y[rows:]).all(), "the in-GEMM fix-up wrote rows past max_m"
    assert not counts.any(), f"counters left at {counts}"
    two_kernels = fixup_kernel_y(replace(cfg, fixup_in_gemm=False), args, grid)
    assert np.array_equal(_bits(y[:rows]), _bits(two_kernels[:rows]))
    programs = grid[0] * grid[1]
    for order in (list(range(programs))[::-1], list(np.random.default_rng(splits).permutation(programs))):
        again, counts = _in_gemm_y(module, cfg, args, grid, order)  # a different program is last for some tiles
        assert np.array_equal(_bits(again[:rows]), _bits(y[:rows])) and not counts.any()
    ok, err = check(y[:rows], reference(case, data)[:rows])
    assert ok, f"{case.id} in {splits} splits: relative error {err:.3e}"


@pytest.mark.slow
def test_in_gemm_fixup_adds_splits_past_its_unrolled_loads_and_reuses_its_counters() -> None:
    """More splits than the last program loads at once (the loop after them adds the rest), launched twice on the
    same counters: the first launch leaves them zero, so the second gives the same bits."""
    splits = in_gemm_fixup_unroll(IN_GEMM) + 2
    case, data, args, grid = _case(IN_GEMM, 5, 40, splits * 256, splits, seed=7)
    module = lower(mmq_kernel(IN_GEMM), IN_GEMM.name, SM90_TWO_STAGES)
    y, counts = _in_gemm_y(module, IN_GEMM, args, grid)
    second, counts = _in_gemm_y(module, IN_GEMM, args, grid, [int(i) for i in np.random.default_rng(1).permutation(grid[0] * grid[1])], counts)
    assert np.array_equal(_bits(second), _bits(y)) and not counts.any()
    assert np.array_equal(_bits(y), _bits(fixup_kernel_y(DECODE, args, grid)))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id} in {splits} splits: relative error {err:.3e}"


@pytest.mark.parametrize("fence,message", [
    (0, "without a fence.acq_rel.gpu and then an atom after the store"),  # the release
    (1, "without an atom and then a fence.acq_rel.gpu before the read"),  # the acquire
])
def test_the_emulator_refuses_the_protocol_without_either_fence(fence: int, message: str) -> None:
    """Without the writers' release or the last program's acquire, its reads of the pieces race with their stores
    on a GPU; the emulator, which runs programs one after another and would compute the right sum anyway, says so."""
    _, _, args, grid = _case(IN_GEMM, 2, 16, 512, 2, seed=3)
    module = lower(mmq_kernel(IN_GEMM), IN_GEMM.name, SM90_TWO_STAGES)
    victim = [op for op in module.walk() if isinstance(op, FenceAcqRelGpuOp)][fence]
    victim.detach()
    victim.erase()
    with pytest.raises(EmulationError, match=message):
        _in_gemm_y(module, IN_GEMM, args, grid)


def test_in_gemm_fixup_config() -> None:
    assert IN_GEMM.name == "small_m_q8_1_q4_K_16_w1_splitk_fixup_ingemm" and not IN_GEMM.needs_zeroed_output
    assert fixup_counters_shape(IN_GEMM, 5, 40) == (3,)
    assert fixup_counters_shape(STREAM_K_IN_GEMM, 40, 72) == (4,)  # 2 × 2 tiles of 32 × 64
    assert "qdot.last_arrival %count_ptr[%tile], %fx_sharers" in mmq_kernel(STREAM_K_IN_GEMM)
    assert fixup_workspace_shape(IN_GEMM, (3, 4, 1), 40) == (192, 8)
    assert "%count_ptr: !qdot.ptr<i32>" in mmq_kernel(IN_GEMM) and "qdot.last_arrival" in mmq_kernel(IN_GEMM)
    with pytest.raises(ValueError, match="its fix-up runs in the GEMM"):
        mmq_fixup_kernel(IN_GEMM)
    with pytest.raises(ValueError, match="has no counters"):
        fixup_counters_shape(DECODE, 5, 40)
    for bad in (dict(small_m=True, split_k=True), dict(stream_k=True)):
        with pytest.raises(ValueError, match="fixup_in_gemm is an option of the fix-up"):
            MmqConfig(fixup_in_gemm=True, **bad)


def test_the_lit_test_kernel_is_the_templates() -> None:
    """tests/lit/targets/ptx/split-k-fixup-in-gemm.mlir checks the PTX of this very text."""
    from pathlib import Path

    lit = Path(__file__).parents[1] / "lit" / "targets" / "ptx" / "split-k-fixup-in-gemm.mlir"
    text = "".join(line + "\n" for line in lit.read_text(encoding="utf-8").splitlines() if not line.startswith("//"))
    assert text.strip() == mmq_kernel(IN_GEMM).strip()


@pytest.mark.parametrize("cfg,grid", [(IN_GEMM, (5, 2, 1)), (STREAM_K_IN_GEMM, (3, 1, 1))],
                         ids=["split-K", "stream-K"])
def test_in_gemm_fixup_at_k_zero_stores_zeros(cfg: MmqConfig, grid: tuple[int, int, int]) -> None:
    """K = 0: no K step anywhere. The split-K programs still arrive with zero pieces; stream-K's have no segment, so
    they store the zero tiles themselves (3 programs, 4 tiles: program 0 stores two). Y starts as NaN."""
    m, n = 40, 72
    x = np.zeros((m, 0, 144), dtype=np.uint8)
    w = np.zeros((n, 0, 144), dtype=np.uint8)
    module = lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES)
    y, counts = _in_gemm_y(module, cfg, [x, w, m, n, 0], grid)
    rows = min(m, cfg.max_m) if cfg.small_m else m
    assert (y[:rows] == 0).all() and not np.signbit(y[:rows]).any() and not counts.any()


ONE_LAUNCH = replace(IN_GEMM, quantize_in_gemm=True)


@pytest.mark.slow
@pytest.mark.parametrize("cfg,m,n,k,splits", [
    (ONE_LAUNCH, 5, 40, 1280, 3),  # 3 splits of 5 steps: 2, 2, 1
    (replace(ONE_LAUNCH, max_m=1, block_n=64, num_warps=2), 1, 72, 768, 2),  # the one-token kernel, ragged N
    (replace(ONE_LAUNCH, block_n=64, num_warps=2, tiled_weights=True), 3, 72, 768, 3),  # W repacked
    (replace(ONE_LAUNCH, max_m=3), 8, 40, 1280, 2),  # max_m = 3 < M: X's rows 3.. never quantized or read
    (replace(ONE_LAUNCH, k_blocks=2), 4, 40, 1280, 2),  # two K steps per stage: shares of 4 super-blocks, not 3
])
def test_one_launch_mul_mat_quantizes_x_itself(cfg: MmqConfig, m: int, n: int, k: int, splits: int) -> None:
    """``quantize_in_gemm``: the GEMM takes X as f32 and quantizes its share into its scratch rows; Y is the bits of
    the in-GEMM fix-up kernel fed the quantize kernel's X (``compiler.numerics``' q8_1_mmq), and the rows it
    quantized are those bytes. Programs in shuffled order; each program stores only its own scratch rows (the
    ownership check is on)."""
    case, data, args, grid = _case(cfg, m, n, k, splits, seed=splits + m)
    rows = min(m, cfg.max_m)
    fed = replace(cfg, quantize_in_gemm=False)
    expected, _ = _in_gemm_y(lower(mmq_kernel(fed), fed.name, SM90_TWO_STAGES), fed, args, grid)
    x, w, *_ = args
    scratch = np.full(quantize_scratch_shape(cfg, grid, n, k), 0xAB, dtype=np.uint8)
    y = np.full((m, n), np.nan, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, grid, n), np.nan, dtype=np.float32)
    counts = np.zeros(fixup_counters_shape(cfg, m, n), dtype=np.int32)
    order = [int(i) for i in np.random.default_rng(k).permutation(grid[0] * grid[1])]
    emulate(lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES), cfg.name,
            [data["x_f32"], scratch, w, y, parts, counts, m, n, k], grid, options=LaunchOptions(ctas=order))
    assert np.array_equal(_bits(y[:rows]), _bits(expected[:rows])) and np.isnan(y[rows:]).all() and not counts.any()
    regions, tokens = grid[0] * grid[1], quantize_scratch_shape(cfg, grid, n, k)[0] // (grid[0] * grid[1])
    blocks = scratch.shape[1]  # 2 · k_per: split y's K blocks 2 · k_per · y … (the last split's may be fewer)
    for region in range(regions):
        first = (region % grid[1]) * blocks
        share = x[:rows, first:first + blocks]
        mine = scratch[region * tokens:region * tokens + rows, :share.shape[1]]
        assert np.array_equal(mine, share), f"program (x, y) = {divmod(region, grid[1])}: its scratch rows"
        assert (scratch[region * tokens + rows:(region + 1) * tokens] == 0xAB).all(), f"region {region}: rows past M"
    ok, err = check(y[:rows], reference(case, data)[:rows])
    assert ok, f"{case.id}: relative error {err:.3e}"


@pytest.mark.slow
@pytest.mark.parametrize(("weights", "tiled"), [("q4_K", True), ("q6_K", False), ("iq4_xs", True), ("q2_K", False)])
def test_reproducible_one_token_choice_sums_in_the_gemm(weights: str, tiled: bool) -> None:
    """``choose_mmq(..., reproducible=True)`` at M = 1 (``IN_GEMM_FIXUP``: every format but q8_0, run 289) gives the
    one-token kernel the fix-up in the GEMM: run on ``MmqChoice.grid`` with the arguments ``choice_text`` names, it
    gives the fix-up kernel's bits; q8_0 keeps the fix-up kernel, printed after the GEMM."""
    from compiler.mmq_choice import choice_text, choose_mmq

    m, n, k = 1, 72, 4096
    choice = choose_mmq(weights, m, n, k, tiled_weights=tiled, reproducible=True)
    cfg = choice.cfg
    assert cfg.max_m == 1 and cfg.split_k and cfg.fixup_in_gemm and not cfg.needs_zeroed_output, cfg
    text = choice_text(weights, m, n, k, tiled, True)
    assert "fixup_in_gemm" in choice.why and "i32 counters" in text
    assert text.count("func.func @") == 1  # no fix-up kernel to launch after it
    q8 = choose_mmq("q8_0", m, n, k, tiled_weights=True, reproducible=True)
    assert q8.cfg.fixup and not q8.cfg.fixup_in_gemm, q8.cfg
    assert choice_text("q8_0", m, n, k, True, True).count("func.func @") == 2  # the GEMM and its fix-up kernel
    grid = choice.grid(m, n, k)
    assert grid[1] > 2, grid
    case = MmqCase(cfg, m, n, k, stages=choice.num_stages)
    data = make_inputs(case, np.random.default_rng(11))
    args = [data["x"], kernel_weights(cfg, data["w"]), m, n, k]
    module = lower(mmq_kernel(cfg), cfg.name, replace(SM90_TWO_STAGES, num_stages=choice.num_stages))
    y, counts = _in_gemm_y(module, cfg, args, grid)
    assert not counts.any(), f"counters left at {counts}"
    two_kernels = replace(cfg, fixup_in_gemm=False)
    assert np.array_equal(_bits(y), _bits(fixup_kernel_y(two_kernels, args, grid)))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id} on grid {grid}: relative error {err:.3e}"

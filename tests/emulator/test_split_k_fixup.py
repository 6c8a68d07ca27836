"""The decode (small_m) split-K kernel with its fix-up (``MmqConfig(small_m=True, split_k=True, fixup=True)``) on
the CPU emulator.

Each program (weight-row tile x, split y) stores its partial Yᵀ tile in a workspace and ``mmq_fixup_kernel`` adds
a tile's splits in split order, the first 16 loaded at once (a split past the grid's reads zeros). The emulator runs
the atomic split-K kernel's programs in grid order, x fastest — for one tile, split order — so the two give the same
bits; and both the reference's values. Workspace and Y start as NaN; rows past max_m must stay as they were.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from compiler.mmq_template import (MmqConfig, fixup_grid, fixup_kernel_name, fixup_scalars, fixup_workspace_shape,
                                   mmq_fixup_kernel, mmq_grid, mmq_kernel)
from targets.ptx.emulator import emulate
from tests.emulator.lowering import SM90_TWO_STAGES, fixup_kernel_y, lower
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, reference

DECODE = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True)


@pytest.mark.slow
@pytest.mark.parametrize("cfg,m,n,k,splits", [
    (DECODE, 5, 40, 1280, 3),  # 3 splits of 5 steps: 2, 2, 1
    (DECODE, 8, 40, 1280, 5),  # a step each
    (replace(DECODE, max_m=1, block_n=64, num_warps=2), 1, 72, 768, 2),  # the one-token kernel, ragged N
    (replace(DECODE, max_m=16, num_warps=2, interleave_splits=True), 12, 40, 1024, 4),  # 16 tokens, interleaved
    (replace(DECODE, block_n=64, num_warps=2, tiled_weights=True), 3, 72, 768, 3),  # W repacked
    (replace(DECODE, max_m=3), 8, 40, 1280, 2),  # max_m = 3 < M: rows 3.. left as they were
])
def test_split_fixup_equals_atomic_split_k(cfg: MmqConfig, m: int, n: int, k: int, splits: int) -> None:
    fixed = replace(cfg, fixup=True)
    case = MmqCase(fixed, m, n, k)
    data = make_inputs(case, np.random.default_rng(splits))
    w = kernel_weights(fixed, data["w"])
    grid = mmq_grid(fixed, min(m, cfg.max_m), n, k, target=1024, max_splits=splits, min_blocks=1)
    assert grid[1] == splits
    rows = min(m, cfg.max_m)
    y = fixup_kernel_y(fixed, [data["x"], w, m, n, k], grid)
    assert not np.isnan(y[:rows]).any()
    assert np.isnan(y[rows:]).all(), "the fix-up wrote rows past max_m"
    y_atomic = np.zeros((m, n), dtype=np.float32)
    emulate(lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES), cfg.name, [data["x"], w, y_atomic, m, n, k], grid)
    assert np.array_equal(y[:rows].view(np.uint32), y_atomic[:rows].view(np.uint32))
    ok, err = check(y[:rows], reference(case, data)[:rows])
    assert ok, f"{case.id} in {splits} splits: relative error {err:.3e}"


def test_split_fixup_sums_in_split_order_past_its_unrolled_loads() -> None:
    """The fix-up alone on known pieces, 20 splits (4 past the 16 loaded at once): 2^24 in split 0, then ones —
    added in split order each one rounds away (2^24 + 1 is a tie, to even), in an order that adds ones first they
    would count; then all ones: 20, so the splits past the unrolled 16 are added too."""
    cfg = replace(DECODE, fixup=True)
    m, n, splits = 5, 40, 20
    grid = (3, splits, 1)
    parts = np.ones(fixup_workspace_shape(cfg, grid, n), dtype=np.float32)
    per_split = 48  # ⌈40 / 16⌉ · 16 rows per split
    parts[:per_split] = 2.0**24
    y = np.full((m, n), np.nan, dtype=np.float32)
    emulate(lower(mmq_fixup_kernel(cfg), fixup_kernel_name(cfg), SM90_TWO_STAGES), fixup_kernel_name(cfg),
            [y, parts, *fixup_scalars(cfg, grid, m, 40, 0)], fixup_grid(cfg, m, n))
    assert (y == np.float32(2.0**24)).all(), np.unique(y)
    parts[:per_split] = 1.0  # all ones: 20, whatever the order — the splits past 16 are added
    y[:] = np.nan
    emulate(lower(mmq_fixup_kernel(cfg), fixup_kernel_name(cfg), SM90_TWO_STAGES), fixup_kernel_name(cfg),
            [y, parts, *fixup_scalars(cfg, grid, m, 40, 0)], fixup_grid(cfg, m, n))
    assert (y == 20.0).all(), np.unique(y)


def test_split_fixup_config() -> None:
    cfg = replace(DECODE, fixup=True)
    assert cfg.name == "small_m_q8_1_q4_K_16_w1_splitk_fixup" and not cfg.needs_zeroed_output
    assert fixup_kernel_name(cfg) == "small_m_fixup_16x8_w1"
    assert fixup_workspace_shape(cfg, (3, 4, 1), 40) == (192, 8)  # 4 splits of 3 tiles of 16 rows, 8 tokens
    assert fixup_scalars(cfg, (3, 4, 1), 5, 40, 1280) == (5, 40, 4)
    assert fixup_grid(cfg, 5, 40) == (3, 1, 1)
    with pytest.raises(ValueError, match="fixup is an option of the stream_k and split_k kernels"):
        MmqConfig(small_m=True, fixup=True)


@pytest.mark.slow
def test_reproducible_decode_choice_matches_reference() -> None:
    """``choose_mmq(..., reproducible=True)`` for a decode whose grid splits K more than twice (N = 72: two tiles, 8
    splits of K = 4096) is the split-K fix-up, run on ``MmqChoice.grid`` as a user runs it; where the default grid
    splits K in two at most (N = 32768) the choice keeps the plain kernel and caps the grid at two splits."""
    from compiler.mmq_choice import choose_mmq

    m, n, k = 5, 72, 4096
    choice = choose_mmq("q4_K", m, n, k, reproducible=True)
    cfg = choice.cfg
    assert cfg.small_m and cfg.split_k and cfg.fixup and not cfg.needs_zeroed_output
    grid = choice.grid(m, n, k)
    assert grid[1] > 2
    case = MmqCase(cfg, m, n, k, stages=choice.num_stages)
    data = make_inputs(case, np.random.default_rng(5))
    y = fixup_kernel_y(cfg, [data["x"], kernel_weights(cfg, data["w"]), m, n, k], grid)
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id} on grid {grid}: relative error {err:.3e}"
    wide = choose_mmq("q4_K", m, 32768, 8192, reproducible=True)
    assert not wide.cfg.fixup and wide.max_splits == 2 and wide.grid(m, 32768, 8192)[1] <= 2

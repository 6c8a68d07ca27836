"""The stream-K GEMM with its fix-up kernel (``MmqConfig(stream_k=True, fixup=True)``) on the CPU emulator.

The GEMM leaves the pieces of each split tile in a workspace and ``mmq_fixup_kernel`` adds them in
program order. The emulator runs a grid's programs one after another, in order, so the atomic
stream-K kernel's additions land in program order too: the two must give the same bits, and both
the reference's values. The workspace and Y start as NaN, so a slot read that no program wrote, or a
tile nobody stored, shows.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compiler.mmq_template import (MmqConfig, fixup_grid, fixup_kernel_name, fixup_workspace_shape, mmq_fixup_kernel,
                                   mmq_kernel)
from targets.ptx.emulator import emulate
from tests.emulator.lowering import SM90_TWO_STAGES, lower
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, reference

STREAM_K = MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True)
FIXUP = dataclasses.replace(STREAM_K, fixup=True)


def _run_fixup(cfg: MmqConfig, gemm, fixup, args: list, programs: int) -> np.ndarray:  # noqa: ANN001
    """Y of the fixup GEMM on ``programs`` programs from NaN, through the NaN workspace."""
    x, w, m, n, k = args
    y = np.full((m, n), np.nan, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, (programs, 1, 1), n), np.nan, dtype=np.float32)
    emulate(gemm, cfg.name, [x, w, y, parts, m, n, k], (programs, 1, 1))
    emulate(fixup, fixup_kernel_name(cfg), [y, parts, m, n, k, programs], fixup_grid(cfg, m, n))
    return y


@pytest.mark.slow
@pytest.mark.parametrize("programs,what", [
    (7, "shares of 2 super-blocks: most tiles split between two programs"),
    (5, "shares of 3 = one whole tile each: nothing to fix up"),
    (2, "shares of 6: two whole tiles each"),
    (13, "more programs than iterations: the last has no work"),
    (3, "shares of 4: a program's first and last segments both pieces"),
])
def test_fixup_equals_atomic_stream_k(programs: int, what: str) -> None:
    """4 tiles × 3 super-blocks (M = 40, N = 72, K = 768)."""
    case = MmqCase(FIXUP, m=40, n=72, k=768)
    data = make_inputs(case, np.random.default_rng(100 + programs))
    args = [data["x"], kernel_weights(FIXUP, data["w"]), case.m, case.n, case.k]
    y = _run_fixup(FIXUP, lower(mmq_kernel(FIXUP), FIXUP.name, SM90_TWO_STAGES),
                   lower(mmq_fixup_kernel(FIXUP), fixup_kernel_name(FIXUP), SM90_TWO_STAGES), args, programs)
    assert not np.isnan(y).any(), f"{programs} programs ({what}): {int(np.isnan(y).sum())} elements of Y unwritten"
    y_atomic = np.zeros((case.m, case.n), dtype=np.float32)
    emulate(lower(mmq_kernel(STREAM_K), STREAM_K.name, SM90_TWO_STAGES), STREAM_K.name,
            [data["x"], data["w"], y_atomic, case.m, case.n, case.k], (programs, 1, 1))
    assert np.array_equal(y.view(np.uint32), y_atomic.view(np.uint32)), f"{programs} programs ({what})"
    ok, err = check(y, reference(case, data))
    assert ok, f"{programs} programs ({what}): relative error {err:.3e}"


@pytest.mark.parametrize("k,unroll", [(768, 4), (768, 0), (1536, 4), (1536, 2)])
def test_fixup_kernel_sums_in_program_order(k: int, unroll: int) -> None:
    """The fix-up kernel alone (16 rows per program), on known pieces: M = 40, N = 72 (4 tiles of 32 × 64), K / 256
    steps per tile. On 4 programs each covers one tile whole, stored by the GEMM: the fix-up leaves Y alone. On one
    program per iteration each has one, its first segment (slot 2p), and tile t is the pieces of programs
    (K / 256)·t onwards; with 2^24 and then ones the sum in program order is 2^24 (each + 1 rounds to even), in any
    order that adds ones first more. K = 1536 has 6 pieces per tile: the unrolled loads and the loop after them
    (``unroll`` 4 or 2; 0: the loop alone)."""
    cfg = FIXUP
    m, n, steps = 40, 72, k // 256
    name = fixup_kernel_name(cfg, unroll=unroll)
    fix = lower(mmq_fixup_kernel(cfg, unroll=unroll), name, SM90_TWO_STAGES)
    programs = 4
    y = np.full((m, n), 7.0, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, (programs, 1, 1), n), np.nan, dtype=np.float32)
    emulate(fix, name, [y, parts, m, n, k, programs], fixup_grid(cfg, m, n))
    assert (y == 7.0).all()
    programs = 4 * steps
    parts = np.full(fixup_workspace_shape(cfg, (programs, 1, 1), n), np.nan, dtype=np.float32)
    for p in range(programs):  # only the first-segment slots are written; the others stay NaN
        parts[2 * p * 32:(2 * p + 1) * 32] = 2.0**24 if p % steps == 0 else 1.0
    y = np.full((m, n), np.nan, dtype=np.float32)
    emulate(fix, name, [y, parts, m, n, k, programs], fixup_grid(cfg, m, n))
    assert (y == np.float32(2.0**24)).all(), np.unique(y)
    parts[parts == 2.0**24] = 1.0  # all ones: every piece counts, the unrolled ones and the looped ones
    y[:] = np.nan
    emulate(fix, name, [y, parts, m, n, k, programs], fixup_grid(cfg, m, n))
    assert (y == steps).all(), np.unique(y)


def test_fixup_kernel_with_no_k_stores_zeros() -> None:
    """K = 0: the GEMM has no iterations and stores nothing (its shares are empty: it divides by max(K / 256, 1),
    not by zero, which the emulator would refuse as poison), so the fix-up stores every tile as zeros; the atomic
    kernel leaves the zeroed Y as it was."""
    cfg = FIXUP
    m, n, programs = 40, 72, 3
    x, w = np.zeros((m, 0, 144), dtype=np.uint8), np.zeros((n, 0, 144), dtype=np.uint8)
    y = np.full((m, n), np.nan, dtype=np.float32)
    parts = np.full(fixup_workspace_shape(cfg, (programs, 1, 1), n), np.nan, dtype=np.float32)
    emulate(lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES), cfg.name, [x, w, y, parts, m, n, 0], (programs, 1, 1))
    assert np.isnan(y).all()
    emulate(lower(mmq_fixup_kernel(cfg), fixup_kernel_name(cfg), SM90_TWO_STAGES), fixup_kernel_name(cfg),
            [y, parts, m, n, 0, programs], fixup_grid(cfg, m, n))
    assert (y == 0).all()
    y_atomic = np.zeros((m, n), dtype=np.float32)
    emulate(lower(mmq_kernel(STREAM_K), STREAM_K.name, SM90_TWO_STAGES), STREAM_K.name, [x, w, y_atomic, m, n, 0],
            (programs, 1, 1))
    assert (y_atomic == 0).all()


def test_fixup_config() -> None:
    assert FIXUP.name == "mmq_q8_1_q4_K_32x64_w4_streamk_fixup"
    assert not FIXUP.needs_zeroed_output and STREAM_K.needs_zeroed_output
    assert fixup_workspace_shape(FIXUP, (7, 1, 1), 72) == (448, 64)
    assert fixup_grid(FIXUP, 40, 72) == (4, 2, 1)  # 4 tiles of 32 rows, 16 rows per program
    with pytest.raises(ValueError, match="fixup is an option of the stream_k and split_k kernels"):
        MmqConfig(fixup=True)
    with pytest.raises(ValueError, match="has no fix-up kernel"):
        mmq_fixup_kernel(STREAM_K)


@pytest.mark.slow
@pytest.mark.parametrize("weights,m", [("q4_K", 100), ("q4_K", 80), ("q6_K", 100)])
def test_reproducible_choice_matches_reference(weights: str, m: int) -> None:
    """``choose_mmq(..., reproducible=True)`` past M = 64: the chosen prefill tile in stream-K with the fix-up, on
    its own grid (``MmqChoice.grid``: at most one iteration per program here, so every tile is pieces), run as a
    user of the choice runs it — the default's own choice at M = 100 on q4_K's 64 × 128 tile, reproducible's only
    at M = 80 and on q6_K's 64 × 64 tile."""
    from compiler.mmq_choice import choose_mmq

    n, k = 72, 768
    assert choose_mmq(weights, m, n, k).cfg.fixup == (weights == "q4_K" and m >= 96)
    choice = choose_mmq(weights, m, n, k, reproducible=True)
    cfg = choice.cfg
    assert cfg.stream_k and cfg.fixup and not cfg.needs_zeroed_output
    case = MmqCase(cfg, m, n, k, stages=choice.num_stages)
    data = make_inputs(case, np.random.default_rng(7))
    programs = choice.grid(m, n, k)[0]
    y = _run_fixup(cfg, lower(mmq_kernel(cfg), cfg.name, SM90_TWO_STAGES),
                   lower(mmq_fixup_kernel(cfg), fixup_kernel_name(cfg), SM90_TWO_STAGES),
                   [data["x"], kernel_weights(cfg, data["w"]), m, n, k], programs)
    assert not np.isnan(y).any()
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id} on {programs} programs: relative error {err:.3e}"

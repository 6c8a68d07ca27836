"""``compiler.mmq_choice.choose_mmq``: every choice is a kernel ``bench.mmq`` or the mid-M experiments timed, and the
chosen kernels compute the right thing on the emulator (fresh seeded inputs, a NaN-poisoned Y where the kernel
stores, float64 reference)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

import bench.experiments.guarded_copies_ab as guarded_copies_ab
import bench.experiments.labelled_ab as labelled_ab
import bench.experiments.mid_m as mid_m
import bench.experiments.padded_rows_ab as padded_rows_ab
import bench.experiments.small_m_wide as small_m_wide
import bench.experiments.stream_k_fixup as stream_k_fixup
import bench.mmq as mmq
from compiler.mmq_choice import (ALIGNED_PAIRS, FOUR_WARP_WIDE, SUB_BLOCK_WEIGHTS, UNGUARDED_EIGHT_TOKENS,
                                 UNGUARDED_ONE_TOKEN, MmqChoice, choose_mmq)
from compiler.mmq_template import (WEIGHT_FORMATS, MmqConfig, fixup_grid, fixup_kernel_name, fixup_scalars,
                                   fixup_workspace_shape, mmq_fixup_kernel, mmq_grid, mmq_kernel)
from compiler.pipelines import PtxOptions
from targets.ptx.emulator import emulate
from tests.emulator.lowering import lower
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, reference


def _as_chosen(label: str, cfg: MmqConfig) -> MmqConfig:
    """The label's kernel as ``choose_mmq`` would return it: its pipeline's ``fold=`` and ``unguarded`` carried by
    the kernel (``bench.mmq.kernel_config``: the same PTX under the default pipeline), without the programmatic
    launch ``bench.mmq``'s decode kernels add (the caller's choice)."""
    return replace(mmq.kernel_config(label, cfg), wait_previous_grid=False)


BENCHMARKED = {(_as_chosen(label, cfg), stages) for label, cfg, stages in
               [*mmq.selected(None), *mid_m.format_entries(), *mid_m.format_entries(repacked=True),
                *small_m_wide.q4k_entries(), *small_m_wide.format_entries(), *small_m_wide.two_warp_entries(),
                *small_m_wide.unpaired_entries(), *small_m_wide.wide64_entries(),
                *small_m_wide.wide64_format_entries(), *stream_k_fixup.all_format_entries(),
                *labelled_ab.selection(guarded_copies_ab.EVERY_FORMAT),
                *labelled_ab.selection(padded_rows_ab.OTHER_LABELS),
                *labelled_ab.selection(padded_rows_ab.CHOSEN_OTHER_LABELS)]}
"""The kernels bench/RESULTS.md has rows of for the cases ``choose_mmq`` decides: ``bench.mmq``'s (M ≤ 8, M = 512),
runs 233–234's (each format's prefill tile, plain and stream-K, both orders, M = 16–256), runs 235–238's (the
weights-once kernel widened to 16 and 32 tokens, every format, both orders, K a multiple of 512 or not), runs
241–242's (widened to 64 tokens, every format, both orders), run 256's (every format's stream-K tile with its
fix-up kernel, both orders), runs 290–294's (every repacked split-K decode kernel with and without the copy guard,
the latter timed through ``guard-copies=false``, which ``_as_chosen`` makes the kernel's own attribute: the same
PTX), run 320's (every format's repacked one-token kernel with and without its activation rows padded, the latter
through ``pad-block-rows=true``, made the kernel's ``qdot.pad_block_rows`` the same way), runs 322–323's (the
unguarded one-token kernels ``choose_mmq`` takes for ten formats, each with and without its rows padded)."""


@pytest.mark.parametrize("weights", WEIGHT_FORMATS)
def test_every_choice_is_a_benchmarked_kernel(weights: str) -> None:
    """For M = 1, 2–8, 9–16, 17–32, 33–64, 65–95, 96–256 and 512, both orders of W, K a multiple of 512 or not, W at
    most 2^24 weights or more: the choice is one of the kernels whose rows in bench/RESULTS.md it rests on."""
    for m in (1, 5, 12, 16, 17, 32, 33, 40, 64, 65, 96, 128, 512):
        for n in (4096, 3584, 14336):
            for tiled in (False, True):
                for k in (4096, 3840):
                    choice = choose_mmq(weights, m, n, k, tiled_weights=tiled)
                    assert (choice.cfg, choice.num_stages) in BENCHMARKED, (weights, m, n, tiled, k, choice)
                    assert "run" in choice.why, choice  # names the runs it rests on


def test_choices_by_case() -> None:
    """The rules themselves: the prefill tile by format, stream-K while the plain grid has at most one tile per SM,
    the one-token kernel and its L2 hint in ggml's order, the aligned pairs only where K allows them and W is in
    ggml's order."""
    prefill = choose_mmq("q4_K", 512, 4096, 4096)
    assert (prefill.cfg.block_m, prefill.cfg.block_n, prefill.cfg.min_blocks_per_sm, prefill.num_stages) == (64, 128,
                                                                                                           2, 2)
    assert not prefill.cfg.stream_k  # 256 tiles
    assert choose_mmq("q4_K", 256, 4096, 4096).cfg.stream_k  # 128 tiles
    assert not choose_mmq("q4_K", 257, 4096, 4096).cfg.stream_k  # 160
    assert choose_mmq("q4_K", 33, 4096, 4096 + 256).cfg.stream_k  # past the widened weights-once kernel
    assert choose_mmq("q4_K", 65, 4096, 4096).cfg.stream_k
    for weights in WEIGHT_FORMATS:  # the fix-up kernel from M = 96 on the 64 × 128 tile, atomics on 64 × 64
        for tiled in (False, True):
            atomic, fixed = (choose_mmq(weights, m, 4096, 4096, tiled_weights=tiled).cfg for m in (95, 96))
            assert atomic.stream_k and not atomic.fixup and atomic.needs_zeroed_output, atomic
            assert fixed.stream_k and fixed.fixup != (weights in SUB_BLOCK_WEIGHTS), fixed
            assert fixed.needs_zeroed_output == (weights in SUB_BLOCK_WEIGHTS)
    for m, tokens in ((9, 16), (16, 16), (17, 32), (32, 32)):  # the weights-once kernel, its n tile widened
        for weights in WEIGHT_FORMATS:
            for tiled in (False, True):
                cfg = choose_mmq(weights, m, 4096, 4096, tiled_weights=tiled).cfg
                warps = 4 if tokens == 32 and weights in FOUR_WARP_WIDE and not tiled else 2
                assert (cfg.small_m, cfg.max_m, cfg.num_warps, cfg.block_n) == (True, tokens, warps, 64), cfg
                assert cfg.needs_zeroed_output and cfg.l2_prefetch == 0
    for m in (33, 64):  # the 64-token tile where W has at most 2^24 weights, its format no 16-value sub-blocks
        for weights in WEIGHT_FORMATS:
            for tiled in (False, True):
                small, large = (choose_mmq(weights, m, 4096, k, tiled_weights=tiled).cfg for k in (4096, 4096 + 256))
                if weights in SUB_BLOCK_WEIGHTS:
                    assert not small.small_m and small.stream_k, small
                else:
                    assert (small.small_m, small.max_m, small.num_warps, small.block_n) == (True, 64, 4, 64), small
                    assert small.needs_zeroed_output and small.l2_prefetch == 0 and small.k_blocks == 1
                assert not large.small_m and large.stream_k, large
    for weights in WEIGHT_FORMATS:  # the copy guard off for the listed formats' 1- and 8-token kernels, W repacked
        for m, tiled in ((1, True), (1, False), (2, True), (8, True), (5, False), (9, True), (32, True)):
            guarded = choose_mmq(weights, m, 4096, 4096, tiled_weights=tiled).cfg.guard_copies
            listed = UNGUARDED_ONE_TOKEN if m == 1 else UNGUARDED_EIGHT_TOKENS if m <= 8 else ()
            assert guarded == (not (tiled and weights in listed)), (weights, m, tiled)
    assert {"q4_K", "q3_K"}.isdisjoint(UNGUARDED_ONE_TOKEN)  # faster guarded: q4_K's goal kernel, q3_K (runs 290–294)
    assert {"iq4_xs", "mxfp4", "q2_K"}.isdisjoint(UNGUARDED_EIGHT_TOKENS)  # faster guarded (runs 293–294)
    # reproducible: the fix-up wherever pieces or more than two splits would meet atomically, else at most 2 splits
    assert choose_mmq("q4_K", 80, 4096, 4096, reproducible=True).cfg.fixup
    assert choose_mmq("q6_K", 128, 4096, 4096, reproducible=True).cfg.fixup
    default = choose_mmq("q4_K", 128, 4096, 4096)
    assert choose_mmq("q4_K", 128, 4096, 4096, reproducible=True) == default  # already the fix-up
    decode = choose_mmq("q4_K", 1, 4096, 14336, reproducible=True)
    assert decode.cfg.fixup and not decode.cfg.needs_zeroed_output and decode.grid(1, 4096, 14336)[1] > 2
    assert decode.cfg.fixup_in_gemm and decode.cfg.max_m == 1  # IN_GEMM_FIXUP: run 289, either order of W
    repacked = choose_mmq("q4_K", 1, 4096, 14336, tiled_weights=True, reproducible=True).cfg
    assert repacked.fixup_in_gemm and repacked.max_m == 1
    q8 = choose_mmq("q8_0", 1, 4096, 14336, tiled_weights=True, reproducible=True).cfg
    assert q8.fixup and not q8.fixup_in_gemm  # 0.95–1.03 × in run 289: the fix-up kernel stays
    assert not choose_mmq("q4_K", 5, 4096, 14336, tiled_weights=True, reproducible=True).cfg.fixup_in_gemm  # M ≤ 8
    wide = choose_mmq("q4_K", 1, 32768, 8192, reproducible=True)
    assert not wide.cfg.fixup and wide.max_splits == 2 and wide.grid(1, 32768, 8192)[1] <= 2
    assert choose_mmq("q4_K", 512, 4096, 4096, reproducible=True) == prefill  # the plain grid: nothing meets
    for weights in SUB_BLOCK_WEIGHTS:
        assert choose_mmq(weights, 9, 4096, 4096, tiled_weights=True).cfg.block_n == 64
        assert not choose_mmq(weights, 256, 4096, 4096).cfg.stream_k  # 256 tiles of 64 × 64
    one = choose_mmq("q4_K", 1, 4096, 14336)
    assert one.cfg.small_m and one.cfg.max_m == 1 and one.cfg.l2_prefetch == 128 and one.cfg.needs_zeroed_output
    assert choose_mmq("q4_K", 1, 4096, 14336, tiled_weights=True).cfg.l2_prefetch == 0
    assert choose_mmq("q4_K", 8, 4096, 14336).cfg.max_m == 8
    for weights, stages in ALIGNED_PAIRS.items():
        pairs = choose_mmq(weights, 1, 4096, 14336)
        assert (pairs.cfg.k_blocks, pairs.cfg.k_divisibility, pairs.num_stages) == (2, 512, stages)
        assert choose_mmq(weights, 1, 4096, 14336 - 256).cfg.k_blocks == 1  # 55 super-blocks: no pairs
        assert choose_mmq(weights, 1, 4096, 14336, tiled_weights=True).cfg.k_blocks == 1


@pytest.mark.parametrize(("args", "message"), [
    (("q8_1", 1, 64, 4096), "weights must be one of q4_K, q4_0"),
    (("q4_K", 0, 64, 4096), "M and N must be at least 1, got M = 0, N = 64"),
    (("q4_K", 1, 0, 4096), "M and N must be at least 1, got M = 1, N = 0"),
    (("q4_K", 1, 64, 4000), "K must be a positive multiple of 256, got 4000"),
])
def test_refusals(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        choose_mmq(*args)


def _compile(choice: MmqChoice, text: str | None = None):  # noqa: ANN202 - xDSL ModuleOp
    """The chosen kernel (or ``text``, its fix-up kernel) through the PTX pipeline at the choice's stage count."""
    options = PtxOptions(arch="sm_90", num_stages=choice.num_stages)
    return lower(text or mmq_kernel(choice.cfg), choice.cfg.name, options)


@pytest.mark.slow
@pytest.mark.parametrize(("weights", "m", "n", "k", "tiled"), [
    ("q6_K", 1, 72, 1024, False),   # aligned pairs in one stage, the one-token form
    ("q4_K", 1, 72, 768, True),     # the one-token form, repacked: its activation rows padded (qdot.pad_block_rows)
    ("q4_1", 1, 72, 512, True),     # the same, its copies unguarded too (qdot.unguarded_copies)
    ("q4_K", 5, 72, 768, True),     # the 8-token kernel, repacked: fold operands swizzled (qdot.swizzle_fold_buffers)
    ("q2_K", 5, 72, 1536, False),   # aligned pairs in two stages
    ("q4_K", 20, 72, 768, False),   # the weights-once kernel widened to 32 tokens
    ("q2_K", 12, 72, 1024, False),  # 16 tokens, aligned pairs
    ("q2_K", 30, 72, 1024, False),  # 32 tokens on 4 warps, aligned pairs
    ("q6_K", 9, 72, 768, True),     # 16 tokens, repacked
    ("q3_K", 40, 72, 768, True),    # the 64 × 64 prefill tile, repacked, stream-K (2 tiles)
    ("iq4_xs", 40, 72, 512, False),  # the weights-once kernel widened to 64 tokens (small W)
    ("q4_1", 70, 72, 512, True),    # the 64 × 128 prefill tile, repacked, stream-K (2 tiles)
    ("q5_K", 100, 72, 512, False),  # the same with its fix-up kernel (M ≥ 96)
])
def test_chosen_kernel_matches_reference(weights: str, m: int, n: int, k: int, tiled: bool) -> None:
    choice = choose_mmq(weights, m, n, k, tiled_weights=tiled)
    cfg = choice.cfg
    assert cfg.fixup == (m >= 96)
    case = MmqCase(cfg, m, n, k, choice.num_stages)
    data = make_inputs(case, np.random.default_rng(31))
    y = np.zeros((m, n), np.float32) if cfg.needs_zeroed_output else np.full((m, n), np.nan, np.float32)
    grid = mmq_grid(cfg, m, n, k)
    args = [data["x"], kernel_weights(cfg, data["w"]), y, m, n, k]
    if cfg.fixup:  # the pieces into a NaN workspace, then the fix-up kernel into Y
        parts = np.full(fixup_workspace_shape(cfg, grid, n), np.nan, np.float32)
        emulate(_compile(choice), cfg.name, [*args[:3], parts, *args[3:]], grid)
        emulate(_compile(choice, mmq_fixup_kernel(cfg)), fixup_kernel_name(cfg),
                [y, parts, *fixup_scalars(cfg, grid, m, n, k)], fixup_grid(cfg, m, n))
    else:
        emulate(_compile(choice), cfg.name, args, grid)
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id}: relative error {err:.3e}"


@pytest.mark.slow
@pytest.mark.parametrize(("weights", "m", "n", "k", "reproducible", "written"), [
    ("q4_0", 40, 128, 512, False, "y_ptr: all 5120 elements written"),  # weights once, 64 tokens, split-K
    ("q4_K", 80, 128, 512, False, "y_ptr: all 10240 elements written"),  # the prefill tile, stream-K
    ("q6_K", 1, 72, 1024, False, "y_ptr: all 72 elements written"),  # the one-token kernel, aligned pairs
    # stream-K with the fix-up (from M = 96, or reproducible): 2 tiles of 2 K steps on 4 programs, each tile split
    # in two, so the GEMM (timed alone: --kernel) stores only pieces, in the first-segment slots of its workspace
    # (sized by the grid)
    ("q4_K", 100, 128, 512, False, "y_ptr: 12800 of 12800 elements never written; part_ptr: 32768 of 65536 "
                                   "elements never written"),
    ("q4_K", 80, 128, 512, True, "y_ptr: 10240 of 10240 elements never written; part_ptr: 32768 of 65536 "
                                 "elements never written"),
])
def test_printed_bench_line_runs(weights: str, m: int, n: int, k: int, reproducible: bool, written: str, tmp_path,
                                 capsys) -> None:  # noqa: ANN001
    """``python -m compiler.mmq_choice``'s ``time it:`` line is a qdot-bench command for the printed IR: run on the
    emulator (``--emulate``), its shape and grid store every element of Y (with a fix-up kernel, the pieces)."""
    import shlex

    from compiler.cli import bench
    from compiler.mmq_choice import choice_text

    text = choice_text(weights, m, n, k, reproducible=reproducible)
    line = next(line for line in text.splitlines() if line.startswith("// time it: qdot-bench "))
    source = tmp_path / "chosen.mlir"
    source.write_text(text)
    assert bench.run([str(source), *shlex.split(line.removeprefix("// time it: qdot-bench ")), "--emulate"]) == 0
    assert written in capsys.readouterr().out


@pytest.mark.parametrize(("weights", "n", "k", "tiled"), [("q4_K", 4096, 14336, False), ("q4_0", 4096, 4096, True),
                                                          ("q6_K", 3584, 3584, False)])
def test_m_ranges_cover_every_m_with_its_choice(weights: str, n: int, k: int, tiled: bool) -> None:
    """``m_ranges`` (``--m-ranges``): the ranges tile 1 … M without gaps, every M of a range gets the range's
    configuration and stage count from ``choose_mmq``, and two neighbouring ranges differ in them or in the rule."""
    from compiler.mmq_choice import m_ranges

    ranges = m_ranges(weights, 600, n, k, tiled)
    assert ranges[0][0] == 1 and ranges[-1][1] == 600
    for (_, last, _), (first, _, _) in zip(ranges, ranges[1:]):
        assert first == last + 1
    for first, last, choice in ranges:
        for m in range(first, last + 1):
            got = choose_mmq(weights, m, n, k, tiled_weights=tiled)
            assert (got.cfg, got.num_stages) == (choice.cfg, choice.num_stages), (m, first, last)
    for (_, _, a), (_, _, b) in zip(ranges, ranges[1:]):
        assert (a.cfg, a.num_stages, a.why.split(":")[0]) != (b.cfg, b.num_stages, b.why.split(":")[0])


@pytest.mark.parametrize("m", [0, 4097])
def test_m_ranges_refuses_an_m_out_of_its_walk(m: int, capsys) -> None:  # noqa: ANN001
    from compiler.mmq_choice import main

    with pytest.raises(SystemExit) as exit_:
        main(["q4_K", str(m), "4096", "4096", "--m-ranges"])
    assert exit_.value.code == 1
    assert f"--m-ranges walks M = 1 to at most 4096, got M = {m}" in capsys.readouterr().err


def _shown_as(doc_line: str, actual: str) -> bool:
    """Whether ``actual`` is what a docs line shows, its ``…`` eliding any text (the pieces in order)."""
    at = 0
    for i, piece in enumerate(doc_line.split("…")):
        found = actual.find(piece, at) if i else (0 if actual.startswith(piece) else -1)
        if found < 0:
            return False
        at = found + len(piece)
    return doc_line.endswith("…") or at == len(actual)


def test_tools_page_shows_current_output() -> None:
    """docs/tools.md's three examples of ``python -m compiler.mmq_choice`` output are what it prints now (``…``
    elides): the IR's header for q4_K at M = 16, 4096 × 14336, the ``--m-ranges`` table, and the ``--reproducible``
    header at M = 80, 4096 × 4096."""
    from pathlib import Path

    from compiler.mmq_choice import choice_text, m_ranges_text

    page = (Path(__file__).resolve().parents[2] / "docs" / "tools.md").read_text(encoding="utf-8")
    header = re.search(r"```\n(// choose_mmq\('q4_K', M=16, N=4096, K=14336.*?)\n```", page, re.S)
    table = re.search(r"```\n\$ python -m compiler.mmq_choice q4_K 512 4096 14336 --m-ranges\n(.*?)\n```", page, re.S)
    repro = re.search(r"```\n\$ python -m compiler.mmq_choice q4_K 80 4096 4096 --reproducible\n(.*?)\n```", page,
                      re.S)
    assert header is not None and table is not None and repro is not None
    for shown, actual in ((header.group(1), choice_text("q4_K", 16, 4096, 14336)),
                          (table.group(1), m_ranges_text("q4_K", 512, 4096, 14336)),
                          (repro.group(1), choice_text("q4_K", 80, 4096, 4096, reproducible=True))):
        actual_lines = actual.splitlines()
        for i, line in enumerate(shown.splitlines()):
            assert _shown_as(line.replace("(...", "(…"), actual_lines[i]), (line, actual_lines[i])

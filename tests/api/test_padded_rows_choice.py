"""``choose_mmq``'s kernels that carry the bank-conflict fixes of runs 317, 320 and 322–323 as attributes — the
repacked one-token kernels of ``PADDED_ROWS_ONE_TOKEN`` (q4_K, q3_K, q4_1, q5_1) with ``qdot.pad_block_rows``, q4_K's
8-token kernel with ``qdot.swizzle_fold_buffers`` — compile under the default pipeline to the PTX of the ``… padrows``
/ ``… swfold`` labels whose rows the choice rests on (``bench.mmq``'s, and ``padded_rows_ab --other_weights``' and
``--chosen_other``'; there the words ask the pass options of every kernel), and not to the plain kernel's."""

from __future__ import annotations

import dataclasses

import pytest

import bench.mmq as bm
import compiler
from bench.experiments import labelled_ab, padded_rows_ab
from compiler.mmq_choice import PADDED_ROWS_ONE_TOKEN, choose_mmq
from compiler.mmq_template import MmqConfig, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline


def _ptx(cfg: MmqConfig, pipeline: str) -> str:
    return str(compiler.compile(mmq_kernel(cfg), pipeline=pipeline).ptx).replace(cfg.name, "kernel")


@pytest.mark.parametrize(("weights", "m", "word", "field"),
                         [*((weights, 1, bm.PADDED_ROWS_WORD, "pad_block_rows") for weights in PADDED_ROWS_ONE_TOKEN),
                          ("q4_K", 5, bm.SWIZZLED_FOLDS_WORD, "swizzle_fold_buffers")])
def test_the_choice_is_the_labels_kernel(weights: str, m: int, word: str, field: str) -> None:
    chosen = choose_mmq(weights, m, 4096, 14336, tiled_weights=True)
    assert getattr(chosen.cfg, field)
    timed = (bm.selected(None) + labelled_ab.selection(padded_rows_ab.OTHER_LABELS)
             + labelled_ab.selection(padded_rows_ab.CHOSEN_OTHER_LABELS))
    (label, cfg, stages), = [(label, cfg, stages) for label, cfg, stages in timed
                             if dataclasses.replace(bm.kernel_config(label, cfg), wait_previous_grid=False)
                             == chosen.cfg]
    assert word in label.split() and stages == chosen.num_stages
    plain = dataclasses.replace(chosen.cfg, **{field: False})  # without the programmatic launch the label adds
    default = ptx_pipeline(PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages))
    attributed = _ptx(chosen.cfg, default)
    assert attributed == _ptx(plain, bm._pipeline(label, stages))  # the word's pass option, every kernel
    assert attributed != _ptx(plain, default)


@pytest.mark.parametrize("tiled", [False, True])
def test_no_other_choice_carries_them(tiled: bool) -> None:
    """Only the measured kernels: q4_K's, q3_K's, q4_1's and q5_1's repacked M = 1 padded, q4_K's 2 ≤ M ≤ 8
    swizzled; ggml's order, other formats (q5_K's and q6_K's padded unguarded form was 1.011 × in one of runs
    322–323's sixteen cells), the widened and prefill kernels keep the plain layouts."""
    for weights in ("q4_K", "q3_K", "q5_K", "q4_1", "q5_1", "q6_K", "q8_0"):
        for m in (1, 2, 8, 9, 32, 64, 512):
            cfg = choose_mmq(weights, m, 4096, 4096, tiled_weights=tiled).cfg
            assert cfg.pad_block_rows == (tiled and m == 1 and weights in ("q4_K", "q3_K", "q4_1", "q5_1"))
            assert cfg.swizzle_fold_buffers == (tiled and weights == "q4_K" and 2 <= m <= 8)


def test_chosen_other_times_the_chosen_kernels() -> None:
    """``padded_rows_ab --chosen_other`` times, for each format whose one-token kernel ``choose_mmq`` copies unguarded,
    exactly that kernel unpadded and padded (run 320 timed them guarded); the choice is the padded one for the formats
    of ``PADDED_ROWS_ONE_TOKEN`` (runs 322–323), the other one elsewhere."""
    entries = labelled_ab.selection(padded_rows_ab.CHOSEN_OTHER_LABELS)
    assert len(entries) == len(padded_rows_ab.CHOSEN_OTHER_LABELS) == 20
    for (plain, cfg, stages), (padded, padded_cfg, _) in zip(entries[::2], entries[1::2], strict=True):
        chosen = choose_mmq(cfg.weights, 1, 4096, 14336, tiled_weights=True)
        assert chosen.cfg.pad_block_rows == (cfg.weights in PADDED_ROWS_ONE_TOKEN)
        assert (dataclasses.replace(bm.kernel_config(plain, cfg), wait_previous_grid=False)
                == dataclasses.replace(chosen.cfg, pad_block_rows=False))
        assert stages == chosen.num_stages and not chosen.cfg.guard_copies
        assert padded == f"{plain} {bm.PADDED_ROWS_WORD}"
        assert (dataclasses.replace(bm.kernel_config(padded, padded_cfg), wait_previous_grid=False)
                == dataclasses.replace(chosen.cfg, pad_block_rows=True))

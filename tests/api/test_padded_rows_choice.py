"""``choose_mmq``'s two kernels that carry run 317's bank-conflict fixes as attributes — q4_K's repacked one-token
kernel with ``qdot.pad_block_rows``, its 8-token kernel with ``qdot.swizzle_fold_buffers`` — compile under the default
pipeline to the PTX of ``bench.mmq``'s ``… padrows`` / ``… swfold`` labels, whose rows the choice rests on (there the
words ask the pass options of every kernel), and not to the plain kernel's."""

from __future__ import annotations

import dataclasses

import pytest

import bench.mmq as bm
import compiler
from compiler.mmq_choice import choose_mmq
from compiler.mmq_template import MmqConfig, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline


def _ptx(cfg: MmqConfig, pipeline: str) -> str:
    return str(compiler.compile(mmq_kernel(cfg), pipeline=pipeline).ptx).replace(cfg.name, "kernel")


@pytest.mark.parametrize(("m", "word", "field"), [(1, bm.PADDED_ROWS_WORD, "pad_block_rows"),
                                                  (5, bm.SWIZZLED_FOLDS_WORD, "swizzle_fold_buffers")])
def test_the_choice_is_the_labels_kernel(m: int, word: str, field: str) -> None:
    chosen = choose_mmq("q4_K", m, 4096, 14336, tiled_weights=True)
    assert getattr(chosen.cfg, field)
    (label, cfg, stages), = [(label, cfg, stages) for label, cfg, stages in bm.selected(None)
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
    """Only the measured kernels: q4_K's repacked, M = 1 padded and 2 ≤ M ≤ 8 swizzled; ggml's order, other formats,
    the widened and prefill kernels keep the plain layouts."""
    for weights in ("q4_K", "q5_K", "q4_1", "q8_0"):
        for m in (1, 2, 8, 9, 32, 64, 512):
            cfg = choose_mmq(weights, m, 4096, 4096, tiled_weights=tiled).cfg
            measured = tiled and weights == "q4_K"
            assert cfg.pad_block_rows == (measured and m == 1)
            assert cfg.swizzle_fold_buffers == (measured and 2 <= m <= 8)

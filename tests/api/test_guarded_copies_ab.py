"""The guarded-copies A/B's labels: each kernel once with qdot-pipeline's guard and once ``… unguarded``, through
``guard-copies=false`` and otherwise the same pipeline, so that both forms come from one tree and one cache."""

from __future__ import annotations

import dataclasses

import pytest

import bench.mmq as bm
import compiler
from bench.experiments import guarded_copies_ab, labelled_ab
from compiler.format_table import FORMATS
from compiler.mmq_choice import UNGUARDED_EIGHT_TOKENS, UNGUARDED_ONE_TOKEN, choose_mmq
from compiler.mmq_template import WEIGHT_FORMATS, mmq_kernel
from compiler.pipelines import PtxOptions, ptx_pipeline


def test_every_label_is_timed_in_both_forms() -> None:
    chosen = {label: (cfg, stages) for label, cfg, stages in guarded_copies_ab.selection()}
    assert len(chosen) == 2 * len(guarded_copies_ab.GUARDED)
    for label in guarded_copies_ab.GUARDED:
        assert chosen[f"{label} unguarded"] == chosen[label]  # the same kernel, the same stages


def test_unguarded_differs_only_by_the_pipeline_option() -> None:
    for label, _cfg, stages in labelled_ab.selection(guarded_copies_ab.GUARDED):
        guarded = bm._pipeline(label, stages) or ptx_pipeline(
            PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages))
        unguarded = bm._pipeline(f"{label} unguarded", stages)
        assert "guard-copies" not in guarded
        assert unguarded == guarded.replace(f"num-stages={stages}}}", f"num-stages={stages} guard-copies=false}}")


def test_a_label_without_the_word_keeps_the_default_pipeline() -> None:
    assert bm._pipeline("small_m 64 w2 splitk s2 m1 pdl wt q6_K", 2) is None
    assert labelled_ab.selection(["no such label unguarded"]) == []


CHOSEN_UNGUARDED = ([(weights, 1) for weights in UNGUARDED_ONE_TOKEN]
                    + [(weights, 5) for weights in UNGUARDED_EIGHT_TOKENS])
"""Each decode kernel ``choose_mmq`` returns unguarded over repacked W: the one-token kernels and the 8-token ones."""


def _compiled_ptx(cfg, pipeline: str) -> str:
    return str(compiler.compile(mmq_kernel(cfg), pipeline=pipeline).ptx).replace(cfg.name, "kernel")


@pytest.mark.parametrize(("weights", "m"), CHOSEN_UNGUARDED)
def test_the_kernels_attributes_give_the_labels_ptx(weights: str, m: int) -> None:
    """The kernel ``choose_mmq`` returns unguarded, under the default pipeline, compiles to the PTX its ``--formats``
    label timed through ``guard-copies=false`` (and ``q4k-fold=fma`` where the label says ``fold=fma``), names
    aside: its ``qdot.unguarded_copies`` and ``qdot.q4k_fold`` stand for those options, so the A/B's ``…
    unguarded`` figures are the chosen kernel's. The guarded kernel's PTX differs."""
    chosen = choose_mmq(weights, m, 4096, 4096, tiled_weights=True)
    assert not chosen.cfg.guard_copies
    unpadded = dataclasses.replace(chosen.cfg, pad_block_rows=False)  # padding's own test: test_padded_rows_choice
    (label, cfg, stages), = [(label, cfg, stages) for label, cfg, stages
                             in labelled_ab.selection(guarded_copies_ab.EVERY_FORMAT)
                             if label.endswith(" unguarded")
                             and dataclasses.replace(bm.kernel_config(label, cfg), wait_previous_grid=False)
                             == unpadded]
    assert stages == chosen.num_stages
    default = ptx_pipeline(PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages))
    attributed = _compiled_ptx(bm.kernel_config(label, cfg), default)
    assert attributed == _compiled_ptx(cfg, bm._pipeline(label, stages))
    assert attributed != _compiled_ptx(cfg, bm._pipeline(label.removesuffix(" unguarded"), stages) or default)


@pytest.mark.parametrize("weights", [w for w in WEIGHT_FORMATS if FORMATS[w].min_term])
@pytest.mark.parametrize("tiled", [False, True])
def test_the_one_token_fold_is_the_labels(weights: str, tiled: bool) -> None:
    """``choose_mmq``'s one-token kernel of a format with a min term carries ``qdot.q4k_fold = "fma"``: under the
    default pipeline it compiles to the PTX ``bench.mmq``'s ``m1 fold=fma`` label timed through ``q4k-fold=fma``
    (names aside), whose rows the choice rests on; for q4_K and q5_K the pass's ``auto`` would apply the term by
    mma instead, a kernel those rows never timed."""
    chosen = choose_mmq(weights, 1, 4096, 4096, tiled_weights=tiled)
    assert chosen.cfg.q4k_fold == "fma"
    # the guard's own test is the one above, the padding's test_padded_rows_choice
    guarded = dataclasses.replace(chosen.cfg, guard_copies=True, pad_block_rows=False)
    (label, cfg, stages), = [(label, cfg, stages) for label, cfg, stages in bm.selected(None)
                             if dataclasses.replace(bm.kernel_config(label, cfg), wait_previous_grid=False)
                             == guarded]
    assert "fold=fma" in label.split() and stages == chosen.num_stages
    default = ptx_pipeline(PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages))
    attributed = _compiled_ptx(bm.kernel_config(label, cfg), default)
    assert attributed == _compiled_ptx(cfg, bm._pipeline(label, stages))
    by_mma = attributed != _compiled_ptx(cfg, default)
    assert by_mma == (weights in ("q4_K", "q5_K"))  # auto folds q4_1's and q5_1's m by FMA in this order too


def test_the_command_line_picks_labels_and_order() -> None:
    """``--formats --label A --label B --reverse`` times exactly those entries of the set, the order reversed (an A/B's
    second round), as runs 293–294 did; a label outside the set is a one-line error, not a traceback."""
    other = {"formats": ("every format", guarded_copies_ab.EVERY_FORMAT)}
    pair = ["small_m 64 w2 splitk s2 pdl wt q3_K", "small_m 64 w2 splitk s2 pdl wt q3_K unguarded"]
    argv = ["--formats", *(word for label in pair for word in ("--label", label))]
    forward, prepare = labelled_ab.chosen_from_args(guarded_copies_ab.LABELS, "", other, argv)
    backward, _ = labelled_ab.chosen_from_args(guarded_copies_ab.LABELS, "", other, [*argv, "--reverse"])
    assert [label for label, _, _ in forward] == pair and not prepare
    assert backward == forward[::-1]
    whole, _ = labelled_ab.chosen_from_args(guarded_copies_ab.LABELS, "", other, ["--formats"])
    assert len(whole) == len(guarded_copies_ab.EVERY_FORMAT)
    with pytest.raises(SystemExit) as exit_info:  # argparse's error: usage and one line on stderr, status 2
        labelled_ab.chosen_from_args(guarded_copies_ab.LABELS, "", other, ["--label", pair[0]])  # not in LABELS
    assert exit_info.value.code == 2

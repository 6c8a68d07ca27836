"""The guarded-copies A/B's labels: each kernel once with qdot-pipeline's guard and once ``… unguarded``, through
``guard-copies=false`` and otherwise the same pipeline, so that both forms come from one tree and one cache."""

from __future__ import annotations

import dataclasses

import pytest

import bench.mmq as bm
import compiler
from bench.experiments import guarded_copies_ab, labelled_ab
from compiler.mmq_choice import UNGUARDED_ONE_TOKEN, choose_mmq
from compiler.mmq_template import mmq_kernel
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


@pytest.mark.parametrize("weights", UNGUARDED_ONE_TOKEN)
def test_the_kernels_attribute_gives_the_pipeline_options_ptx(weights: str) -> None:
    """``MmqConfig(guard_copies=False)`` under the default pipeline compiles to the PTX of the same kernel through
    ``guard-copies=false`` (names aside), so the A/B's ``… unguarded`` figures stand for a kernel carrying the
    choice itself — for each one-token kernel ``choose_mmq`` returns unguarded; the guarded kernel's PTX differs."""
    label = f"small_m 64 w2 splitk s2 m1 pdl wt {weights}"
    (_, cfg, stages), = labelled_ab.selection([label])
    chosen = choose_mmq(weights, 1, 4096, 4096, tiled_weights=True)
    assert dataclasses.replace(cfg, wait_previous_grid=False, guard_copies=False) == chosen.cfg  # the kernel chosen
    assert stages == chosen.num_stages
    attributed = dataclasses.replace(cfg, guard_copies=False)
    options = PtxOptions(arch="sm_90", strategy="promote-int8", num_stages=stages)
    ptx = {form: str(compiler.compile(mmq_kernel(kernel), pipeline=pipeline).ptx).replace(kernel.name, "kernel")
           for form, kernel, pipeline in [("guarded", cfg, ptx_pipeline(options)),
                                          ("option", cfg, bm._pipeline(f"{label} unguarded", stages)),
                                          ("attribute", attributed, ptx_pipeline(options))]}
    assert ptx["attribute"] == ptx["option"] != ptx["guarded"]

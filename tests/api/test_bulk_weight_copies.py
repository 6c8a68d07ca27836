"""The bulk-copy experiment's PTX edit: the goal kernel's W copies become one ``cp.async.bulk`` per tile on a
per-stage mbarrier that each step waits on; the activations' copies stay; the edit refuses PTX it was not written
for, and assembles."""

from __future__ import annotations

import pytest

from bench.experiments import bulk_weight_copies as bulk
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return bulk.compile_all()[0][3].ptx


def test_w_copies_become_one_bulk_copy_per_tile(goal_ptx: str) -> None:
    edited = bulk.bulk(goal_ptx)
    assert len(bulk._W_COPY.findall(goal_ptx)) == 18 and not bulk._W_COPY.findall(edited)  # noqa: SLF001
    copies = [line for line in edited.splitlines() if "cp.async.bulk." in line]
    assert len(copies) == 2 and all(f"], {bulk.TILE_BYTES}, [%qb_bar];" in line for line in copies)
    assert edited.count(f"mbarrier.arrive.expect_tx.shared::cta.b64 \t_, [%qb_bar], {bulk.TILE_BYTES};") == 2
    # the activations' three copies of the prologue and of the loop are untouched
    assert edited.count("cp.async.cg.shared.global") == goal_ptx.count("cp.async.cg.shared.global") - 18 == 6


def test_each_step_waits_for_its_stage_before_the_barrier(goal_ptx: str) -> None:
    edited = bulk.bulk(goal_ptx)
    step = edited[edited.index("$L__BB0_5:"):]
    assert step.index("mbarrier.try_wait.parity") < step.index("cp.async.wait_group") < step.index("bar.sync")
    assert edited.index("mbarrier.init") < edited.index("fence.mbarrier_init") < edited.index("cp.async.bulk.")
    with pytest.raises(ValueError, match="the nine W copies"):
        bulk.bulk(edited)


@needs_ptxas
def test_the_edit_assembles_without_spills(goal_ptx: str) -> None:
    assert assembled(bulk.bulk(goal_ptx)).shared_bytes == 16  # the two mbarriers

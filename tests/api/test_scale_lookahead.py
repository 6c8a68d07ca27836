"""The look-ahead experiment's PTX edit: the decoding moves from between the step's two barriers to the step's end,
its header from global memory a step ahead, into the other of two slots; one barrier per step is left; the edit
refuses PTX it was not written for, and assembles without spills, alone and on the bulk-copy edit."""

from __future__ import annotations

import pytest

from bench.experiments import scale_lookahead as ahead
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return ahead.compile_all()[0][3].ptx


def _loop(ptx: str) -> str:
    return ptx[ptx.index("$L__BB0_5:"):ptx.index("$L__BB0_6:")]


def test_one_barrier_per_step_and_the_decoding_after_the_fold(goal_ptx: str) -> None:
    edited = ahead.lookahead(goal_ptx)
    assert _loop(goal_ptx).count("bar.sync") == 2 and _loop(edited).count("bar.sync") == 1
    loop = _loop(edited)
    # the step's header load follows its copies; the decoded stores (to the written slot) follow the last mma
    assert loop.index("cp.async.commit_group") < loop.index("@%p14 ld.global.nc.v4.b32") < loop.index("mma.sync")
    assert loop.rindex("mma.sync") < loop.index("st.shared.v4.b32 \t[%qla_wr+23040]")
    assert loop.count("st.shared.v4.b32 \t[%qla_wr+") == 4 and "[%r23+" not in edited
    assert loop.count("[%qla_rd+") == 64 and "ld.shared.b16 \t%rs19" not in edited


def test_the_first_tile_is_decoded_into_slot_0_before_the_loop(goal_ptx: str) -> None:
    edited = ahead.lookahead(goal_ptx)
    preheader = edited[:edited.index("$L__BB0_5:")]
    assert preheader.count("st.shared.v4.b32 \t[%r22+") == 4
    assert preheader.count("ld.global.nc.v4.b32 \t{%qlh0, %qlh1, %qlh2, %qlh3}") == 1
    assert f".shared .align 16 .b8 qla_slot[{ahead.SLOT_BYTES}];" in edited
    with pytest.raises(ValueError, match="goal kernel's as expected"):
        ahead.lookahead(edited)


@needs_ptxas
@pytest.mark.parametrize("name", sorted(ahead.EDITS))
def test_every_edit_assembles_without_spills(goal_ptx: str, name: str) -> None:
    edit, *_shapes_and_bytes = ahead.EDITS[name]
    assembled(edit(goal_ptx))


def test_in_ring_slot_lies_past_the_kernels_own_shared_memory(goal_ptx: str) -> None:
    edited = ahead.lookahead(goal_ptx, in_ring=True)
    assert "qla_slot" not in edited and f"mov.b32 \t%qla_delta, {ahead.IN_RING_AT - ahead.SLOT_AT};" in edited
    # the launch is given the slot's bytes (run_ab's extra_shared), so the runner counts them in its program count
    _edit, _shapes, extra = ahead.EDITS["lookahead-in-ring"]
    own = ahead.compile_all()[0][3].kernels[0].shared_bytes
    # slot 0 is the kernel's decoded-scale area, the last of its own shared memory; slot 1 starts where that ends
    assert extra == ahead.SLOT_BYTES and ahead.SLOT_AT + ahead.SLOT_BYTES == ahead.IN_RING_AT == own

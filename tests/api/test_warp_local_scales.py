"""The warp-local scales experiment's PTX edit (run 305): one CTA barrier of the goal kernel's K step becomes a warp
barrier and each lane's row of decoded scales is the one its warp reads; anything else in the PTX is unchanged."""

from __future__ import annotations

import pytest

from bench.experiments import warp_local_scales
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return warp_local_scales.compile_all()[0][3].ptx


def _row(warp: int, lane: int) -> int:
    """The edit's row of (warp, lane), as its PTX computes it."""
    tid = 32 * warp + lane
    return (tid & 15) + 16 * (tid >> 5) + 2 * (tid & 16)


def test_each_warp_decodes_the_rows_it_reads() -> None:
    for warp in (0, 1):
        decoded = {_row(warp, lane) for lane in range(32)}
        read = {16 * warp + g + 8 * half + 32 * tile for g in range(8) for half in (0, 1) for tile in (0, 1)}
        assert decoded == read  # the rows of its two m16 tiles, each once


def test_one_cta_barrier_becomes_a_warp_barrier(goal_ptx: str) -> None:
    edited = warp_local_scales.edited(goal_ptx)
    assert edited.count("bar.sync") == goal_ptx.count("bar.sync") - 1
    assert edited.count("bar.warp.sync \t-1;") == 1
    assert edited.index("bar.warp.sync") > edited.index("st.shared.v4.b32 \t[%r22+25104]")
    assert "mad.lo.s32 %r18, %qw_r, 144, %r35;" in edited
    with pytest.raises(ValueError, match="not the goal kernel's"):
        warp_local_scales.edited(edited.replace("\tadd.s32 \t%r22, %r70, %r68;\n", ""))


@needs_ptxas
def test_the_edited_kernel_assembles(goal_ptx: str) -> None:
    assembled(warp_local_scales.edited(goal_ptx), spills=True)

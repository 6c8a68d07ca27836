"""The decode-phase experiment's PTX edits (runs 308–310): each changes only what it names in the goal kernel,
refuses PTX it was not written for, and assembles."""

from __future__ import annotations

import pytest

from bench.experiments import decode_phase_edits as edits
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return edits.compile_all()[0][3].ptx


def test_no_decode_drops_only_the_decoded_stores(goal_ptx: str) -> None:
    edited = edits.no_decode(goal_ptx)
    assert goal_ptx.count("st.shared.v4.b32 \t[%r22+") == 4 and "[%r22+" not in edited
    assert len(goal_ptx.splitlines()) - len(edited.splitlines()) == 4


def test_desync_sleeps_odd_splits_after_the_wait(goal_ptx: str) -> None:
    edited = edits.desync(goal_ptx, 300)
    assert edited.index("griddepcontrol.wait") < edited.index("@%qs_p nanosleep.u32 300;")
    assert "mov.u32 %qs_y, %ctaid.y;" in edited


def test_header_v4_reads_the_header_once(goal_ptx: str) -> None:
    edited = edits.header_v4(goal_ptx)
    assert edited.count("ld.shared.v4.b32 {%qh0, %qh1, %qh2, %qh3}, [%r81];") == 1
    assert not any(line in edited for line in edits._HEADER_LOADS)  # noqa: SLF001
    with pytest.raises(ValueError, match="the header's loads"):
        edits.header_v4(edited)


@needs_ptxas
@pytest.mark.parametrize("name", sorted(edits.EDITS))
def test_every_edit_assembles(goal_ptx: str, name: str) -> None:
    edit, _shapes = edits.EDITS[name]
    assembled(edit(goal_ptx), spills=True)

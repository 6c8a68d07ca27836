"""The padding-rows experiment's PTX edit (run 307): the goal kernel's zero-size copies into its activation tile
are gone, and the tile's two ring slots are zeroed once, before the first copy, with a barrier after."""

from __future__ import annotations

import re

import pytest

from bench.experiments import padding_rows_once
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return padding_rows_once.compile_all()[0][3].ptx


def test_zero_size_copies_become_one_zeroing(goal_ptx: str) -> None:
    edited = padding_rows_once.edited(goal_ptx)
    zero_size = re.compile(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16, 0;")
    assert len(zero_size.findall(goal_ptx)) == 4 and not zero_size.findall(edited)
    assert edited.count("cp.async.cg") == goal_ptx.count("cp.async.cg") - 4
    start, end = padding_rows_once.X_TILE
    offsets = [int(at) for at in re.findall(r"st\.shared\.v4\.b32 \[%qz_at\+(\d+)\]", edited)]
    assert offsets == list(range(start, end, 1024))  # 64 threads × 16 bytes from each, the last round 512 bytes
    first_copy = edited.index("cp.async.cg")
    assert edited.index("st.shared.v4.b32 [%qz_at") < edited.index("bar.sync", edited.index("%qz_at")) < first_copy
    with pytest.raises(ValueError, match="not the goal kernel's"):
        padding_rows_once.edited(edited)


@needs_ptxas
def test_the_edited_kernel_assembles(goal_ptx: str) -> None:
    assembled(padding_rows_once.edited(goal_ptx), spills=True)

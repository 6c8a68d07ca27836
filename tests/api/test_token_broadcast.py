"""The token-broadcast PTX edit: every lane's activation-tile address loses its token term (and nothing else
changes), the edit refuses PTX without those terms, and the edited kernel assembles without spills."""

from __future__ import annotations

import pytest

from bench.experiments import token_broadcast as tb
from passes.support.bank_conflicts import ldmatrix_wavefronts
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return tb.GOAL_PTX_4A0DC6E.read_text(encoding="utf-8")


def test_token_zero_removes_the_two_token_terms_only(goal_ptx: str) -> None:
    edited = tb.token_zero(goal_ptx)
    before, after = goal_ptx.splitlines(), edited.splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert [b.strip() for _a, b in changed] == ["mov.u32 \t%r12, 0;", "mov.u32 \t%r14, 0;"]
    with pytest.raises(ValueError, match="goal kernel's as expected"):
        tb.token_zero(edited)


def test_the_token_terms_reach_only_the_activation_tiles_reads(goal_ptx: str) -> None:
    """%r12 (the quants' ldmatrix row) and %r14 (the d / s column pair) feed the activation tile's two base registers
    and nothing else, so the edit moves only its reads; the addresses built from them are the tile's (at 18432)."""
    uses = {reg: [line.strip() for line in goal_ptx.splitlines() if f"{reg}," in line or f"{reg};" in line]
            for reg in ("%r12", "%r14")}
    assert uses["%r12"][1:] == ["add.s32 \t%r65, %r38, %r12;"]
    assert uses["%r14"][1:] == ["add.s32 \t%r20, %r38, %r14;"]
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r260, %r261, %r262, %r263}, [%r259+18448];" in goal_ptx


def test_the_stored_kernel_is_the_goal_entry() -> None:
    label, _cfg, _stages, kernel = tb.goal_kernel()[0]
    assert label == "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"
    assert kernel.kernels[0].name in kernel.ptx and kernel.kernels[0].shared_bytes == 27136


@pytest.mark.parametrize("row_bytes,wavefronts", [(288, 2), (144, 1), (0, 1)])
def test_eight_token_rows_wavefronts_by_row_stride(row_bytes: int, wavefronts: int) -> None:
    """The reason for the edit: an ldmatrix phase reads eight 16-byte rows; it takes as many wavefronts as the most
    distinct rows that fall on one 16-byte slot of the 128-byte bank row. 288-byte rows (two q8_1_mmq blocks) put
    rows r and r + 4 on one slot; one row read by all eight (the edit) is a broadcast. The model is the remarks'
    (``passes.support.bank_conflicts``)."""
    assert ldmatrix_wavefronts([t * row_bytes for t in range(8)], 1).taken == wavefronts


@needs_ptxas
def test_the_edit_assembles_without_spills(goal_ptx: str) -> None:
    assembled(tb.token_zero(goal_ptx))

"""The wavefront model of passes/support/bank_conflicts.py on accesses whose counts are known: a warp's 32
consecutive words in one wavefront, a stride of two words in two, a broadcast in one, 16-byte loads in quarter-warp
phases, and ldmatrix rows 288 bytes apart (the q8_1_mmq activation tile) in two per matrix."""

from __future__ import annotations

import pytest

from passes.support.bank_conflicts import Wavefronts, access_wavefronts, ldmatrix_wavefronts, phase_wavefronts


@pytest.mark.parametrize("stride,taken", [(4, 1), (8, 2), (16, 4), (128, 32), (132, 1), (0, 1)])
def test_a_warps_4_byte_accesses_by_stride(stride: int, taken: int) -> None:
    got = access_wavefronts([lane * stride for lane in range(32)], 4)
    assert got.taken == taken and got.ideal == 1


def test_16_byte_accesses_go_in_quarter_warps() -> None:
    assert access_wavefronts([lane * 16 for lane in range(32)], 16) == Wavefronts(4, 4)
    # thread t stores row t's first 16 bytes, rows 32 bytes apart: each quarter-warp hits every slot twice
    assert access_wavefronts([lane * 32 for lane in range(32)], 16) == Wavefronts(8, 4)
    assert access_wavefronts([lane * 48 for lane in range(32)], 16) == Wavefronts(4, 4)


def test_8_byte_accesses_go_in_half_warps() -> None:
    assert access_wavefronts([lane * 8 for lane in range(32)], 8) == Wavefronts(2, 2)
    assert access_wavefronts([lane * 16 for lane in range(32)], 8) == Wavefronts(4, 2)


def test_ldmatrix_rows_by_pitch() -> None:
    rows = [(lane % 8) * 288 + (lane // 8) * 16 for lane in range(32)]
    assert ldmatrix_wavefronts(rows, 4) == Wavefronts(8, 4)
    padded = [(lane % 8) * 304 + (lane // 8) * 16 for lane in range(32)]
    assert ldmatrix_wavefronts(padded, 4) == Wavefronts(4, 4)
    assert ldmatrix_wavefronts([0] * 8, 1) == Wavefronts(1, 1)  # one row for all eight: a broadcast


def test_the_phrase_names_the_conflict() -> None:
    assert Wavefronts(8, 4).phrase() == "8 wavefronts where 4 would do (2-way bank conflicts)"
    assert Wavefronts(4, 4).phrase() == "4 wavefronts, no bank conflict"
    assert phase_wavefronts([], 4) == Wavefronts(0, 0)

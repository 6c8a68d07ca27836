"""``python -m bench.bank_census``: the one-token goal kernel with its activation rows 288 bytes apart has three
conflicted accesses, each 2-way — the tile's ldmatrix and its d and s loads, the two run 306 measured at twice their
ideal —, none with its rows padded (``choose_mmq``'s form since run 317); an unknown label is a one-line error."""

from __future__ import annotations

import pytest

from bench import bank_census

GOAL = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"


def test_the_unpadded_goal_kernel_has_three_conflicted_accesses(capsys: pytest.CaptureFixture[str]) -> None:
    bank_census.main(["--label", GOAL])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "3 conflicted accesses"
    assert out[0].startswith(f"{GOAL}: qdot-lower-local-load: rhs operand 256x8xi8 (kWidth 4): 4 × ldmatrix")
    for line, part in zip(out[1:3], ("d", "s"), strict=True):
        assert f"q8_1_mmq block fields that '{part}' is decoded from" in line
    assert all(line.endswith("32 wavefronts where 16 would do (2-way bank conflicts) per warp") for line in out[:3])


def test_padded_rows_leave_none(capsys: pytest.CaptureFixture[str]) -> None:
    bank_census.main(["--label", f"{GOAL} padrows", "--all"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "0 conflicted accesses"
    assert any("rhs operand 256x8xi8" in line and line.endswith("16 wavefronts, no bank conflict per warp")
               for line in out)


def test_an_unknown_label_is_refused() -> None:
    with pytest.raises(SystemExit, match="no kernel is labelled 'no such kernel'"):
        bank_census.main(["--label", "no such kernel"])

"""``python -m bench.bank_census``: the one-token goal kernel's activation-tile ldmatrix is its one conflicted access
(2-way, run 306's measurement), gone with its rows padded; an unknown label is a one-line error."""

from __future__ import annotations

import pytest

from bench import bank_census

GOAL = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"


def test_the_goal_kernel_has_one_conflicted_access(capsys: pytest.CaptureFixture[str]) -> None:
    bank_census.main(["--label", GOAL])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 conflicted access"
    assert out[0].startswith(f"{GOAL}: qdot-lower-local-load: rhs operand 256x8xi8 (kWidth 4): 4 × ldmatrix")
    assert out[0].endswith("32 wavefronts where 16 would do (2-way bank conflicts) per warp")


def test_padded_rows_leave_none(capsys: pytest.CaptureFixture[str]) -> None:
    bank_census.main(["--label", f"{GOAL} padrows", "--all"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "0 conflicted accesses"
    assert any("rhs operand 256x8xi8" in line and line.endswith("16 wavefronts, no bank conflict per warp")
               for line in out)


def test_an_unknown_label_is_refused() -> None:
    with pytest.raises(SystemExit, match="no kernel is labelled 'no such kernel'"):
        bank_census.main(["--label", "no such kernel"])

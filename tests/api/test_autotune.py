"""compiler.autotune's choice and its cache, with a stand-in measurement (the GPU one is in
tests/gpu/test_autotune_gpu.py): the fastest working candidate wins, failures carry their
reason, a second call reads the file, and a choice is not reused for another candidate set."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from compiler.autotune import Candidate, CandidateFailed, autotune

CANDIDATES = [Candidate(label, f"// {label}", (1, 1, 1)) for label in ("a", "b", "c")]


class FakeMeasure:
    device = "test device"

    def __init__(self, us: dict[str, float | str]) -> None:
        self.us, self.calls = us, []

    def __call__(self, candidate: Candidate) -> float:
        self.calls.append(candidate.label)
        value = self.us[candidate.label]
        if isinstance(value, str):
            raise CandidateFailed(value)
        return value


def test_fastest_working_candidate_wins_and_is_remembered(tmp_path: Path) -> None:
    cache = tmp_path / "autotune.json"
    measure = FakeMeasure({"a": 5.0, "b": "needs 300000 B of shared memory", "c": 3.0})
    choice = autotune("problem", CANDIDATES, cache=cache, measure=measure)
    assert (choice.candidate.label, choice.us, choice.from_cache) == ("c", 3.0, False)
    assert math.isinf(choice.timings["b"]) and choice.reasons == {"b": "needs 300000 B of shared memory"}
    again = autotune("problem", CANDIDATES, cache=cache, measure=FakeMeasure({}))
    assert (again.candidate.label, again.us, again.from_cache) == ("c", 3.0, True)
    assert again.timings == choice.timings and again.reasons == choice.reasons  # inf, not JSON's null, read back
    stored = json.loads(cache.read_text(encoding="utf-8"))
    assert [entry["label"] for entry in stored.values()] == ["c"]


def test_another_problem_or_candidate_set_is_measured_again(tmp_path: Path) -> None:
    cache = tmp_path / "autotune.json"
    autotune("problem", CANDIDATES, cache=cache, measure=FakeMeasure({"a": 1.0, "b": 2.0, "c": 3.0}))
    other = FakeMeasure({"a": 9.0, "b": 2.0})
    assert autotune("problem", CANDIDATES[:2], cache=cache, measure=other).candidate.label == "b"
    assert other.calls == ["a", "b"]
    assert autotune("other problem", CANDIDATES[:2], cache=cache, measure=other).from_cache is False


def test_no_working_candidate_is_an_error_with_the_reasons(tmp_path: Path) -> None:
    measure = FakeMeasure({"a": "refused: 3 warps", "b": "wrong result (check failed)", "c": "refused"})
    with pytest.raises(ValueError, match="a: refused: 3 warps; b: wrong result"):
        autotune("problem", CANDIDATES, cache=tmp_path / "x.json", measure=measure)


def test_labels_must_be_distinct(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="distinct labels"):
        autotune("problem", [CANDIDATES[0], CANDIDATES[0]], cache=tmp_path / "x.json", measure=FakeMeasure({}))


def test_an_unreadable_cache_is_measured_over(tmp_path: Path) -> None:
    cache = tmp_path / "autotune.json"
    cache.write_text("{not json", encoding="utf-8")
    choice = autotune("problem", CANDIDATES, cache=cache, measure=FakeMeasure({"a": 1.0, "b": 2.0, "c": 3.0}))
    assert choice.candidate.label == "a" and not choice.from_cache
    assert json.loads(cache.read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", ["b", [1], {"label": "b"}, {"label": "b", "us": 1.0, "timings": []},
                                   {"label": ["b"], "us": 1.0}, {"label": "b", "us": "fast"},
                                   {"label": "b", "us": 1.0, "timings": {"a": "x"}},
                                   {"label": "b", "us": 1.0, "reasons": {"a": 3}}])
def test_an_entry_that_is_not_a_recorded_choice_is_measured_over(tmp_path: Path, entry: object) -> None:
    """A foreign or hand-edited entry under the problem's key gave an AttributeError, KeyError or TypeError."""
    cache = tmp_path / "autotune.json"
    measure = FakeMeasure({"a": 1.0, "b": 2.0, "c": 3.0})
    autotune("problem", CANDIDATES, cache=cache, measure=measure)
    stored = json.loads(cache.read_text(encoding="utf-8"))
    cache.write_text(json.dumps({key: entry for key in stored}), encoding="utf-8")
    again = FakeMeasure({"a": 1.0, "b": 2.0, "c": 3.0})
    choice = autotune("problem", CANDIDATES, cache=cache, measure=again)
    assert (choice.candidate.label, choice.from_cache, again.calls) == ("a", False, ["a", "b", "c"])


def test_a_cache_that_cannot_be_written_warns_and_keeps_the_choice(tmp_path: Path) -> None:
    """The choice cost a measurement of every candidate: an unwritable cache loses only the remembering. (A
    directory where the scratch file goes stands in for a read-only one, which root would write anyway.)"""
    cache = tmp_path / "autotune.json"
    cache.with_suffix(f".{os.getpid()}.tmp").mkdir()
    measure = FakeMeasure({"a": 3.0, "b": 2.0, "c": 1.0})
    with pytest.warns(RuntimeWarning, match="not written"):
        choice = autotune("problem", CANDIDATES, cache=cache, measure=measure)
    assert choice.candidate.label == "c" and not cache.exists()

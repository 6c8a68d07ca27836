"""A fixed batch of the template helpers' argument fuzz (tests/api/helper_fuzz.py): the configs, kernel texts,
grids, shapes and residency helpers return what they promise or refuse by name. The long runs are
``python -m tests.api.helper_fuzz --seconds N``; this keeps the suite from losing what they found, and checks that
the fuzz itself can tell a crash, a Python-made refusal, a hang and a bad result from a refusal."""

from __future__ import annotations

import random
import time

import pytest

from tests.api import helper_fuzz


@pytest.mark.parametrize("seed", range(3))
def test_a_fixed_batch_of_helper_calls_passes(seed: int) -> None:
    counts, failures = helper_fuzz.fuzz(seed, cases=1000)
    assert not failures, "\n".join(f"{f.call}\n  {f.problem}" for f in failures)
    assert counts.get("returned", 0) > 200 and counts.get("refused", 0) > 200, counts


def test_every_helper_is_called_and_returns_sometimes() -> None:
    """A helper whose every call is refused would be fuzzed for its first check only."""
    rng = random.Random(11)
    returned = {h.name: 0 for h in helper_fuzz.HELPERS}
    for _ in range(4000):
        state = rng.getstate()
        name = rng.choice(helper_fuzz.HELPERS).name
        rng.setstate(state)
        kind, _ = helper_fuzz.run_case(rng)
        returned[name] += kind == "returned"
    assert all(returned.values()), [name for name, count in returned.items() if not count]


def _only(monkeypatch: pytest.MonkeyPatch, function: object, promise: object = lambda value: True) -> None:
    monkeypatch.setattr(helper_fuzz, "HELPERS", [helper_fuzz.Helper("f", function, lambda rng: ([1], {}), promise)])


def _outcome() -> tuple[str, str]:
    kind, failure = helper_fuzz.run_case(random.Random(0))
    return kind, failure.problem if failure else ""


def test_the_fuzz_tells_failures_from_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    def index_error(x: object) -> None:
        raise IndexError("tuple index out of range")

    def python_type_error(x: object) -> object:
        return x + "s"  # type: ignore[operator]

    def named(x: object) -> None:
        raise ValueError("f: x must be a str, got 1")

    _only(monkeypatch, index_error)
    assert _outcome() == ("crash", "IndexError: tuple index out of range")
    _only(monkeypatch, python_type_error)
    assert _outcome()[0] == "python"
    _only(monkeypatch, named)
    assert _outcome() == ("refused", "")
    _only(monkeypatch, lambda x: x, promise=lambda value: value == 2)
    assert _outcome() == ("bad result", "returned 1")
    calls = iter([1, 2])
    _only(monkeypatch, lambda x: next(calls))
    assert _outcome()[0] == "not deterministic"


def test_a_hang_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helper_fuzz, "LIMIT_S", 0.2)
    _only(monkeypatch, lambda x: time.sleep(5))
    assert _outcome() == ("slow", "slow: ran past 0.2 s")

"""compiler.autotune refuses what does not need a GPU before compiling or measuring anything, and
reads its candidates once: a generator is as good as a list, a ``Candidate`` is checked with
``compiler.compile``'s own words when it is built, ``reps`` and the cache path up front. The GPU
measurement (with a stand-in CuPy and runner) holds each launch to ``CompiledKernel.check_arrays``."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import compiler
import compiler.autotune as autotune_module
from compiler.autotune import Candidate, autotune
from compiler.launch_checks import checked_grid

ROOT = Path(__file__).resolve().parents[2]


class CountingMeasure:
    device = "test device"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, candidate: Candidate) -> float:
        self.calls.append(candidate.label)
        return float(len(candidate.label))


def _candidates(*labels: str) -> list[Candidate]:
    return [Candidate(label, f"// {label}", (1, 1, 1)) for label in labels]


def test_a_generator_of_candidates_is_read_once_and_measured(tmp_path: Path) -> None:
    measure = CountingMeasure()
    choice = autotune("problem", (c for c in _candidates("bb", "a", "ccc")), cache=tmp_path / "x.json",
                      measure=measure)
    assert (choice.candidate.label, choice.us, measure.calls) == ("a", 1.0, ["bb", "a", "ccc"])
    again = autotune("problem", iter(_candidates("bb", "a", "ccc")), cache=tmp_path / "x.json", measure=measure)
    assert again.from_cache and again.candidate.label == "a"


@pytest.mark.parametrize("empty", [[], (), iter([])], ids=["list", "tuple", "iterator"])
def test_no_candidates_is_said_as_such(tmp_path: Path, empty: Any) -> None:
    with pytest.raises(ValueError, match=r"^autotune: no candidates to choose from$"):
        autotune("problem", empty, cache=tmp_path / "x.json", measure=CountingMeasure())


def test_repeated_labels_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"distinct labels, got 'a' more than once"):
        autotune("problem", _candidates("a", "b", "a"), cache=tmp_path / "x.json", measure=CountingMeasure())


@pytest.mark.parametrize("candidates", [Candidate("a", "// a", (1,)), 3, ["a"]], ids=["one", "int", "str"])
def test_candidates_that_are_not_candidates_are_a_type_error(tmp_path: Path, candidates: Any) -> None:
    with pytest.raises(TypeError, match=r"^autotune: candidates must be"):
        autotune("problem", candidates, cache=tmp_path / "x.json", measure=CountingMeasure())


def _compile_error(**options: Any) -> Exception:
    with pytest.raises((TypeError, ValueError)) as info:
        compiler.compile("// no module", **options)
    return info.value


@pytest.mark.parametrize("options", [{"arch": "sm90"}, {"arch": "sm_100"}, {"strategy": "fast"},
                                     {"num_stages": 0}, {"num_stages": True}, {"num_stages": "3"}], ids=str)
def test_a_candidate_is_refused_when_built_with_compiles_words(options: dict[str, Any]) -> None:
    expected = _compile_error(**options)
    with pytest.raises(type(expected)) as info:
        Candidate("c1", "// c1", (1, 1, 1), **options)
    assert str(info.value) == f"candidate 'c1': {expected}"


@pytest.mark.parametrize("field", [{"arch": None}, {"source": Path("k.mlir")}, {"label": 1}], ids=str)
def test_a_candidate_field_of_the_wrong_type_is_a_type_error(field: dict[str, Any]) -> None:
    fields = {"label": "c1", "source": "// c1", "grid": (1, 1, 1)} | field
    with pytest.raises(TypeError, match=f"{next(iter(field))} must be"):
        Candidate(**fields)


@pytest.mark.parametrize("grid", [(0, 1, 1), (1, 1, 1, 1), (), 0, 2**31, (1, 65536), (1.5,), None, "1", True],
                         ids=repr)
def test_a_candidate_grid_is_refused_in_the_launchs_words(grid: Any) -> None:
    """The grid goes to ``launch(grid=…)`` as it is, so it is refused as the launch would refuse it, by
    ``checked_grid`` (which says which dimension is out of range), when the candidate is built."""
    with pytest.raises((TypeError, ValueError)) as expected:
        checked_grid(grid, "grid")
    with pytest.raises(type(expected.value)) as info:
        Candidate("c1", "// c1", grid)
    assert str(info.value) == f"candidate 'c1': {expected.value}"
    assert str(info.value).startswith("candidate 'c1': grid takes the number of programs or (x[, y[, z]])")


@pytest.mark.parametrize("grid", [4, (4,), (4, 2), (2**31 - 1, 65535, 65535)], ids=repr)
def test_a_candidate_takes_every_grid_the_launch_takes(grid: Any) -> None:
    assert Candidate("c1", "// c1", grid).grid == grid


def test_good_candidates_are_built_as_given() -> None:
    c = Candidate("c1", "// c1", (4, 2), arch="sm_90a", strategy="native", num_stages=4)
    assert (c.grid, c.arch, c.strategy, c.num_stages) == ((4, 2), "sm_90a", "native", 4)


def test_a_cache_that_is_a_directory_is_refused_before_measuring(tmp_path: Path) -> None:
    measure = CountingMeasure()
    with pytest.raises(IsADirectoryError, match="must be a JSON file, not a directory"):
        autotune("problem", _candidates("a", "b"), cache=tmp_path, measure=measure)
    assert measure.calls == []


def test_a_cache_under_a_file_is_refused_before_measuring(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    measure = CountingMeasure()
    with pytest.raises(NotADirectoryError, match="lies under a file"):
        autotune("problem", _candidates("a"), cache=tmp_path / "file" / "x.json", measure=measure)
    assert measure.calls == []


def test_a_cache_given_as_a_str_is_a_path(tmp_path: Path) -> None:
    autotune("problem", _candidates("a"), cache=str(tmp_path / "x.json"), measure=CountingMeasure())
    assert (tmp_path / "x.json").is_file()


@pytest.mark.parametrize("reps", [0, -1, True, 2.5, "20", None], ids=repr)
def test_reps_below_one_are_refused_before_the_gpu_is_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            reps: Any) -> None:
    def no_gpu(*_: Any) -> None:
        raise AssertionError("the GPU measurement was set up")

    monkeypatch.setattr(autotune_module, "_gpu_measure", no_gpu)
    with pytest.raises(ValueError, match=r"reps must be a positive integer \(launches per timing\)"):
        autotune("problem", _candidates("a"), cache=tmp_path / "x.json", reps=reps)


def test_a_check_that_is_not_callable_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="check must be a function"):
        autotune("problem", _candidates("a"), cache=tmp_path / "x.json", check=True,  # type: ignore[arg-type]
                 measure=CountingMeasure())


class FakeCupy:
    """What ``_gpu_measure`` asks of CuPy: events (each 1 ms apart) and the device's name."""

    def __init__(self) -> None:
        self.cuda = SimpleNamespace(
            Event=lambda: SimpleNamespace(record=lambda: None, synchronize=lambda: None),
            get_elapsed_time=lambda start, end: 1.0,
            Device=lambda: SimpleNamespace(id=0),
            runtime=SimpleNamespace(getDeviceProperties=lambda _: {"name": b"Fake GPU"}),
        )


class FakeKernel:
    def __init__(self) -> None:
        self.launches = 0

    def launch(self, *args: Any, grid: Any, sync: bool = True) -> None:
        self.launches += 1


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[FakeKernel]:
    import targets.ptx.runner as runner

    loaded: list[FakeKernel] = []

    def load(ptx: str, info: Any) -> FakeKernel:
        loaded.append(FakeKernel())
        return loaded[-1]

    monkeypatch.setattr(runner, "require_cupy", FakeCupy)
    monkeypatch.setattr(runner, "load", load)
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(tmp_path / "kernels"))
    return loaded


M = N = K = 128


def test_arrays_too_small_for_a_candidate_fail_it_before_it_launches(fake_gpu: list[FakeKernel],
                                                                     tmp_path: Path) -> None:
    source = (ROOT / "examples" / "int8_gemm.mlir").read_text(encoding="utf-8")
    a, b, c = np.zeros((M, K), np.int8), np.zeros((N, K), np.int8), np.zeros((M, N), np.int32)
    candidates = [Candidate("int8", source, (1, 1, 1))]
    with pytest.raises(ValueError, match=r"int8: .*argument #0 \(%a_ptr\) holds 8192 bytes"):
        autotune("int8 128", candidates, (a[:64], b, c, M, N, K), reps=2, cache=tmp_path / "x.json")
    assert fake_gpu == []  # not even loaded
    choice = autotune("int8 128", candidates, (a, b, c, M, N, K), reps=2, cache=tmp_path / "x.json")
    assert math.isclose(choice.us, 1e3 / 2) and fake_gpu[-1].launches == 1 + 9 * 2

"""``targets.ptx.timing.time_launch``, the one CUDA-event timing loop of qdot-bench and bench/,
run against a stand-in for CuPy that records what happens in which order (no GPU here)."""

from __future__ import annotations

import pytest

from targets.ptx.timing import time_launch


class _FakeCupy:
    """Just the CuPy surface ``time_launch`` touches; every event is 1 ms after the previous one."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.clock = 0.0
        fake = self

        class Event:
            def record(self) -> None:
                fake.clock += 1.0
                self.at = fake.clock
                fake.log.append("record")

            def synchronize(self) -> None:
                pass

        class _Stream:
            def synchronize(self) -> None:
                fake.log.append("sync")

        class cuda:  # noqa: N801 - CuPy's name
            pass

        cuda.Event = Event
        cuda.get_current_stream = staticmethod(lambda: _Stream())
        cuda.get_elapsed_time = staticmethod(lambda start, end: end.at - start.at)
        self.cuda = cuda


def test_warmup_then_timed_calls_each_between_two_events() -> None:
    cupy = _FakeCupy()
    us = time_launch(cupy, lambda: cupy.log.append("launch"), warmup=2, reps=3)
    assert cupy.log == ["launch", "launch", "sync"] + ["record", "launch", "record"] * 3
    assert us == 1000.0  # the median, in microseconds


def test_before_each_runs_outside_the_events() -> None:
    cupy = _FakeCupy()
    time_launch(cupy, lambda: cupy.log.append("launch"), warmup=0, reps=2,
                before_each=lambda: cupy.log.append("flush"))
    assert cupy.log == ["sync"] + ["flush", "record", "launch", "record"] * 2


def test_no_repetitions_is_refused() -> None:
    with pytest.raises(ValueError, match="reps must be at least 1"):
        time_launch(_FakeCupy(), lambda: None, reps=0)

"""``targets.ptx.timing``, the CUDA-event timing loops of qdot-bench and bench/, run against a
stand-in for CuPy that records what happens in which order (no GPU here)."""

from __future__ import annotations

import pytest

from targets.ptx.timing import time_graph, time_launch


class _FakeCupy:
    """Just the CuPy surface ``time_launch`` touches; every event is 1 ms after the previous one."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.clock = 0.0
        fake = self

        class Event:
            def record(self, stream: object = None) -> None:
                fake.clock += 1.0
                self.at = fake.clock
                fake.log.append("record")

            def synchronize(self) -> None:
                pass

        class _Graph:
            def __init__(self, calls: int) -> None:
                self.calls = calls

            def launch(self, stream: object) -> None:
                fake.clock += 10.0 * self.calls  # 10 ms per captured call, back to back
                fake.log.append(f"graph x{self.calls}")

        class _Stream:
            capturing = False

            def __init__(self, non_blocking: bool = False) -> None:
                pass

            def __enter__(self) -> "_Stream":
                return self

            def __exit__(self, *_: object) -> None:
                pass

            def synchronize(self) -> None:
                fake.log.append("sync")

            def begin_capture(self) -> None:
                fake.captured = 0
                fake.log.append("capture")

            def end_capture(self) -> _Graph:
                fake.log.append("end capture")
                return _Graph(fake.captured)

        class cuda:  # noqa: N801 - CuPy's name
            pass

        cuda.Event = Event
        cuda.Stream = _Stream
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


def test_a_graph_of_launches_is_timed_per_launch() -> None:
    cupy = _FakeCupy()

    def launch() -> None:
        cupy.log.append("launch")
        if "capture" in cupy.log and "end capture" not in cupy.log:
            cupy.captured += 1

    us = time_graph(cupy, launch, per_graph=4, reps=3)
    assert cupy.log == ["launch", "sync", "capture"] + ["launch"] * 4 + ["end capture", "graph x4", "sync"] \
        + ["record", "graph x4", "record"] * 3
    assert us == (40.0 + 1.0) / 4 * 1e3  # the graph's 40 ms plus the event's tick, per launch, in microseconds

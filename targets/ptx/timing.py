"""Timing kernel launches on a GPU with CUDA events: the one definition that ``qdot-bench`` and
the benchmark scripts (``bench/``) share.

It takes CuPy as an argument rather than importing it, so that this module imports on any
machine (the GPU machine has CuPy but no xDSL; the CPU machine has xDSL but no CuPy).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any


def time_launch(cupy: Any, fn: Callable[[], None], warmup: int = 3, reps: int = 20,
                before_each: Callable[[], None] | None = None) -> float:
    """Median microseconds of ``fn`` (one launch) over ``reps`` CUDA-event timings, after
    ``warmup`` untimed calls (the first loads the module and allocates). ``before_each`` runs
    before each timed call, outside the events (the q4_K benchmark flushes L2 with it, to time
    a cold call).

    Each timing is a pair of events recorded on the current stream around one call; a kernel
    of a few microseconds can finish before Python submits the next launch, so for those the
    figure includes launch overhead (``bench.gpu_common.time_graph`` times a CUDA graph instead).
    """
    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(reps):
        if before_each is not None:
            before_each()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3)
    return statistics.median(times)

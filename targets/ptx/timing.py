"""Timing kernel launches on a GPU with CUDA events, one launch at a time (``time_launch``) or
back to back in a CUDA graph (``time_graph``): the one definitions that ``qdot-bench`` and the
benchmark scripts (``bench/``) share.

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
    figure includes launch overhead (``time_graph`` times a CUDA graph instead).
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


def time_graph(cupy: Any, fn: Callable[[], None], per_graph: int = 20, reps: int = 7) -> float:
    """Median microseconds of one ``fn`` (any number of launches), timed as a CUDA graph.

    Kernels of a few microseconds finish before Python has submitted the next launch, so
    events around single launches measure the host. Capturing ``per_graph`` calls of ``fn``
    into one graph and timing graph launches measures the GPU, back to back, as
    llama.cpp's benchmark loop (a graph of N copies of the node) does.
    """
    if reps < 1 or per_graph < 1:
        raise ValueError(f"reps and per_graph must be at least 1, got {reps} and {per_graph}")
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        fn()  # load modules and allocate before capturing
        stream.synchronize()
        stream.begin_capture()
        for _ in range(per_graph):
            fn()
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        times = []
        for _ in range(reps):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            graph.launch(stream)
            end.record(stream)
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3 / per_graph)
    return statistics.median(times)

"""Pick the fastest of several kernel configurations for one problem, measured on the GPU, once.

The templates' defaults come from the benchmarks' sweeps on an H200 (bench/RESULTS.md). For
another shape or another GPU, ``autotune`` compiles each candidate (through the kernel cache),
runs it on the caller's arguments, optionally checks the result, times it with CUDA events and
returns the fastest; the choice is remembered in a JSON file keyed by the problem, the device
and the compiler's fingerprint, so the next process asks the file instead of the GPU::

    from compiler.autotune import Candidate, autotune
    from compiler.templates import GemmConfig, gemm_kernel, grid

    cfgs = [GemmConfig(block_n=256, block_k=64, num_warps=8), GemmConfig(block_k=64, num_warps=8)]
    choice = autotune(f"e4m3xe2m1 {M}x{N}x{K}",
                      [Candidate(c.name, gemm_kernel(c), grid(c, M, N), arch="sm_90a", num_stages=4)
                       for c in cfgs],
                      (a, b_t, sa, sb, c, M, N, K), check=lambda: bool(numpy.isfinite(c.get()).all()))
    best = choice.candidate  # and choice.timings: every candidate's µs (inf: refused or wrong)

A candidate that does not compile (a located diagnostic, such as more shared memory than a
CTA may have; the kernel cache remembers it for the GPU machine), does not launch or fails
``check`` is timed as infinity with its reason; if every one fails, the
reasons are the error. The arguments must be safe to run repeatedly (a kernel that adds into
its output may be timed on whatever it left there; ``check`` sees the first launch's result).
An array smaller than a candidate's descriptors reach at its grid fails that candidate before it
launches (``CompiledKernel.check_arrays``; on a GPU machine without xDSL, where nothing is parsed,
the launch is unchecked, as ``LoadedKernel.launch`` is).

What does not depend on the GPU is refused before anything is compiled or measured: a
``Candidate``'s arch, strategy and num_stages when it is built (``compiler.compile``'s checks and
words), and its grid (the launch's: ``launch_checks.checked_grid``), no candidates or repeated labels, ``reps``
below 1, and a cache path that is a directory.
"""

from __future__ import annotations

import errno
import json
import math
import numbers
import os
import statistics
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_CACHE = Path.home() / ".cache" / "qdot" / "autotune.json"


def cache_path() -> Path:
    return Path(os.environ.get("QDOT_AUTOTUNE_CACHE", str(DEFAULT_CACHE)))


@dataclass(frozen=True)
class Candidate:
    label: str
    """Names the candidate in the timings and the cache (unique among the candidates)."""
    source: str
    grid: int | tuple[int, ...]
    """What ``launch(grid=…)`` takes: the number of programs or (x[, y[, z]])."""
    arch: str = "sm_90"
    strategy: str = "auto"
    num_stages: int = 3

    def __post_init__(self) -> None:
        """Refuse a field ``compiler.compile`` would refuse now, by name, rather than as one more
        candidate's failure reason after the others were compiled and timed."""
        from compiler.api import _check_arguments
        from compiler.launch_checks import checked_grid

        if not isinstance(self.label, str):
            raise TypeError(f"Candidate label must be a str, got {type(self.label).__name__}")
        where = f"candidate {self.label!r}"
        if not isinstance(self.source, str):
            raise TypeError(f"{where}: source must be qdot IR text (a str), got {type(self.source).__name__}")
        if not isinstance(self.arch, str):  # compile's None (its default arch) has no meaning here
            raise TypeError(f"{where}: arch must be a str, got {type(self.arch).__name__}")
        try:
            _check_arguments(self.source, "ptx", self.arch, self.strategy, self.num_stages, None)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: {err}") from None
        try:  # the runner's own reading, so a grid it would refuse is refused here in its words
            checked_grid(self.grid, "grid")
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: {err}") from None


@dataclass(frozen=True)
class Choice:
    candidate: Candidate
    us: float
    timings: dict[str, float] = field(default_factory=dict)
    """Microseconds per launch of every candidate measured (inf: it failed, see ``reasons``)."""
    reasons: dict[str, str] = field(default_factory=dict)
    from_cache: bool = False


Measure = Callable[[Candidate], float]
"""Microseconds per launch of one candidate; raises ``CandidateFailed`` with the reason."""


class CandidateFailed(Exception):
    """This candidate cannot be used for the problem (refused, not launchable, wrong result)."""


def autotune(key: str, candidates: Iterable[Candidate], args: Sequence[Any] = (), *,
             check: Callable[[], bool] | None = None, reps: int = 20, cache: str | os.PathLike[str] | None = None,
             measure: Measure | None = None) -> Choice:
    """The fastest of ``candidates`` (any iterable, read once) for the problem ``key`` (see the module
    docstring). ``measure`` replaces the GPU measurement (tests, or another way of timing)."""
    candidates = _checked_candidates(candidates)
    labels = [c.label for c in candidates]
    if isinstance(reps, bool) or not isinstance(reps, numbers.Integral) or reps < 1:
        raise ValueError(f"autotune: reps must be a positive integer (launches per timing), got {reps!r}")
    if check is not None and not callable(check):
        raise TypeError(f"autotune: check must be a function of no arguments or None, got {type(check).__name__}")
    path = Path(cache) if cache is not None else cache_path()
    _check_cache_path(path)
    by_label = {c.label: c for c in candidates}
    measure = measure or _gpu_measure(args, check, int(reps))
    entry_key = _entry_key(key, labels, measure)
    stored = _stored_choice(_load(path).get(entry_key), by_label)
    if stored is not None:
        return stored
    timings: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for candidate in candidates:
        try:
            timings[candidate.label] = measure(candidate)
        except CandidateFailed as failure:
            timings[candidate.label], reasons[candidate.label] = math.inf, str(failure)
    best = min(candidates, key=lambda c: timings[c.label])
    if math.isinf(timings[best.label]):
        raise ValueError(f"autotune {key!r}: no candidate works: "
                         + "; ".join(f"{label}: {reason}" for label, reason in reasons.items()))
    choice = Choice(best, timings[best.label], timings, reasons)
    _store(path, entry_key, {"label": best.label, "us": choice.us,
                             "timings": {k: (v if math.isfinite(v) else None) for k, v in timings.items()},
                             "reasons": reasons})
    return choice


def _checked_candidates(candidates: Iterable[Candidate]) -> list[Candidate]:
    """``candidates`` as a list (a generator is read once, here), each a ``Candidate``, at least one, labels
    distinct: the labels key the timings and the cache."""
    what = "one Candidate" if isinstance(candidates, Candidate) else type(candidates).__name__
    try:
        listed = list(candidates)
    except TypeError:
        raise TypeError(f"autotune: candidates must be an iterable of Candidate, got {what}") from None
    for c in listed:
        if not isinstance(c, Candidate):
            raise TypeError(f"autotune: candidates must be Candidate objects, got {type(c).__name__}")
    if not listed:
        raise ValueError("autotune: no candidates to choose from")
    labels = [c.label for c in listed]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        twice = ", ".join(map(repr, repeated))
        raise ValueError(f"autotune: candidates need distinct labels, got {twice} more than once")
    return listed


def _check_cache_path(path: Path) -> None:
    """Refuse a cache path that cannot be the JSON file before measuring, not when storing the choice
    after every candidate was compiled and timed."""
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "the autotune cache must be a JSON file, not a directory", str(path))
    existing = next((p for p in path.parents if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, f"the autotune cache {str(path)!r} lies under a file", str(existing))


def _entry_key(key: str, labels: Sequence[str], measure: Measure) -> str:
    """The problem, the candidate set, the device and the compiler: a choice made for other
    candidates, another GPU or another compiler is not reused."""
    from compiler.kernel_cache import compiler_fingerprint

    device = getattr(measure, "device", "custom")
    return f"{key} | {', '.join(sorted(labels))} | {device} | {compiler_fingerprint()}"


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # missing or unreadable: measure again
        return {}
    return data if isinstance(data, dict) else {}


def _is_time(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _stored_choice(stored: object, by_label: dict[str, Candidate]) -> Choice | None:
    """The choice an entry records, or None (measure again) when it is not one ``_store`` writes: a hand-edited or
    foreign entry must not fail the call, nor pass a wrong type on as a time."""
    if not isinstance(stored, dict) or not isinstance(stored.get("label"), str) or stored["label"] not in by_label:
        return None
    timings, reasons = stored.get("timings", {}), stored.get("reasons", {})
    if (not _is_time(stored.get("us")) or not isinstance(timings, dict) or not isinstance(reasons, dict)
            or not all(isinstance(k, str) and (v is None or _is_time(v)) for k, v in timings.items())
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in reasons.items())):
        return None
    return Choice(by_label[stored["label"]], float(stored["us"]),
                  {label: math.inf if us is None else float(us) for label, us in timings.items()}, dict(reasons),
                  from_cache=True)


def _store(path: Path, entry_key: str, entry: dict[str, Any]) -> None:
    """Record the choice; a cache that cannot be written warns and the choice is still returned (it cost a
    measurement of every candidate)."""
    data = _load(path)
    data[entry_key] = entry
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError as err:
        warnings.warn(f"autotune cache {path} not written ({err}); the choice is not remembered", RuntimeWarning,
                      stacklevel=3)
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass


def _gpu_measure(args: Sequence[Any], check: Callable[[], bool] | None, reps: int) -> Measure:
    """Compile (kernel cache), load, launch once, check, then time ``reps`` launches between
    CUDA events, best median of three."""
    from compiler.kernel_cache import get_or_compile
    from targets.ptx.runner import load, require_cupy

    cupy = require_cupy()
    refusals = _refusal_types()

    def measure(candidate: Candidate) -> float:
        try:
            compiled = get_or_compile(candidate.source, arch=candidate.arch, strategy=candidate.strategy,
                                      num_stages=candidate.num_stages)
            _check_arrays(candidate, compiled, args)
            kernel = load(compiled.ptx, compiled.kernels[0])
        except refusals as err:
            raise CandidateFailed(str(err)) from None
        kernel.launch(*args, grid=candidate.grid)
        if check is not None and not check():
            raise CandidateFailed("wrong result (check failed)")
        medians = []
        for _ in range(3):
            times = []
            for _ in range(3):
                start, end = cupy.cuda.Event(), cupy.cuda.Event()
                start.record()
                for _ in range(reps):
                    kernel.launch(*args, grid=candidate.grid, sync=False)
                end.record()
                end.synchronize()
                times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3 / reps)
            medians.append(statistics.median(times))
        return min(medians)

    measure.device = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()  # type: ignore[attr-defined]
    return measure


def _check_arrays(candidate: Candidate, compiled: Any, args: Sequence[Any]) -> None:
    """``CompiledKernel.check_arrays`` of the candidate's first kernel at its grid: ``ValueError`` naming
    each array smaller than its descriptors reach. The kernel cache keeps PTX, not the parsed module the
    check reads, so the source is parsed again; on a GPU machine without xDSL it is not checked."""
    from compiler.api import CompiledKernel, _parse

    try:
        _, module = _parse(candidate.source)
    except ImportError:
        return
    CompiledKernel(compiled, compiled.pipeline, source=module).check_arrays(args, compiled.kernels[0].name,
                                                                           candidate.grid)


def _refusal_types() -> tuple[type[Exception], ...]:
    """What a candidate may fail with: a diagnostic of the compiler, a launch the device refuses.
    A GPU machine without xDSL takes its kernels from the cache and compiles nothing."""
    try:
        from compiler.diagnostics import QdotError
    except ImportError:
        return (ValueError,)
    return (QdotError, ValueError)

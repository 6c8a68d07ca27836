"""A content-addressed cache of compiled kernels (PTX + metadata).

The GPU machine we measure on has CuPy but not our compiler's dependencies, so
kernels are compiled here and the cache travels with the working tree: every GPU
test and benchmark asks ``get_or_compile``; on this machine that compiles and
stores, on the GPU machine it finds the stored PTX (and fails loudly, never
silently, if an entry is missing). The key covers the source text and every
option that changes the output. A kernel the compiler refuses (a diagnostic: say, more
shared memory than a CTA may have) is remembered too, so that the GPU machine, which cannot
compile, gives the same answer: ``KernelRefused`` with the diagnostic.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from targets.ptx.kernel_info import KernelInfo

DEFAULT_DIR = Path(__file__).resolve().parent.parent / ".devrun" / "kernels"


class KernelRefused(ValueError):
    """The compiler refused the kernel; the message is its diagnostic."""


def cache_dir() -> Path:
    """$QDOT_KERNEL_CACHE, or ``.devrun/kernels`` when it is unset or empty (an empty value is not the current
    directory)."""
    return Path(os.environ.get("QDOT_KERNEL_CACHE") or str(DEFAULT_DIR))


@dataclass(frozen=True)
class CachedKernel:
    key: str
    ptx: str
    kernels: tuple[KernelInfo, ...]
    pipeline: str


_FINGERPRINT: list[str] = []
_SOURCES_FINGERPRINT: list[str] = []


def sources_fingerprint() -> str:
    """The hash of this tree's compiler sources (``compiler``, ``dialects``, ``passes``, ``targets``)."""
    if not _SOURCES_FINGERPRINT:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for package in ("compiler", "dialects", "passes", "targets"):
            for path in sorted((root / package).rglob("*.py")):
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
        _SOURCES_FINGERPRINT.append(h.hexdigest()[:16])
    return _SOURCES_FINGERPRINT[0]


def compiler_fingerprint() -> str:
    """A hash of the compiler's own sources, so a changed compiler never reuses stale PTX.

    On a machine without the compiler (the GPU machine) the cache was filled elsewhere
    and the fingerprint recorded with it is used instead (QDOT_COMPILER_FINGERPRINT). Where
    the override names another compiler than this tree's, its entries are still read (a cache of
    an earlier tree whose kernel text is known to be the same), but ``get_or_compile`` stores
    nothing under it: this compiler's output would pass for that one's.
    """
    if not _FINGERPRINT:
        _FINGERPRINT.append(os.environ.get("QDOT_COMPILER_FINGERPRINT") or sources_fingerprint())
    return _FINGERPRINT[0]


def cache_key(source: str, arch: str, strategy: str, num_stages: int, pipeline: str | None) -> str:
    """``pipeline``: None is the default pipeline for (arch, strategy, num_stages), "" none at all
    (``compiler.compile``'s meaning), so the two must not share a key."""
    h = hashlib.sha256()
    for part in (compiler_fingerprint(), source, arch, strategy, str(num_stages),
                 "<default>" if pipeline is None else pipeline):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _source_text(source: str | Path) -> str:
    """The IR a ``source`` means, by ``compiler.compile``'s own rule (``source_path``): a path (a ``Path``, or a
    one-line str naming a file) is keyed by the file's text, not by its name."""
    from compiler.api import source_path  # imports no xDSL: the GPU machine reads the rule too

    if not isinstance(source, (str, Path)):
        return source
    path = source_path(source)
    return source if path is None else path.read_text(encoding="utf-8")


def _stored(ptx_path: Path, meta_path: Path, key: str) -> CachedKernel | str:
    """The entry under ``key``, or why it cannot be used (unreadable, not what ``get_or_compile`` writes)."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        ptx = ptx_path.read_text(encoding="utf-8")
        if not isinstance(meta, dict) or not isinstance(meta.get("pipeline"), str):
            return f"{meta_path} is not an entry's metadata (an object with 'kernels' and 'pipeline')"
        listed = meta.get("kernels")
        if not isinstance(listed, list) or not listed or not all(isinstance(k, dict) for k in listed):
            return f"{meta_path} lists no kernels"
        kernels = tuple(KernelInfo.from_json(json.dumps(k)) for k in listed)
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as err:
        return f"cannot read entry {key}: {type(err).__name__}: {err}"
    missing = [k.name for k in kernels if f".entry {k.name}(" not in ptx]
    if missing:
        return f"{ptx_path} does not define {', '.join(missing)} (empty or cut short)"
    return CachedKernel(key, ptx, kernels, meta["pipeline"])


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a process reading the entry meanwhile sees the old file or the new one, never a part."""
    scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
    finally:
        try:
            scratch.unlink(missing_ok=True)
        except OSError:
            pass


def _store(directory: Path, files: list[tuple[Path, str]]) -> None:
    """Write an entry's files (metadata last: an entry counts once both exist), or warn and go on without the
    cache: a directory that cannot be written must not fail a compile that succeeded."""
    if os.environ.get("QDOT_COMPILER_FINGERPRINT") and compiler_fingerprint() != sources_fingerprint():
        warnings.warn(f"kernel cache: not storing under QDOT_COMPILER_FINGERPRINT={compiler_fingerprint()}, which "
                      f"is not this compiler's ({sources_fingerprint()})", RuntimeWarning, stacklevel=3)
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, text in files:
            _write(path, text)
    except OSError as err:
        warnings.warn(f"kernel cache {directory} not written ({err}); the kernel is compiled but not cached",
                      RuntimeWarning, stacklevel=3)


def get_or_compile(
    source: str | Path, *, arch: str = "sm_90", strategy: str = "auto", num_stages: int = 3,
    pipeline: str | None = None
) -> CachedKernel:
    source = _source_text(source)
    key = cache_key(source, arch, strategy, num_stages, pipeline)
    directory = cache_dir()
    ptx_path = directory / f"{key}.ptx"
    meta_path = directory / f"{key}.json"
    refused_path = directory / f"{key}.refused"
    problem = None
    if refused_path.is_file():
        try:
            diagnostic = refused_path.read_text(encoding="utf-8")
        except (OSError, ValueError) as err:
            diagnostic, problem = "", f"cannot read {refused_path}: {err}"
        if diagnostic:
            raise KernelRefused(diagnostic)
        problem = problem or f"{refused_path} is empty"
    if ptx_path.is_file() and meta_path.is_file():
        entry = _stored(ptx_path, meta_path, key)
        if isinstance(entry, CachedKernel):
            return entry
        problem = entry
    try:
        from compiler.api import compile as compile_source
    except ImportError as err:  # pragma: no cover - only on a machine without the compiler
        what = f"is unusable ({problem})" if problem else "is not in the cache"
        raise RuntimeError(f"kernel {key} {what} {directory} and the compiler is unavailable") from err
    from compiler.diagnostics import QdotError

    # strategy and num_stages configure the default pipeline; with a pipeline (whose passes carry them, as
    # bench.mmq's fold pipelines do) they only key the cache, as they always have
    options = {"strategy": strategy, "num_stages": num_stages} if pipeline is None else {}
    try:
        compiled = compile_source(source, arch=arch, pipeline=pipeline, **options)
    except QdotError as err:
        _store(directory, [(refused_path, err.render())])
        raise KernelRefused(err.render()) from err
    meta = json.dumps({"kernels": [json.loads(k.to_json()) for k in compiled.kernels], "pipeline": compiled.pipeline},
                      indent=1, sort_keys=True)
    _store(directory, [(ptx_path, compiled.ptx or ""), (meta_path, meta)])
    return CachedKernel(key, compiled.ptx or "", tuple(compiled.kernels), compiled.pipeline)

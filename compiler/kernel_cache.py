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
import sys
import tempfile
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
_SOURCE_STATS: dict[Path, tuple[int, int]] = {}
"""Size and modification time of each file ``sources_fingerprint`` hashed, when it hashed them."""
_WARNED: list[str] = []

TOOLCHAIN_PACKAGES = ("xdsl", "llvmlite", "numpy", "ml_dtypes")
"""The libraries whose code makes the PTX with qdot's (xDSL's passes and printer, LLVM in llvmlite, the numerics):
another release of one may make other PTX from the same sources, so their versions are in the fingerprint."""


def sources_fingerprint() -> str:
    """The hash of this tree's compiler sources (``compiler``, ``dialects``, ``passes``, ``targets``): what
    ``bench/run_gpu.sh`` compares with the ``SOURCES`` a cache was filled from (the GPU machine, which has no
    xDSL, can hash the sources but not name the toolchain)."""
    if not _SOURCES_FINGERPRINT:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for package in ("compiler", "dialects", "passes", "targets"):
            for path in sorted((root / package).rglob("*.py")):
                stat = path.stat()
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
                _SOURCE_STATS[path] = (stat.st_size, stat.st_mtime_ns)
        _SOURCES_FINGERPRINT.append(h.hexdigest()[:16])
    return _SOURCES_FINGERPRINT[0]


def toolchain() -> str:
    """Python's version and those of ``TOOLCHAIN_PACKAGES`` (``absent`` for one not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"python {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"]
    for package in TOOLCHAIN_PACKAGES:
        try:
            parts.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package} absent")
    return ", ".join(parts)


def own_fingerprint() -> str:
    """This compiler's fingerprint: its sources and the toolchain that turns them into PTX."""
    return hashlib.sha256(f"{sources_fingerprint()}\0{toolchain()}".encode()).hexdigest()[:16]


def sources_changed() -> list[Path]:
    """The files hashed by ``sources_fingerprint`` that have changed (or gone) since: a compile now may run code
    that fingerprint does not describe (a module imported after the change), so its output is not stored."""
    changed = []
    for path, seen in _SOURCE_STATS.items():
        try:
            stat = path.stat()
        except OSError:
            changed.append(path)
            continue
        if (stat.st_size, stat.st_mtime_ns) != seen:
            changed.append(path)
    return changed


def compiler_fingerprint() -> str:
    """A hash of the compiler's own sources and toolchain (``own_fingerprint``), so a changed compiler never
    reuses stale PTX. It is taken when this module is imported, before the passes are: a source edited while a
    long compile runs (``bench.prepare``) is then seen by ``sources_changed`` and nothing more is stored.

    On a machine without the compiler (the GPU machine) the cache was filled elsewhere
    and the fingerprint recorded with it is used instead (QDOT_COMPILER_FINGERPRINT). Where
    the override names another compiler than this tree's, its entries are still read (a cache of
    an earlier tree whose kernel text is known to be the same), with a warning where this machine has
    the compiler (it could tell), but ``get_or_compile`` stores nothing under it: this compiler's
    output would pass for that one's.
    """
    if not _FINGERPRINT:
        _FINGERPRINT.append(os.environ.get("QDOT_COMPILER_FINGERPRINT") or own_fingerprint())
    return _FINGERPRINT[0]


def _foreign_override() -> str | None:
    """Why the entries read are another compiler's (the override names one, and this machine's differs), or None."""
    override = os.environ.get("QDOT_COMPILER_FINGERPRINT")
    if not override:
        return None
    import importlib.util

    try:
        has_compiler = importlib.util.find_spec("xdsl") is not None
    except ImportError:
        has_compiler = False
    if not has_compiler:
        return None  # the GPU machine: no toolchain to fingerprint (run_gpu.sh compares the sources)
    own = own_fingerprint()
    return None if override == own else f"QDOT_COMPILER_FINGERPRINT={override}, not this compiler's ({own})"


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
    """The entry under ``key``, or why it cannot be used (unreadable, not what ``get_or_compile`` writes, or a
    PTX file whose hash is not the one its metadata records: cut short or damaged in a copy)."""
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
    recorded = meta.get("ptx_sha256")  # entries written before it was recorded have none
    if recorded is not None and recorded != _sha256(ptx):
        return f"{ptx_path} is not the PTX its metadata records ({len(ptx)} characters; cut short or damaged)"
    missing = [k.name for k in kernels if f".entry {k.name}(" not in ptx]
    if missing:
        return f"{ptx_path} does not define {', '.join(missing)} (empty or cut short)"
    return CachedKernel(key, ptx, kernels, meta["pipeline"])


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a process reading the entry meanwhile sees the old file or the new one, never a part.
    The scratch file is unique to the call (``mkstemp``), so threads of one process writing one entry do not
    share it."""
    fd, scratch = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(scratch, path)
    finally:
        try:
            os.unlink(scratch)
        except OSError:
            pass


def _store(directory: Path, files: list[tuple[Path, str]]) -> None:
    """Write an entry's files (metadata last: an entry counts once both exist), or warn and go on without the
    cache: a directory that cannot be written must not fail a compile that succeeded. Nothing is stored under a
    fingerprint that does not describe the code that compiled it: another compiler's (the override), or this
    one's after its sources changed."""
    if os.environ.get("QDOT_COMPILER_FINGERPRINT") and compiler_fingerprint() != own_fingerprint():
        warnings.warn(f"kernel cache: not storing under QDOT_COMPILER_FINGERPRINT={compiler_fingerprint()}, which "
                      f"is not this compiler's ({own_fingerprint()})", RuntimeWarning, stacklevel=3)
        return
    changed = sources_changed()
    if changed:
        warnings.warn(f"kernel cache: not storing: {len(changed)} compiler source(s) changed since the fingerprint "
                      f"{compiler_fingerprint()} was taken ({changed[0]}); restart to cache under the new one",
                      RuntimeWarning, stacklevel=3)
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, text in files:
            _write(path, text)
    except OSError as err:
        warnings.warn(f"kernel cache {directory} not written ({err}); the kernel is compiled but not cached",
                      RuntimeWarning, stacklevel=3)


def _checked_options(source: object, arch: object, strategy: object, num_stages: object,
                     pipeline: object) -> int:
    """``num_stages`` as an int, after refusing what ``compiler.compile`` refuses by type: the key is built from
    these, so a value of another type must not find (or make) an entry another call's valid one would."""
    for name, value in (("arch", arch), ("strategy", strategy)):
        if not isinstance(value, str):
            raise TypeError(f"get_or_compile: {name} must be a str, got {type(value).__name__}")
    if not isinstance(source, (str, Path)):
        raise TypeError(f"get_or_compile: source must be IR text or a path (str or Path), got {type(source).__name__}")
    if pipeline is not None and not isinstance(pipeline, str):
        raise TypeError(f"get_or_compile: pipeline must be a str or None, got {type(pipeline).__name__}")
    if isinstance(num_stages, bool) or not isinstance(num_stages, int):
        raise TypeError(f"get_or_compile: num_stages must be an int, got {type(num_stages).__name__}")
    return num_stages


def get_or_compile(
    source: str | Path, *, arch: str = "sm_90", strategy: str = "auto", num_stages: int = 3,
    pipeline: str | None = None
) -> CachedKernel:
    num_stages = _checked_options(source, arch, strategy, num_stages, pipeline)
    source = _source_text(source)
    key = cache_key(source, arch, strategy, num_stages, pipeline)
    directory = cache_dir()
    ptx_path = directory / f"{key}.ptx"
    meta_path = directory / f"{key}.json"
    refused_path = directory / f"{key}.refused"
    if (foreign := _foreign_override()) is not None and foreign not in _WARNED:
        _WARNED.append(foreign)
        warnings.warn(f"kernel cache: reading entries compiled under {foreign}: they may not be what this tree "
                      "compiles", RuntimeWarning, stacklevel=2)
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
        from compiler.diagnostics import QdotError  # imports xDSL: missing on the GPU machine
    except ImportError as err:  # pragma: no cover - only on a machine without the compiler
        what = f"is unusable ({problem})" if problem else "is not in the cache"
        raise RuntimeError(f"kernel {key} {what} {directory} and the compiler is unavailable") from err

    # strategy and num_stages configure the default pipeline; with a pipeline (whose passes carry them, as
    # bench.mmq's fold pipelines do) they only key the cache, as they always have
    options = {"strategy": strategy, "num_stages": num_stages} if pipeline is None else {}
    try:
        compiled = compile_source(source, arch=arch, pipeline=pipeline, **options)
    except QdotError as err:
        _store(directory, [(refused_path, err.render())])
        raise KernelRefused(err.render()) from err
    ptx = compiled.ptx or ""
    meta = json.dumps({"kernels": [json.loads(k.to_json()) for k in compiled.kernels], "pipeline": compiled.pipeline,
                       "ptx_sha256": _sha256(ptx)}, indent=1, sort_keys=True)
    _store(directory, [(ptx_path, ptx), (meta_path, meta)])
    return CachedKernel(key, ptx, tuple(compiled.kernels), compiled.pipeline)


compiler_fingerprint()  # now, before the passes are imported (see its docstring)

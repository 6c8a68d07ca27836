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
from dataclasses import dataclass
from pathlib import Path

from targets.ptx.kernel_info import KernelInfo

DEFAULT_DIR = Path(__file__).resolve().parent.parent / ".devrun" / "kernels"


class KernelRefused(ValueError):
    """The compiler refused the kernel; the message is its diagnostic."""


def cache_dir() -> Path:
    return Path(os.environ.get("QDOT_KERNEL_CACHE", str(DEFAULT_DIR)))


@dataclass(frozen=True)
class CachedKernel:
    key: str
    ptx: str
    kernels: tuple[KernelInfo, ...]
    pipeline: str


_FINGERPRINT: list[str] = []


def compiler_fingerprint() -> str:
    """A hash of the compiler's own sources, so a changed compiler never reuses stale PTX.

    On a machine without the compiler (the GPU machine) the cache was filled elsewhere
    and the fingerprint recorded with it is used instead (QDOT_COMPILER_FINGERPRINT).
    """
    if not _FINGERPRINT:
        override = os.environ.get("QDOT_COMPILER_FINGERPRINT")
        if override:
            _FINGERPRINT.append(override)
        else:
            root = Path(__file__).resolve().parent.parent
            h = hashlib.sha256()
            for package in ("compiler", "dialects", "passes", "targets"):
                for path in sorted((root / package).rglob("*.py")):
                    h.update(str(path.relative_to(root)).encode())
                    h.update(path.read_bytes())
            _FINGERPRINT.append(h.hexdigest()[:16])
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


def get_or_compile(
    source: str, *, arch: str = "sm_90", strategy: str = "auto", num_stages: int = 3, pipeline: str | None = None
) -> CachedKernel:
    key = cache_key(source, arch, strategy, num_stages, pipeline)
    directory = cache_dir()
    ptx_path = directory / f"{key}.ptx"
    meta_path = directory / f"{key}.json"
    refused_path = directory / f"{key}.refused"
    if refused_path.is_file():
        raise KernelRefused(refused_path.read_text(encoding="utf-8"))
    if ptx_path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        kernels = tuple(KernelInfo.from_json(json.dumps(k)) for k in meta["kernels"])
        return CachedKernel(key, ptx_path.read_text(), kernels, meta["pipeline"])
    try:
        from compiler.api import compile as compile_source
    except ImportError as err:  # pragma: no cover - only on a machine without the compiler
        raise RuntimeError(f"kernel {key} is not in the cache {directory} and the compiler is unavailable") from err
    from compiler.diagnostics import QdotError

    # strategy and num_stages configure the default pipeline; with a pipeline (whose passes carry them, as
    # bench.mmq's fold pipelines do) they only key the cache, as they always have
    options = {"strategy": strategy, "num_stages": num_stages} if pipeline is None else {}
    try:
        compiled = compile_source(source, arch=arch, pipeline=pipeline, **options)
    except QdotError as err:
        directory.mkdir(parents=True, exist_ok=True)
        refused_path.write_text(err.render(), encoding="utf-8")
        raise KernelRefused(err.render()) from err
    directory.mkdir(parents=True, exist_ok=True)
    ptx_path.write_text(compiled.ptx or "")
    meta_path.write_text(
        json.dumps({"kernels": [json.loads(k.to_json()) for k in compiled.kernels], "pipeline": compiled.pipeline},
                   indent=1, sort_keys=True))
    return CachedKernel(key, compiled.ptx or "", tuple(compiled.kernels), compiled.pipeline)

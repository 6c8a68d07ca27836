"""Running a documentation block that launches on a GPU (README snippets, docs/python.md's ``python gpu`` blocks)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def exec_on_a_gpu(code: str, filename: str, module_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``code`` from the repository root as ``filename`` (tracebacks point into it), or skip, saying why, where
    CuPy finds no GPU or xDSL is missing (the blocks compile with ``compiler.compile``)."""
    from targets.ptx.runner import GpuUnavailable, require_cupy

    try:
        require_cupy()
    except GpuUnavailable as err:
        pytest.skip(f"no GPU: {err}")
    pytest.importorskip("xdsl", reason="the block compiles with compiler.compile, which needs xDSL")
    monkeypatch.chdir(ROOT)
    exec(compile(code, filename, "exec"), {"__name__": module_name})  # noqa: S102

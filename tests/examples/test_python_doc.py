"""docs/python.md's examples run as written.

Every ```` ```python ```` block of the page runs in order, each in a namespace of its own (a block imports what it
uses, so it can be copied alone), with the working directory at the repository root, where the blocks find
``examples/``. A block that only computes checks nothing the page says, so each must assert. Blocks fenced
```` ```python gpu ```` launch on a GPU: here they are compiled as Python (a syntax error fails), and run only where
CuPy finds a GPU (``-m gpu``), skipped otherwise. A fence whose info string starts with ``python`` but is neither of
the two fails, rather than being left out silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.examples.gpu_exec import exec_on_a_gpu

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "python.md"
MIN_BLOCKS = 8
"""The page covers compile, emulate, the templates, choose_mmq, autotune and numerics: fewer blocks means some went
missing (or a fence changed and the blocks are no longer found)."""

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)


def _blocks() -> list[tuple[str, int, str]]:
    """(info string, first line of the code, code) of every fenced block of the page, in order."""
    text = PAGE.read_text(encoding="utf-8")
    return [(m.group(1).strip(), text.count("\n", 0, m.start(2)) + 1, m.group(2)) for m in FENCE.finditer(text)]


BLOCKS = _blocks()
PYTHON = [(line, code) for info, line, code in BLOCKS if info == "python"]
GPU = [(line, code) for info, line, code in BLOCKS if info == "python gpu"]


def _ids(blocks: list[tuple[int, str]]) -> list[str]:
    return [f"line{line}" for line, _ in blocks]


def test_page_has_its_blocks() -> None:
    odd = [f"line {line}: ```{info}" for info, line, _ in BLOCKS
           if info.startswith("python") and info not in ("python", "python gpu")]
    assert not odd, f"docs/python.md has fences this test does not know (```python or ```python gpu): {odd}"
    assert len(PYTHON) >= MIN_BLOCKS, f"docs/python.md has {len(PYTHON)} ```python blocks, fewer than {MIN_BLOCKS}"
    assert GPU, "docs/python.md shows no ```python gpu block (compiler.run, CompiledKernel.launch)"
    silent = [line for line, code in PYTHON + GPU if not re.search(r"^\s*assert\b", code, re.M)]
    assert not silent, f"blocks of docs/python.md that assert nothing (first lines {silent})"


@pytest.mark.parametrize("line,code", PYTHON, ids=_ids(PYTHON))
def test_block_runs(line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # padded so that a traceback's line numbers are the page's
    exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), {"__name__": "python_doc"})  # noqa: S102


@pytest.mark.parametrize("line,code", GPU, ids=_ids(GPU))
def test_gpu_block_is_python(line: int, code: str) -> None:
    compile("\n" * (line - 1) + code, str(PAGE), "exec")


@pytest.mark.gpu
@pytest.mark.parametrize("line,code", GPU, ids=_ids(GPU))
def test_gpu_block_runs_on_a_gpu(line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exec_on_a_gpu("\n" * (line - 1) + code, str(PAGE), "python_doc", monkeypatch)

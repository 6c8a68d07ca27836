"""docs/walkthrough.md is what docs/gen_walkthrough.py writes from today's compiler.

The page's excerpts, op counts, PTX lines, ptxas report and measured row are all cut from
real output; regenerating it and comparing catches any pass whose output changed since.
PTX text and ptxas's figures depend on the tools, so the comparison runs only with the
ptxas and LLVM versions the page records. The excerpt helpers are tested on their own, so a
broken helper cannot make the page comparison vacuous.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from compiler.tools import find_ptxas
from examples.catalog import recorded_versions, tool_versions

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "walkthrough.md"


def _load() -> ModuleType:
    name = "qdot_docs_gen_walkthrough"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "gen_walkthrough.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


GEN = _load()


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas (pip install -e '.[dev]')")
def test_walkthrough_is_current() -> None:
    page = PAGE.read_text(encoding="utf-8")
    versions = tool_versions()
    if recorded_versions(page) != versions:
        pytest.skip(f"docs/walkthrough.md was made with {recorded_versions(page)}; this machine has {versions}")
    assert GEN.render(versions) == page, "docs/walkthrough.md is out of date: run python docs/gen_walkthrough.py"


def test_walkthrough_shows_every_pass_of_the_pipeline() -> None:
    from compiler.pipelines import PtxOptions, ptx_pipeline

    page = PAGE.read_text(encoding="utf-8")
    for name in ptx_pipeline(PtxOptions(arch=GEN.ARCH)).split(","):
        assert f"`{name}`" in page, f"docs/walkthrough.md has no section for {name}"


def test_pick_marks_skipped_lines_and_refuses_missing_ones() -> None:
    text = "a = 1\n  b = 2\n  c = 3\n  d = 4\ne = 5"
    assert GEN.pick(text, [(r"^a", 1), (r"d =", 1)]) == ["a = 1", "  // …", "  d = 4"]
    assert GEN.pick(text, [(r"b =", 0), (r"d =", 1)]) == ["  b = 2", "  c = 3", "  d = 4"]
    with pytest.raises(LookupError, match="no line matching"):
        GEN.pick(text, [(r"zzz", 1)])


def test_layouts_are_printed_once_as_aliases() -> None:
    aliases = GEN.Aliases()
    line = ("%x = qgpu.local_load %y : !qgpu.memdesc<64x128xi8, #qgpu.shared<{vec = 16, order = [0, 1]}>> -> "
            "tensor<64x128xi8, #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2}>, kWidth = 4}>>")
    assert aliases.apply(line) == ("%x = qgpu.local_load %y : !qgpu.memdesc<64x128xi8, #shared0> -> "
                                   "tensor<64x128xi8, #dot_b>")
    assert aliases.definitions == ["#shared0 = #qgpu.shared<{vec = 16, order = [0, 1]}>",
                                   "#mma = #qgpu.mma<{versionMajor = 2}>",
                                   "#dot_b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>"]


def test_long_operand_lists_are_shortened() -> None:
    line = "%9 = builtin.unrealized_conversion_cast %1, %2, %3, %4, %5, %6, %7 : i32, i32, i32, i32, i32, i32, i32 to t"
    assert GEN.shorten(line) == "%9 = builtin.unrealized_conversion_cast %1, %2, …, %7 : i32, i32, …, i32 to t"
    assert GEN.shorten("A[%1, %2, %3, %4]") == "A[%1, %2, %3, %4]"

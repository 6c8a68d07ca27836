"""``compiler.compile(..., target="sass")``: the kernel's machine code as text (ptxas, then cuobjdump)."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler.tools import ToolUnavailable, find_ptxas, find_tool

ROOT = Path(__file__).resolve().parent.parent.parent
needs_tools = pytest.mark.skipif(find_ptxas() is None or find_tool("cuobjdump") is None or find_tool("nvdisasm") is None,
                                 reason="needs ptxas, cuobjdump and nvdisasm (pip install -e '.[dev]')")


@needs_tools
def test_sass_of_the_int8_example() -> None:
    kernel = compiler.compile(ROOT / "examples" / "int8_gemm.mlir", target="sass", arch="sm_90")
    assert isinstance(kernel.data, str)
    assert "Function : gemm_i8_i8_noscale_128x128x64_w8" in kernel.data
    assert "IMMA.16832.S8.S8" in kernel.data
    assert kernel.ptx is not None and ".entry gemm_i8_i8_noscale_128x128x64_w8" in kernel.ptx


def test_missing_disassembler_is_reported_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    import targets.ptx.sass as sass

    monkeypatch.setattr(sass, "find_tool", lambda name: None)
    with pytest.raises(ToolUnavailable, match="cuobjdump and nvdisasm not found: put a CUDA toolkit on the PATH"):
        sass.disassemble(b"")

"""A standard output that cannot take the result (``qdot-translate k.mlir > /dev/full``) is the
machine's problem, said as ``-o /dev/full`` says it: ``tool: error: cannot write to standard
output: No space left on device``, status 1. It was an internal error ("this is a bug in qdot"),
status 2. A closed pipe stays quiet (``test_tools_closed_pipe.py``)."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli.common import ToolError, write_output

ROOT = Path(__file__).resolve().parents[2]


class _Refusing(io.StringIO):
    """A standard output whose flush fails as a full disk or a closed pipe makes it fail."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error
        self.buffer = self  # the bytes path writes here, and flushes the same way

    def write(self, data):  # noqa: ANN001, ANN201 - text or bytes, as the tools write them
        return len(data)

    def flush(self) -> None:
        raise self.error


@pytest.mark.parametrize("data", ["func.func @f() {}\n", b"\x7fELF"], ids=["text", "bytes"])
def test_a_full_standard_output_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, data: str | bytes) -> None:
    monkeypatch.setattr(sys, "stdout", _Refusing(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))))
    with pytest.raises(ToolError, match="^cannot write to standard output: No space left on device$"):
        write_output(None, data)


def test_a_closed_pipe_is_left_to_tool_main(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Refusing(BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))))
    with pytest.raises(BrokenPipeError):
        write_output("-", "x\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("tool,args", [
    ("qdot-translate", ["examples/int8_gemm.mlir", "--target", "ptx"]),
    ("qdot-translate", ["examples/agx_tile_fp16.mlir", "--target", "agx3b", "--format", "bin"]),  # bytes
    ("qdot-opt", ["examples/int8_gemm.mlir"]),
    ("qdot-translate", ["--print-pipeline"]),
], ids=["translate-ptx", "translate-bin", "opt", "print-pipeline"])
def test_the_tools_on_dev_full(tool: str, args: list[str]) -> None:
    module = {"qdot-translate": "compiler.cli.translate", "qdot-opt": "compiler.cli.opt"}[tool]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert (done.returncode, done.stderr) == (1, f"{tool}: error: cannot write to standard output: "
                                                 "No space left on device\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("module,flag", [("compiler.cli.translate", "--help"), ("compiler.cli.opt", "--version"),
                                         ("compiler.cli.bench", "--help")])
def test_help_and_version_on_dev_full(module: str, flag: str) -> None:
    """argparse swallows a failed write of --help (status 0, nothing written); --version's print raised out of
    the tool as an internal error. Both are the output failing: status 1 and a line that says so."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", module, flag], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    tool = {"compiler.cli.translate": "qdot-translate", "compiler.cli.opt": "qdot-opt",
            "compiler.cli.bench": "qdot-bench"}[module]
    assert (done.returncode, done.stderr) == (1, f"{tool}: error: cannot write its output: No space left on device\n")

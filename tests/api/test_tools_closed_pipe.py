"""A tool whose reader goes away (``qdot-translate … | head -1``) stops quietly.

Writing to a closed pipe raises ``BrokenPipeError``; before, the tools reported it as an
internal error ("this is a bug in qdot") with status 2, after a ``head`` that had read all it
wanted. Now they end with status 120 — what ``exit_process`` gives a failed flush — and say
nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tool,args", [
    ("compiler.cli.translate", ["examples/q4k_mmq.mlir", "--target", "ptx", "--arch", "sm_90"]),
    ("compiler.cli.opt", ["examples/q4k_mmq.mlir", "-p", "qdot-accelerate-matmul{arch=sm_90}"]),
], ids=["qdot-translate", "qdot-opt"])
def test_closed_output_is_not_an_internal_error(tool: str, args: list[str]) -> None:
    process = subprocess.Popen([sys.executable, "-m", tool, *args], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the tool writes anything
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 120, stderr
    assert stderr == ""

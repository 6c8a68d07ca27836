"""Run the FileCheck lit suite from pytest, so ``pytest`` is the one command that tests everything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LIT_ROOT = Path(__file__).parent / "lit"


def test_lit_suite() -> None:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    cmd = [sys.executable, "-c", "import lit.main; lit.main.main()", "-q", "--no-progress-bar", str(LIT_ROOT)]
    filt = os.environ.get("QDOT_LIT_FILTER")
    if filt:
        cmd += ["--filter", filt]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    report = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, f"lit suite failed:\n{report}"

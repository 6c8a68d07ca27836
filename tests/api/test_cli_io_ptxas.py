"""What the tools say when ptxas is not what QDOT_PTXAS promises or does not do its job: a
QDOT_PTXAS that names a directory or a file that cannot run is named (not "set QDOT_PTXAS",
which is set); a refusal is said as the tools' own errors are, with the tool and the input
file (not ``<unknown>: error:``); a ptxas that reports success without writing the cubin is
broken, which is not a refusal of the PTX with an empty reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.cli import translate
from compiler.cli.common import ToolError
from targets.ptx.ptxas import PtxasUnavailable, assemble

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "int8_gemm.mlir")
PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n"


def _stand_in(tmp_path: Path, script: str) -> Path:
    path = tmp_path / "ptxas"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


def test_a_directory_is_named_as_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QDOT_PTXAS", str(tmp_path))
    with pytest.raises(PtxasUnavailable) as info:
        assemble(PTX, "sm_90")
    assert str(info.value) == f"ptxas not found: QDOT_PTXAS names '{tmp_path}', a directory, not the ptxas executable"


def test_a_file_that_cannot_run_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "ptxas"
    path.write_text("not a program")
    monkeypatch.setenv("QDOT_PTXAS", str(path))
    with pytest.raises(PtxasUnavailable, match="QDOT_PTXAS names '.*ptxas', which is not an executable file$"):
        assemble(PTX, "sm_90")


def test_a_stand_in_that_writes_nothing_is_broken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    binary = _stand_in(tmp_path, "exit 0\n")
    monkeypatch.setenv("QDOT_PTXAS", str(binary))
    with pytest.raises(PtxasUnavailable) as info:
        assemble(PTX, "sm_90")
    assert str(info.value) == f"ptxas '{binary}' exited with status 0 but produced no output file"


def test_a_silent_refusal_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QDOT_PTXAS", str(_stand_in(tmp_path, "exit 3\n")))
    result = assemble(PTX, "sm_90")
    assert (result.ok, result.log) == (False, "ptxas exited with status 3 and printed no reason")


def test_the_tool_reports_a_refusal_with_its_name_and_the_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("QDOT_PTXAS", str(_stand_in(tmp_path, "echo 'ptxas fatal   : no' >&2\nexit 1\n")))
    assert translate.run([EXAMPLE, "--target", "cubin", "-o", str(tmp_path / "k.cubin")]) == 1
    assert capsys.readouterr().err == (f"qdot-translate: error: {EXAMPLE}: ptxas rejected the PTX for sm_90:\n"
                                       "ptxas fatal   : no\n")


def test_the_tool_reports_a_broken_stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QDOT_PTXAS", str(_stand_in(tmp_path, "exit 0\n")))
    with pytest.raises(ToolError, match="exited with status 0 but produced no output file$"):
        translate.run([EXAMPLE, "--target", "cubin", "-o", str(tmp_path / "k.cubin")])

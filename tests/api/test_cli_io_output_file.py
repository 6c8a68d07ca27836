"""What the tools leave behind when they fail, and what they do without a standard output.

A failed ``qdot-opt -o FILE`` truncated FILE, so ``qdot-opt k.mlir -p ... -o k.mlir`` that failed
deleted its own input; a write that failed half way (``ulimit -f``) left half an output. Both are
now written to a new file that takes the old one's place only when whole. A tool started with its
standard output closed (``>&-``, where Python has no ``sys.stdout``) ended in a traceback or an
"internal error"; it now says the output is closed, or ends as usual where it wrote only ``-o``.
"""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IndexType

from compiler.launch_plan import LaunchPlanError, Parameter, parse_shape

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "int8_gemm.mlir"
MX = ROOT / "examples" / "mx_gemm_e4m3_e2m1.mlir"


def _tool(module: str, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"compiler.cli.{module}", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, **kwargs)  # type: ignore[call-overload]


def test_a_failed_run_leaves_its_output_file_as_it_was(tmp_path: Path) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_bytes(MX.read_bytes())
    done = _tool("opt", str(kernel), "-p", "qdot-accelerate-matmul{arch=sm_80 strategy=native}", "-o", str(kernel))
    assert done.returncode == 1 and "strategy 'native' needs" in done.stderr, done.stderr
    assert kernel.read_bytes() == MX.read_bytes()  # the input, written over in place, was emptied
    fresh = tmp_path / "fresh.mlir"
    assert _tool("opt", str(kernel), "-p", "qdot-accelerate-matmul{arch=sm_80 strategy=native}",
                 "-o", str(fresh)).returncode == 1
    assert not fresh.exists()


def test_a_write_that_fails_half_way_leaves_no_half_output(tmp_path: Path) -> None:
    out = tmp_path / "k.ptx"
    out.write_text("the previous output\n")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    done = _tool("translate", str(EXAMPLE), "-o", str(out), preexec_fn=small_files)
    assert (done.returncode, done.stderr) == (1, f"qdot-translate: error: cannot write '{out}': File too large\n")
    assert out.read_text() == "the previous output\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["k.ptx"]  # nor a temporary file beside it


def test_an_output_file_keeps_its_mode_and_links_and_devices_are_written_through(tmp_path: Path) -> None:
    target = tmp_path / "target.mlir"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    assert _tool("opt", str(EXAMPLE), "-o", str(link)).returncode == 0
    assert link.is_symlink() and target.read_text().startswith("builtin.module {")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _tool("translate", str(EXAMPLE), "-o", os.devnull).returncode == 0
    assert Path(os.devnull).is_char_device()


def test_an_empty_output_name_is_refused() -> None:
    done = _tool("opt", str(EXAMPLE), "-o", "")
    assert (done.returncode, done.stderr) == (1, "qdot-opt: error: -o '' names no file (write '-' for standard "
                                                 "output)\n")


def _closed_stdout() -> None:
    os.close(1)


@pytest.mark.parametrize(("module", "args", "message"), [
    ("opt", ["--version"], "qdot-opt: error: cannot write its output: it is closed\n"),
    ("opt", ["--help"], "qdot-opt: error: cannot write its output: it is closed\n"),
    ("bench", ["--help"], "qdot-bench: error: cannot write its output: it is closed\n"),
    ("opt", [str(EXAMPLE)], "qdot-opt: error: cannot write to standard output: it is closed\n"),
    ("translate", [str(EXAMPLE)], "qdot-translate: error: cannot write to standard output: it is closed\n"),
    ("translate", ["--print-pipeline"], "qdot-translate: error: cannot write to standard output: it is closed\n"),
    ("opt", ["--show-dialects"], "qdot-opt: error: cannot write to standard output: it is closed\n"),
], ids=["version", "help", "bench-help", "opt", "translate", "print-pipeline", "show-dialects"])
def test_a_closed_standard_output_is_said(module: str, args: list[str], message: str) -> None:
    done = _tool(module, *args, preexec_fn=_closed_stdout)
    assert (done.returncode, done.stderr) == (1, message)


def test_a_closed_standard_output_does_not_matter_to_a_run_that_writes_a_file(tmp_path: Path) -> None:
    out = tmp_path / "k.mlir"
    done = _tool("opt", str(EXAMPLE), "-o", str(out), preexec_fn=_closed_stdout)
    assert (done.returncode, done.stderr) == (0, "")
    assert out.read_text().startswith("builtin.module {")


def test_a_file_name_that_is_not_utf8_is_printed_in_locations_as_its_bytes(tmp_path: Path) -> None:
    """--print-debuginfo prints the file name in each location; one with a byte that is not UTF-8 was an
    internal UnicodeEncodeError. Its bytes are escaped as MLIR escapes bytes in a string."""
    name = os.path.join(os.fsencode(tmp_path), b"g\xff.mlir")
    with open(name, "wb") as f:
        f.write(EXAMPLE.read_bytes())
    done = subprocess.run([sys.executable, "-m", "compiler.cli.opt", name, "--print-debuginfo"], cwd=ROOT,
                          capture_output=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, b"")
    assert b'g\\FF.mlir":20:3)' in done.stdout


def test_an_integer_in_a_shape_is_written_in_ascii_digits() -> None:
    """``int`` reads '１２８' (fullwidth) as 128; --grid and the pass options refuse it, and so does --shape."""
    params = [Parameter(0, "m", IndexType())]
    assert parse_shape("m=128", params) == {"m": 128}
    with pytest.raises(LaunchPlanError, match="m must be an integer, got '１２８'"):
        parse_shape("m=１２８", params)


def test_a_ptxas_that_prints_bytes_that_are_not_utf8_is_quoted(tmp_path: Path) -> None:
    """A ptxas (or QDOT_PTXAS stand-in) whose output is not UTF-8 ended the tool in an internal
    UnicodeDecodeError; its refusal is reported with the bytes it cannot show replaced."""
    stand_in = tmp_path / "ptxas"
    stand_in.write_text("#!/bin/sh\nprintf '\\377\\376 garbage\\n' >&2\nexit 1\n")
    stand_in.chmod(0o755)
    done = _tool("translate", str(EXAMPLE), "--verify-ptx", env={**os.environ, "QDOT_PTXAS": str(stand_in)})
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert done.stderr.endswith("ptxas rejected the PTX for sm_90:\n\ufffd\ufffd garbage\n"), done.stderr


def test_a_control_character_quoted_from_a_flag_is_named() -> None:
    """A usage error that quotes a flag's text shows a character a terminal would not (U+0001 here), as the
    parse errors of an input file do."""
    done = _tool("opt", str(EXAMPLE), "-p", "cse\x01")
    assert done.returncode == 1 and "'cseU+0001'" in done.stderr and "\x01" not in done.stderr, done.stderr
